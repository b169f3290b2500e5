"""Evaluations and results as the outside sees them (plain records, no ORM), and their mapping from rows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from operator import itemgetter
from typing import Any

from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from assay.domain import EvaluationStatus, GraderSpec
from assay.graders.contract.verdict import answer_of, explanation_of, reason_of
from assay.graders.trajectory.record import Trajectory, iter_steps_json
from assay.json_types import JsonObject
from assay.serialization import json_text
from assay.services.execution.case_results import CaseResult
from assay.services.execution.trajectories import PackedTrajectory, TrajectoryFacts, trajectory_summary
from assay.services.figures.summary import SummaryTally
from assay.services.figures.summary_records import Summary
from assay.storage.evaluations import EvaluationRow, ResultRow
from assay.storage.result_batches import NewResult
from assay.storage.results import SUMMARY_COLUMNS
from assay.storage.trajectories import Chunk, chunk_steps
from assay.targets.specs import target_view
from assay.targets.usage import JudgeSpend, Usage


@dataclass(frozen=True, slots=True, kw_only=True)
class Evaluation:
    """An evaluation: what ran (grader spec, target without its secrets), where it is, and its summary."""

    id: int
    name: str
    suite_id: int
    grader: GraderSpec
    target: JsonObject
    """The target as shown: its stored spec without secrets (:func:`~assay.targets.specs.target_view`)."""
    concurrency: int
    repeats: int
    """How many times each case is asked; ``total`` counts cases × repeats."""
    reply_cache: str
    """How it uses the reply cache: ``off``, ``record`` or ``replay``."""
    status: EvaluationStatus
    done: int
    total: int
    summary: Summary | None
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


Result = CaseResult
"""One case's stored outcome: the runner's record, read back (``number`` and ``key`` name its case as every
surface shows it)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseOutcome:
    """One evaluation's verdict on a case, as shown beside another's (comparisons, side by side)."""

    passed: bool
    score: float | None
    agent_response: str | None
    match_status: str | None
    error: str | None


def outcome_of(row: ResultRow) -> CaseOutcome:
    """The verdict a result row holds."""
    return CaseOutcome(
        passed=row.passed,
        score=row.score,
        agent_response=row.agent_response,
        match_status=row.match_status,
        error=row.error,
    )


@cache
def _summary_reader() -> TypeAdapter[Summary]:
    return TypeAdapter(Summary)


def stored_summary(data: JsonObject | None) -> Summary | None:
    """The summary stored with an evaluation, typed; ``None`` for none, or one this version cannot read."""
    if not data:
        return None
    try:
        return _summary_reader().validate_python(data)
    except PydanticValidationError:
        return None


