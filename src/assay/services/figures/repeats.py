"""Figures of a run that asks each case several times: each case's passes of its repeats, flaky cases,
pass@k and pass^k, and the paired test of two such runs on their per-case pass rates.

pass@k is the unbiased estimator of Chen et al. (2021), "Evaluating Large Language Models Trained on Code":
of a case's ``n`` runs with ``c`` passes, the chance that ``k`` runs drawn without replacement hold at least
one pass, ``1 - C(n-c, k) / C(n, k)``; pass^k (tau-bench's) the chance that all ``k`` pass,
``C(c, k) / C(n, k)``.
Both are averaged over cases, for ``k ≤ n`` only (beyond ``n`` there is no unbiased estimate). Exact integer
binomials (``math.comb``): ``n`` is at most a hundred.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from assay.services.figures.statistics import wilson_interval

MAX_LISTED_FLAKY = 100
"""Flaky cases a summary lists at most (the flakiest first); ``flaky`` counts them all."""
PERMUTATIONS = 9_999
"""Sign flips drawn by the paired test of per-case pass rates; exact (every flip) when there are fewer."""
PERMUTATION_SEED = 20_271
"""The fixed seed of those draws: the same two runs always get the same p-value."""


def pass_at_k(runs: int, passes: int, k: int) -> float:
    """The unbiased chance that ``k`` of a case's ``runs`` (``passes`` of them passed) hold a pass."""
    if not 1 <= k <= runs:
        raise ValueError(f"k must be between 1 and the runs ({runs}), not {k}")
    return 1.0 - math.comb(runs - passes, k) / math.comb(runs, k)


def pass_hat_k(runs: int, passes: int, k: int) -> float:
    """The unbiased chance that ``k`` of a case's ``runs`` (``passes`` of them passed) all pass."""
    if not 1 <= k <= runs:
        raise ValueError(f"k must be between 1 and the runs ({runs}), not {k}")
    return math.comb(passes, k) / math.comb(runs, k)


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseRepeats:
    """One case's passes of its runs, with the Wilson 95 % interval of its pass rate."""

    number: int
    passed: int
    runs: int
    low: float
    high: float

    @property
    def is_flaky(self) -> bool:
        """Some runs passed and some did not."""
        return 0 < self.passed < self.runs


def case_repeats(number: int, passed: int, runs: int) -> CaseRepeats:
    """The record of case ``number``'s ``passed`` of ``runs``."""
    low, high = wilson_interval(passed, runs) or (0.0, 1.0)
    return CaseRepeats(number=number, passed=passed, runs=runs, low=low, high=high)


@dataclass(frozen=True, slots=True, kw_only=True)
class RepeatFigures:
    """A run with repeats: pass@k and pass^k for ``k`` = 1..``repeats`` (averaged over the cases with ``k``
    runs or more), and its flaky cases (some repeats passed, some not)."""

    repeats: int
    cases: int
    """Cases with at least one run."""
    flaky: int
    pass_at_k: list[float]
    """``pass_at_k[k - 1]`` is pass@k."""
    pass_hat_k: list[float]
    """``pass_hat_k[k - 1]`` is pass^k (every one of ``k`` runs passes)."""
    cases_by_failures: list[int] = field(default_factory=list)
    """``cases_by_failures[f]``: how many cases failed ``f`` of their runs (0 to ``repeats``)."""
    flaky_cases: list[CaseRepeats] = field(default_factory=list)
    """Up to :data:`MAX_LISTED_FLAKY` of them, the nearest to half passed first, then in case order."""


