"""``assay run`` survives being stopped: real processes, signals and a loopback agent that holds calls on cue.

The agent answers the first cases at once and holds the others until the test releases them, so what is in
flight when a signal lands is known, not a matter of timing.
"""

from __future__ import annotations

import array
import fcntl
import json
import os
import queue
import signal
import subprocess
import sys
import termios
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests.support.agent_server import AgentBehaviour, AgentServer, Fault
from tests.support.results import parse_results
from tests.support.waiting import wait_for

# Each test signals only the `assay run` it started, and what is in flight when a signal lands is held by the
# agent, not timed: these tests run beside any other (outside the xdist group "processes" of the tests whose
# heartbeat deadlines a second heavy test would stretch).

ASSAY = [sys.executable, "-m", "assay.cli"]
CASES = 40
HEADER_AT_MOST = 4096  # bytes of a results file's header line (grader, config, suite digest)
ANSWERED_AT_ONCE = 8
WORKERS = 4
WAIT_S = 60.0


def question(number: int) -> str:
    return f"Is {number} odd?"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "odd.jsonl"
    rows = [
        {"key": f"q{n}", "input": question(n), "expected_output": "true" if n % 2 else "false"}
        for n in range(1, CASES + 1)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    """Right answers; every case after the first eight held until ``release()``."""
    behaviour = AgentBehaviour(
        answers={question(n): "yes" if n % 2 else "no" for n in range(1, CASES + 1)},
        faults={question(n): Fault("hold") for n in range(ANSWERED_AT_ONCE + 1, CASES + 1)},
    )
    with AgentServer(behaviour) as server:
        yield server


def start(suite: Path, agent: AgentServer, output: Path, *extra: str) -> subprocess.Popen[str]:
    command = [*ASSAY, "run", str(suite), "-g", "true-false", "--target-url", agent.url]
    command += ["-j", str(WORKERS), "-o", str(output), *extra]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until(condition: Callable[[], bool], what: str) -> None:
    wait_for(condition, WAIT_S, what=what)


def whole_lines(path: Path) -> list[dict[str, Any]]:
    """The results of a results file, which must hold whole JSON lines only."""
    data = path.read_bytes()
    assert not data or data.endswith(b"\n"), "the last line is cut"
    return parse_results(data)


def count_lines(path: Path) -> int:
    """The results written so far (the header line not counted)."""
    return max(0, path.read_bytes().count(b"\n") - 1) if path.exists() else 0


class StderrLines:
    """Lines of a process's stderr, read by a thread as they come."""

    def __init__(self, stream: IO[str]) -> None:
        self.seen: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line)

    def wait_for(self, text: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while not any(text in line for line in self.seen):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"gave up waiting for {text!r} on stderr; saw {self.seen}")
            try:
                self.seen.append(self._lines.get(timeout=remaining))
            except queue.Empty:
                continue

    def rest(self) -> str:
        """Everything the process wrote (it has exited)."""
        self._reader.join(timeout=WAIT_S)
        while not self._lines.empty():
            self.seen.append(self._lines.get())
        return "".join(self.seen)


def in_flight(agent: AgentServer) -> bool:
    """Whether every worker holds a call: the eight cases answered at once, and four held."""
    return len(agent.requests) >= ANSWERED_AT_ONCE + WORKERS


