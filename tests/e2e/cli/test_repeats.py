"""``assay eval`` and ``assay run`` with repeats as real processes, against a real seeded flaky agent on
loopback: pass@k and pass^k meet their expected values, a run resumes per (case, repeat), gates per case
and on pass@k judge the run (issue 27)."""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.agent_server import AgentBehaviour, AgentServer
from tests.support.cli_batch import Command, invoke_in_one_process
from tests.support.results import read_results

ASSAY = [sys.executable, "-m", "assay.cli"]
CASES = 100
REPEATS = 5
CHANCES = [random.Random(27).random() for _ in range(CASES)]
"""Case i passes with chance CHANCES[i]: drawn once, from a seeded generator."""


def question(number: int) -> str:
    return f"question {number}"


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASSAY, *args], capture_output=True, text=True, timeout=120, check=False, cwd=cwd)


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    behaviour = AgentBehaviour(
        default="right",
        wrong="wrong",
        pass_chance={question(n): chance for n, chance in enumerate(CHANCES, 1)},
        seed=11,
    )
    with AgentServer(behaviour) as server:
        yield server


@pytest.fixture
def folder(tmp_path: Path, agent: AgentServer) -> Path:
    cases = [{"input": question(n), "expected_output": "right"} for n in range(1, CASES + 1)]
    (tmp_path / "suite.jsonl").write_text("".join(json.dumps(case) + "\n" for case in cases))
    (tmp_path / "assay.yaml").write_text(
        "suites: [suite.jsonl]\n"
        f"target: {{type: http, url: '{agent.url}/answer', max_attempts: 1}}\n"
        f"repeats: {REPEATS}\n"
        "concurrency: 16\n"
        "outputs: {results: results.jsonl, junit: junit.xml}\n"
        "gates: {min_pass_rate: 0.2, pass_at_k: [{k: 5, min_rate: 0.6}]}\n"
    )
    return tmp_path


def printed(row: str, stderr: str) -> list[float]:
    """The values of the ``pass@k`` or ``pass^k`` row of the printed repeats table, as fractions."""
    line = next(line for line in stderr.splitlines() if line.startswith(row))
    return [float(value) / 100 for value in re.findall(r"([\d.]+)%", line)]


