"""Gates on what a run spent: its cost and its latency, each an upper limit (docs/eval-file.md).

They fail closed: a cost gate over a run whose cost is unknown, or known for only some cases, does not hold
(an unknown cost is not a small one), nor does a latency gate over a run that measured none; the verdict's
line says why. Shared by ``assay run``'s flags and ``assay.yaml``'s ``gates``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from assay.services.figures.summary_records import Summary

__all__ = ["LimitVerdict", "SpendLimits", "judge_limits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SpendLimits:
    """The most a run may spend: US dollars over every case and for its costliest case; its p95 latency."""

    max_cost_usd: Decimal | None = None
    max_cost_per_case_usd: Decimal | None = None
    max_latency_p95_ms: float | None = None

    @property
    def empty(self) -> bool:
        """Whether no limit is set."""
        return (
            self.max_cost_usd is None
            and self.max_cost_per_case_usd is None
            and self.max_latency_p95_ms is None
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LimitVerdict:
    """One limit's verdict and the line that says it (``gate cost: $0.0120 <= $0.0500: held``)."""

    name: str
    held: bool
    found: str
    limit: str

    def line(self) -> str:
        """The verdict as one line."""
        return f"gate {self.name}: {self.found}, at most {self.limit}: {'held' if self.held else 'MISSED'}"


def _usd(value: Decimal) -> str:
    return f"${value:.6f}"


def _cost_verdict(name: str, limit: Decimal, summaries: Sequence[Summary], *, per_case: bool) -> LimitVerdict:
    known = Decimal(0)
    costliest: Decimal | None = None
    unknown = 0
    for summary in summaries:
        if summary.cost is None:
            found = (
                "unknown (no price table: ASSAY_PRICES or the eval's prices); an unknown cost holds no gate"
            )
            return LimitVerdict(name=name, held=False, found=found, limit=_usd(limit))
        total = summary.cost.total
        unknown += total.unknown_cases
        known += total.usd or 0
        if total.max_case_usd is not None and (costliest is None or total.max_case_usd > costliest):
            costliest = total.max_case_usd
    value = costliest if per_case else known
    if unknown:
        shown = f"{_usd(value)} known" if value is not None else "nothing known"
        found = f"{shown}, {unknown} cases of unknown cost (an unknown cost holds no gate)"
        return LimitVerdict(name=name, held=False, found=found, limit=_usd(limit))
    if value is None:
        return LimitVerdict(name=name, held=False, found="no case ran", limit=_usd(limit))
    return LimitVerdict(name=name, held=value <= limit, found=_usd(value), limit=_usd(limit))


def judge_limits(limits: SpendLimits, summaries: Sequence[Summary]) -> list[LimitVerdict]:
    """Each limit's verdict over the runs of ``summaries`` (one per suite): cost summed over them, the
    costliest case and the worst p95 latency of any of them."""
    verdicts: list[LimitVerdict] = []
    if limits.max_cost_usd is not None:
        verdicts.append(_cost_verdict("cost", limits.max_cost_usd, summaries, per_case=False))
    if limits.max_cost_per_case_usd is not None:
        verdicts.append(
            _cost_verdict("cost per case", limits.max_cost_per_case_usd, summaries, per_case=True)
        )
    if limits.max_latency_p95_ms is not None:
        limit = f"{limits.max_latency_p95_ms:g} ms"
        p95s = [summary.latency_ms.p95 for summary in summaries]
        if not p95s or any(p95 is None for p95 in p95s):
            verdicts.append(
                LimitVerdict(name="latency p95", held=False, found="no latency measured", limit=limit)
            )
        else:
            worst = max(p95 for p95 in p95s if p95 is not None)
            held = worst <= limits.max_latency_p95_ms
            verdicts.append(LimitVerdict(name="latency p95", held=held, found=f"{worst:g} ms", limit=limit))
    return verdicts
