"""``assay eval`` as a real process: ``assay init && assay eval`` on a fresh folder, the 105-case support
agent suite graded in one run with its gates, and configuration errors as exit 2 with one clear line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from tests.support.results import read_results

ASSAY = [sys.executable, "-m", "assay.cli"]
SUPPORT = Path(__file__).resolve().parents[2] / "data" / "eval" / "support"


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASSAY, *args], capture_output=True, text=True, timeout=120, check=False, cwd=cwd)


def test_init_then_eval_runs_on_a_fresh_folder_and_init_never_overwrites(tmp_path: Path) -> None:
    made = assay("init", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["agent.py", "assay.yaml", "suite.jsonl"]
    ran = assay("eval", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    results = read_results(tmp_path / "results.jsonl")
    assert len(results) == 7
    assert all(result["passed"] for result in results)
    cases = ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    assert len(list(cases)) == 7
    assert "gate assertion numeric: 2/2 passed (100.00%), needs 100.00%: held" in ran.stderr
    assert assay("eval", cwd=tmp_path).returncode == 0  # its outputs are written anew, not refused
    assert len(read_results(tmp_path / "results.jsonl")) == 7
    before = (tmp_path / "assay.yaml").read_text()
    again = assay("init", cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.startswith("error: assay.yaml already exists")
    assert (tmp_path / "assay.yaml").read_text() == before


def test_init_into_a_folder_then_eval_by_its_path(tmp_path: Path) -> None:
    assert assay("init", "starter", cwd=tmp_path).returncode == 0
    ran = assay("eval", "starter/assay.yaml", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "starter" / "results.jsonl").is_file()


@pytest.fixture
def support(tmp_path: Path) -> Path:
    """The 105-case support eval, copied (its outputs are written beside its assay.yaml)."""
    folder = tmp_path / "support"
    shutil.copytree(SUPPORT, folder)
    return folder


def test_the_105_case_support_suite_is_graded_in_one_eval_with_its_gates(support: Path) -> None:
    ran = assay("eval", cwd=support)
    assert ran.returncode == 0, ran.stderr
    designed: dict[str, str] = json.loads((support / "designed.json").read_text())
    results = read_results(support / "results.jsonl")
    verdicts = {
        result["key"]: "pass"
        if result["passed"]
        else "unjudged"
        if result["match_status"] == "invalid_response"
        else "fail"
        for result in results
    }
    assert verdicts == designed  # every case, by key, as designed
    assert Counter(verdicts.values()) == {"pass": 89, "fail": 11, "unjudged": 5}
    assert {result["match_status"] for result in results if verdicts[result["key"]] == "fail"} == {"mismatch"}
    lines = ran.stderr.splitlines()
    for gate in (
        "gate pass rate: 89/105 passed (84.76%), needs 80.00%: held",
        "gate lang=en: 66/75 passed (88.00%), needs 85.00%: held",
        "gate lang=de: 12/15 passed (80.00%), needs 80.00%: held",
        "gate lang=fr: 11/15 passed (73.33%), needs 70.00%: held",
        "gate kind=json: 8/10 passed (80.00%), needs 70.00%: held",
        "gate assertion bool: 36/45 passed (80.00%), needs 80.00%: held",
        "gate assertion numeric: 13/15 passed (86.67%), needs 85.00%: held",
    ):
        assert gate in lines
    suite = ET.parse(support / "junit.xml").getroot()
    testsuite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    assert testsuite is not None
    assert len(list(testsuite.iter("testcase"))) == 105
    assert len([case for case in testsuite.iter("testcase") if case.find("failure") is not None]) == 16


def test_a_too_strict_gate_exits_1_naming_it(support: Path) -> None:
    text = (support / "assay.yaml").read_text()
    (support / "assay.yaml").write_text(
        text.replace("value: fr, min_pass_rate: 0.7}", "value: fr, min_pass_rate: 0.8}")
    )
    ran = assay("eval", cwd=support)
    assert ran.returncode == 1, ran.stderr
    lines = ran.stderr.splitlines()
    assert "gate lang=fr: 11/15 passed (73.33%), needs 80.00%: MISSED" in lines
    assert lines[-1] == "1 of 12 gates missed"


def test_filter_and_output_options_override_the_file(support: Path, tmp_path: Path) -> None:
    out = tmp_path / "de.jsonl"
    ran = assay("eval", "--filter", "lang=de", "--output", str(out), cwd=support)
    assert ran.returncode == 1  # the other languages' gates see no case: missed
    assert len(read_results(out)) == 15
    assert "gate lang=de: 12/15 passed (80.00%), needs 80.00%: held" in ran.stderr.splitlines()
    assert "gate lang=en: 0/0 passed (no case), needs 85.00%: MISSED" in ran.stderr.splitlines()
    assert not (support / "results.jsonl").exists()


@pytest.mark.parametrize(
    ("change", "first_line"),
    [
        (
            ("concurrency: 4", "concurency: 4"),
            "error: assay.yaml line 39: unknown key 'concurency' (did you mean 'concurrency'?)",
        ),
        (
            ("  - suite.jsonl", "  - missing.jsonl"),
            "error: assay.yaml line 6: the suite file missing.jsonl does not exist",
        ),
        (
            ("id: string-match", "id: string-macth"),
            "error: assay.yaml line 14: no grader has the id 'string-macth' (did you mean 'string-match'?",
        ),
        (
            ("min_pass_rate: 0.8\n", "min_pass_rate: eighty\n"),
            "error: assay.yaml line 46: gates.min_pass_rate",
        ),
    ],
)
def test_a_configuration_error_exits_2_with_its_line_and_runs_nothing(
    support: Path, change: tuple[str, str], first_line: str
) -> None:
    text = (support / "assay.yaml").read_text()
    assert change[0] in text
    (support / "assay.yaml").write_text(text.replace(change[0], change[1], 1))
    ran = assay("eval", cwd=support)
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.startswith(first_line), ran.stderr
    assert "Traceback" not in ran.stderr
    assert not (support / "results.jsonl").exists()


def test_a_missing_eval_file_exits_2(tmp_path: Path) -> None:
    ran = assay("eval", cwd=tmp_path)
    assert ran.returncode == 2
    assert ran.stderr.startswith("error: cannot read assay.yaml: No such file or directory")


def test_the_preflight_refuses_a_case_its_grader_can_never_pass_unless_allowed(tmp_path: Path) -> None:
    (tmp_path / "suite.jsonl").write_text(
        '{"input": "Is it?", "expected_output": "true"}\n{"input": "And this?", "expected_output": "maybe"}\n'
    )
    (tmp_path / "answers.jsonl").write_text('{"agent_response": "yes"}\n{"agent_response": "yes"}\n')
    text = "suites: [suite.jsonl]\ntarget: {type: responses, path: answers.jsonl}\ngrader: {id: true-false}\n"
    (tmp_path / "assay.yaml").write_text(text)
    refused = assay("eval", cwd=tmp_path)
    assert refused.returncode == 2
    assert "case #2" in refused.stderr
    assert "Traceback" not in refused.stderr
    (tmp_path / "assay.yaml").write_text(text + "allow_invalid_expected: true\n")
    ran = assay("eval", cwd=tmp_path)
    assert ran.returncode == 1  # ran: case #2 cannot pass, and without gates every case must
    assert "1 of 2 did not pass" in ran.stderr


def test_several_suites_run_in_turn_each_with_its_own_outputs_and_gates_over_all(tmp_path: Path) -> None:
    for name, expected in (("billing", ("true", "false")), ("shipping", ("true", "true"))):
        rows = [
            {"input": f"{name} {n}?", "expected_output": e, "metadata": {"area": name}}
            for n, e in enumerate(expected)
        ]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (tmp_path / "assay.yaml").write_text(
        """\
suites: [billing.jsonl, shipping.jsonl]
target: {type: recorded, responses: {"1": "yes", "2": "no"}}
grader: {id: true-false}
outputs: {results: out/results.jsonl}
gates:
  min_pass_rate: 0.75
  by_metadata: [{key: area, min_pass_rate: 0.5}]
"""
    )
    (tmp_path / "out").mkdir()
    ran = assay("eval", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert [r["passed"] for r in read_results(tmp_path / "out" / "results.billing.jsonl")] == [True, True]
    shipping = sorted(read_results(tmp_path / "out" / "results.shipping.jsonl"), key=lambda r: r["number"])
    assert [r["passed"] for r in shipping] == [True, False]
    lines = ran.stderr.splitlines()
    assert "all suites: 3/4 passed" in lines
    assert "gate pass rate: 3/4 passed (75.00%), needs 75.00%: held" in lines
    assert "gate area=billing: 2/2 passed (100.00%), needs 50.00%: held" in lines
    assert "gate area=shipping: 1/2 passed (50.00%), needs 50.00%: held" in lines
