"""What an import makes: suite rows with their assertions, and the report of every line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.errors import Loc, location

__all__ = ["Assertion", "ImportReport", "ImportedRow", "LineReport", "UnsupportedError", "put"]


class UnsupportedError(Exception):
    """A check (or a whole line) Assay cannot represent exactly; raised in a converter, never beyond it."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what}: {why}")
        self.what = what
        self.why = why


def put(metadata: dict[str, Any], name: str, value: Any) -> None:
    """Set ``metadata[name]``, refusing to overwrite what the source gave under that name (lossless)."""
    if name in metadata:
        raise UnsupportedError(f"the field '{name}'", "is given twice (by the source, and by the import)")
    metadata[name] = value


@dataclass(frozen=True, slots=True, kw_only=True)
class Assertion:
    """One check of a case: a grader spec in the shape composites use, plus the case-level weight and name."""

    grader_id: str
    config: dict[str, Any] = field(default_factory=dict)
    expected_output: str | None = None
    weight: float | None = None
    name: str | None = None

    def spec(self) -> dict[str, Any]:
        """The spec a composite takes as a child (``grader_id``, ``config``, ``expected_output``)."""
        spec: dict[str, Any] = {"grader_id": self.grader_id}
        if self.config:
            spec["config"] = self.config
        if self.expected_output is not None:
            spec["expected_output"] = self.expected_output
        return spec

    def to_json(self) -> dict[str, Any]:
        """The assertion as a suite row's ``assert`` item."""
        item = self.spec()
        if self.weight is not None:
            item["weight"] = self.weight
        if self.name is not None:
            item["name"] = self.name
        return item


@dataclass(slots=True, kw_only=True)
class ImportedRow:
    """A suite row: what the agent is asked (text, or chat messages), what it should answer, its metadata
    and its own checks."""

    input: str | list[dict[str, Any]]
    expected_output: Any = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    key: str | None = None
    assertions: list[Assertion] = field(default_factory=list)
    threshold: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The row as a suite JSONL line holds it (``assert`` and ``threshold`` only when set)."""
        row: dict[str, Any] = {}
        if self.key is not None:
            row["key"] = self.key
        row["input"] = self.input
        row["expected_output"] = self.expected_output
        row["metadata"] = self.metadata
        if self.assertions:
            row["assert"] = [assertion.to_json() for assertion in self.assertions]
        if self.threshold is not None:
            row["threshold"] = self.threshold
        return row


@dataclass(slots=True, kw_only=True)
class LineReport:
    """What became of one line (or test) of the source: checks mapped, fields kept, checks dropped."""

    place: Loc
    file: str | None = None
    """The file the line is in, when not the one imported (a CSV a promptfoo config refers to)."""
    mapped: list[str] = field(default_factory=list)
    """Each check mapped, as ``<source check> -> <grader spec>``."""
    metadata: list[str] = field(default_factory=list)
    """Source fields kept in the row's metadata."""
    dropped: list[str] = field(default_factory=list)
    """Checks that could not be represented and were dropped (``--drop-unsupported``), with why."""
    notes: list[str] = field(default_factory=list)
    """What a reader should know (a model-judged check whose model differs)."""

    def __str__(self) -> str:
        parts = [f"mapped {'; '.join(self.mapped)}" if self.mapped else "no checks"]
        if self.metadata:
            parts.append(f"metadata {', '.join(self.metadata)}")
        if self.dropped:
            parts.append(f"DROPPED {'; '.join(self.dropped)}")
        if self.notes:
            parts.append(f"note {'; '.join(self.notes)}")
        return f"{self.where}: {' | '.join(parts)}"

    @property
    def where(self) -> str:
        """``line 3``, or ``tests.csv line 3`` in another file."""
        return f"{self.file} {location(self.place)}" if self.file else location(self.place)


@dataclass(slots=True, kw_only=True)
class ImportReport:
    """The rows an import made and, line by line, what was mapped, kept and dropped."""

    source: str
    rows: list[ImportedRow] = field(default_factory=list)
    lines: list[LineReport] = field(default_factory=list)

    @property
    def dropped(self) -> list[str]:
        """Every dropped check, as ``<place>: <check>: <why>``."""
        return [f"{line.where}: {item}" for line in self.lines for item in line.dropped]
