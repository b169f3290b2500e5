"""Plain domain records and vocabulary shared by the layers (no ORM, no API schema)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar


@dataclass(frozen=True, slots=True)
class GraderSpec:
    """What graded a result: a grader id, its effective config and its version; never a live object."""

    grader_id: str
    config: dict[str, Any] = field(default_factory=dict)
    version: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON form stored with an evaluation."""
        return {"grader_id": self.grader_id, "config": self.config, "version": self.version}


@dataclass(frozen=True, slots=True)
class NewCase:
    """A case to add to a suite: what the agent is asked, what it should answer, anything else known.

    ``key`` is the user's own name for the case (a file's ``id`` or ``key`` field), unique in its suite; in
    a suite either every case has one or none has.
    """

    input: str
    expected_output: str
    metadata: dict[str, Any] = field(default_factory=dict)
    key: str | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """A stored case. ``number`` (its 1-based place in the suite) and ``key`` are how users name it."""

    id: int
    suite_id: int
    position: int
    input: str
    expected_output: str
    metadata: dict[str, Any]
    key: str | None = None

    @property
    def number(self) -> int:
        """The case's place in its suite, from 1: the number every surface shows."""
        return self.position + 1


class EvaluationStatus(StrEnum):
    """Where an evaluation is in its life: ``pending → running → completed | failed | cancelled``."""

    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def is_terminal(self) -> bool:
        """Whether the evaluation will not change any more."""
        return self in _TERMINAL


_TERMINAL = frozenset({EvaluationStatus.COMPLETED, EvaluationStatus.FAILED, EvaluationStatus.CANCELLED})
UNFINISHED: tuple[EvaluationStatus, ...] = tuple(
    status for status in EvaluationStatus if not status.is_terminal
)
"""The statuses of an evaluation that still runs or will: the one place this set is written."""


class Outcome(StrEnum):
    """Result filters: ``failed`` is every case not passed (graded and failed, or a target error), as in the
    summary's ``failed`` count; ``error`` only the target errors; ``invalid`` an invalid response/expected."""

    PASSED = "passed"
    FAILED = "failed"
    INVALID = "invalid"
    ERROR = "error"


class ResultSort(StrEnum):
    """Result orderings; a leading ``-`` in the query means descending."""

    NUMBER = "number"
    SCORE = "score"
    LATENCY_MS = "latency_ms"


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a listing and the size of the whole listing."""

    items: list[T]
    total: int


def within_budget(items: Iterable[T], size: Callable[[T], int], max_bytes: int) -> list[T]:
    """The first ``items`` whose ``size`` adds up to at most ``max_bytes``, and always the first one: the
    page-size budget (``ASSAY_MAX_RESULTS_PAGE_BYTES``) every paged listing of answers keeps to."""
    kept: list[T] = []
    used = 0
    for item in items:
        used += size(item)
        if kept and used > max_bytes:
            break
        kept.append(item)
    return kept
