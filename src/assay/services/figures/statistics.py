"""Small, exact statistics for evaluation reports: pure functions, no I/O, checked against scipy in tests."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

Z_95 = 1.959963984540054
"""The two-sided 95 % normal quantile."""


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion (95 % by default); ``None`` with no trials.

    Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 % and 100 %.
    """
    if trials <= 0:
        return None
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True, kw_only=True)
class PassRate:
    """Passes out of a number of cases, the rate and its Wilson 95 % interval (``None`` without cases)."""

    passed: int
    total: int
    rate: float | None
    low: float | None
    high: float | None

    @property
    def interval(self) -> tuple[float, float] | None:
        """``(low, high)``, or ``None`` without cases."""
        return None if self.low is None or self.high is None else (self.low, self.high)


def pass_rate(passed: int, total: int) -> PassRate:
    """The pass rate of ``passed`` out of ``total`` with its Wilson 95 % interval."""
    interval = wilson_interval(passed, total)
    return PassRate(
        passed=passed,
        total=total,
        rate=passed / total if total else None,
        low=interval[0] if interval else None,
        high=interval[1] if interval else None,
    )


class Shift(StrEnum):
    """How a run stands against the run before it, by the paired test of the cases both ran
    (:class:`~assay.services.figures.paired.PairedTest`, the rule of every comparison)."""

    REGRESSION = "regression"
    """Significantly more cases went from pass to fail than back."""
    IMPROVEMENT = "improvement"
    """Significantly more cases went from fail to pass than back."""
    STEADY = "steady"
    """Within noise: the flips either way are no significant difference."""


def worst_first_key(rate: PassRate) -> tuple[float, int]:
    """Sort key putting the lowest pass rate first, and among equal rates the most cases first."""
    return (rate.rate if rate.rate is not None else 2.0, -rate.total)


def percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100) with linear interpolation between ranks (numpy's default)."""
    if not sorted_values:
        return None
    position = (len(sorted_values) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    fraction = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction


def ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``, or ``None`` when the denominator is zero (undefined, not 0)."""
    return numerator / denominator if denominator else None


def f1(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean of precision and recall; ``None`` when either is undefined, 0 when both are 0."""
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def cohen_kappa(matrix: Mapping[str, Mapping[str, int]]) -> float | None:
    """Cohen's κ of a confusion matrix ``matrix[expected][actual]``; labels absent on one side count 0.

    ``None`` when chance agreement is total (κ is undefined there).
    """
    labels = set(matrix) | {label for row in matrix.values() for label in row}
    total = sum(sum(row.values()) for row in matrix.values())
    if not total:
        return None
    observed = sum(matrix.get(label, {}).get(label, 0) for label in labels) / total
    column_totals = {label: sum(row.get(label, 0) for row in matrix.values()) for label in labels}
    expected = sum(sum(matrix.get(label, {}).values()) * column_totals[label] for label in labels) / (
        total * total
    )
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs (1.0 when there are none).

    The exact binomial test of ``b`` successes in ``b + c`` trials at 1/2: at 1/2 the distribution is
    symmetric, so SciPy's ``binomtest`` two-sided p-value is twice the smaller tail, which is taken here
    from ``scipy.special``'s binomial CDF (imported here: only a comparison needs it; ``scipy.stats``
    loads 800 modules, about three times ``scipy.special``'s cost, for every ``assay history``).
    """
    if b + c == 0:
        return 1.0
    from scipy.special import bdtr

    return float(min(1.0, 2.0 * bdtr(min(b, c), b + c, 0.5)))


def mcnemar_one_sided(worse: int, better: int) -> float:
    """Exact one-sided p-value that there are at least ``worse`` flips one way out of ``worse + better``
    (SciPy's ``binomtest`` "greater", as the binomial survival function past ``worse - 1``)."""
    if worse == 0:
        return 1.0  # at least none: certain (also when there are no flips at all)
    from scipy.special import bdtrc

    return float(bdtrc(worse - 1, worse + better, 0.5))
