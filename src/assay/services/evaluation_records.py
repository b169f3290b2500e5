"""Evaluations and results as the outside sees them (plain records, no ORM), and their mapping from rows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from assay.domain import GraderSpec
from assay.services.runner import CaseResult
from assay.services.summary import ResultFacts
from assay.storage.evaluations import EvaluationRow, EvaluationStatus, ResultRow
from assay.targets.specs import target_view


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An evaluation: what ran (grader spec, target without its secrets), where it is, and its summary."""

    id: int
    name: str
    suite_id: int
    grader: GraderSpec
    target: dict[str, Any]
    concurrency: int
    status: EvaluationStatus
    done: int
    total: int
    summary: dict[str, Any] | None
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @property
    def duration_s(self) -> float | None:
        """Seconds from start to finish (to now while it runs); ``None`` before it starts."""
        if self.started_at is None:
            return None
        end = self.finished_at or datetime.now(self.started_at.tzinfo)
        return round((end - self.started_at).total_seconds(), 3)


@dataclass(frozen=True, slots=True)
class Result:
    """One case's stored outcome."""

    case_id: int
    position: int
    input: str
    expected_output: str
    agent_response: str | None
    passed: bool
    score: float | None
    match_status: str | None
    details: dict[str, Any] | None
    error: str | None
    error_detail: str | None
    latency_ms: float | None
    attempts: int

    def as_dict(self) -> dict[str, Any]:
        """The result as a JSON object (exports)."""
        return asdict(self)


def evaluation_of(row: EvaluationRow, summary: dict[str, Any] | None = None) -> Evaluation:
    """The record of a row; ``summary`` overrides the stored one (a live summary while running)."""
    return Evaluation(
        id=row.id,
        name=row.name,
        suite_id=row.suite_id,
        grader=GraderSpec(row.grader_id, row.grader_config, row.grader_version),
        target=target_view(row.target),
        concurrency=row.concurrency,
        status=EvaluationStatus(row.status),
        done=row.done,
        total=row.total,
        summary=summary if summary is not None else row.summary,
        error=row.error,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


def result_of(row: ResultRow) -> Result:
    """The record of a result row."""
    return Result(
        row.case_id,
        row.position,
        row.input,
        row.expected_output,
        row.agent_response,
        row.passed,
        row.score,
        row.match_status,
        row.details,
        row.error,
        row.error_detail,
        row.latency_ms,
        row.attempts,
    )


def result_columns(result: CaseResult, position: int) -> dict[str, Any]:
    """The columns of a new result row."""
    return {**result.as_record(), "position": position}


def facts_of(columns: Iterable[tuple[Any, ...]]) -> Iterable[ResultFacts]:
    """Summary facts from ``(passed, score, error, latency_ms, match_status, details)`` tuples."""
    for passed, score, error, latency_ms, match_status, details in columns:
        details = details or {}
        yield ResultFacts(
            passed,
            score,
            error,
            latency_ms,
            match_status,
            details.get("expected_bool"),
            details.get("actual_bool"),
        )
