"""The smallest pass-rate difference a suite can detect: the preflight's answer to "is this suite big enough?"

The comparison is the paired one of :mod:`assay.services.figures.paired`: a run against a previous run over
the same cases, a one-sided exact McNemar test at :data:`~assay.services.figures.paired.SIGNIFICANCE`. With
``n`` pairs of which a share ``psi`` is discordant (pass in one run, fail in the other) and a difference
``delta`` in pass rate, the number of discordant pairs ``d`` is Binomial(n, psi) and, of those, the ones the
worse run lost are Binomial(d, (psi + delta) / (2 psi)); the test rejects when their one-sided exact p-value
is below alpha. The power is that sum, computed exactly (scipy's binomial functions) up to
:data:`EXACT_UP_TO` pairs, and the smallest ``delta`` reaching 80 % is found by bisection (the power rises
with ``delta``). Past that size, the normal approximation (Connor 1987, McNemar's sample size formula)
``delta sqrt(n) = z(1 - alpha) sqrt(psi) + z(power) sqrt(psi - delta^2)``, there within a hundredth of a
point of the exact answer.

``psi`` must be assumed before any run: :data:`ASSUMED_DISCORDANCE`, one case in five flipping. With ``r``
repeats a case is ``r`` pairs, taken as independent (the discordance is the agent's run-to-run noise); a
suite whose cases differ for good is then read a little too kindly. tests/unit/services/test_power.py checks
the answer against scipy's exact power and a seeded simulation of the compare rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from assay.services.figures.paired import SIGNIFICANCE

__all__ = ["ASSUMED_DISCORDANCE", "POWER", "DetectableDifference", "detectable_difference", "exact_power"]

POWER = 0.8
ASSUMED_DISCORDANCE = 0.2
"""The share of cases assumed to flip between two runs (either way)."""
EXACT_UP_TO = 20_000
"""Pairs up to which the power is computed exactly (milliseconds); past it, the normal approximation."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DetectableDifference:
    """The smallest difference in pass rate a paired comparison of two runs detects at ``power``."""

    cases: int
    repeats: int
    alpha: float
    power: float
    discordance: float
    difference: float | None
    """In pass rate, 0 to 1 (``None``: no difference can be detected: too few cases)."""

    def line(self) -> str:
        """The difference as the preflight prints it, with the method it assumes."""
        repeats = f"{self.repeats} repeat{'s' if self.repeats != 1 else ''}"
        method = (
            f"at {self.power:.0%} power, one-sided exact McNemar at α = {self.alpha:g}, assuming "
            f"{self.discordance:.0%} of cases flip between runs"
        )
        size = f"{self.cases} cases × {repeats}"
        if self.difference is None:
            return f"{size}: too few to detect any change against a previous run ({method})"
        return (
            f"{size}: a change of {self.difference * 100:.1f} points in pass rate against a previous run is "
            f"the smallest detectable ({method})"
        )


def exact_power(pairs: int, discordance: float, difference: float, alpha: float = SIGNIFICANCE) -> float:
    """The power of the one-sided exact McNemar test over ``pairs`` pairs, a share ``discordance`` of them
    discordant, for a ``difference`` in pass rate."""
    if difference == discordance:
        return _power_when_every_flip_goes_one_way(pairs, discordance, alpha)
    # scipy.special's binomial functions, not scipy.stats' distribution (the same figures, checked by
    # tests/unit/services/test_power.py): an agent's run prints this, and scipy.stats alone would cost it
    # about a second of start-up (800 modules).
    import numpy as np
    from scipy.special import bdtrc, bdtrik, gammaln

    spread = 10 * math.sqrt(pairs * discordance * (1 - discordance))  # past ten sd, the chance is nil
    first = max(1, math.floor(pairs * discordance - spread))
    discordant = np.arange(first, min(pairs, math.ceil(pairs * discordance + spread)) + 1)
    # The least count b of B's wins whose one-sided p-value P(B >= b | d, 1/2) is below alpha: from the
    # continuous inverse of the CDF, then set on the integer (P(B >= b) is bdtrc(b - 1)).
    least = np.floor(bdtrik(1 - alpha, discordant, 0.5)) + 2
    least = np.where(bdtrc(least - 2, discordant, 0.5) < alpha, least - 1, least)
    least = np.where(bdtrc(least - 1, discordant, 0.5) < alpha, least, least + 1)
    won = (discordance + difference) / (2 * discordance)
    log_pmf = (
        gammaln(pairs + 1)
        - gammaln(discordant + 1)
        - gammaln(pairs - discordant + 1)
        + discordant * math.log(discordance)
        + (pairs - discordant) * math.log1p(-discordance)
    )  # P(D = d) for D ~ Binomial(pairs, discordance)
    chance = np.exp(log_pmf) * bdtrc(least - 1, discordant, won)
    return float(chance.sum())


def _power_when_every_flip_goes_one_way(pairs: int, discordance: float, alpha: float) -> float:
    """:func:`exact_power` at the largest difference: the worse run loses every discordant pair (B = d), and
    the test rejects when 2^-d, the p-value of d losses out of d, is below ``alpha``. The power is then the
    chance of that many discordant pairs, a few terms of the standard library: the preflight asks this first,
    and for a suite too small to detect anything (the answer ``None``) it is the only question, so an agent's
    run of a small suite loads neither numpy nor scipy (~0.4 s of CPU)."""
    fewest = 0
    while 0.5**fewest >= alpha:
        fewest += 1
    if pairs < fewest:
        return 0.0
    fewer = sum(
        math.comb(pairs, count) * discordance**count * (1 - discordance) ** (pairs - count)
        for count in range(fewest)
    )  # P(D < fewest) for D ~ Binomial(pairs, discordance)
    return max(0.0, 1.0 - fewer)


def _approximate(pairs: int, discordance: float, alpha: float, power: float) -> float | None:
    from scipy.optimize import brentq
    from scipy.special import ndtri  # the normal distribution's quantile

    z_alpha, z_power = float(ndtri(1 - alpha)), float(ndtri(power))

    def shortfall(delta: float) -> float:  # rises with delta: its root is the answer
        spread = math.sqrt(max(discordance - delta**2, 0.0))
        return delta * math.sqrt(pairs) - z_alpha * math.sqrt(discordance) - z_power * spread

    if shortfall(discordance) < 0:
        return None
    return float(brentq(shortfall, 0.0, discordance, xtol=1e-9))


def detectable_difference(
    cases: int,
    repeats: int = 1,
    *,
    alpha: float = SIGNIFICANCE,
    power: float = POWER,
    discordance: float = ASSUMED_DISCORDANCE,
) -> DetectableDifference:
    """The smallest detectable difference over ``cases`` run ``repeats`` times each (module docstring)."""
    pairs = cases * repeats
    # delta cannot pass psi (every discordant case flipping one way): none up to it detected, none is
    difference: float | None = None
    if 0 < pairs <= EXACT_UP_TO:
        if exact_power(pairs, discordance, discordance, alpha) >= power:
            low, high = 0.0, discordance
            while high - low > high / 1000:  # a thousandth of the answer
                middle = (low + high) / 2
                low, high = (
                    (low, middle)
                    if exact_power(pairs, discordance, middle, alpha) >= power
                    else (middle, high)
                )
            difference = high
    elif pairs > EXACT_UP_TO:
        difference = _approximate(pairs, discordance, alpha, power)
    return DetectableDifference(
        cases=cases, repeats=repeats, alpha=alpha, power=power, discordance=discordance, difference=difference
    )
