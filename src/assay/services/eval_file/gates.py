"""An eval's gates judged: the overall pass rate, by metadata value, by assertion (docs/eval-file.md).

A case not graded (an error, or not run) counts as not passed, as ``assay run``'s gate counts it; a gate
over no case at all is missed (a gate naming a value or an assertion that nothing had is a mistake to see).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.services.eval_file.model import Gates, MetadataGate
from assay.services.figures.limits import LimitVerdict, judge_limits
from assay.services.figures.summary_records import Summary

__all__ = ["AnyVerdict", "EvalTotals", "GateVerdict", "MetadataTally", "judge_gates"]


@dataclass(frozen=True, slots=True, kw_only=True)
class GateVerdict:
    """One gate: what it counts, how many of them passed, and the rate it asks for."""

    name: str
    passed: int
    total: int
    min_pass_rate: float
    estimate: float | None = None
    """A rate that is not ``passed / total`` (pass@k, pass^k: averaged over ``total`` cases)."""

    @property
    def rate(self) -> float | None:
        """The rate the gate reads, ``None`` over no case."""
        if not self.total:
            return None
        return self.estimate if self.estimate is not None else self.passed / self.total

    @property
    def held(self) -> bool:
        """Whether the pass rate reaches the gate (never over no case)."""
        rate = self.rate
        return rate is not None and rate >= self.min_pass_rate

    def line(self) -> str:
        """The verdict as one line: ``gate lang=de: 9/10 passed (90.00%) >= 80.00%: held``."""
        rate = f"{self.rate:.2%}" if self.rate is not None else "no case"
        verdict = "held" if self.held else "MISSED"
        counted = f"{self.total} cases" if self.estimate is not None else f"{self.passed}/{self.total} passed"
        return f"gate {self.name}: {counted} ({rate}), needs {self.min_pass_rate:.2%}: {verdict}"


AnyVerdict = GateVerdict | LimitVerdict
"""A pass-rate gate's verdict, or a cost or latency limit's: each has ``held`` and ``line()``."""


def _value_key(value: object) -> str:
    return json.dumps(value, sort_keys=True)  # true and 1, "1" and 1 stay apart, as rules compare them


class MetadataTally:
    """Passes and totals by the metadata values the gates name, counted case by case."""

    def __init__(self, gates: Iterable[MetadataGate]) -> None:
        self._keys = {gate.key for gate in gates}
        self.counts: dict[tuple[str, str], list[int]] = {}
        self.values: dict[tuple[str, str], Any] = {}

    @property
    def needed(self) -> bool:
        """Whether any gate reads metadata."""
        return bool(self._keys)

    def add(self, metadata: Mapping[str, Any], passed: bool) -> None:
        """Count one case."""
        for key in self._keys:
            if key not in metadata or isinstance(metadata[key], dict | list):
                continue
            slot = (key, _value_key(metadata[key]))
            counts = self.counts.get(slot)
            if counts is None:
                counts = self.counts[slot] = [0, 0]
                self.values[slot] = metadata[key]
            counts[0] += passed
            counts[1] += 1


def judge_gates(
    gates: Gates,
    *,
    passed: int,
    total: int,
    by_assertion: Mapping[str, tuple[int, int]],
    metadata: MetadataTally,
) -> list[GateVerdict]:
    """Every gate's verdict, in the file's order: overall, by metadata, by assertion. ``by_assertion`` holds
    each assertion name's passed and total verdicts."""
    verdicts: list[GateVerdict] = []
    if gates.min_pass_rate is not None:
        verdicts.append(
            GateVerdict(name="pass rate", passed=passed, total=total, min_pass_rate=gates.min_pass_rate)
        )
    for gate in gates.by_metadata:
        if gate.value is not None:
            slots = [(gate.key, _value_key(gate.value))]
        else:
            slots = sorted(slot for slot in metadata.counts if slot[0] == gate.key) or [(gate.key, "")]
        for slot in slots:
            counts = metadata.counts.get(slot, [0, 0])
            value = metadata.values.get(slot, gate.value if gate.value is not None else "*")
            verdicts.append(
                GateVerdict(
                    name=f"{gate.key}={value}",
                    passed=counts[0],
                    total=counts[1],
                    min_pass_rate=gate.min_pass_rate,
                )
            )
    for assertion_gate in gates.by_assertion:
        found_passed, found_total = by_assertion.get(assertion_gate.assertion, (0, 0))
        verdicts.append(
            GateVerdict(
                name=f"assertion {assertion_gate.assertion}",
                passed=found_passed,
                total=found_total,
                min_pass_rate=assertion_gate.min_pass_rate,
            )
        )
    return verdicts


