"""The newcomer's traps of issue 25, each refused in one line with the exit code of its kind (docs/cli.md):
an output path checked before anything runs, a run that cannot work as set up stopped with exit 2, a resumed
run refused when its grader or suite changed or a line's verdict does not grade again to what it says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import SettingsError
from assay.storage.database import create_db_engine
from tests.support.cli import invoke
from tests.support.results import read_header, read_results

CASES = [("Is water wet?", "true"), ("Is fire cold?", "false"), ("Is 2 even?", "true")]


def raising(text: str) -> str:
    """A Python target that cannot work: it raises for every case."""
    raise RuntimeError("no model configured")


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "bools.jsonl"
    path.write_text("".join(json.dumps({"input": i, "expected_output": e}) + "\n" for i, e in CASES))
    return path


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"agent_response": a}) + "\n" for a in ("yes", "yes", "yes")))
    return path


def test_a_junit_path_in_a_missing_folder_is_refused_before_any_case_runs(
    suite: Path, tmp_path: Path
) -> None:
    output = tmp_path / "out.jsonl"
    ran = invoke("run", str(suite), "-g", "true-false", "--python", f"{__name__}:raising",
                 "-o", str(output), "--junit", str(tmp_path / "missing" / "x.xml"))  # fmt: skip
    assert ran.code == 2
    assert f"cannot write --junit {tmp_path}/missing/x.xml: the folder {tmp_path}/missing does not exist" in (
        ran.message
    )
    assert not output.exists()  # nothing ran


def test_grade_file_refuses_an_output_in_a_missing_folder(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"agent_response": "yes", "expected_output": "true"}) + "\n")
    graded = invoke("grade-file", str(rows), "-g", "true-false", "-o", str(tmp_path / "nope" / "o.jsonl"))
    assert graded.code == 2
    assert "does not exist" in graded.message
    assert "Traceback" not in graded.stderr


def test_import_refuses_an_output_in_a_missing_folder(tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    imported = invoke("import", str(chat), "--from", "chat-jsonl", "-o", str(tmp_path / "nope" / "s.jsonl"))
    assert imported.code == 2
    assert f"the folder {tmp_path}/nope does not exist" in imported.message


def test_a_callable_raising_for_every_case_is_a_configuration_error_not_a_failed_gate(suite: Path) -> None:
    ran = invoke("run", str(suite), "-g", "true-false", "--python", f"{__name__}:raising")
    assert ran.code == 2
    assert (
        "error: the Python callable raised for all 3 cases run: RuntimeError: no model configured "
        "(check --python)" in ran.message
    )


def test_the_results_file_records_the_grader_config_and_suite(
    suite: Path, answers: Path, tmp_path: Path
) -> None:
    output = tmp_path / "out.jsonl"
    ran = invoke("run", str(suite), "-g", "true-false", "--responses", str(answers), "-o", str(output),
                 "--min-pass-rate", "0")  # fmt: skip
    assert ran.code == 0, ran.stderr
    header = read_header(output)
    assert header["grader_id"] == "true-false"
    assert header["config"]["case_sensitive"] is False
    assert header["suite_digest"].startswith("sha256:")
    assert [r["number"] for r in read_results(output)] == [1, 2, 3]


def _half_done(suite: Path, answers: Path, output: Path) -> None:
    """A results file as a run killed after its first two cases leaves it."""
    ran = invoke("run", str(suite), "-g", "true-false", "--responses", str(answers), "-o", str(output),
                 "--min-pass-rate", "0")  # fmt: skip
    assert ran.code == 0, ran.stderr
    lines = output.read_bytes().splitlines(keepends=True)
    output.write_bytes(b"".join(lines[:3]))


def test_resume_refuses_another_grader_config(suite: Path, answers: Path, tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    _half_done(suite, answers, output)
    before = output.read_bytes()
    resumed = invoke("run", str(suite), "-g", "true-false", "-c", '{"case_sensitive": true}',
                     "--responses", str(answers), "-o", str(output), "--resume")  # fmt: skip
    assert resumed.code == 2
    assert "out.jsonl cannot be resumed: it was graded by true-false with config" in resumed.message
    assert output.read_bytes() == before


def test_resume_refuses_a_forged_verdict(suite: Path, answers: Path, tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    _half_done(suite, answers, output)
    forged = output.read_text().replace('"passed":false', '"passed":true')  # case #2 answered yes to false
    assert forged != output.read_text()
    output.write_text(forged)
    resumed = invoke("run", str(suite), "-g", "true-false", "--responses", str(answers), "-o", str(output),
                     "--resume")  # fmt: skip
    assert resumed.code == 2
    assert (
        "line 3: case #2: its verdict does not re-grade to what the line says (passed; the answer fails now)"
        in resumed.message
    )


def test_grade_file_with_a_misnamed_column_is_one_line_and_exit_2(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"response": a, "expected_output": "true"}) + "\n" for a in "ab" * 15))
    graded = invoke("grade-file", str(rows), "-g", "true-false")
    assert graded.code == 2
    assert graded.stderr == (
        "error: rows.jsonl line 1: missing field(s): agent_response: each row needs agent_response and "
        "expected_output\n"
    )


def test_a_database_url_naming_a_missing_folder_is_refused_not_created(tmp_path: Path) -> None:
    folder = tmp_path / "no" / "such"
    with pytest.raises(SettingsError, match=f"the folder {folder} of the SQLite database does not exist"):
        create_db_engine(f"sqlite:///{folder / 'a.db'}")
    assert not folder.parent.exists()


def test_version() -> None:
    shown = invoke("--version")
    assert shown.code == 0
    assert shown.stdout.startswith("assay ")
    assert shown.stdout.strip() != "assay"


def test_limit_and_filter_run_part_of_a_suite_keeping_case_numbers(tmp_path: Path) -> None:
    suite = tmp_path / "tagged.jsonl"
    rows = [{"input": f"q{n}", "expected_output": "true", "metadata": {"lang": "fr" if n % 2 else "en"}}
            for n in range(1, 9)]  # fmt: skip
    suite.write_text("".join(json.dumps(row) + "\n" for row in rows))
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"agent_response": "yes"}\n' * 8)
    output = tmp_path / "out.jsonl"
    ran = invoke("run", str(suite), "-g", "true-false", "--responses", str(answers), "-o", str(output),
                 "--filter", "lang=fr", "--limit", "3")  # fmt: skip
    assert ran.code == 0, ran.stderr
    assert "running 3 of the 8 cases (--filter/--limit)" in ran.stderr
    assert [r["number"] for r in read_results(output)] == [1, 3, 5]
    assert ran.stdout == ""  # with --output, stdout holds nothing
    none = invoke("run", str(suite), "-g", "true-false", "--responses", str(answers), "--filter", "lang=de")
    assert none.code == 2
    assert "--filter/--limit take none of the 8 cases" in none.message
    bad = invoke("run", str(suite), "-g", "true-false", "--responses", str(answers), "--filter", "lang")
    assert bad.code == 2
    assert "--filter must look like key=value" in bad.message


def test_the_mean_score_counts_an_errored_case_as_the_pass_rate_does(suite: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"  # case #3 has no answer: an error, which the pass rate counts failed
    answers.write_text("".join(json.dumps({"agent_response": a}) + "\n" for a in ("yes", "no")))
    ran = invoke("run", str(suite), "-g", "true-false", "--responses", str(answers), "--min-pass-rate", "0")
    assert ran.code == 0, ran.stderr
    header = next(line for line in ran.stderr.splitlines() if line.startswith("cases"))
    row = ran.stderr.splitlines()[ran.stderr.splitlines().index(header) + 1].split()
    assert row[:5] == ["3", "2", "1", "1", "66.67%"]
    assert "0.667" in row  # 2 of 3 cases scored 1; the errored case counts 0, not left out (1.000)


def test_grade_file_summary_goes_to_stderr_with_or_without_output(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"agent_response": "yes", "expected_output": "true"}) + "\n")
    to_file = invoke("grade-file", str(rows), "-g", "true-false", "-o", str(tmp_path / "o.jsonl"))
    to_stdout = invoke("grade-file", str(rows), "-g", "true-false")
    assert to_file.code == to_stdout.code == 0
    assert "pass rate" in to_file.stderr
    assert "pass rate" in to_stdout.stderr
    assert to_file.stdout == ""
    assert [json.loads(line)["passed"] for line in to_stdout.stdout.splitlines()] == [True]


def test_resume_grades_a_kept_line_again_by_the_cases_own_assertions(tmp_path: Path) -> None:
    suite = tmp_path / "mixed.jsonl"
    rows = [
        {"key": "open", "input": "Open on Sunday?", "expected_output": "no"},
        {
            "key": "price",
            "input": "Shipping?",
            "expected_output": "4.99",
            "assert": [{"grader_id": "numeric"}],
        },
        {"key": "city", "input": "Capital of France?", "expected_output": "Paris"},
    ]
    suite.write_text("".join(json.dumps(row) + "\n" for row in rows))
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"key": k, "agent_response": a}) + "\n"
            for k, a in [("open", "no"), ("price", "$4.99")]
        )
        + json.dumps({"key": "city", "agent_response": "Lyon"})
        + "\n"
    )
    output = tmp_path / "out.jsonl"
    ran = invoke("run", str(suite), "-g", "string-match", "--responses", str(answers), "-o", str(output),
                 "--min-pass-rate", "0")  # fmt: skip
    assert ran.code == 0, ran.stderr
    assert [r["passed"] for r in read_results(output)] == [True, True, False]  # "$4.99" passes numeric only
    lines = output.read_bytes().splitlines(keepends=True)
    output.write_bytes(b"".join(lines[:3]))  # killed before the last case
    resumed = invoke("run", str(suite), "-g", "string-match", "--responses", str(answers), "-o", str(output),
                     "--resume", "--min-pass-rate", "0")  # fmt: skip
    assert resumed.code == 0, resumed.stderr  # case #2's line re-grades by its own numeric assertion
    assert [r["number"] for r in read_results(output)] == [1, 2, 3]
