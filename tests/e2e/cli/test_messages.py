"""Whole messages from the CLI, run as a real process: every bad line (capped, counted), the id given and
the choices, a URL's mistake in plain words."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from assay.cli.main import PROBLEMS_SHOWN

ASSAY = [sys.executable, "-m", "assay.cli"]


def assay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASSAY, *args], capture_output=True, text=True, timeout=60, check=False)


def suite(tmp_path: Path, count: int = 3) -> Path:
    path = tmp_path / "suite.jsonl"
    path.write_text(
        "".join(json.dumps({"input": f"q{n}", "expected_output": "true"}) + "\n" for n in range(count))
    )
    return path


def test_run_lists_every_bad_line_of_a_suite_one_a_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad_suite.jsonl"
    bad.write_text('{"input": "a", "expected_output": "true"}\nnot json\n{"input": "b"}\n')
    proc = assay("run", str(bad), "-g", "true-false", "--command", "cat")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("error: The file has 2 problems: line 2: invalid JSON")
    assert lines[1:] == ["  line 3: 'expected_output' is missing"]
    assert "Traceback" not in proc.stderr


def test_many_bad_lines_are_capped_and_counted(tmp_path: Path) -> None:
    bad = tmp_path / "garbage.jsonl"
    bad.write_text("nope\n" * 80)
    proc = assay("run", str(bad), "-g", "true-false", "--command", "cat")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("error: The file has 80 problems: line 1: invalid JSON")
    assert lines[1].startswith("  line 2: invalid JSON")
    assert len(lines) == 1 + PROBLEMS_SHOWN + 1
    assert lines[-1].startswith("  ... and ")


def test_bad_recorded_answers_are_listed_with_their_line_numbers(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"agent_response": "yes"}\ngarbage\n{"case_id": 2}\n[3]\n')
    proc = assay("run", str(suite(tmp_path)), "-g", "true-false", "--responses", str(answers))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "error: 3 answer(s) in answers.jsonl cannot be used"
    assert [line.split(":")[0] for line in lines[1:]] == ["  line 2", "  line 3", "  line 4"]
    assert "missing field(s): agent_response" in lines[2]


def test_an_unknown_grader_names_the_id_a_close_one_and_the_choices() -> None:
    proc = assay("grade", "--grader", "truefalse", "-e", "true", "-r", "yes")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "no grader has the id 'truefalse' (did you mean 'true-false'? registered: " in proc.stderr
    assert "string-match" in proc.stderr


def test_a_url_without_a_scheme_says_what_to_write(tmp_path: Path) -> None:
    proc = assay("run", str(suite(tmp_path)), "-g", "true-false", "--target-url", "127.0.0.1:9000/answer")
    assert proc.returncode == 2
    assert "a URL starts with http:// or https://: write http://127.0.0.1:9000/answer" in proc.stderr
    assert "pattern" not in proc.stderr
    assert proc.stderr.count("\n") == 1
