"""What an evaluation cost: tokens times the price table, the agent's and the judge's apart, exact decimals.

A cost is known only when both the tokens and the model's price are: an unknown price or unknown tokens give
an unknown cost (``None``, shown "unknown"), never 0. A run's cost sums the cases whose cost is known and says
how many are not (a partial sum is never passed off as the whole). Sums are :class:`~decimal.Decimal` in US
dollars: a million cases at $0.15 per million tokens add up without float drift.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING

from assay.json_types import JsonObject

if TYPE_CHECKING:  # a run without prices loads no pydantic (the CLI's start-up budget)
    from pydantic import TypeAdapter

    from assay.config import ModelPrice
    from assay.targets.usage import JudgeSpend

__all__ = [
    "CaseCost",
    "CostFigures",
    "CostPart",
    "CostTally",
    "case_cost",
    "price_of",
    "price_record",
    "read_prices",
    "tokens_cost",
]

_DATED = re.compile(r"(.+?)-\d[\d-]*")
"""A model's name and a snapshot's date or version after it (``-2024-07-18``, ``-0613``, ``-20241022``)."""
MILLION = Decimal(1_000_000)
ZERO = Decimal(0)

Prices = Mapping[str, "ModelPrice"]


@cache
def _table() -> TypeAdapter[dict[str, ModelPrice]]:
    from pydantic import TypeAdapter

    from assay.config import PriceTable

    return TypeAdapter(PriceTable)


def price_record(prices: Prices) -> JsonObject | None:
    """A price table as stored with an evaluation (prices as exact decimal text); ``None`` for none."""
    return {model: price.model_dump(mode="json") for model, price in prices.items()} or None


def read_prices(record: object) -> dict[str, ModelPrice]:
    """The price table :func:`price_record` stored (none: empty)."""
    return _table().validate_python(record) if record else {}


def price_of(prices: Prices, model: str | None) -> ModelPrice | None:
    """The price of ``model``: its own entry, else that of the name it dates (``gpt-4o-mini-2024-07-18`` is
    priced as ``gpt-4o-mini``: a ``-`` then digits and dashes only, so ``gpt-4o-mini`` is never priced as
    ``gpt-4o``); ``None`` when unpriced or unnamed."""
    if model is None:
        return None
    found = prices.get(model)
    if found is not None:
        return found
    dated = _DATED.fullmatch(model)
    return prices.get(dated.group(1)) if dated is not None else None


def tokens_cost(prices: Prices, input_tokens: int, output_tokens: int, model: str | None) -> Decimal | None:
    """US dollars these tokens of ``model`` cost (``None``: the model has no price)."""
    price = price_of(prices, model)
    if price is None:
        return None
    return (input_tokens * price.input_per_million + output_tokens * price.output_per_million) / MILLION


def _judge_cost(prices: Prices, spend: JudgeSpend | None) -> Decimal | None:
    if spend is None:  # no call was made: the judge spent nothing on this case
        return ZERO
    if not spend.known:
        return None
    total = ZERO
    for usage in spend.usages:
        cost = tokens_cost(prices, usage.input_tokens, usage.output_tokens, usage.model)
        if cost is None:
            return None
        total += cost
    return total


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseCost:
    """One case's cost in US dollars: the agent's, the judge's and both (``None``: unknown)."""

    agent: Decimal | None
    judge: Decimal | None

    @property
    def total(self) -> Decimal | None:
        """Both, known only when both are."""
        return None if self.agent is None or self.judge is None else self.agent + self.judge


def case_cost(
    prices: Prices, tokens: tuple[int, int, str | None] | None, judge: JudgeSpend | None
) -> CaseCost:
    """The cost of one case from the agent's ``(input, output, model)`` tokens and the judge's spend."""
    agent = None if tokens is None else tokens_cost(prices, *tokens)
    return CaseCost(agent=agent, judge=_judge_cost(prices, judge))


