"""Repeats' figures checked against numbers not of our making: pass@k and pass^k against a brute-force
enumeration and SciPy's binomials, their expected values under known per-case pass probabilities, the
sign-flip test against SciPy's permutation test and its false-alarm rate over simulated pairs of runs of one
agent, McNemar against SciPy's binomial test (issue 27, part 5)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from scipy import stats
from scipy.special import comb

from assay.services.figures.paired import SIGNIFICANCE, CaseRuns, PairedFigures, PairedMethod, Verdict
from assay.services.figures.repeats import (
    RepeatTally,
    case_repeats,
    pass_at_k,
    pass_hat_k,
    sign_flip_test,
)
from assay.services.figures.summary import ResultFacts, summarize


@pytest.mark.parametrize("runs", range(1, 8))
def test_pass_at_k_and_pass_hat_k_are_the_share_of_k_subsets_with_a_pass_and_with_only_passes(
    runs: int,
) -> None:
    for passes in range(runs + 1):
        outcomes = [True] * passes + [False] * (runs - passes)
        for k in range(1, runs + 1):
            subsets = list(itertools.combinations(outcomes, k))
            assert pass_at_k(runs, passes, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))
            assert pass_hat_k(runs, passes, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))
            assert pass_at_k(runs, passes, k) == pytest.approx(
                1 - comb(runs - passes, k, exact=True) / comb(runs, k, exact=True)
            )


def test_k_beyond_the_runs_has_no_estimate() -> None:
    with pytest.raises(ValueError, match="between 1 and the runs"):
        pass_at_k(5, 2, 6)
    with pytest.raises(ValueError, match="between 1 and the runs"):
        pass_hat_k(5, 2, 0)


def test_the_estimators_average_to_their_expected_values_under_known_pass_probabilities() -> None:
    """Unbiased: over many simulated cases, the mean estimate meets Σ(1-(1-p)^k)/N and Σp^k/N."""
    rng = random.Random(2027)
    repeats, cases = 5, 20_000
    chances = [rng.random() for _ in range(cases)]
    tally = RepeatTally(repeats)
    for number, chance in enumerate(chances, 1):
        for _ in range(repeats):
            tally.add(number, rng.random() < chance)
    figures = tally.figures()
    for k in range(1, repeats + 1):
        assert figures.pass_at_k[k - 1] == pytest.approx(
            sum(1 - (1 - p) ** k for p in chances) / cases, abs=0.01
        )
        assert figures.pass_hat_k[k - 1] == pytest.approx(sum(p**k for p in chances) / cases, abs=0.01)


def test_each_case_has_its_passes_its_wilson_interval_and_a_flaky_mark() -> None:
    tally = RepeatTally(4)
    for number, verdicts in (
        (1, [True] * 4),
        (2, [False] * 4),
        (3, [True, False, True, True]),
        (4, [True, False] * 2),
    ):
        for verdict in verdicts:
            tally.add(number, verdict)
    figures = tally.figures()
    assert (figures.cases, figures.flaky) == (4, 2)
    assert [(case.number, case.passed, case.runs) for case in figures.flaky_cases] == [(4, 2, 4), (3, 3, 4)]
    wilson = stats.binomtest(3, 4).proportion_ci(confidence_level=0.95, method="wilson")
    assert (figures.flaky_cases[1].low, figures.flaky_cases[1].high) == pytest.approx(
        (wilson.low, wilson.high)
    )
    assert not case_repeats(1, 4, 4).is_flaky
    assert case_repeats(3, 3, 4).is_flaky
    assert figures.pass_at_k == pytest.approx([(4 + 0 + 3 + 2) / 16, (1 + 0 + 1 + 5 / 6) / 4, 0.75, 0.75])
    assert figures.pass_hat_k[3] == pytest.approx(0.25)  # only case 1 passes all four


def test_a_case_short_of_k_runs_is_left_out_of_pass_at_k() -> None:
    tally = RepeatTally(3)
    for verdict in (True, False, False):
        tally.add(1, verdict)
    tally.add(2, True)  # one run so far (a run still going)
    figures = tally.figures()
    assert figures.pass_at_k[0] == pytest.approx((1 / 3 + 1) / 2)
    assert figures.pass_at_k[2] == pytest.approx(1.0)  # case 1 alone: its three runs hold a pass


def test_the_summary_carries_repeats_only_when_cases_are_asked_more_than_once() -> None:
    facts = [
        ResultFacts(
            passed=n % 3 != 0, score=None, error=None, latency_ms=None, match_status=None, case=n // 3
        )
        for n in range(9)
    ]
    summary = summarize(facts, total_cases=9, repeats=3)
    assert summary.repeats is not None
    assert summary.repeats.cases == 3
    assert summary.repeats.pass_at_k[0] == pytest.approx(6 / 9)
    assert summary.repeats.pass_hat_k[2] == 0.0
    assert "repeats" in summary.as_dict()
    once = summarize(facts, total_cases=9)
    assert once.repeats is None
    assert "repeats" not in once.as_dict()


@pytest.mark.parametrize("seed", range(4))
def test_the_sign_flip_test_is_scipys_permutation_test_exactly_when_cases_are_few(seed: int) -> None:
    rng = random.Random(seed)
    # Whole numbers (the test does not depend on scale): SciPy's float sums would see noise in a tie at 0.
    differences = [rng.choice([-3, -2, -1, 1, 2]) for _ in range(11)]
    ours = sign_flip_test(differences)
    for alternative, p_value in (
        ("less", ours.p_value_b_worse),
        ("greater", ours.p_value_b_better),
        ("two-sided", ours.p_value),
    ):
        theirs = stats.permutation_test(
            (np.asarray(differences),),
            np.mean,
            permutation_type="samples",
            n_resamples=np.inf,
            alternative=alternative,
        )
        assert p_value == pytest.approx(theirs.pvalue)


def test_the_sign_flip_test_draws_with_a_fixed_seed_when_cases_are_many() -> None:
    rng = random.Random(5)
    differences = [rng.choice([-0.4, -0.2, 0.0, 0.2, 0.4]) - 0.03 for _ in range(300)]
    ours = sign_flip_test(differences)
    assert sign_flip_test(differences) == ours  # the same runs always get the same p-value
    theirs = stats.permutation_test(
        (np.asarray(differences),),
        np.mean,
        permutation_type="samples",
        n_resamples=9_999,
        alternative="less",
        rng=np.random.default_rng(1),
    )
    assert ours.p_value_b_worse == pytest.approx(theirs.pvalue, abs=0.01)  # both estimates of one p-value
    assert sign_flip_test([0.0, 0.0]).p_value == 1.0


def test_mcnemar_of_single_runs_is_scipys_binomial_test_on_the_discordant_pairs() -> None:
    cases = [CaseRuns(1, 1, 0, 1)] * 9 + [CaseRuns(0, 1, 1, 1)] * 2 + [CaseRuns(1, 1, 1, 1)] * 20
    figures = PairedFigures.of_cases(in_a=31, in_b=32, cases=cases)
    assert figures.method is PairedMethod.MCNEMAR
    assert (figures.pass_to_fail, figures.fail_to_pass, figures.only_in_b) == (9, 2, 1)
    assert figures.p_value == pytest.approx(stats.binomtest(9, 11, 0.5).pvalue)
    assert figures.p_value_b_worse == pytest.approx(stats.binomtest(9, 11, 0.5, alternative="greater").pvalue)
    assert figures.verdict is Verdict.B_WORSE
    counted = PairedFigures.of(
        in_a=31, in_b=32, common=31, a_passed=29, b_passed=22, pass_to_fail=9, fail_to_pass=2
    )
    assert counted == figures  # the database's counts and the per-case path are one rule


def test_with_repeats_the_rule_is_the_sign_flip_test_on_per_case_rates() -> None:
    cases = [CaseRuns(5, 5, 3, 5)] * 8 + [CaseRuns(2, 5, 2, 5)] * 3 + [CaseRuns(0, 5, 0, 5)]
    figures = PairedFigures.of_cases(in_a=12, in_b=12, cases=cases)
    assert figures.method is PairedMethod.SIGN_FLIP
    assert (figures.pass_to_fail, figures.same_rate, figures.both_failed) == (8, 3, 1)
    assert figures.p_value_b_worse == pytest.approx(1 / 256)  # all 8 moved cases fell: one flip of 2^8
    assert figures.verdict is Verdict.B_WORSE
    assert figures.a_pass_rate == pytest.approx((8 + 3 * 0.4) / 12)


def test_false_alarms_of_two_runs_of_one_agent_stay_near_the_significance_level() -> None:
    """Two runs of the same seeded agent (known per-case chances, repeats 5), many times over: "B is worse"
    is said about as often as alpha, and no more (the test is exact or nearly so, and conservative when
    discrete)."""
    rng = random.Random(99)
    chances = [rng.random() for _ in range(40)]
    pairs, repeats = 1_000, 5

    def passes(chance: float) -> int:
        return sum(rng.random() < chance for _ in range(repeats))

    alarms = 0
    for _ in range(pairs):
        cases = [CaseRuns(passes(p), repeats, passes(p), repeats) for p in chances]
        alarms += PairedFigures.of_cases(in_a=40, in_b=40, cases=cases).verdict is Verdict.B_WORSE
    standard_error = (SIGNIFICANCE * (1 - SIGNIFICANCE) / pairs) ** 0.5
    assert SIGNIFICANCE - 4 * standard_error < alarms / pairs < SIGNIFICANCE + 3 * standard_error
