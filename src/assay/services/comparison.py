"""Comparing two evaluations of one suite case by case: flips, counts and McNemar's exact test."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy.orm import Session

from assay.errors import NotFoundError, ValidationError
from assay.services.statistics import mcnemar_exact, mcnemar_one_sided
from assay.storage import evaluations as store

SIGNIFICANCE = 0.05


class Verdict(StrEnum):
    """The answer to "is B worse than A?" at the 5 % level (one-sided exact McNemar tests)."""

    B_WORSE = "b_worse"
    B_BETTER = "b_better"
    NO_SIGNIFICANT_DIFFERENCE = "no_significant_difference"


class Flip(StrEnum):
    """How a case changed from A to B."""

    REGRESSION = "pass_to_fail"
    IMPROVEMENT = "fail_to_pass"


@dataclass(frozen=True, slots=True)
class FlippedCase:
    """A case that passed in one evaluation and failed in the other."""

    case_id: int
    position: int
    flip: Flip
    input: str
    expected_output: str
    a: dict[str, Any]
    b: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Comparison:
    """Counts over the cases both evaluations finished, the test, and one page of flipped cases."""

    a_id: int
    b_id: int
    suite_id: int
    common_cases: int
    only_in_a: int
    only_in_b: int
    both_passed: int
    both_failed: int
    pass_to_fail: int
    fail_to_pass: int
    a_pass_rate: float | None
    b_pass_rate: float | None
    p_value: float
    p_value_b_worse: float
    p_value_b_better: float
    verdict: Verdict
    flips: list[FlippedCase]
    flips_total: int


def _side(row: store.ResultRow) -> dict[str, Any]:
    return {
        "passed": row.passed,
        "score": row.score,
        "agent_response": row.agent_response,
        "match_status": row.match_status,
        "error": row.error,
    }


def compare(session: Session, a_id: int, b_id: int, *, skip: int = 0, limit: int = 100) -> Comparison:
    """Compare evaluation ``b`` with ``a``; both must have run on the same suite.

    Errors count as failures, as in the pass rate. McNemar's test looks only at the discordant cases.
    """
    a = store.find_evaluation(session, a_id)
    b = store.find_evaluation(session, b_id)
    if a is None or b is None:
        raise NotFoundError("Evaluation not found")
    if a.suite_id != b.suite_id:
        message = f"evaluations {a_id} and {b_id} ran on different suites; only runs of one suite compare"
        raise ValidationError(message, problems=[message])
    in_a = store.outcomes_by_case(session, a_id)
    in_b = store.outcomes_by_case(session, b_id)
    common = in_a.keys() & in_b.keys()
    regressions = sorted(case for case in common if in_a[case][0] and not in_b[case][0])
    improvements = sorted(case for case in common if not in_a[case][0] and in_b[case][0])
    both_passed = sum(1 for case in common if in_a[case][0] and in_b[case][0])
    worse_p = mcnemar_one_sided(len(regressions), len(improvements))
    better_p = mcnemar_one_sided(len(improvements), len(regressions))
    verdict = Verdict.NO_SIGNIFICANT_DIFFERENCE
    if worse_p < SIGNIFICANCE:
        verdict = Verdict.B_WORSE
    elif better_p < SIGNIFICANCE:
        verdict = Verdict.B_BETTER
    flipped = sorted(
        [(case, Flip.REGRESSION) for case in regressions]
        + [(case, Flip.IMPROVEMENT) for case in improvements]
    )
    page = flipped[skip : skip + limit]
    ids = [case for case, _ in page]
    rows_a = store.results_of_cases(session, a_id, ids)
    rows_b = store.results_of_cases(session, b_id, ids)
    flips = [
        FlippedCase(
            case,
            rows_a[case].position,
            flip,
            rows_b[case].input,
            rows_b[case].expected_output,
            _side(rows_a[case]),
            _side(rows_b[case]),
        )
        for case, flip in page
    ]
    flips.sort(key=lambda item: item.position)
    return Comparison(
        a_id=a_id,
        b_id=b_id,
        suite_id=a.suite_id,
        common_cases=len(common),
        only_in_a=len(in_a.keys() - in_b.keys()),
        only_in_b=len(in_b.keys() - in_a.keys()),
        both_passed=both_passed,
        both_failed=len(common) - both_passed - len(regressions) - len(improvements),
        pass_to_fail=len(regressions),
        fail_to_pass=len(improvements),
        a_pass_rate=sum(in_a[case][0] for case in common) / len(common) if common else None,
        b_pass_rate=sum(in_b[case][0] for case in common) / len(common) if common else None,
        p_value=mcnemar_exact(len(regressions), len(improvements)),
        p_value_b_worse=worse_p,
        p_value_b_better=better_p,
        verdict=verdict,
        flips=flips,
        flips_total=len(flipped),
    )