@dataclass(slots=True)
class EvalTotals:
    """Passes over every suite of an eval, overall and by assertion, summed suite by suite for its gates;
    with repeats, pass@k and pass^k weighted by each suite's cases, and cases by their failed runs."""

    passed: int = 0
    total: int = 0
    by_assertion: dict[str, tuple[int, int]] = field(default_factory=dict)
    repeat_cases: int = 0
    pass_at_k: list[float] = field(default_factory=list)
    """Sums of each suite's pass@k times its cases (divided by ``repeat_cases`` when judged)."""
    pass_hat_k: list[float] = field(default_factory=list)
    cases_by_failures: list[int] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)
    """Each suite's, for the cost and latency gates."""

    def add(self, summary: Summary) -> None:
        """Count one suite's run (every case of it: one not run counts, not passed)."""
        self.summaries.append(summary)
        self.passed += summary.passed
        self.total += summary.total_cases
        for name, figures in summary.by_assertion.items():
            before = self.by_assertion.get(name, (0, 0))
            self.by_assertion[name] = (before[0] + figures.passed, before[1] + figures.total)
        repeats = summary.repeats
        if repeats is not None:
            self.repeat_cases += repeats.cases
            self.pass_at_k = _summed(self.pass_at_k, [value * repeats.cases for value in repeats.pass_at_k])
            self.pass_hat_k = _summed(
                self.pass_hat_k, [value * repeats.cases for value in repeats.pass_hat_k]
            )
            self.cases_by_failures = [
                int(value) for value in _summed(self.cases_by_failures, repeats.cases_by_failures)
            ]

    def judge(self, gates: Gates, metadata: MetadataTally) -> list[AnyVerdict]:
        """Every gate's verdict (:func:`judge_gates`, the gates of repeats, then the cost and
        latency limits); without any gate, the one
        rule that every case passes, as ``assay run`` without a gate."""
        if gates.empty:
            return [GateVerdict(name="every case", passed=self.passed, total=self.total, min_pass_rate=1.0)]
        verdicts = judge_gates(
            gates, passed=self.passed, total=self.total, by_assertion=self.by_assertion, metadata=metadata
        )
        cases = self.repeat_cases
        if gates.max_failures_per_case is not None:
            within = sum(self.cases_by_failures[: gates.max_failures_per_case + 1])
            name = f"every case fails at most {gates.max_failures_per_case} of its runs"
            verdicts.append(GateVerdict(name=name, passed=within, total=cases, min_pass_rate=1.0))
        for label, sums, chosen in (
            ("pass@", self.pass_at_k, gates.pass_at_k),
            ("pass^", self.pass_hat_k, gates.pass_hat_k),
        ):
            for gate in chosen:
                estimate = sums[gate.k - 1] / cases if cases and gate.k <= len(sums) else None
                verdicts.append(
                    GateVerdict(
                        name=f"{label}{gate.k}",
                        passed=0,
                        total=cases if estimate is not None else 0,
                        min_pass_rate=gate.min_rate,
                        estimate=estimate,
                    )
                )
        return [*verdicts, *judge_limits(gates.limits, self.summaries)]


def _summed(first: Sequence[float], second: Sequence[float]) -> list[float]:
    """Two lists added item by item, the shorter padded with zeros."""
    size = max(len(first), len(second))
    return [
        (first[i] if i < len(first) else 0.0) + (second[i] if i < len(second) else 0.0) for i in range(size)
    ]
