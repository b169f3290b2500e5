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
        if self.verdict is Verdict.B_WORSE:
            return Shift.REGRESSION
        if self.verdict is Verdict.B_BETTER:
            return Shift.IMPROVEMENT
        return Shift.STEADY