def test_a_killed_run_leaves_whole_lines(suite: Path, agent: AgentServer, tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    process = start(suite, agent, output)
    try:
        wait_until(lambda: count_lines(output) >= ANSWERED_AT_ONCE, "the first results on disk")
        wait_until(lambda: in_flight(agent), "calls in flight")
    finally:
        process.kill()
        process.communicate(timeout=WAIT_S)
    results = whole_lines(output)
    assert sorted(result["number"] for result in results) == list(range(1, ANSWERED_AT_ONCE + 1))


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_lets_the_calls_in_flight_finish_and_writes_the_reports(
    suite: Path, agent: AgentServer, tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    output, junit = tmp_path / "out.jsonl", tmp_path / "junit.xml"
    with start(suite, agent, output, "--junit", str(junit)) as process:
        assert process.stderr is not None
        stderr = StderrLines(process.stderr)
        wait_until(lambda: in_flight(agent), "calls in flight")
        process.send_signal(signum)
        stderr.wait_for(f"{signum.name}: stopping")
        agent.release()  # the calls in flight answer now; no new case may be sent
        assert process.wait(timeout=WAIT_S) == code
        message = " ".join(stderr.rest().split())
    in_flight_then = ANSWERED_AT_ONCE + WORKERS
    assert len(agent.requests) == in_flight_then
    results = whole_lines(output)
    assert sorted(result["number"] for result in results) == list(range(1, in_flight_then + 1))
    assert all(result["passed"] for result in results)
    report = ET.parse(junit).getroot()
    counts = ("tests", "failures", "errors", "skipped")
    assert tuple(report.get(name) for name in counts) == (  # the cases never run listed, as skipped
        str(CASES),
        "0",
        "0",
        str(CASES - in_flight_then),
    )
    assert f"interrupted by {signum.name}: {in_flight_then} of {CASES} cases have a result" in message
    assert "--resume" in message


@pytest.mark.parametrize("again", [True, False], ids=["second signal", "drain time out"])
def test_calls_in_flight_are_abandoned_on_a_second_signal_or_after_the_drain_time(
    suite: Path, agent: AgentServer, tmp_path: Path, again: bool
) -> None:
    output = tmp_path / "out.jsonl"
    with start(suite, agent, output) as process:
        assert process.stderr is not None
        stderr = StderrLines(process.stderr)
        wait_until(lambda: in_flight(agent), "calls in flight")
        process.send_signal(signal.SIGTERM)
        stderr.wait_for("SIGTERM: stopping")
        if again:
            process.send_signal(signal.SIGTERM)
        # the held calls never answer: the run ends on the second signal, or once the drain time is over
        assert process.wait(timeout=WAIT_S) == 143
        stderr.rest()
    assert sorted(result["number"] for result in whole_lines(output)) == list(range(1, ANSWERED_AT_ONCE + 1))
    assert len(agent.requests) == ANSWERED_AT_ONCE + WORKERS


def test_resume_after_a_kill_calls_only_the_cases_without_a_result(
    suite: Path, agent: AgentServer, tmp_path: Path
) -> None:
    output = tmp_path / "out.jsonl"
    process = start(suite, agent, output)
    try:
        wait_until(lambda: count_lines(output) >= ANSWERED_AT_ONCE, "the first results on disk")
        wait_until(lambda: in_flight(agent), "calls in flight")
    finally:
        process.kill()
        process.communicate(timeout=WAIT_S)
    kept = {result["number"] for result in whole_lines(output)}
    assert kept == set(range(1, ANSWERED_AT_ONCE + 1))
    refused = start(suite, agent, output)  # without --resume, the results are never overwritten
    assert refused.wait(timeout=WAIT_S) == 2
    assert "already holds results: give --resume" in " ".join((refused.communicate()[1]).split())
    agent.release()
    resumed = start(suite, agent, output, "--resume")
    _, err = resumed.communicate(timeout=WAIT_S)
    assert resumed.returncode == 0, err
    assert f"resuming: {ANSWERED_AT_ONCE} of {CASES} cases already have a result" in " ".join(err.split())
    results = whole_lines(output)
    assert sorted(result["number"] for result in results) == list(range(1, CASES + 1))  # each case once
    calls = {n: agent.count(question(n)) for n in range(1, CASES + 1)}
    held_when_killed = range(ANSWERED_AT_ONCE + 1, ANSWERED_AT_ONCE + WORKERS + 1)
    assert {n for n, count in calls.items() if count == 2} == set(held_when_killed)
    assert all(
        calls[n] == 1 for n in calls if n not in held_when_killed
    )  # a kept result is never asked again


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASSAY, "run", *args], capture_output=True, text=True, timeout=WAIT_S, check=False)