@dataclass(frozen=True, slots=True, kw_only=True)
class CostPart:
    """One part of a run's cost (the agent's, the judge's, or the total) over its cases."""

    usd: Decimal | None
    """The sum over the cases whose cost is known (``None``: no case's is)."""
    known_cases: int
    unknown_cases: int
    """Cases whose cost is unknown (no tokens, or a model without a price): the sum leaves them out."""
    max_case_usd: Decimal | None
    """The costliest known case."""

    @property
    def complete(self) -> bool:
        """Whether every case's cost is known (then ``usd`` is the whole cost)."""
        return self.unknown_cases == 0 and self.usd is not None

    def describe(self) -> str:
        """``$0.001234``, ``$0.001234 + 3 cases unknown``, or ``unknown``."""
        if self.usd is None:
            return "unknown"
        shown = f"${self.usd:.6f}"
        return shown if self.unknown_cases == 0 else f"{shown} + {self.unknown_cases} cases unknown"


@dataclass(frozen=True, slots=True, kw_only=True)
class CostFigures:
    """A run's cost in US dollars: the agent's, the judge's and the total, each with its unknown cases."""

    agent: CostPart
    judge: CostPart
    total: CostPart


class _PartTally:
    """One part's sum, counts and costliest case, in integer units of the tally (exact and fast)."""

    __slots__ = ("known", "max", "sum", "unknown")

    def __init__(self) -> None:
        self.sum = 0
        self.known = 0
        self.unknown = 0
        self.max: int | None = None

    def add(self, cost: int | None) -> None:
        if cost is None:
            self.unknown += 1
            return
        self.sum += cost
        self.known += 1
        if self.max is None or cost > self.max:
            self.max = cost

    def part(self, exponent: int) -> CostPart:
        def usd(units: int) -> Decimal:  # without the tally's trailing zeros: 0.00042, not 0.00042000
            amount = Decimal(units).scaleb(exponent).normalize()
            return amount.quantize(1) if amount.as_tuple().exponent > 0 else amount  # type: ignore[operator]

        return CostPart(
            usd=usd(self.sum) if self.known else None,
            known_cases=self.known,
            unknown_cases=self.unknown,
            max_case_usd=usd(self.max) if self.max is not None else None,
        )


def _places(amount: Decimal) -> int:
    """Decimal places of a finite amount (``0.15``: 2, ``10``: 0)."""
    exponent = amount.as_tuple().exponent
    return max(-exponent, 0) if isinstance(exponent, int) else 0


class CostTally:
    """A run's cost, counted one case at a time: in integer units of 10^-(6 + d) dollars, ``d`` the most
    decimal places of any price, so that every case's cost is an exact integer (a Decimal sum per case costs
    five times as much). :func:`case_cost` gives the same figures one case at a time."""

    def __init__(self, prices: Prices) -> None:
        self.prices = prices
        amounts = [
            amount
            for price in prices.values()
            for amount in (price.input_per_million, price.output_per_million)
        ]
        places = max((_places(amount) for amount in amounts), default=0)
        self._exponent = -6 - int(places)
        self._scale = Decimal(10) ** int(places)
        self._units: dict[str | None, tuple[int, int] | None] = {}
        """Each model's price in units per token, input and output (``None``: unpriced), found once."""
        self._agent, self._judge, self._total = _PartTally(), _PartTally(), _PartTally()

    def _price(self, model: str | None) -> tuple[int, int] | None:
        if model in self._units:
            return self._units[model]
        price = price_of(self.prices, model)
        units = (
            None
            if price is None
            else (int(price.input_per_million * self._scale), int(price.output_per_million * self._scale))
        )
        self._units[model] = units
        return units

    def _cost(self, input_tokens: int, output_tokens: int, model: str | None) -> int | None:
        units = self._price(model)
        return None if units is None else input_tokens * units[0] + output_tokens * units[1]

    def _judge_cost(self, judge: JudgeSpend | None) -> int | None:
        if judge is None:  # no call was made
            return 0
        if not judge.known:
            return None
        total = 0
        for usage in judge.usages:
            cost = self._cost(usage.input_tokens, usage.output_tokens, usage.model)
            if cost is None:
                return None
            total += cost
        return total

    def add(self, tokens: tuple[int, int, str | None] | None, judge: JudgeSpend | None) -> None:
        """Count one case."""
        agent = None if tokens is None else self._cost(*tokens)
        judged = self._judge_cost(judge)
        self._agent.add(agent)
        self._judge.add(judged)
        self._total.add(None if agent is None or judged is None else agent + judged)

    def figures(self) -> CostFigures:
        """The cost of the cases counted so far."""
        exponent = self._exponent
        return CostFigures(
            agent=self._agent.part(exponent),
            judge=self._judge.part(exponent),
            total=self._total.part(exponent),
        )
