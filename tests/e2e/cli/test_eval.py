"""``assay eval`` as a real process: ``assay init && assay eval`` on a fresh folder, the 105-case support
agent suite graded in one run with its gates, and configuration errors as exit 2 with one clear line.

The runs of the support suite, and the configuration errors, each run in one process for the module
(tests/support/cli_batch.py): one start-up for them all.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.cli import Invoked
from tests.support.cli_batch import Command, invoke_in_one_process
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


def support_copy(folder: Path, change: tuple[str, str] | None = None) -> Path:
    """The 105-case support eval copied to ``folder`` (its outputs are written beside its assay.yaml), its
    assay.yaml changed by ``change`` (what to replace, by what) once."""
    shutil.copytree(SUPPORT, folder)
    if change is not None:
        text = (folder / "assay.yaml").read_text()
        assert change[0] in text
        (folder / "assay.yaml").write_text(text.replace(change[0], change[1], 1))
    return folder


@dataclass(frozen=True)
class Ran:
    """What ``assay eval`` did in a copy of the support eval."""

    folder: Path
    proc: Invoked


def eval_each(folders: list[Path], *args: list[str]) -> list[Ran]:
    """``assay eval ARGS`` in each folder, all in one process."""
    commands = [
        Command(("eval", *extra), cwd=str(folder)) for folder, extra in zip(folders, args, strict=True)
    ]
    return [Ran(folder, proc) for folder, proc in zip(folders, invoke_in_one_process(commands), strict=True)]


@pytest.fixture(scope="module")
def support_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """The support eval as designed, with a too strict gate, and filtered to one language with another
    output; by name."""
    root = tmp_path_factory.mktemp("support")
    strict = ("value: fr, min_pass_rate: 0.7}", "value: fr, min_pass_rate: 0.8}")
    folders = {
        "designed": support_copy(root / "designed"),
        "strict": support_copy(root / "strict", strict),
        "filtered": support_copy(root / "filtered"),
    }
    filtered = ["--filter", "lang=de", "--output", str(root / "de.jsonl")]
    ran = eval_each(list(folders.values()), [], [], filtered)
    return dict(zip(folders, ran, strict=True))


def test_the_105_case_support_suite_is_graded_in_one_eval_with_its_gates(
    support_runs: dict[str, Ran],
) -> None:
    support, ran = support_runs["designed"].folder, support_runs["designed"].proc
    assert ran.code == 0, ran.stderr
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


def test_a_too_strict_gate_exits_1_naming_it(support_runs: dict[str, Ran]) -> None:
    ran = support_runs["strict"].proc
    assert ran.code == 1, ran.stderr
    lines = ran.stderr.splitlines()
    assert "gate lang=fr: 11/15 passed (73.33%), needs 80.00%: MISSED" in lines
    assert lines[-1] == "1 of 12 gates missed"


def test_filter_and_output_options_override_the_file(support_runs: dict[str, Ran]) -> None:
    support, ran = support_runs["filtered"].folder, support_runs["filtered"].proc
    out = support.parent / "de.jsonl"
    assert ran.code == 1  # the other languages' gates see no case: missed
    assert len(read_results(out)) == 15
    assert "gate lang=de: 12/15 passed (80.00%), needs 80.00%: held" in ran.stderr.splitlines()
    assert "gate lang=en: 0/0 passed (no case), needs 85.00%: MISSED" in ran.stderr.splitlines()
    assert not (support / "results.jsonl").exists()


CONFIGURATION_ERRORS = [
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
]


@pytest.fixture(scope="module")
def refused(tmp_path_factory: pytest.TempPathFactory) -> list[Ran]:
    """``assay eval`` on the support eval with each change of CONFIGURATION_ERRORS, in one process."""
    root = tmp_path_factory.mktemp("refused")
    folders = [support_copy(root / str(n), change) for n, (change, _) in enumerate(CONFIGURATION_ERRORS)]
    return eval_each(folders, *([] for _ in folders))


@pytest.mark.parametrize(
    ("index", "first_line"),
    [(n, first_line) for n, (_, first_line) in enumerate(CONFIGURATION_ERRORS)],
    ids=["typo", "missing suite", "unknown grader", "not a number"],
)
def test_a_configuration_error_exits_2_with_its_line_and_runs_nothing(
    refused: list[Ran], index: int, first_line: str
) -> None:
    support, ran = refused[index].folder, refused[index].proc
    assert ran.code == 2, ran.stderr
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
    (tmp_path / "allowed.yaml").write_text(text + "allow_invalid_expected: true\n")
    refused, ran = invoke_in_one_process(
        [Command(("eval",), cwd=str(tmp_path)), Command(("eval", "allowed.yaml"), cwd=str(tmp_path))]
    )
    assert refused.code == 2
    assert "case #2" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert ran.code == 1  # ran: case #2 cannot pass, and without gates every case must
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
