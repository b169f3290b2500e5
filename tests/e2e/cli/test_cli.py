"""The grader commands of the ``assay`` CLI, run as a real process.

A test of several commands, and the refusals of one parametrized test, run in one process
(tests/support/cli_batch.py): one start-up for them all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import Invoked
from tests.support.cli_batch import Command, assert_one_line_usage_error, by_arguments, invoke_in_one_process
from tests.support.semantic import require_semantic_extra, shadow_model_package

ASSAY = [sys.executable, "-m", "assay.cli"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ASSAY, *args], capture_output=True, text=True, input=stdin, timeout=60, check=False
    )


def test_grade_prints_match_and_exits_zero() -> None:
    proc = run("grade", "--grader", "true-false", "--expected", "true", "--response", "  Yes  ")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["passed"] is True
    assert result["details"]["match_status"] == "match"


def test_grade_failure_exits_one() -> None:
    proc = run("grade", "-g", "true-false", "-e", "true", "-r", "no")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["details"]["reason"] == "Expected true but got false"


def run_each(*commands: list[str]) -> list[Invoked]:
    """What each command did, all in one process."""
    return invoke_in_one_process([Command(tuple(args)) for args in commands])


GRADE_USAGE_ERRORS = [
    (
        ["-g", "nope"],
        "Grader not found: no grader has the id 'nope' (registered: string-match, true-false",
    ),
    (["-g", "truefalse"], "no grader has the id 'truefalse' (did you mean 'true-false'? registered: "),
    (["-g", "true-false", "--config", "{bad"], "not valid JSON"),
    (["-g", "true-false", "--config", "[1]"], "must be a JSON object"),
    (["-g", "true-false", "--config", '{"case_sensitve": true}'], "case_sensitve"),
]


@pytest.fixture(scope="module")
def grade_refusals() -> dict[str, Invoked]:
    """``assay grade`` with each of GRADE_USAGE_ERRORS, in one process; by its arguments, joined."""
    ran = run_each(*(["grade", *args, "-e", "true", "-r", "yes"] for args, _ in GRADE_USAGE_ERRORS))
    return by_arguments(GRADE_USAGE_ERRORS, ran)


@pytest.mark.parametrize(("args", "message"), GRADE_USAGE_ERRORS)
def test_grade_usage_errors_are_one_line_exit_two(
    grade_refusals: dict[str, Invoked], args: list[str], message: str
) -> None:
    proc = grade_refusals[" ".join(args)]
    assert_one_line_usage_error(proc, message)
    assert "Traceback" not in proc.stderr


def test_graders_json_lists_both() -> None:
    proc = run("graders", "--json")
    assert proc.returncode == 0
    graders = json.loads(proc.stdout)
    assert [g["id"] for g in graders][:2] == ["string-match", "true-false"]
    assert graders[1]["config_schema"]["additionalProperties"] is False


def test_graders_table() -> None:
    proc = run("graders")
    assert proc.returncode == 0
    assert "true-false" in proc.stdout
    assert "string-match" in proc.stdout


def without_semantic_extra(tmp_path: Path) -> dict[str, str]:
    """The environment of a process that finds the semantic model's package but not its model file."""
    shadow = shadow_model_package(tmp_path / "shadow")
    environment = {key: value for key, value in os.environ.items() if key != "ASSAY_SEMANTIC_MODEL_DIR"}
    return {
        **environment,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(shadow), os.environ.get("PYTHONPATH")])),
    }


