"""The paired test of two runs over the same cases: "is B worse than A?" from the cases that flipped.

One rule for every surface that compares two runs (the API's compare, a suite's history, ``assay compare``
over results files or server evaluations): one-sided exact McNemar tests at :data:`SIGNIFICANCE`, the
two-sided p-value shown. A change is a regression or an improvement only when significant.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from assay.services.figures.statistics import Shift, mcnemar_exact, mcnemar_one_sided

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
class PairedTest:
    """The test of a pair of runs: the two-sided p-value, each one-sided one, and the verdict."""

    p_value: float
    p_value_b_worse: float
    p_value_b_better: float
    verdict: Verdict

    @classmethod
    def of(cls, pass_to_fail: int, fail_to_pass: int) -> PairedTest:
        """The test of ``pass_to_fail`` regressions against ``fail_to_pass`` improvements."""
        worse_p = mcnemar_one_sided(pass_to_fail, fail_to_pass)
        better_p = mcnemar_one_sided(fail_to_pass, pass_to_fail)
        verdict = Verdict.NO_SIGNIFICANT_DIFFERENCE
        if worse_p < SIGNIFICANCE:
            verdict = Verdict.B_WORSE
        elif better_p < SIGNIFICANCE:
            verdict = Verdict.B_BETTER
        return cls(mcnemar_exact(pass_to_fail, fail_to_pass), worse_p, better_p, verdict)

    @property
    def shift(self) -> Shift:
        """The verdict as a history reads it: B against the run before it."""
        return _SHIFTS[self.verdict]


_SHIFTS = {
    Verdict.B_WORSE: Shift.REGRESSION,
    Verdict.B_BETTER: Shift.IMPROVEMENT,
    Verdict.NO_SIGNIFICANT_DIFFERENCE: Shift.STEADY,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class PairedFigures:
    """B against A over the cases both finished: the counts, both pass rates and the paired test. Written
    once for every comparison (a server's evaluations, two results files)."""

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

    @classmethod
    def of(
        cls,
        *,
        in_a: int,
        in_b: int,
        common: int,
        a_passed: int,
        b_passed: int,
        pass_to_fail: int,
        fail_to_pass: int,
    ) -> PairedFigures:
        """The figures of ``in_a`` and ``in_b`` results, ``common`` cases in both, of which A passed
        ``a_passed`` and B ``b_passed``; an errored case counts as failed, as in the pass rate."""
        test = PairedTest.of(pass_to_fail, fail_to_pass)
        both_passed = a_passed - pass_to_fail
        return cls(
            common_cases=common,
            only_in_a=in_a - common,
            only_in_b=in_b - common,
            both_passed=both_passed,
            both_failed=common - both_passed - pass_to_fail - fail_to_pass,
            pass_to_fail=pass_to_fail,
            fail_to_pass=fail_to_pass,
            a_pass_rate=a_passed / common if common else None,
            b_pass_rate=b_passed / common if common else None,
            p_value=test.p_value,
            p_value_b_worse=test.p_value_b_worse,
            p_value_b_better=test.p_value_b_better,
            verdict=test.verdict,
        )

    @property
    def shift(self) -> Shift:
        """The verdict as a history reads it: B against the run before it."""
        return _SHIFTS[self.verdict]

    def as_dict(self) -> dict[str, object]:
        """The figures by name (a comparison's JSON, flat)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}
