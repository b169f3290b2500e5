"""Statistics against scipy / numpy and known textbook values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from assay.services.statistics import (
    cohen_kappa,
    f1,
    mcnemar_exact,
    mcnemar_one_sided,
    percentile,
    wilson_interval,
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
