"""The ``evaluations`` and ``results`` tables, and the queries on an evaluation (those that read its
results are in :mod:`assay.storage.results`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    Boolean,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    Select,
    String,
    UniqueConstraint,
    delete,
    false,
    func,
    select,
    update,
)
from sqlalchemy.orm import Mapped, Session, defer, mapped_column

from assay.domain import UNFINISHED, EvaluationStatus
from assay.json_types import JsonObject
from assay.storage.database import Base
from assay.storage.suites import CaseRow, Placed
from assay.storage.trajectories import delete_trajectories
from assay.storage.types import SafeJSON, SafeText, UTCDateTime, utc_now


class EvaluationRow(Base):
    """One run of a grader over a suite's cases against a target."""

    __tablename__ = "evaluations"
    __table_args__ = (
        Index("ix_evaluations_suite_id_status", "suite_id", "status"),
        {"sqlite_autoincrement": True},  # an id is never given twice (an old link must not open another)
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    grader_id: Mapped[str] = mapped_column(String(200))
    grader_config: Mapped[JsonObject] = mapped_column(SafeJSON)
    grader_version: Mapped[str] = mapped_column(String(100))
    target: Mapped[JsonObject] = mapped_column(SafeJSON)
    """The full target spec, secrets included (needed to resume); never read to show the evaluation."""
    target_view: Mapped[JsonObject | None] = mapped_column(SafeJSON, nullable=True)
    """The redacted view of ``target`` the API shows, kept apart so that showing an evaluation does not read
    every recorded answer (``None`` for evaluations stored before it: computed from ``target`` then)."""
    egress: Mapped[JsonObject | None] = mapped_column(SafeJSON, nullable=True)
    """The egress policy of the server that accepted the evaluation (``EgressSettings``): every process that
    runs it runs it under this one, not its own (``None``: stored before, or by the CLI)."""
    concurrency: Mapped[int] = mapped_column(Integer)
    repeats: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    """How many times each case is asked (results are keyed by case and repeat); ``total`` counts them all."""
    reply_cache: Mapped[str] = mapped_column(String(10), default="off", server_default="off")
    """How the evaluation uses the reply cache: ``off``, ``record`` or ``replay``."""
    prices: Mapped[JsonObject | None] = mapped_column(SafeJSON, nullable=True)
    """The price table its cost is counted with (the server's, overridden by the evaluation's own), fixed
    when it was created (``None``: none, so its cost is not counted)."""
    status: Mapped[str] = mapped_column(String(20), index=True)
    total: Mapped[int] = mapped_column(Integer)
    done: Mapped[int] = mapped_column(Integer, default=0)
    summary: Mapped[JsonObject | None] = mapped_column(SafeJSON, nullable=True)
    """A recount of the stored results: the latest one while the evaluation runs, the final one after."""
    summary_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When a worker last claimed a recount of ``summary`` (running evaluations refresh it now and then)."""
    error: Mapped[str | None] = mapped_column(SafeText, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utc_now)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class ResultRow(Placed, Base):
    """The outcome of one case in one evaluation: graded, or an error reason."""

    __tablename__ = "results"
    __table_args__ = (
        UniqueConstraint("evaluation_id", "case_id", "repeat"),
        Index("ix_results_evaluation_id_position", "evaluation_id", "position", "repeat"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    evaluation_id: Mapped[int] = mapped_column(ForeignKey("evaluations.id", ondelete="CASCADE"))
    case_id: Mapped[int] = mapped_column(Integer)
    repeat: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Which asking of the case this is, from 0 (an evaluation of ``repeats`` n has 0..n-1)."""
    position: Mapped[int] = mapped_column(Integer)
    case_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    input: Mapped[str] = mapped_column(SafeText)
    expected_output: Mapped[str] = mapped_column(SafeText)
    agent_response: Mapped[str | None] = mapped_column(SafeText, nullable=True)
    passed: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    match_status: Mapped[str | None] = mapped_column(String(40), nullable=True)
    reason_code: Mapped[str | None] = mapped_column(String(40), nullable=True)
    """The verdict's reason code, if its grader gave one (``details.reason_code``): what results filter by."""
    details: Mapped[JsonObject | None] = mapped_column(SafeJSON, nullable=True)
    error: Mapped[str | None] = mapped_column(String(100), nullable=True)
    error_detail: Mapped[str | None] = mapped_column(SafeText, nullable=True)
    latency_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    cached: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The reply came from the reply cache (the agent was not called for it)."""
    input_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    output_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    usage_model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """What the agent's reply said it spent, and through which model (null: unknown)."""
    trajectory_summary: Mapped[JsonObject | None] = mapped_column(SafeJSON, nullable=True)
    """The summary of the agent's trajectory (its steps are in ``trajectory_chunks``); null: none captured."""
    judge_usage: Mapped[JsonObject | None] = mapped_column(SafeJSON, nullable=True)
    """What the grader's calls said they spent (:class:`~assay.targets.usage.JudgeSpend`; null: no call)."""


# ---- Evaluations --------------------------------------------------------------------------------------


def find_evaluation(
    session: Session, evaluation_id: int, *, with_target: bool = False
) -> EvaluationRow | None:
    """The evaluation with this id, if any. Its stored target (which may hold every recorded answer) is read
    only when used, so that showing an evaluation costs the same at any size; ``with_target`` reads it now,
    in the same query (read later, a row deleted meanwhile would be an error rather than a 404)."""
    options = [] if with_target else [defer(EvaluationRow.target)]
    return session.get(EvaluationRow, evaluation_id, options=options)


def _filtered(
    query: Select[Any], suite_id: int | None, status: str | None, grader_id: str | None = None
) -> Select[Any]:
    if suite_id is not None:
        query = query.where(EvaluationRow.suite_id == suite_id)
    if status is not None:
        query = query.where(EvaluationRow.status == status)
    if grader_id is not None:
        query = query.where(EvaluationRow.grader_id == grader_id)
    return query


def page_of_evaluations(
    session: Session,
    *,
    skip: int,
    limit: int,
    suite_id: int | None = None,
    status: str | None = None,
    grader_id: str | None = None,
) -> tuple[Sequence[EvaluationRow], int]:
    """A page of evaluations, newest first, and how many match the filters in all."""
    filters = (suite_id, status, grader_id)
    query = _filtered(select(EvaluationRow), *filters).order_by(EvaluationRow.id.desc())
    query = query.options(defer(EvaluationRow.target))
    rows = session.scalars(query.offset(skip).limit(limit)).all()
    total = session.scalar(_filtered(select(func.count()).select_from(EvaluationRow), *filters)) or 0
    return rows, total


def rename_evaluation(session: Session, evaluation_id: int, name: str) -> bool:
    """Give the evaluation a new name; whether it was there (one statement: a concurrent delete is a
    ``False``, not an error)."""
    statement = update(EvaluationRow).where(EvaluationRow.id == evaluation_id).values(name=name)
    return bool(getattr(session.execute(statement), "rowcount", 0))


def evaluation_ids_of_suite(session: Session, suite_id: int) -> list[int]:
    """Ids of the suite's evaluations, oldest first."""
    query = select(EvaluationRow.id).where(EvaluationRow.suite_id == suite_id).order_by(EvaluationRow.id)
    return list(session.scalars(query))


def unfinished_evaluations(session: Session) -> list[tuple[int, int]]:
    """``(id, concurrency)`` of every evaluation pending or running, oldest first."""
    query = (
        select(EvaluationRow.id, EvaluationRow.concurrency)
        .where(EvaluationRow.status.in_([status.value for status in UNFINISHED]))
        .order_by(EvaluationRow.id)
    )
    return [(evaluation_id, concurrency) for evaluation_id, concurrency in session.execute(query)]


def evaluation_ids_with_status(session: Session, statuses: Sequence[str]) -> list[int]:
    """Ids of evaluations in any of ``statuses``, oldest first."""
    query = select(EvaluationRow.id).where(EvaluationRow.status.in_(statuses)).order_by(EvaluationRow.id)
    return list(session.scalars(query))


def set_status(
    connection: Connection | Session,
    evaluation_id: int,
    status: EvaluationStatus,
    *,
    only_from: Sequence[EvaluationStatus] = (),
    **values: Any,
) -> bool:
    """Move an evaluation to ``status`` (with other column ``values``); with ``only_from``, only from those.

    Returns whether a row changed, so two writers racing (a cancel and a completion) cannot both win.
    """
    statement = update(EvaluationRow).where(EvaluationRow.id == evaluation_id)
    if only_from:
        statement = statement.where(EvaluationRow.status.in_([state.value for state in only_from]))
    result = connection.execute(statement.values(status=status.value, **values))
    return bool(getattr(result, "rowcount", 0))


class PendingCase(NamedTuple):
    """A case a shard runs: the columns of its row that a run reads, and the repeats of it that have no
    result yet (in order)."""

    id: int
    number: int
    """The case's place in its suite, from 1 (``position + 1``)."""
    input: str
    expected_output: str
    case_metadata: dict[str, Any]
    case_key: str | None
    assertions: dict[str, Any] | None
    conversation: dict[str, Any] | None
    repeats: tuple[int, ...] = (0,)


def cases_without_result(
    session: Session,
    evaluation_id: int,
    suite_id: int,
    positions: tuple[int, int] | None = None,
    *,
    repeats: int = 1,
) -> list[PendingCase]:
    """The suite's cases that this evaluation lacks a result of in some of its ``repeats``, in order, each
    with the repeats it lacks; with ``positions`` ``(low, high)``, only those at ``low <= position < high``
    (one shard)."""
    query = select(
        CaseRow.id,
        CaseRow.position + 1,
        CaseRow.input,
        CaseRow.expected_output,
        CaseRow.case_metadata,
        CaseRow.case_key,
        CaseRow.assertions,
        CaseRow.conversation,
    ).where(CaseRow.suite_id == suite_id)
    if positions is not None:
        query = query.where(CaseRow.position >= positions[0], CaseRow.position < positions[1])
    # Columns on the session's connection, not ORM objects: loading a shard's cases as CaseRow objects cost
    # more than storing their results (see iter_expected_outputs).
    connection = session.connection()
    if repeats == 1:  # one result per case: the database leaves out those done
        done = select(ResultRow.case_id).where(ResultRow.evaluation_id == evaluation_id)
        if positions is not None:
            done = done.where(ResultRow.position >= positions[0], ResultRow.position < positions[1])
        rows = connection.execute(query.where(CaseRow.id.not_in(done)).order_by(CaseRow.position))
        return [PendingCase(*row) for row in rows]
    stored = select(ResultRow.case_id, ResultRow.repeat).where(ResultRow.evaluation_id == evaluation_id)
    if positions is not None:
        stored = stored.where(ResultRow.position >= positions[0], ResultRow.position < positions[1])
    done_slots: dict[int, set[int]] = {}
    for case_id, repeat in connection.execute(stored):
        done_slots.setdefault(case_id, set()).add(repeat)
    pending = []
    for row in connection.execute(query.order_by(CaseRow.position)):
        done_repeats = done_slots.get(row.id, set())
        if len(done_repeats) < repeats:
            lacking = tuple(r for r in range(repeats) if r not in done_repeats)
            pending.append(PendingCase._make((*row, lacking)))
    return pending


def status_of(connection: Connection | Session, evaluation_id: int) -> EvaluationStatus | None:
    """The evaluation's status (one indexed read: what running shards poll), ``None`` once deleted."""
    status = connection.execute(
        select(EvaluationRow.status).where(EvaluationRow.id == evaluation_id)
    ).scalar()
    return None if status is None else EvaluationStatus(status)


def store_live_summary(connection: Connection | Session, evaluation_id: int, summary: JsonObject) -> None:
    """Store a recount as the summary of an evaluation that still runs (an ended one keeps its final one)."""
    statement = update(EvaluationRow).where(
        EvaluationRow.id == evaluation_id, EvaluationRow.status.in_([status.value for status in UNFINISHED])
    )
    connection.execute(statement.values(summary=summary))


def target_of(session: Session, evaluation_id: int) -> JsonObject | None:
    """The stored target spec of an evaluation (secrets and recorded answers included)."""
    return session.execute(select(EvaluationRow.target).where(EvaluationRow.id == evaluation_id)).scalar()


def has_case_without_result(
    session: Session, evaluation_id: int, suite_id: int, position_limit: int, *, repeats: int = 1
) -> bool:
    """Whether any case of the suite below ``position_limit`` still lacks a result (of one of its
    ``repeats``) in this evaluation."""
    if repeats > 1:  # positions run from 0 with no gap: every slot below the limit has its row, or not
        stored = select(func.count()).where(
            ResultRow.evaluation_id == evaluation_id, ResultRow.position < position_limit
        )
        return (session.scalar(stored) or 0) < position_limit * repeats
    done = select(ResultRow.case_id).where(ResultRow.evaluation_id == evaluation_id)
    query = select(CaseRow.id).where(
        CaseRow.suite_id == suite_id, CaseRow.position < position_limit, CaseRow.id.not_in(done)
    )
    query = query.limit(1)
    return session.scalar(query) is not None


def claim_summary_recount(connection: Connection, evaluation_id: int, *, older_than: datetime) -> bool:
    """Take the turn to recount a running evaluation's summary, unless someone did since ``older_than``.

    One conditional update: of the shards of one evaluation on any number of workers, one wins a turn.
    """
    statement = (
        update(EvaluationRow)
        .where(EvaluationRow.id == evaluation_id)
        .where((EvaluationRow.summary_at.is_(None)) | (EvaluationRow.summary_at < older_than))
        .values(summary_at=utc_now())
    )
    return bool(getattr(connection.execute(statement), "rowcount", 0))


def delete_evaluation(session: Session, evaluation_id: int) -> bool:
    """Delete an evaluation and its results (explicitly, not relying on the database's cascade); whether
    this deleted it (of two deletes racing, one does: the other's waits for its lock, then finds none)."""
    gone = session.execute(delete(EvaluationRow).where(EvaluationRow.id == evaluation_id))
    session.execute(delete(ResultRow).where(ResultRow.evaluation_id == evaluation_id))
    delete_trajectories(session, evaluation_id)
    return bool(getattr(gone, "rowcount", 0))