class RepeatTally:
    """Passes and runs of each case (by its number), gathered one result at a time (two integers a case)."""

    def __init__(self, repeats: int) -> None:
        self.repeats = repeats
        self.counts: dict[int, list[int]] = {}

    def add(self, number: int, passed: bool) -> None:
        """Count one run of case ``number``."""
        counts = self.counts.get(number)
        if counts is None:
            counts = self.counts[number] = [0, 0]
        counts[0] += passed
        counts[1] += 1

    def figures(self) -> RepeatFigures:
        """The figures of the runs counted so far."""
        # Cases share few (passes, runs) pairs: each pair's estimates are made once, weighted by its cases.
        pairs = Counter((passes, runs) for passes, runs in self.counts.values())
        at_k, hat_k = [], []
        for k in range(1, self.repeats + 1):
            counted = [(passes, runs, cases) for (passes, runs), cases in pairs.items() if runs >= k]
            weight = sum(cases for _, _, cases in counted) or 1
            at_k.append(sum(pass_at_k(runs, passes, k) * cases for passes, runs, cases in counted) / weight)
            hat_k.append(sum(pass_hat_k(runs, passes, k) * cases for passes, runs, cases in counted) / weight)
        flaky = [
            case_repeats(number, passes, runs)
            for number, (passes, runs) in sorted(self.counts.items())
            if 0 < passes < runs
        ]
        flaky.sort(key=lambda case: abs(case.passed / case.runs - 0.5))
        by_failures = [0] * (self.repeats + 1)
        for passes, runs in self.counts.values():
            by_failures[min(runs - passes, self.repeats)] += 1
        return RepeatFigures(
            repeats=self.repeats,
            cases=len(self.counts),
            flaky=len(flaky),
            pass_at_k=at_k,
            pass_hat_k=hat_k,
            cases_by_failures=by_failures,
            flaky_cases=flaky[:MAX_LISTED_FLAKY],
        )


@dataclass(frozen=True, slots=True)
class SignFlipTest:
    """One-sided p-values of a sign-flip permutation test on paired differences (B's rate minus A's)."""

    p_value: float
    """Two-sided: the mean difference is as far from 0 as observed, either way."""
    p_value_b_worse: float
    p_value_b_better: float


def sign_flip_test(differences: Sequence[float]) -> SignFlipTest:
    """The paired test of per-case pass rate differences: under "no difference" each case's difference is as
    likely negative as positive, so the observed sum is compared with the sums of its sign flips. Cases whose
    rates are equal flip nothing and are left out. Exact (every flip enumerated) when there are at most
    :data:`PERMUTATIONS` flips; else :data:`PERMUTATIONS` drawn with a fixed seed, the observed one counted in
    (a p-value never 0). A draw flips the cases of one magnitude together: how many of them turn negative is
    binomial, so a draw costs the number of distinct differences, not of cases (SciPy's generic
    ``permutation_test`` took 15 s for 2,000 cases here; the tests check this one against it)."""
    import numpy as np

    moved = np.asarray([value for value in differences if value != 0], dtype=float)
    if moved.size == 0:
        return SignFlipTest(1.0, 1.0, 1.0)
    observed = float(moved.sum())
    tolerance = 1e-9 * max(1.0, float(np.abs(moved).sum()))
    if 2**moved.size <= PERMUTATIONS:
        flips = (np.arange(2**moved.size)[:, None] >> np.arange(moved.size)) & 1
        null = (1 - 2 * flips) @ np.abs(moved)
        extra = 0
    else:
        magnitudes, counts = np.unique(np.round(np.abs(moved), 12), return_counts=True)
        rng = np.random.default_rng(PERMUTATION_SEED)
        negative = rng.binomial(counts, 0.5, size=(PERMUTATIONS, counts.size))
        null = (counts - 2 * negative) @ magnitudes
        extra = 1  # the observed flip is one of them
    size = null.size + extra
    worse = (int(np.count_nonzero(null <= observed + tolerance)) + extra) / size
    better = (int(np.count_nonzero(null >= observed - tolerance)) + extra) / size
    # Two-sided as SciPy's permutation test gives it: twice the smaller tail (the null is symmetric).
    return SignFlipTest(min(1.0, 2 * min(worse, better)), min(1.0, worse), min(1.0, better))