def test_a_flaky_agents_pass_at_k_and_pass_hat_k_meet_their_expected_values(
    folder: Path, agent: AgentServer
) -> None:
    ran = assay("eval", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    assert Counter(request.input for request in agent.requests) == {
        question(n): REPEATS for n in range(1, CASES + 1)
    }
    results = read_results(folder / "results.jsonl")
    assert sorted((r["number"], r.get("repeat", 0)) for r in results) == [
        (n, r) for n in range(1, CASES + 1) for r in range(REPEATS)
    ]
    at_k, hat_k = printed("pass@k", ran.stderr), printed("pass^k", ran.stderr)
    assert len(at_k) == len(hat_k) == REPEATS
    for k in range(1, REPEATS + 1):
        # Expected values of the estimators under the agent's known chances; the tolerance is 4 standard
        # errors (each case's estimate lies in [0, 1] with mean q: its variance is at most q(1 - q)).
        for got, chances in ((at_k, [1 - (1 - p) ** k for p in CHANCES]), (hat_k, [p**k for p in CHANCES])):
            expected = sum(chances) / CASES
            tolerance = 4 * math.sqrt(sum(q * (1 - q) for q in chances)) / CASES
            assert abs(got[k - 1] - expected) <= tolerance + 0.0005, (k, got, expected, tolerance)
    flaky = re.search(r"Flaky cases \((\d+)", ran.stderr)
    passes = Counter(r["number"] for r in results if r["passed"])
    assert flaky is not None
    assert int(flaky.group(1)) == sum(0 < passes[n] < REPEATS for n in range(1, CASES + 1))
    assert "gate pass@5: 100 cases" in ran.stderr
    junit = (folder / "junit.xml").read_text()
    assert junit.count("<testcase") == CASES * REPEATS
    assert "case #1 (repeat 4): question 1" in junit


def test_gates_per_case_and_on_pass_hat_k_can_miss(folder: Path) -> None:
    text = (folder / "assay.yaml").read_text()
    strict = text.replace(
        "gates: {min_pass_rate: 0.2, pass_at_k: [{k: 5, min_rate: 0.6}]}",
        "gates: {max_failures_per_case: 2, pass_hat_k: [{k: 3, min_rate: 0.9}]}",
    )
    (folder / "assay.yaml").write_text(strict)
    ran = assay("eval", "--repeats", "3", cwd=folder)  # the option replaces the file's repeats
    assert ran.returncode == 1, ran.stderr
    results = read_results(folder / "results.jsonl")
    failures = Counter(r["number"] for r in results if not r["passed"])
    within = sum(failures[n] <= 2 for n in range(1, CASES + 1))
    assert within < CASES  # some cases (chance near 0) fail all three runs
    assert f"gate every case fails at most 2 of its runs: {within}/{CASES} passed" in ran.stderr
    assert re.search(r"gate pass\^3: 100 cases \([\d.]+%\), needs 90.00%: MISSED", ran.stderr)


def test_k_past_the_repeats_and_repeats_of_recorded_answers_are_refused(folder: Path) -> None:
    text = (folder / "assay.yaml").read_text().replace(f"repeats: {REPEATS}", "repeats: 3")
    (folder / "assay.yaml").write_text(text)
    answers = [json.dumps({"number": n, "agent_response": "right"}) + "\n" for n in range(1, CASES + 1)]
    (folder / "answers.jsonl").write_text("".join(answers))
    recording = ("run", "suite.jsonl", "-g", "string-match", "--responses", "answers.jsonl", "--repeats", "2")
    ran, recorded = invoke_in_one_process(  # two refusals, one process
        [Command(("eval",)), Command(recording)], cwd=folder
    )
    assert ran.code == 2
    assert "past repeats (3)" in ran.stderr
    assert recorded.code == 2
    assert "repeats need an agent" in recorded.stderr


def test_a_run_with_repeats_resumes_each_case_and_repeat_once(folder: Path, agent: AgentServer) -> None:
    args = (
        "run",
        "suite.jsonl",
        "-g",
        "string-match",
        "--target-url",
        f"{agent.url}/answer",
        "--repeats",
        "3",
    )
    first = assay(*args, "-o", "out.jsonl", cwd=folder)
    assert first.returncode == 1, first.stderr  # the flaky cases fail some runs
    lines = (folder / "out.jsonl").read_text().splitlines(keepends=True)
    assert len(lines) == 1 + CASES * 3  # the header, then each (case, repeat) once
    kept = lines[: 1 + 120]  # a run stopped after 120 results (the rest never written)
    (folder / "out.jsonl").write_text("".join(kept))
    asked = len(agent.requests)
    resumed = assay(*args, "-o", "out.jsonl", "--resume", cwd=folder)
    assert resumed.returncode == 1, resumed.stderr
    assert f"resuming: 120 of {CASES * 3} cases already have a result" in " ".join(resumed.stderr.split())
    assert len(agent.requests) - asked == CASES * 3 - 120  # only what was missing
    results = read_results(folder / "out.jsonl")
    assert Counter((r["number"], r.get("repeat", 0)) for r in results) == {
        (n, r): 1 for n in range(1, CASES + 1) for r in range(3)
    }
    other, pushed = invoke_in_one_process(  # two refusals, one process
        [
            Command((*args[:-1], "2", "-o", "out.jsonl", "--resume")),
            Command(("push", "out.jsonl", "--server", "http://127.0.0.1:9")),
        ],
        cwd=folder,
    )
    assert other.code == 2
    assert "it asked each case 3 time(s), this run 2" in " ".join(other.stderr.split())
    assert pushed.code == 2  # refused before any connection: a push cannot store repeats yet
    assert "holds a run with repeats (3)" in pushed.stderr
