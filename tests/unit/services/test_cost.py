"""Cost from tokens and a price table, in exact decimals, and the gates on it: an unknown price or unknown
tokens give an unknown cost, never 0, and an unknown cost holds no gate."""

from __future__ import annotations

from decimal import Decimal

from assay.config import ModelPrice
from assay.services.figures.cost import CostTally, case_cost, price_of, price_record, read_prices, tokens_cost
from assay.services.figures.limits import SpendLimits, judge_limits
from assay.services.figures.summary import ResultFacts, summarize
from assay.targets.usage import JudgeSpend, Usage

PRICES = {
    "gpt-4o-mini": ModelPrice(input_per_million=Decimal("0.15"), output_per_million=Decimal("0.6")),
    "gpt-4o": ModelPrice(input_per_million=Decimal("2.5"), output_per_million=Decimal("10")),
}


def test_a_dated_model_finds_its_family_price_and_the_longest_name_wins() -> None:
    assert price_of(PRICES, "gpt-4o-mini-2024-07-18") is PRICES["gpt-4o-mini"]
    assert price_of(PRICES, "gpt-4o-2024-08-06") is PRICES["gpt-4o"]
    assert price_of(PRICES, "gpt-4o-minimal") is None
    assert price_of({"gpt-4o": PRICES["gpt-4o"]}, "gpt-4o-mini") is None  # another model, not a snapshot
    assert price_of(PRICES, "gpt-4o-0613") is PRICES["gpt-4o"]
    assert price_of(PRICES, None) is None


def test_a_million_cases_sum_exactly() -> None:
    tally = CostTally(PRICES)
    for _ in range(1_000_000 // 1000):  # a thousand cases a step: the sum is the same exact decimal
        for _ in range(1000):
            tally.add((1, 1, "gpt-4o-mini"), None)
    figures = tally.figures()
    assert figures.agent.usd == Decimal("0.75")  # 10^6 × (0.15 + 0.6) / 10^6, with no float drift
    assert figures.total.usd == Decimal("0.75")
    assert figures.judge.usd == 0


def test_unknown_tokens_or_price_give_an_unknown_cost_never_0() -> None:
    assert tokens_cost(PRICES, 10, 10, "unpriced") is None
    assert case_cost(PRICES, None, None).agent is None  # no tokens
    unknown_judge = JudgeSpend((Usage(5, 5, "gpt-4o"),), unknown_calls=1)
    cost = case_cost(PRICES, (1000, 100, "gpt-4o-mini"), unknown_judge)
    assert cost.agent == Decimal("0.00021")
    assert cost.judge is None
    assert cost.total is None
    assert (
        case_cost(PRICES, (1, 1, "gpt-4o"), JudgeSpend((Usage(1, 1, "x"),))).judge is None
    )  # unpriced judge


def test_the_summary_counts_cases_of_unknown_cost_apart() -> None:
    def fact(tokens: tuple[int, int, str | None] | None) -> ResultFacts:
        return ResultFacts(
            passed=True, score=1.0, error=None, latency_ms=5.0, match_status="match", tokens=tokens
        )

    facts = [fact((1000, 100, "gpt-4o-mini")), fact((1000, 100, "gpt-4o-mini")), fact(None)]
    summary = summarize(facts, total_cases=3, prices=PRICES)
    assert summary.cost is not None
    assert summary.cost.agent.usd == Decimal("0.00042")
    assert (summary.cost.total.known_cases, summary.cost.total.unknown_cases) == (2, 1)
    assert summary.cost.total.describe() == "$0.000420 + 1 cases unknown"
    stored = summary.as_dict()["cost"]
    assert stored["agent"]["usd"] == "0.00042"  # exact text, as stored and served
    assert summarize(facts, total_cases=3).cost is None  # no price table: no cost


def test_cost_gates_fail_closed_and_the_latency_gate_reads_p95() -> None:
    def fact(tokens: tuple[int, int, str | None] | None, latency: float) -> ResultFacts:
        return ResultFacts(
            passed=True, score=1.0, error=None, latency_ms=latency, match_status="match", tokens=tokens
        )

    known = summarize([fact((1000, 0, "gpt-4o"), 10.0)] * 20, total_cases=20, prices=PRICES)  # $0.0025 a case
    partial = summarize([fact((1000, 0, "gpt-4o"), 10.0), fact(None, 10.0)], total_cases=2, prices=PRICES)
    limits = SpendLimits(max_cost_usd=Decimal("0.05"), max_cost_per_case_usd=Decimal("0.0025"))
    assert [verdict.held for verdict in judge_limits(limits, [known])] == [True, True]
    assert not judge_limits(SpendLimits(max_cost_usd=Decimal("0.0499")), [known])[0].held
    missed = judge_limits(SpendLimits(max_cost_usd=Decimal(1000)), [partial])[0]
    assert not missed.held
    assert "1 cases of unknown cost" in missed.line()
    unpriced = judge_limits(SpendLimits(max_cost_usd=Decimal(1000)), [summarize([], total_cases=0)])[0]
    assert not unpriced.held
    assert "no price table" in unpriced.line()
    slow = [fact(None, 10.0)] * 18 + [fact(None, 500.0)] * 2  # one in ten: the p95 is 500 ms
    assert judge_limits(SpendLimits(max_latency_p95_ms=500), [summarize(slow, total_cases=20)])[0].held
    assert not judge_limits(SpendLimits(max_latency_p95_ms=400), [summarize(slow, total_cases=20)])[0].held


def test_a_price_table_is_stored_and_read_back_exactly() -> None:
    record = price_record(PRICES)
    assert record is not None
    assert record["gpt-4o-mini"]["input_per_million"] == "0.15"
    assert read_prices(record) == PRICES
    assert price_record({}) is None
    assert read_prices(None) == {}
