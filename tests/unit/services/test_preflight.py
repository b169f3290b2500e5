"""check_cases: every case counted, the first few named, and a failing grader hook never blocks a run."""

from __future__ import annotations

from typing import Any

from assay.graders import StringMatchGrader, TrueFalseGrader
from assay.services.grading.preflight import check_cases


class RaisingHook(TrueFalseGrader):
    def check_expected(self, expected_output: Any) -> str | None:
        raise RuntimeError("plugin bug")


def test_counts_every_case_and_keeps_the_first_problems() -> None:
    cases = ((n, n, f"k{n}" if n > 6 else None, "" if n % 3 == 0 else "x", None) for n in range(1, 10_001))
    report = check_cases(StringMatchGrader(), cases, limit=4)
    assert (report.checked, report.invalid, report.ok) == (10_000, 3_333, False)
    assert [p.case_id for p in report.problems] == [3, 6, 9, 12]
    error = report.error("string-match", "--allow-invalid-expected")
    assert error.problems[0].loc == ("case", 3)
    assert str(error.problems[0]).startswith("case #3: ")
    assert str(error.problems[2]).startswith("case #9: key k9: ")
    assert "3333 of 10000" in error.message


def test_a_hook_that_raises_counts_as_no_problem() -> None:
    report = check_cases(RaisingHook(), [(1, 1, None, "maybe", None)])
    assert (report.checked, report.invalid, report.ok) == (1, 0, True)


ASKED: list[object] = []


class CountingHook(TrueFalseGrader):
    """Graders are immutable once built: what it is asked goes to a list beside it."""

    def check_expected(self, expected_output: Any) -> str | None:
        ASKED.append(expected_output)
        return super().check_expected(expected_output)


def test_each_distinct_expected_output_is_checked_once() -> None:
    ASKED.clear()
    labels = ["true", "false", "maybe", "x" * 300]  # the last is too long to be remembered
    report = check_cases(CountingHook(), ((n, n, None, labels[n % 4], None) for n in range(1, 101)))
    assert (report.checked, report.invalid) == (100, 50)
    assert sorted(ASKED[:4], key=str) == sorted(labels, key=str)
    assert ASKED.count("x" * 300) == 25
    assert len(ASKED) == 3 + 25
