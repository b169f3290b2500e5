"""Statistics against scipy / numpy and known textbook values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from assay.services.figures.paired import PairedTest, Verdict
from assay.services.figures.statistics import (
    Shift,
    cohen_kappa,
    f1,
    mcnemar_exact,
    mcnemar_one_sided,
    pass_rate,
    percentile,
    wilson_interval,
    worst_first_key,
)


@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (81, 263), (5, 10), (0, 50), (999, 1000), (7, 10000)])
def test_wilson_matches_scipy(k: int, n: int) -> None:
    expected = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(k, n)  # type: ignore[misc]
    assert low == pytest.approx(expected.low, abs=1e-12)
    assert high == pytest.approx(expected.high, abs=1e-12)


def test_wilson_without_trials_is_none() -> None:
    assert wilson_interval(0, 0) is None


@given(
    st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=200), st.sampled_from([0, 50, 95, 100])
)
def test_percentile_matches_numpy(values: list[float], q: int) -> None:
    assert percentile(sorted(values), q) == pytest.approx(float(np.percentile(values, q)), rel=1e-9, abs=1e-9)


def test_percentile_of_nothing_is_none() -> None:
    assert percentile([], 50) is None


def exact_tail(at_least: int, trials: int) -> float:
    """P(X >= at_least) for X ~ Binomial(trials, 1/2), summed exactly in integers (the oracle)."""
    return sum(math.comb(trials, k) for k in range(at_least, trials + 1)) / (1 << trials)


@pytest.mark.parametrize(("b", "c"), [(0, 0), (1, 0), (3, 10), (10, 3), (25, 25), (0, 40), (600, 700)])
def test_mcnemar_exact_matches_the_exact_sum(b: int, c: int) -> None:
    n = b + c
    expected = 1.0 if n == 0 else min(1.0, 2 * exact_tail(max(b, c), n))
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)


def test_mcnemar_exact_textbook_value() -> None:
    # 3 against 10: 2 * (C(13,0) + C(13,1) + C(13,2) + C(13,3)) / 2**13 = 756 / 8192
    assert mcnemar_exact(3, 10) == pytest.approx(756 / 8192, rel=1e-12)


@pytest.mark.parametrize(("worse", "better"), [(0, 0), (0, 5), (5, 0), (12, 3), (300, 250)])
def test_mcnemar_one_sided_matches_the_exact_sum(worse: int, better: int) -> None:
    n = worse + better
    expected = 1.0 if n == 0 else exact_tail(worse, n)
    assert mcnemar_one_sided(worse, better) == pytest.approx(expected, rel=1e-9)


def test_mcnemar_huge_counts_do_not_underflow() -> None:
    assert 0.0 <= mcnemar_exact(4000, 6000) < 1e-80
    assert mcnemar_exact(5000, 5000) == pytest.approx(1.0)


def test_kappa_textbook_example() -> None:
    # Wikipedia's example: 50 items, raters agree yes 20, no 15 -> kappa 0.4
    assert cohen_kappa({"yes": {"yes": 20, "no": 5}, "no": {"yes": 10, "no": 15}}) == pytest.approx(0.4)


def test_kappa_with_a_column_absent_from_the_rows() -> None:
    matrix = {"true": {"true": 40, "false": 5, "invalid": 5}, "false": {"true": 5, "false": 45, "invalid": 0}}
    observed = 85 / 100
    chance = (50 * 45 + 50 * 50) / 100**2
    assert cohen_kappa(matrix) == pytest.approx((observed - chance) / (1 - chance))


def test_kappa_undefined_cases() -> None:
    assert cohen_kappa({}) is None
    assert cohen_kappa({"true": {"true": 3}}) is None


def test_f1() -> None:
    assert f1(0.5, 1.0) == pytest.approx(2 / 3)
    assert f1(0.0, 0.0) == 0.0
    assert f1(None, 1.0) is None
    assert math.isclose(f1(1.0, 1.0) or 0, 1.0)


@pytest.mark.parametrize(("passed", "total"), [(0, 1), (3, 4), (81, 263), (20, 20)])
def test_pass_rate_is_the_ratio_with_the_wilson_interval(passed: int, total: int) -> None:
    rate = pass_rate(passed, total)
    assert (rate.passed, rate.total, rate.rate) == (passed, total, passed / total)
    assert rate.interval == wilson_interval(passed, total)
    assert rate.low is not None
    assert rate.high is not None
    assert rate.low <= passed / total <= rate.high


def test_pass_rate_without_cases_has_no_rate_and_no_interval() -> None:
    rate = pass_rate(0, 0)
    assert (rate.rate, rate.low, rate.high, rate.interval) == (None, None, None, None)


def test_a_change_is_marked_only_when_the_paired_test_finds_it() -> None:
    # 30 cases, 21 -> 16 passing: 70.0 % -> 53.3 %, a drop past the newer run's Wilson interval, yet the flips
    # (7 pass -> fail, 2 fail -> pass) are no significant difference (McNemar p = 0.18): within noise.
    assert PairedTest.of(7, 2).shift is Shift.STEADY
    assert PairedTest.of(10, 0).shift is Shift.REGRESSION
    assert PairedTest.of(0, 9).shift is Shift.IMPROVEMENT
    assert PairedTest.of(0, 0).shift is Shift.STEADY


@given(st.integers(0, 60), st.integers(0, 60))
def test_the_shift_is_the_paired_verdict(pass_to_fail: int, fail_to_pass: int) -> None:
    test = PairedTest.of(pass_to_fail, fail_to_pass)
    expected = {
        Verdict.B_WORSE: Shift.REGRESSION,
        Verdict.B_BETTER: Shift.IMPROVEMENT,
        Verdict.NO_SIGNIFICANT_DIFFERENCE: Shift.STEADY,
    }[test.verdict]
    assert test.shift is expected
    # Significance is one-sided at 5 %: a regression needs more flips to fail than to pass, never fewer.
    if test.shift is Shift.REGRESSION:
        assert pass_to_fail > fail_to_pass
        assert stats.binomtest(pass_to_fail, pass_to_fail + fail_to_pass, alternative="greater").pvalue < 0.05


def test_worst_first_puts_the_lowest_rate_first_then_the_most_cases() -> None:
    rates = [pass_rate(5, 10), pass_rate(0, 0), pass_rate(1, 4), pass_rate(2, 8), pass_rate(10, 10)]
    ordered = sorted(rates, key=worst_first_key)
    assert [(r.passed, r.total) for r in ordered] == [(2, 8), (1, 4), (5, 10), (10, 10), (0, 0)]
