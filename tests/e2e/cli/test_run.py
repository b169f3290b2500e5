"""``assay run`` as a real process: recorded answers, a loopback HTTP agent, Python and shell targets.

A test of several commands runs them in one process (tests/support/cli_batch.py): one start-up for them all.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.agent_server import AgentBehaviour, AgentServer, Fault
from tests.support.cli import Invoked
from tests.support.cli_batch import Command, invoke_in_one_process
from tests.support.results import read_results

ASSAY = [sys.executable, "-m", "assay.cli"]
CASES = [
    ("Is water wet?", "true"),
    ("Is fire cold?", "false"),
    ("Is 2 even?", "true"),
    ("Is 3 even?", "false"),
]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ASSAY, "run", *args], capture_output=True, text=True, timeout=60, check=False, cwd=cwd
    )


def run_each(*commands: list[str]) -> list[Invoked]:
    """What each ``assay run`` did, all in one process."""
    return invoke_in_one_process([Command(("run", *args)) for args in commands])


def write_suite(path: Path) -> Path:
    path.write_text(
        "".join(
            json.dumps({"id": f"c{n}", "input": i, "expected_output": e}) + "\n"
            for n, (i, e) in enumerate(CASES)
        )
    )
    return path


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "bools.jsonl")


def test_off_a_terminal_the_summary_is_plain_aligned_text(suite: Path, tmp_path: Path) -> None:
    """A CI log gets the summary's figures as columns of text, no box drawing (and no Rich: test_startup)."""
    responses = tmp_path / "answers.jsonl"
    responses.write_text(
        "".join(json.dumps({"agent_response": a}) + "\n" for a in ("yes", "no", "no", "maybe"))
    )
    proc = run(str(suite), "-g", "true-false", "--responses", str(responses), "--min-pass-rate", "0")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    header = lines.index(
        "cases  passed  failed  errors  pass rate  95% CI         mean score  p50 ms  p95 ms  max ms"
    )
    assert lines[header - 1].startswith("Summary (")
    row = lines[header + 1]
    assert row.split()[:5] == ["4", "2", "2", "0", "50.00%"]
    assert row.index("50.00%") == lines[header].index("pass rate")  # aligned under its header
    assert "expected \\ actual  true  false  invalid" in lines
    assert "false              0     1      1" in lines  # expected false: one said false, one was invalid
    assert not any(char in proc.stderr for char in "┃│━─")


def test_recorded_responses_with_outputs_and_a_passing_gate(suite: Path, tmp_path: Path) -> None:
    responses = tmp_path / "answers.jsonl"
    # by case id, in another order, one missing
    rows = [{"case_id": "c3", "agent_response": "no"}, {"id": "c0", "agent_response": "yes"}]
    rows.append({"case_id": "c1", "agent_response": "maybe"})
    responses.write_text("".join(json.dumps(row) + "\n" for row in rows))
    output, junit = tmp_path / "out.jsonl", tmp_path / "junit.xml"
    proc = run(
        str(suite),
        "-g",
        "true-false",
        "--responses",
        str(responses),
        "-o",
        str(output),
        "--junit",
        str(junit),
        "--min-pass-rate",
        "0.5",
    )
    assert proc.returncode == 0, proc.stderr
    assert "Summary" in proc.stderr
    results = sorted(read_results(output), key=lambda r: r["number"])
    assert [(r["number"], r["key"], r["passed"], r["error"]) for r in results] == [
        (1, "c0", True, None),
        (2, "c1", False, None),
        (3, "c2", False, "no_recorded_response"),
        (4, "c3", True, None),
    ]
    assert "case_id" not in results[0]  # a case is its number and key, as on every surface
    report = ET.parse(junit).getroot()
    names = [case.attrib["name"] for case in report.iter("testcase")]
    assert names[0] == "case #1 (key c0): Is water wet?"
    assert report.attrib | {"time": "x"} == {
        "name": "bools",
        "tests": "4",
        "failures": "1",
        "errors": "1",
        "skipped": "0",
        "time": "x",
    }
    assert report.find("testcase/failure") is not None


def test_gate_fails_the_process_below_the_rate(suite: Path, tmp_path: Path) -> None:
    responses = tmp_path / "answers.jsonl"
    responses.write_text("".join(json.dumps({"agent_response": "yes"}) + "\n" for _ in CASES))
    proc = run(str(suite), "-g", "true-false", "--responses", str(responses), "--min-pass-rate", "0.75")
    assert proc.returncode == 1
    assert "below the gate" in proc.stderr
    assert proc.stdout.strip() == "2/4 passed"


def test_http_agent_with_errors_as_data(suite: Path, tmp_path: Path) -> None:
    behaviour = AgentBehaviour(
        answers={"Is fire cold?": "no", "Is 3 even?": "no"},
        default="yes",
        faults={"Is 2 even?": Fault("status", 400)},
    )
    output = tmp_path / "out.jsonl"
    with AgentServer(behaviour) as agent:
        proc = run(
            str(suite),
            "-g",
            "true-false",
            "--target-url",
            agent.url,
            "-H",
            "X-Key: k",
            "-j",
            "2",
            "-o",
            str(output),
        )
        assert agent.requests[0].headers["x-key"] == "k"
    assert proc.returncode == 1, proc.stderr  # no gate: every case must pass, and one is a target error
    assert "did not pass" in proc.stderr
    errors = [line["error"] for line in read_results(output)]
    assert sorted(map(str, errors)) == ["None", "None", "None", "http_400"]


