"""The paired test of two runs over the same cases: "is B worse than A?" from the cases that changed.

One rule for every surface that compares two runs (the API's compare, a suite's history, ``assay compare``
over results files or server evaluations, the pull request's comment): when each run asked each case once,
one-sided exact McNemar tests on the cases that flipped; when either asked them several times (repeats),
a sign-flip permutation test on the per-case pass rates (:func:`.repeats.sign_flip_test`); both at
:data:`SIGNIFICANCE`, the two-sided p-value shown. A change is a regression or an improvement only when
significant. :meth:`PairedFigures.of_cases` chooses the test; :meth:`PairedFigures.of` is its McNemar
branch, for counts a database aggregated.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from assay.services.figures.repeats import sign_flip_test
from assay.services.figures.statistics import Shift, mcnemar_exact, mcnemar_one_sided

SIGNIFICANCE = 0.05


class Verdict(StrEnum):
    """The answer to "is B worse than A?" at the 5 % level (one-sided exact McNemar tests)."""

    B_WORSE = "b_worse"
    B_BETTER = "b_better"
    NO_SIGNIFICANT_DIFFERENCE = "no_significant_difference"


class PairedMethod(StrEnum):
    """Which paired test judged a pair of runs."""

    MCNEMAR = "mcnemar"
    """Exact McNemar on the cases that flipped: each run asked each case once."""
    SIGN_FLIP = "sign_flip"
    """Sign-flip permutation test on per-case pass rates: a run asked its cases several times."""

    @property
    def described(self) -> str:
        """How a report names the test."""
        if self is PairedMethod.MCNEMAR:
            return "McNemar exact test"
        return "sign-flip permutation test on per-case pass rates"


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
    method: PairedMethod = PairedMethod.MCNEMAR
    same_rate: int = 0

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

    @classmethod
    def of_differences(cls, differences: list[float]) -> PairedTest:
        """The test of per-case pass rate differences (B's minus A's), by sign flips."""
        test = sign_flip_test(differences)
        verdict = Verdict.NO_SIGNIFICANT_DIFFERENCE
        if test.p_value_b_worse < SIGNIFICANCE:
            verdict = Verdict.B_WORSE
        elif test.p_value_b_better < SIGNIFICANCE:
            verdict = Verdict.B_BETTER
        return cls(test.p_value, test.p_value_b_worse, test.p_value_b_better, verdict)

    @property
    def shift(self) -> Shift:
        """The verdict as a history reads it: B against the run before it."""
        return _SHIFTS[self.verdict]


_SHIFTS = {
    Verdict.B_WORSE: Shift.REGRESSION,
    Verdict.B_BETTER: Shift.IMPROVEMENT,
    Verdict.NO_SIGNIFICANT_DIFFERENCE: Shift.STEADY,
}


@dataclass(frozen=True, slots=True)
class CaseRuns:
    """One case's passes of its runs in A and in B (one run each without repeats)."""

    a_passed: int
    a_runs: int
    b_passed: int
    b_runs: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PairedFigures:
    """B against A over the cases both finished: the counts, both pass rates and the paired test. Written
    once for every comparison (a server's evaluations, two results files).

    With repeats a case's "pass" is its pass rate over its runs: ``pass_to_fail`` counts the cases whose
    rate fell, ``fail_to_pass`` those whose rate rose, ``both_passed`` and ``both_failed`` those that passed
    (failed) every run of both, ``same_rate`` the others whose rate did not change; the pass rates are the
    means of the per-case rates."""

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
    method: PairedMethod = PairedMethod.MCNEMAR
    same_rate: int = 0

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

    @classmethod
    def of_cases(cls, *, in_a: int, in_b: int, cases: Iterable[CaseRuns]) -> PairedFigures:
        """The figures of ``in_a`` and ``in_b`` cases, ``cases`` in both: exact McNemar when every case ran
        once on each side, else the sign-flip test on the per-case pass rates."""
        shared = list(cases)
        if all(case.a_runs == case.b_runs == 1 for case in shared):
            flips_worse = sum(case.a_passed > case.b_passed for case in shared)
            flips_better = sum(case.a_passed < case.b_passed for case in shared)
            return cls.of(
                in_a=in_a,
                in_b=in_b,
                common=len(shared),
                a_passed=sum(case.a_passed for case in shared),
                b_passed=sum(case.b_passed for case in shared),
                pass_to_fail=flips_worse,
                fail_to_pass=flips_better,
            )
        a_rates = [case.a_passed / case.a_runs for case in shared]
        b_rates = [case.b_passed / case.b_runs for case in shared]
        differences = [b - a for a, b in zip(a_rates, b_rates, strict=True)]
        test = PairedTest.of_differences(differences)
        both_passed = sum(a == b == 1 for a, b in zip(a_rates, b_rates, strict=True))
        both_failed = sum(a == b == 0 for a, b in zip(a_rates, b_rates, strict=True))
        fell = sum(difference < 0 for difference in differences)
        rose = sum(difference > 0 for difference in differences)
        common = len(shared)
        return cls(
            common_cases=common,
            only_in_a=in_a - common,
            only_in_b=in_b - common,
            both_passed=both_passed,
            both_failed=both_failed,
            pass_to_fail=fell,
            fail_to_pass=rose,
            a_pass_rate=sum(a_rates) / common if common else None,
            b_pass_rate=sum(b_rates) / common if common else None,
            p_value=test.p_value,
            p_value_b_worse=test.p_value_b_worse,
            p_value_b_better=test.p_value_b_better,
            verdict=test.verdict,
            method=PairedMethod.SIGN_FLIP,
            same_rate=common - both_passed - both_failed - fell - rose,
        )

    @property
    def shift(self) -> Shift:
        """The verdict as a history reads it: B against the run before it."""
        return _SHIFTS[self.verdict]

    def as_dict(self) -> dict[str, object]:
        """The figures by name (a comparison's JSON, flat)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}