def test_resume_repairs_a_cut_last_line_and_refuses_another_suites_results(
    suite: Path, tmp_path: Path
) -> None:
    responses = tmp_path / "answers.jsonl"
    responses.write_text(
        "".join(json.dumps({"agent_response": "yes" if n % 2 else "no"}) + "\n" for n in range(1, CASES + 1))
    )
    output, junit = tmp_path / "out.jsonl", tmp_path / "junit.xml"
    common = [str(suite), "-g", "true-false", "--responses", str(responses), "-o", str(output)]
    assert run(*common).returncode == 0
    lines = output.read_bytes().splitlines(keepends=True)
    cut = json.loads(lines[-1])["number"]
    output.write_bytes(b"".join(lines[:-1]) + lines[-1][:20])  # as a kill in the middle of a write leaves it
    resumed = run(*common, "--resume", "--junit", str(junit))
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {CASES - 1} of {CASES} cases already have a result" in " ".join(resumed.stderr.split())
    results = whole_lines(output)
    assert sorted(result["number"] for result in results) == list(range(1, CASES + 1))
    assert results[-1]["number"] == cut  # run again, appended after the lines kept
    assert ET.parse(junit).getroot().get("tests") == str(CASES)  # the report covers old and new results
    assert "Summary" in resumed.stderr
    again = run(*common, "--resume")  # nothing left to run: the summary and the gate of the whole run
    assert again.returncode == 0, again.stderr
    assert whole_lines(output) == results
    other = tmp_path / "other.jsonl"
    other.write_text(suite.read_text().replace("Is 3 odd?", "Is three odd?"))
    refused = run(
        str(other), "-g", "true-false", "--responses", str(responses), "-o", str(output), "--resume"
    )
    assert refused.returncode == 2
    assert "the suite file has changed since it was written" in " ".join(refused.stderr.split())
    assert whole_lines(output) == results  # refused, untouched


def test_resume_needs_output(suite: Path) -> None:
    proc = run(str(suite), "-g", "true-false", "--command", "cat", "--resume")
    assert proc.returncode == 2
    assert "--resume needs --output" in proc.stderr


def _available(descriptor: int) -> int:
    """Bytes waiting to be read from a pipe."""
    waiting = array.array("i", [0])
    fcntl.ioctl(descriptor, termios.FIONREAD, waiting)
    return waiting[0]


def test_a_signal_stops_a_recorded_run_after_the_case_being_graded(tmp_path: Path) -> None:
    """Recorded answers are graded in a plain loop (no event loop): a signal stops it between two cases. Its
    results go to a FIFO that the test leaves unread until the signal is sent, so the run is held in its
    first writes (a batch is larger than a pipe holds) when the signal lands, and far from its end."""
    count = 5000
    suite, answers = tmp_path / "suite.jsonl", tmp_path / "answers.jsonl"
    suite.write_text(
        "".join(json.dumps({"input": question(n), "expected_output": "true"}) + "\n" for n in range(count))
    )
    answers.write_text('{"agent_response": "yes"}\n' * count)
    output = tmp_path / "results.fifo"
    os.mkfifo(output)
    reader = os.open(output, os.O_RDONLY | os.O_NONBLOCK)
    command = [*ASSAY, "run", str(suite), "-g", "true-false", "--responses", str(answers), "-o", str(output)]
    received = bytearray()
    try:
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
            # Past the results file's header line (its first, small write): cases' results are being written.
            wait_until(lambda: _available(reader) > HEADER_AT_MOST, "the first results")
            process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline:
                try:
                    chunk = os.read(reader, 1 << 16)
                except BlockingIOError:
                    time.sleep(0.01)
                    continue
                if not chunk:
                    break  # the run closed its results file
                received += chunk
            _, stderr = process.communicate(timeout=WAIT_S)
    finally:
        os.close(reader)
    assert process.returncode == 143, stderr
    lines = parse_results(bytes(received))
    assert received.endswith(b"\n")
    assert 0 < len(lines) < count
    assert [line["number"] for line in lines] == list(range(1, len(lines) + 1))
    message = " ".join(stderr.split())
    assert "SIGTERM: stopping; no new case was sent after the one being graded" in message
    assert f"interrupted by SIGTERM: {len(lines)} of {count} cases have a result" in message