def test_python_callable_and_shell_command(suite: Path, tmp_path: Path) -> None:
    (tmp_path / "my_agent.py").write_text(
        "def answer(text):\n    return 'no' if 'fire' in text or '3' in text else 'yes'\n"
    )
    proc = run(
        str(suite), "-g", "true-false", "--python", "my_agent:answer", "--min-pass-rate", "1", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    proc = run(str(suite), "-g", "string-match", "--command", "cat", "--min-pass-rate", "0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0/4 passed"


TARGETS = [[], ["--command", "cat", "--python", "m:f"]]


@pytest.fixture(scope="module")
def target_refusals(tmp_path_factory: pytest.TempPathFactory) -> list[Invoked]:
    """``assay run`` with each of TARGETS, in one process."""
    suite = write_suite(tmp_path_factory.mktemp("targets") / "bools.jsonl")
    return run_each(*([str(suite), "-g", "true-false", *targets] for targets in TARGETS))


@pytest.mark.parametrize("index", range(len(TARGETS)), ids=["none", "two"])
def test_exactly_one_target(target_refusals: list[Invoked], index: int) -> None:
    proc = target_refusals[index]
    assert proc.code == 2
    assert "exactly one target" in proc.stderr


def test_unknown_grader_and_missing_file(suite: Path) -> None:
    unknown, missing = run_each(
        [str(suite), "-g", "nope", "--command", "cat"],
        ["/no/such/suite.jsonl", "-g", "true-false", "--command", "cat"],
    )
    assert unknown.code == 2
    assert missing.code == 2


def test_csv_and_json_suites_with_metadata(tmp_path: Path) -> None:
    csv_suite = tmp_path / "s.csv"
    csv_suite.write_text('input,expected_output,metadata\nIs ice cold?,true,"{""answer"": ""yes""}"\n')
    json_suite = tmp_path / "s.json"
    json_suite.write_text(
        json.dumps({"cases": [{"input": "Is ice cold?", "expected_output": "true", "answer": "yes"}]})
    )
    named = "(os.environ['ASSAY_CASE_NUMBER'], os.environ['ASSAY_CASE_KEY'], os.environ['ASSAY_CASE_ID'])"
    echo = f"{sys.executable} -c \"import os; print('yes' if {named} == ('1', '', '1') else 'no')\""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"input": "x"}\nnot json\n')
    *good, proc = run_each(
        *(
            [str(suite), "-g", "true-false", "--command", echo, "--min-pass-rate", "1"]
            for suite in (csv_suite, json_suite)
        ),
        [str(bad), "-g", "true-false", "--command", "cat"],
    )
    for ran in good:
        assert ran.code == 0, ran.stderr
    assert proc.code == 2
    assert "The file has 2 problems: line 1: 'expected_output' is missing" in proc.stderr


def test_openai_compatible_target(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_RUN_KEY", "sk-test")
    answers = {"Is fire cold?": "no", "Is 3 even?": "no"}
    with AgentServer(AgentBehaviour(answers=answers, default="yes")) as agent:
        proc = run(
            str(suite), "-g", "true-false", "--openai-model", "tiny", "--openai-base-url", agent.url + "/v1",
            "--api-key-env", "TEST_RUN_KEY", "--system-prompt", "Answer yes or no.", "--min-pass-rate", "1",
        )  # fmt: skip
        assert agent.requests[0].headers["authorization"] == "Bearer sk-test"
        assert agent.requests[0].path == "/v1/chat/completions"
    assert proc.returncode == 0, proc.stderr


def test_preflight_names_cases_the_grader_can_never_pass(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    rows = [("a", "true"), ("b", "maybe"), ("c", "false"), ("d", "")]
    path.write_text("".join(json.dumps({"input": i, "expected_output": e}) + "\n" for i, e in rows))
    refused, allowed = run_each(
        [str(path), "-g", "true-false", "--command", "echo yes"],
        [str(path), "-g", "true-false", "--command", "echo yes", "--allow-invalid-expected"],
    )
    assert refused.code == 2
    assert "2 of 4 cases" in refused.stderr
    assert "case #2: Expected value 'maybe' is not a valid boolean" in refused.stderr
    assert "case #4: Expected value '' is not a valid boolean" in refused.stderr
    assert allowed.code == 1, allowed.stderr  # it ran: 1 of 4 passed, and without a gate all must
    assert "1/4 passed" in allowed.stdout


def test_an_agent_that_cannot_be_reached_is_exit_2_naming_the_url(suite: Path, tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    url = "http://127.0.0.1:9/answer"
    proc = run(
        str(suite), "-g", "true-false", "--target-url", url, "--max-attempts", "1", "--junit", str(junit)
    )
    assert proc.returncode == 2, proc.stderr
    assert f"could not be reached: connection refused to {url}" in " ".join(proc.stderr.split())
    assert ET.parse(junit).getroot().attrib["errors"] == "4"  # the report is still written for CI


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_answers_keyed_from_0_for_a_suite_without_keys_are_refused_naming_their_lines(tmp_path: Path) -> None:
    # The newcomer's trap: 20 cases without keys (numbered 1..20), answers keyed "id": 0..19.
    suite = write_rows(
        tmp_path / "plain.jsonl", [{"input": f"q{n}", "expected_output": "true"} for n in range(20)]
    )
    from_0 = write_rows(tmp_path / "answers.jsonl", [{"id": n, "agent_response": "yes"} for n in range(20)])
    # numbered from 1, they all land where they belong
    from_1 = write_rows(
        tmp_path / "answers-1.jsonl", [{"id": n + 1, "agent_response": "yes"} for n in range(20)]
    )
    proc, numbered = run_each(
        *([str(suite), "-g", "true-false", "--responses", str(answers)] for answers in (from_0, from_1))
    )
    assert proc.code == 2, proc.stderr
    stderr = " ".join(proc.stderr.split())
    rule = "the suite's cases have no keys: they are numbered 1 to 20"
    assert f"line 1: id '0' matches no case ({rule})" in stderr
    assert (numbered.code, numbered.stdout.strip()) == (0, "20/20 passed"), numbered.stderr


def test_a_suite_with_ids_matches_answers_by_key_whatever_their_order(tmp_path: Path) -> None:
    expected = ["true", "false"] * 10
    suite = write_rows(
        tmp_path / "keyed.jsonl",
        [{"id": n, "input": f"q{n}", "expected_output": e} for n, e in enumerate(expected)],
    )
    rows = [{"id": n, "agent_response": "yes" if e == "true" else "no"} for n, e in enumerate(expected)]
    answers = write_rows(tmp_path / "answers.jsonl", rows[::-1])
    output = tmp_path / "out.jsonl"
    # an answer naming no key and one answering a case twice are listed by line, not dropped
    wrong = write_rows(tmp_path / "wrong.jsonl", [*rows, {"id": 20, "agent_response": "yes"}, rows[3]])
    matched, proc = run_each(
        [str(suite), "-g", "true-false", "--responses", str(answers), "-o", str(output)],
        [str(suite), "-g", "true-false", "--responses", str(wrong)],
    )
    assert matched.code == 0, matched.stderr
    lines = read_results(output)
    assert sorted((r["number"], r["key"]) for r in lines)[:2] == [(1, "0"), (2, "1")]
    assert proc.code == 2
    stderr = " ".join(proc.stderr.split())
    assert "line 21: id '20' matches no case (no case of the suite has this key)" in stderr
    assert "line 22: id '3' names a case line 4 already answered" in stderr


def test_a_suite_file_with_a_key_given_twice_names_both_lines(tmp_path: Path) -> None:
    suite = write_rows(
        tmp_path / "twice.jsonl",
        [
            {"id": "a", "input": "q", "expected_output": "true"},
            {"id": "b", "input": "q", "expected_output": "true"},
            {"id": "a", "input": "q", "expected_output": "true"},
        ],
    )
    proc = run(str(suite), "-g", "true-false", "--command", "cat")
    assert proc.returncode == 2
    assert "line 3: key 'a' is also the key of line 1" in " ".join(proc.stderr.split())


def test_test_target_sends_the_first_case_once_and_shows_the_raw_reply_and_the_answer(suite: Path) -> None:
    with AgentServer(AgentBehaviour(answers={"Is water wet?": {"text": "Yes", "n": 1}})) as agent:
        url = f"{agent.url}/answer"
        trial = [str(suite), "-g", "true-false", "--test-target", "--target-url"]
        proc, wrong, down = run_each(
            [*trial, url, "--response-path", "output.text"],
            [*trial, url, "--response-path", "answer"],
            [*trial, "http://127.0.0.1:9/"],
        )
        assert proc.code == 0, proc.stderr
        assert proc.stdout.splitlines() == [
            "case #1 (key c0): Is water wet?",
            f"raw reply (HTTP 200 from {url}; application/json):",
            '{"output": {"text": "Yes", "n": 1}}',
            'answer: "Yes"',
            "verdict: pass (match): Expected and actual values match",
        ]
        # the first case, once by each command: nothing ran
        assert [request.input for request in agent.requests] == ["Is water wet?"] * 2
        assert wrong.code == 2
        assert wrong.stdout.splitlines()[-1] == "answer: none (bad_response: reply has no 'answer')"
    assert down.code == 2
    assert "raw reply: none (nothing came back)" in down.stdout
    assert "connection refused to http://127.0.0.1:9/" in down.stdout


def test_a_command_not_found_is_a_configuration_error_not_a_failed_gate(suite: Path) -> None:
    proc = run(str(suite), "-g", "true-false", "--command", "nosuchbinary-assay")
    assert proc.returncode == 2, proc.stderr
    message = " ".join(proc.stderr.split())
    assert "error: the command failed for all 4 cases run: exit status 127" in message
    assert "(check --command)" in message
