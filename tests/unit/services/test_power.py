"""The preflight's smallest detectable difference, checked against the exact test it stands for: scipy's
binomial power of the one-sided exact McNemar test, and a seeded simulation of two runs judged by the compare
rule itself (:class:`~assay.services.figures.paired.PairedTest`)."""

from __future__ import annotations

import numpy as np
import pytest

from assay.services.figures.paired import PairedTest, Verdict
from assay.services.figures.power import (
    ASSUMED_DISCORDANCE,
    EXACT_UP_TO,
    _approximate,
    detectable_difference,
    exact_power,
)


def scipy_stats_power(pairs: int, discordance: float, difference: float, alpha: float = 0.05) -> float:
    """The oracle: the same sum over scipy.stats' binomial distribution, every discordant count."""
    from scipy.stats import binom

    discordant = np.arange(1, pairs + 1)
    least = binom.isf(alpha, discordant, 0.5) + 1  # the least wins whose one-sided p-value is below alpha
    least = np.where(binom.sf(least - 1, discordant, 0.5) < alpha, least, least + 1)
    won = (discordance + difference) / (2 * discordance)
    chance = binom.pmf(discordant, pairs, discordance) * binom.sf(least - 1, discordant, won)
    return float(chance.sum())


@pytest.mark.parametrize("pairs", [1, 7, 50, 301, 4000, EXACT_UP_TO])
@pytest.mark.parametrize("difference", [0.02, 0.1, 0.2])
def test_the_exact_power_is_scipy_stats_binomial_sum(pairs: int, difference: float) -> None:
    expected = scipy_stats_power(pairs, ASSUMED_DISCORDANCE, difference)
    assert exact_power(pairs, ASSUMED_DISCORDANCE, difference) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("cases", [50, 100, 300])
def test_the_difference_is_the_least_that_reaches_80_percent_power(cases: int) -> None:
    found = detectable_difference(cases)
    assert found.difference is not None
    assert exact_power(cases, ASSUMED_DISCORDANCE, found.difference) >= 0.8
    assert exact_power(cases, ASSUMED_DISCORDANCE, found.difference * 0.97) < 0.8


def test_a_seeded_simulation_of_the_compare_rule_detects_it_four_times_in_five() -> None:
    cases, runs = 100, 4000
    delta = detectable_difference(cases).difference
    assert delta is not None
    worse, better = (ASSUMED_DISCORDANCE + delta) / 2, (ASSUMED_DISCORDANCE - delta) / 2
    rng = np.random.default_rng(27)
    counts = rng.multinomial(cases, [worse, better, 1 - worse - better], size=runs)
    detected = sum(PairedTest.of(int(b), int(c)).verdict is Verdict.B_WORSE for b, c, _ in counts)
    assert abs(detected / runs - 0.8) < 0.025  # 4000 runs: one standard error is 0.006


def test_a_repeat_counts_as_a_pair_and_more_cases_detect_less() -> None:
    assert detectable_difference(100, 5).difference == detectable_difference(500).difference
    sizes = [detectable_difference(n).difference for n in (50, 200, 1000)]
    assert None not in sizes
    assert sorted(sizes, reverse=True) == sizes  # type: ignore[type-var]  # None ruled out above
    assert len(set(sizes)) == 3


def test_past_the_exact_range_the_normal_approximation_agrees_with_it() -> None:
    exact = detectable_difference(EXACT_UP_TO).difference
    approximate = _approximate(EXACT_UP_TO, ASSUMED_DISCORDANCE, 0.05, 0.8)
    assert exact is not None
    assert approximate is not None
    assert abs(exact - approximate) < 0.0002  # two hundredths of a point
    beyond = detectable_difference(EXACT_UP_TO + 1)
    assert beyond.difference == _approximate(EXACT_UP_TO + 1, ASSUMED_DISCORDANCE, 0.05, 0.8)


def test_too_few_cases_detect_nothing_and_say_so() -> None:
    found = detectable_difference(10)
    assert found.difference is None
    assert "too few to detect any change" in found.line()
    shown = detectable_difference(200, 3).line()
    assert shown.startswith("200 cases × 3 repeats: a change of ")
    assert "α = 0.05" in shown
    assert "assuming 20% of cases flip" in shown