def test_graders_lists_an_unavailable_grader_with_its_install_command(tmp_path: Path) -> None:
    env = {**without_semantic_extra(tmp_path), "COLUMNS": "400"}
    table = subprocess.run(
        [*ASSAY, "graders"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert table.returncode == 0, table.stderr
    [row] = [line for line in table.stdout.splitlines() if "Unavailable:" in line]
    assert "pip install 'assay[semantic]'" in row
    listed = subprocess.run(
        [*ASSAY, "graders", "--json"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    semantic = {g["id"]: g for g in json.loads(listed.stdout)}["semantic"]
    assert semantic["available"] is False
    assert semantic["unavailable_reason"].endswith("pip install 'assay[semantic]'")


def test_grading_with_an_unavailable_grader_is_one_line_exit_two(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*ASSAY, "grade", "-g", "semantic", "-e", "Paris", "-r", "Paris"],
        capture_output=True,
        text=True,
        env=without_semantic_extra(tmp_path),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "Grader 'semantic' is not available here" in proc.stderr
    assert "pip install 'assay[semantic]'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_grade_with_the_semantic_grader() -> None:
    require_semantic_extra()
    proc = run(
        "grade", "-g", "semantic", "-e", "The capital of France is Paris.", "-r", "Paris is France's capital."
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["details"]["match_status"] == "match"
    assert result["score"] >= 0.8


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_grade_file_jsonl_carries_fields_and_reports_bad_rows(tmp_path: Path) -> None:
    source = write(
        tmp_path / "answers.jsonl",
        '{"id": 1, "agent_response": "yes", "expected_output": "true"}\n'
        "{broken\n"
        '{"id": 3, "agent_response": "no"}\n'
        "\n"
        '{"id": 5, "agent_response": "maybe", "expected_output": "false"}\n',
    )
    output = tmp_path / "results.jsonl"
    proc = run("grade-file", str(source), "--grader", "true-false", "--output", str(output))
    assert proc.returncode == 1, proc.stderr  # without a gate every row must pass; bad rows count as failed
    assert "line 2: invalid JSON" in proc.stderr
    assert "line 3: missing field(s): expected_output" in proc.stderr
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert [row["id"] for row in rows] == [1, 5]
    assert rows[0]["passed"] is True
    assert rows[1]["details"]["match_status"] == "invalid_response"
    assert proc.stdout == ""  # the summary goes to stderr, with --output as without
    assert "invalid_response" in proc.stderr
    assert "25.00%" in proc.stderr  # 1 passed of 2 graded + 2 unreadable
    assert "3 of 4 did not pass" in proc.stderr


def test_grade_file_gate_counts_unreadable_rows_as_failed(tmp_path: Path) -> None:
    good = '{"agent_response": "yes", "expected_output": "true"}\n'
    source = write(tmp_path / "bad.jsonl", good * 3 + "{broken\n" * 4)
    proc, lower = run_each(
        ["grade-file", str(source), "-g", "true-false", "--min-pass-rate", "0.5"],
        ["grade-file", str(source), "-g", "true-false", "--min-pass-rate", "0.4"],
    )
    assert proc.code == 1  # 3 of 7 = 42.86 %, not 100 % of the 3 readable rows
    assert "pass rate 42.86% is below the gate 50.00%" in proc.stderr
    assert lower.code == 0


def test_grade_file_without_rows_does_not_pass(tmp_path: Path) -> None:
    proc = run("grade-file", str(write(tmp_path / "empty.jsonl", "")), "-g", "true-false")
    assert proc.returncode == 1
    assert "nothing was graded" in proc.stderr


def test_grade_file_csv_to_stdout_and_gate(tmp_path: Path) -> None:
    source = write(
        tmp_path / "answers.csv", 'agent_response,expected_output,topic\nyes,true,a\n"no\n",true,b\n1,1\n'
    )
    proc = run("grade-file", str(source), "-g", "true-false", "--min-pass-rate", "0.9")
    assert proc.returncode == 1
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [row["topic"] for row in rows] == ["a", "b"]
    assert rows[1]["agent_response"] == "no\n"  # a quoted cell may span lines
    assert "line 5: 2 cells, the header has 3" in proc.stderr
    assert "below the gate" in proc.stderr


def test_grade_file_string_match_with_config(tmp_path: Path) -> None:
    source = write(tmp_path / "a.jsonl", '{"agent_response": "Paris", "expected_output": "paris"}\n')
    ok, strict = run_each(
        ["grade-file", str(source), "-g", "string-match", "--min-pass-rate", "1"],
        ["grade-file", str(source), "-g", "string-match", "-c", '{"case_sensitive": true}'],
    )
    assert ok.code == 0
    assert json.loads(strict.stdout)["passed"] is False


GRADE_FILE_ERRORS = [
    (["missing.jsonl", "-g", "true-false"], "cannot read missing.jsonl"),
    (["{file}", "-g", "true-false", "-c", "{"], "not valid JSON"),
    (["{file}", "-g", "true-false", "--min-pass-rate", "2"], "between 0 and 1"),
]


@pytest.fixture(scope="module")
def grade_file_refusals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Invoked]:
    """``assay grade-file`` with each of GRADE_FILE_ERRORS, in one process; by its arguments, joined."""
    source = write(
        tmp_path_factory.mktemp("grade-file") / "a.jsonl",
        '{"agent_response": "yes", "expected_output": "true"}\n',
    )
    ran = run_each(
        *(
            ["grade-file", *[arg.replace("{file}", str(source)) for arg in args]]
            for args, _ in GRADE_FILE_ERRORS
        )
    )
    return by_arguments(GRADE_FILE_ERRORS, ran)


@pytest.mark.parametrize(("args", "message"), GRADE_FILE_ERRORS)
def test_grade_file_errors_are_one_line(
    grade_file_refusals: dict[str, Invoked], args: list[str], message: str
) -> None:
    proc = grade_file_refusals[" ".join(args)]
    assert proc.code == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_grade_file_reads_escaped_nul_and_lone_surrogates(tmp_path: Path) -> None:
    line = '{"agent_response": "\\ud800 yes\\u0000", "expected_output": "true"}\n'
    source = write(tmp_path / "odd.jsonl", line)
    proc = run("grade-file", str(source), "-g", "string-match")
    assert proc.returncode == 1, proc.stderr  # graded (a mismatch), not refused
    row = json.loads(proc.stdout)
    assert row["agent_response"] == "\ud800 yes\x00"
    assert row["details"]["match_status"] == "mismatch"


def test_a_preset_fills_the_config_and_a_wrong_one_lists_the_presets() -> None:
    plain, german, wrong, both = run_each(
        ["grade", "-g", "true-false", "-e", "true", "-r", "ja"],
        ["grade", "-g", "true-false", "--preset", "german", "-e", "true", "-r", "ja"],
        ["grade", "-g", "true-false", "--preset", "klingon", "-e", "true", "-r", "ja"],
        ["grade", "-g", "true-false", "-p", "german", "-c", "{}", "-e", "true", "-r", "ja"],
    )
    assert plain.code == 1
    assert german.code == 0, german.stderr
    assert wrong.code == 2
    assert "german" in wrong.stderr
    assert "klingon" in wrong.stderr
    assert both.code == 2
    assert "not both" in both.stderr
