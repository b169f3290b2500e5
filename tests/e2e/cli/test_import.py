"""``assay import`` as a real process: rows on stdout or in -o, a report per line on stderr, exit 2 with one
clear line (never a traceback) for a file or check that cannot be imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli_batch import Command, invoke_in_one_process

DATA = Path(__file__).resolve().parents[2] / "data" / "imports"
ASSAY = [sys.executable, "-m", "assay.cli"]


def assay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASSAY, *args], capture_output=True, text=True, timeout=60, check=False)


def test_import_writes_the_suite_and_reports_each_line(tmp_path: Path) -> None:
    out = tmp_path / "suite.jsonl"
    proc = assay("import", str(DATA / "promptfooconfig.yaml"), "--from", "promptfoo", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 3
    assert rows[0]["assert"][1]["grader_id"] == "string-match"
    report = proc.stderr.splitlines()
    assert report[0].startswith("line 12: mapped assertion 1 (not-contains) at line 9 -> ")
    assert report[-1] == "3 rows from promptfooconfig.yaml"


def test_import_prints_rows_on_stdout_without_an_output(tmp_path: Path) -> None:
    proc = assay("import", str(DATA / "chat.jsonl"), "--from", "chat-jsonl")
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["expected_output"] for line in proc.stdout.splitlines()] == [
        "Open Settings, choose Security, then Reset password.",
        "No, sorry.",
    ]


def test_an_unsupported_check_exits_2_naming_file_line_and_check_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "suite.jsonl"
    proc = assay("import", str(DATA / "promptfoo_unsupported.yaml"), "--from", "promptfoo", "-o", str(out))
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert lines[0].startswith(
        "error: promptfoo_unsupported.yaml line 3: assertion 2 (javascript) at line 8 cannot be represented"
    )
    assert lines[1].startswith("  line 10: assertion 1 (contains-json) at line 13 cannot be represented")
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_drop_unsupported_lists_each_dropped_check(tmp_path: Path) -> None:
    out = tmp_path / "suite.jsonl"
    proc = assay(
        "import",
        str(DATA / "promptfoo_unsupported.yaml"),
        "--from",
        "promptfoo",
        "-o",
        str(out),
        "--drop-unsupported",
    )
    assert proc.returncode == 0, proc.stderr
    assert "DROPPED assertion 2 (javascript) at line 8" in proc.stderr
    assert "DROPPED assertion 1 (contains-json) at line 13" in proc.stderr
    assert proc.stderr.splitlines()[-1] == "2 rows from promptfoo_unsupported.yaml; 2 dropped"
    assert len(out.read_text().splitlines()) == 2


def test_openai_evals_reads_the_eval_file_given() -> None:
    proc = assay(
        "import",
        str(DATA / "openai_data.jsonl"),
        "--from",
        "openai-evals",
        "--eval",
        str(DATA / "openai_eval.json"),
        "--drop-unsupported",  # its score_model and label_model criteria: no judge is given
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [row["assert"][0]["expected_output"] for row in rows] == ["Hardware", "Software", "Other"]
    assert "DROPPED criterion 4 (quality): it is judged by a model" in proc.stderr
    assert proc.stderr.splitlines()[-1] == "3 rows from openai_data.jsonl; 6 dropped"


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("tests: [unclosed\n")
    cases = [
        (["import", str(broken), "--from", "promptfoo"], "error: broken.yaml line 2: not valid YAML"),
        (["import", str(tmp_path / "absent.jsonl"), "--from", "inspect"], "error: cannot read"),
        (
            ["import", str(broken), "--from", "inspect", "--prompt", "x"],
            "error: --prompt is for --from promptfoo",
        ),
    ]
    *refused, proc = invoke_in_one_process(  # in one process
        [*(Command(tuple(args)) for args, _ in cases), Command(("import", str(broken), "--from", "langfuse"))]
    )
    for (_, start), ran in zip(cases, refused, strict=True):
        assert ran.code == 2, ran.stderr
        assert ran.stderr.startswith(start), ran.stderr
        assert "Traceback" not in ran.stderr
    assert proc.code == 2
    assert "'langfuse' is not one of" in proc.stderr


def test_model_judged_checks_need_a_judge_and_ask_the_one_given(tmp_path: Path) -> None:
    config = str(DATA / "promptfoo_judged.yaml")
    refused = assay("import", config, "--from", "promptfoo")
    assert refused.returncode == 2
    assert "does not say where the judge is: give the import one (assay import --judge" in refused.stderr
    assert "Traceback" not in refused.stderr
    out = tmp_path / "suite.jsonl"
    proc = assay("import", config, "--from", "promptfoo", "--judge", str(DATA / "judge.json"), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    first, second = (json.loads(line)["assert"] for line in out.read_text().splitlines())
    assert first[1]["config"]["base_url"] == "http://127.0.0.1:11434/v1"
    assert (first[1]["config"]["rubric"], first[1]["config"]["threshold"]) == (
        "The answer names Paris as the capital and is polite",
        0.7,
    )
    assert second[1]["grader_id"] == "not"
    assert "model-judged" in proc.stderr
    flags = assay(
        "import", config, "--from", "promptfoo", "--judge-url", "ftp://judge", "--judge-key-env", "K"
    )
    assert flags.returncode == 2
    assert "--judge-url" in flags.stderr
    assert "Traceback" not in flags.stderr