def evaluation_of(row: EvaluationRow, summary: Summary | None = None) -> Evaluation:
    """The record of a row; ``summary`` stands in for a stored one that is missing.

    The shown target is the stored view; only evaluations stored before there was one read their target.
    """
    return Evaluation(
        id=row.id,
        name=row.name,
        suite_id=row.suite_id,
        grader=GraderSpec(grader_id=row.grader_id, config=row.grader_config, version=row.grader_version),
        target=row.target_view if row.target_view is not None else target_view(row.target),
        concurrency=row.concurrency,
        repeats=row.repeats,
        reply_cache=row.reply_cache,
        status=EvaluationStatus(row.status),
        done=row.done,
        total=row.total,
        summary=stored_summary(row.summary) if row.summary is not None else summary,
        error=row.error,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


SAME_AS = "__same_as__"
"""Marks a stored details value that repeats a column of its row: ``{"__same_as__": "agent_response"}``."""
_REPEATABLE = ("agent_response", "expected_output", "input")
_INLINE_CHARS = 64
"""Short values are stored as they are: a marker would save nothing."""


def stored_details(details: JsonObject | None, texts: CaseResult | ResultRow) -> JsonObject | None:
    """``details`` as stored: a value equal to the row's answer, expected output or input (read from
    ``texts``, the result or row they belong to) is a marker.

    Graders copy the texts they judged into their details (true-false keeps ``actual_original``...), so a
    long answer was stored several times. Which fields repeat is found by value, with no knowledge of any
    grader, and the key order is kept, so :func:`restored_details` gives back exactly what was graded.
    Details with no long text are stored as they are (most: short answers), without a copy.
    """
    if not details:
        return details
    for value in details.values():  # a loop, not any() over a generator: this runs for every result
        if isinstance(value, str) and len(value) > _INLINE_CHARS:
            break
    else:
        return details
    stored: JsonObject = {}
    for key, value in details.items():
        same = None
        if isinstance(value, str) and len(value) > _INLINE_CHARS:
            same = next((name for name in _REPEATABLE if getattr(texts, name) == value), None)
        stored[key] = {SAME_AS: same} if same is not None else value
    return stored


def restored_details(details: JsonObject | None, row: ResultRow) -> JsonObject | None:
    """The details a grader gave, from their stored form."""
    if not details:
        return details
    restored: JsonObject = {}
    for key, value in details.items():
        if isinstance(value, dict) and len(value) == 1:
            same = value.get(SAME_AS)
            if isinstance(same, str) and same in _REPEATABLE:
                value = getattr(row, same)
        restored[key] = value
    return restored


@dataclass(frozen=True, slots=True)
class ExportedResult:
    """A result as exported: with the metadata of its case (empty when the case was deleted since)."""

    result: Result
    metadata: JsonObject


def result_of(row: ResultRow) -> Result:
    """The record of a result row."""
    details = restored_details(row.details, row)
    return Result(
        case_id=row.case_id,
        number=row.number,
        key=row.case_key,
        input=row.input,
        expected_output=row.expected_output,
        agent_response=row.agent_response,
        passed=row.passed,
        score=row.score,
        match_status=row.match_status,
        reason=reason_of(details) if details else None,
        reason_code=row.reason_code,
        answer=answer_of(details) if details else None,
        explanation=explanation_of(details) if details else None,
        details=details,
        error=row.error,
        error_detail=row.error_detail,
        latency_ms=row.latency_ms,
        attempts=row.attempts,
        cached=row.cached,
        usage=_usage_of(row.input_tokens, row.output_tokens, row.usage_model),
        trajectory=TrajectoryFacts.stored(row.trajectory_summary),
        repeat=row.repeat,
        judge=JudgeSpend.of_record(row.judge_usage),
    )


def result_columns(result: CaseResult) -> NewResult:
    """The columns of a new result row (details stored without the texts the row already holds; the typed
    ``reason``, ``answer`` and ``explanation`` are read back from the details, stored whole).

    One positional call, in the table's column order (each field named beside it; a test pins every one):
    built by keyword, the 22-field ``NewResult`` cost 4-6 µs more per result (bench/README.md, hot
    functions)."""
    usage, judge, trajectory = result.usage, result.judge, result.trajectory
    return NewResult(
        result.case_id,  # case_id
        result.repeat,  # repeat
        result.number - 1,  # position
        result.key,  # case_key
        result.input,  # input
        result.expected_output,  # expected_output
        result.agent_response,  # agent_response
        result.passed,  # passed
        result.score,  # score
        result.match_status,  # match_status
        result.reason_code,  # reason_code
        stored_details(result.details, result),  # details
        result.error,  # error
        result.error_detail,  # error_detail
        result.latency_ms,  # latency_ms
        result.attempts,  # attempts
        result.cached,  # cached
        usage.input_tokens if usage else None,  # input_tokens
        usage.output_tokens if usage else None,  # output_tokens
        usage.model if usage else None,  # usage_model
        # its steps are stored apart: trajectory_chunks
        (trajectory_summary(trajectory) or None) if trajectory is not None else None,  # trajectory_summary
        judge.as_record() if judge is not None else None,  # judge_usage
    )


def trajectory_chunks(results: Iterable[CaseResult]) -> list[tuple[int, list[Chunk]]]:
    """The stored chunks of each read trajectory among ``results``, by case id: packed when graded, or
    compressed now (on the writer's thread, so the transaction that stores them stays short)."""
    return [
        (result.case_id, _chunks(result.trajectory))
        for result in results
        if isinstance(result.trajectory, Trajectory | PackedTrajectory)
    ]


def _chunks(trajectory: Trajectory | PackedTrajectory) -> list[Chunk]:
    if isinstance(trajectory, PackedTrajectory):
        return list(trajectory.chunks)
    return list(chunk_steps(iter_steps_json(trajectory)))


def _usage_of(input_tokens: int | None, output_tokens: int | None, model: str | None) -> Usage | None:
    return (
        None if input_tokens is None or output_tokens is None else Usage(input_tokens, output_tokens, model)
    )


SHOWN_ROW_OVERHEAD_BYTES = 200
"""About what a listed row takes besides its texts (names, numbers, JSON punctuation)."""


def shown_size(texts: Iterable[str | None], outcomes: Iterable[CaseOutcome | None]) -> int:
    """About how many bytes a case shown with its outcomes (a grid row, a flip) takes in a page."""
    answers = (text for outcome in outcomes if outcome for text in (outcome.agent_response, outcome.error))
    return sum(len(text) for text in (*texts, *answers) if text) + SHOWN_ROW_OVERHEAD_BYTES


def listed_size(result: Result) -> int:
    """About how many bytes a result takes in a listing (its texts and details as JSON)."""
    texts = (
        result.input,
        result.expected_output,
        result.agent_response,
        result.error_detail,
        result.reason,  # the typed fields repeat what the details say, and are listed beside them
        result.answer,
        result.explanation,
    )
    return sum(len(text) for text in texts if text) + len(json_text(result.details)) + 200


_COUNTED = itemgetter(*(NewResult._fields.index(name) for name in SUMMARY_COLUMNS))


def count_new_rows(rows: Iterable[NewResult], tally: SummaryTally) -> None:
    """Count rows as stored (:func:`result_columns`) into ``tally``, as :func:`count_rows` counts them read
    back."""
    count_rows(map(_COUNTED, rows), tally)


def count_rows(columns: Iterable[tuple[Any, ...]], tally: SummaryTally) -> None:
    """Count rows of :data:`~assay.storage.results.SUMMARY_COLUMNS` into ``tally``, with no record made
    per row (a recount reads all)."""
    add = tally.add_result
    for (
        passed,
        score,
        error,
        latency,
        status,
        code,
        details,
        spent_in,
        spent_out,
        model,
        position,
        judged,
    ) in columns:
        tokens = None if spent_in is None or spent_out is None else (spent_in, spent_out, model)
        judge = JudgeSpend.of_record(judged) if judged is not None else None
        add(passed, score, error, latency, status, code, details, tokens, position + 1, judge)
