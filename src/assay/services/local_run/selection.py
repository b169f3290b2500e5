"""Part of a suite for ``assay run``: ``--filter key=value`` (case metadata) and ``--limit N``.

The cases left out are not renumbered: a case keeps its number (its place in the suite), so its result, a
recorded answer naming it by number and a resumed run all agree. They are marked as a resumed run marks the
cases it already has, so the run skips them as it skips those.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from assay.errors import ValidationError
from assay.services.execution.case_results import RunCase


@dataclass(frozen=True, slots=True)
class Selection:
    """Which cases a run takes: those whose metadata holds every ``filters`` pair, the first ``limit``."""

    filters: tuple[tuple[str, str], ...] = ()
    limit: int | None = None

    @classmethod
    def parse(cls, filters: Sequence[str], limit: int | None) -> Selection:
        """From ``--filter key=value`` (repeatable) and ``--limit N``; ``ValidationError`` on a bad one."""
        pairs = []
        for text in filters:
            key, equals, value = text.partition("=")
            if not equals or not key.strip():
                raise ValidationError(
                    f"--filter must look like key=value (a case metadata key), got {text!r}"
                )
            pairs.append((key.strip(), value))
        if limit is not None and limit < 1:
            raise ValidationError(f"--limit must be at least 1, got {limit}")
        return cls(tuple(pairs), limit)

    @property
    def everything(self) -> bool:
        """Whether every case is taken."""
        return not self.filters and self.limit is None

    def takes(self, case: RunCase) -> bool:
        """Whether ``case`` matches the filters (its metadata values compared as text)."""
        metadata = case.target_case.metadata
        return all(key in metadata and _text(metadata[key]) == value for key, value in self.filters)

    def chosen(self, cases: Iterable[RunCase]) -> Iterator[RunCase]:
        """The cases taken, in order."""
        taken = 0
        for case in cases:
            if self.limit is not None and taken >= self.limit:
                return
            if self.takes(case):
                taken += 1
                yield case

    def mark_left_out(self, cases: Iterable[RunCase], done: array[int], repeats: int = 1) -> int:
        """Mark in ``done`` (by case number, or its ``repeats`` slots) every case left out, as taken by
        another run; how many cases are taken."""
        taken = bytearray(len(done))
        count = 0
        for case in self.chosen(cases):
            first = (case.target_case.place - 1) * repeats + 1
            taken[first : first + repeats] = b"\x01" * repeats
            count += 1
        for slot in range(1, len(done)):
            if not taken[slot] and not done[slot]:
                done[slot] = 1
        return count


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
