"""``assay compare`` over two results files: flips regressions first, the server's paired test, exit 1 on a
significant regression, ``--json``, and one line (exit 2) for files that cannot be compared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke

CASES = 12


def _run(tmp_path: Path, name: str, answers: list[str], *, suite: str = "suite.jsonl") -> Path:
    """The results file of a run answering the suite's true-false cases with ``answers``."""
    suite_path = tmp_path / suite
    if not suite_path.exists():
        suite_path.write_text(
            "".join(
                json.dumps({"input": f"q{n}", "expected_output": "true"}) + "\n" for n in range(1, CASES + 1)
            )
        )
    responses = tmp_path / f"{name}-answers.jsonl"
    responses.write_text("".join(json.dumps({"agent_response": a}) + "\n" for a in answers))
    output = tmp_path / f"{name}.jsonl"
    ran = invoke("run", str(suite_path), "-g", "true-false", "--responses", str(responses), "-o", str(output),
                 "--min-pass-rate", "0")  # fmt: skip
    assert ran.code == 0, ran.stderr
    return output


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    base = _run(tmp_path, "base", ["yes"] * 10 + ["no"] * 2)
    head = _run(
        tmp_path, "head", ["no"] * 8 + ["yes"] * 4
    )  # 8 regressions (#1-#8), 2 improvements (#11, #12)
    return base, head


def test_flips_are_listed_regressions_first_and_a_split_is_not_a_regression(runs: tuple[Path, Path]) -> None:
    base, head = runs
    compared = invoke("compare", str(base), str(head))
    assert compared.code == 0, compared.stderr  # 8 regressions against 2 improvements: one-sided p 0.055
    lines = compared.stdout.splitlines()
    assert "12 cases in both: both passed 2, both failed 0, pass -> fail 8, fail -> pass 2" in lines
    assert lines.index("Regressions (pass -> fail):") < lines.index("Improvements (fail -> pass):")
    assert lines.index('  case #8: "q8"') < lines.index('  case #11: "q11"')
    assert lines[-1] == (
        "McNemar exact test: p = 0.1094 (B worse: p = 0.05469; B better: p = 0.9893): "
        "no significant difference"
    )


def test_the_test_and_the_exit_code_follow_the_servers_rule(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", ["yes"] * CASES)
    worse = _run(tmp_path, "worse", ["no"] * 8 + ["yes"] * 4)
    compared = invoke("compare", str(base), str(worse), "--json")
    assert compared.code == 1
    data = json.loads(compared.stdout)
    assert (data["pass_to_fail"], data["fail_to_pass"], data["verdict"]) == (8, 0, "b_worse")
    assert data["p_value_b_worse"] == pytest.approx(0.5**8)
    assert [flip["number"] for flip in data["flips"]] == list(range(1, 9))
    back = invoke("compare", str(worse), str(base), "--json")
    assert back.code == 0  # B better: no gate missed
    assert json.loads(back.stdout)["verdict"] == "b_better"
    same = invoke("compare", str(base), str(base))
    assert same.code == 0
    assert "no significant difference" in same.stdout


def test_runs_of_different_suites_or_missing_files_are_one_line_and_exit_2(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", ["yes"] * CASES)
    other_suite = tmp_path / "other-suite.jsonl"
    other_suite.write_text(
        "".join(json.dumps({"input": f"Q{n}", "expected_output": "true"}) + "\n" for n in range(1, CASES + 1))
    )
    other = _run(tmp_path, "other", ["yes"] * CASES, suite="other-suite.jsonl")
    refused = invoke("compare", str(base), str(other))
    assert refused.code == 2
    assert "case #1 differs between base.jsonl and other.jsonl (input or expected output)" in refused.message
    missing = invoke("compare", str(base), str(tmp_path / "nope.jsonl"))
    assert missing.code == 2
    assert "no such results file" in missing.message
    not_ids = invoke("compare", "a", "b", "--server", "http://127.0.0.1:9")
    assert not_ids.code == 2
    assert "with --server, A and B are evaluation ids, got 'a'" in not_ids.message
