"""The ``evaluations`` and ``results`` tables and the queries on them.

A result snapshots the case it graded (input, expected output), so it keeps saying what was graded even
if the suite changes later. An evaluation asks about each case ``repeats`` times; one row per (evaluation,
case, repeat) is enforced by a unique key, and results are inserted with ``ON CONFLICT DO NOTHING``: writing
the same batch twice (a retry, a resume) is harmless.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
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
    Text,
    UniqueConstraint,
    case,
    delete,
    false,
    func,
    literal,
    select,
    true,
    update,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Mapped, Session, defer, mapped_column
from sqlalchemy.sql.elements import BindParameter

from assay.domain import UNFINISHED, EvaluationStatus, Outcome, ResultSort
from assay.graders.contract.verdict import INVALID_STATUSES as INVALID_VERDICTS
from assay.json_types import JsonObject
from assay.storage.database import Base
from assay.storage.suites import CaseRow, Placed
from assay.storage.trajectories import delete_trajectories
from assay.storage.types import SafeJSON, SafeText, UTCDateTime, dump_json, utc_now


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


# ---- Results ------------------------------------------------------------------------------------------


def write_results(
    connection: Connection, evaluation_id: int, rows: Sequence[NewResult]
) -> Sequence[NewResult] | None:
    """Insert result rows of an unfinished evaluation, skipping any (evaluation, case, repeat) already
    stored, and add the rows inserted to ``done``; the rows inserted (of a (case, repeat) given twice, the
    first), or ``None`` (nothing written) when the evaluation has ended or is gone.

    The evaluation's row is locked first, in the caller's transaction: a cancel waits for a batch being
    written, and no batch is written after it, so the summary counted at the end covers every stored row.
    """
    # A write first: it takes the row lock (PostgreSQL) or the database's write lock (SQLite, where a
    # read would not), so the status it checks cannot change before this transaction commits.
    sql = _batch_sql(connection.dialect)
    if not connection.exec_driver_sql(sql.lock, (evaluation_id,)).rowcount:
        return None
    if not rows:
        return rows
    # Rows already stored are read first (the lock keeps anyone from adding some meanwhile), so that the
    # insert runs as a plain executemany, several times faster than one that returns rows. Read by range:
    # an IN list of a batch's ids costs more than the insert itself.
    slots = {(row.case_id, row.repeat) for row in rows}
    case_ids = [case_id for case_id, _ in slots]
    stored = connection.exec_driver_sql(sql.stored, (evaluation_id, min(case_ids), max(case_ids)))
    taken = {(case_id, repeat) for case_id, repeat in stored}
    inserted = rows if not taken and len(slots) == len(rows) else _first_new(rows, taken)
    encoded = [_encoded_result(row, evaluation_id) for row in rows]
    connection.exec_driver_sql(sql.insert, encoded)
    if inserted:
        connection.exec_driver_sql(sql.done, (len(inserted), evaluation_id))
    return inserted


def _first_new(rows: Sequence[NewResult], taken: set[tuple[int, int]]) -> list[NewResult]:
    """The rows the insert stores: of each (case, repeat) not ``taken``, the first (``ON CONFLICT DO
    NOTHING`` skips the rest)."""
    inserted = []
    for row in rows:
        slot = (row.case_id, row.repeat)
        if slot not in taken:
            taken.add(slot)
            inserted.append(row)
    return inserted


class NewResult(NamedTuple):
    """A result row to insert: every column but ``id`` and ``evaluation_id``, texts and details as given
    (:func:`write_results` encodes them as ``SafeText`` and ``SafeJSON`` do). A tuple, in the table's column
    order: it goes to the driver as one (a test checks the fields against the table)."""

    case_id: int
    repeat: int
    position: int
    case_key: str | None
    input: str
    expected_output: str
    agent_response: str | None
    passed: bool
    score: float | None
    match_status: str | None
    reason_code: str | None
    details: JsonObject | None
    error: str | None
    error_detail: str | None
    latency_ms: float | None
    attempts: int = 1
    cached: bool = False
    input_tokens: int | None = None
    output_tokens: int | None = None
    usage_model: str | None = None
    trajectory_summary: JsonObject | None = None
    judge_usage: JsonObject | None = None


# Result rows go in as one executemany of plain tuples, their ``SafeText`` and ``SafeJSON`` values encoded
# here as those types encode them: SQLAlchemy's per-row, per-column parameter processing (typed, and even
# through an untyped table) was most of the cost of storing a recorded evaluation's results (bench/README.md).
_INSERTED_COLUMNS = ("evaluation_id", *NewResult._fields)
_ENCODED_POSITIONS = tuple(
    position
    for position, name in enumerate(_INSERTED_COLUMNS)
    if isinstance(ResultRow.__table__.c[name].type, (SafeText, SafeJSON))
)


def _encoded_result(row: NewResult, evaluation_id: int) -> tuple[Any, ...]:
    """``row`` of the evaluation as the parameters of :attr:`_BatchSql.insert`, encoded as its typed columns
    would store it."""
    values: list[Any] = [evaluation_id, *row]
    for position in _ENCODED_POSITIONS:
        value = values[position]
        if value is not None:
            values[position] = dump_json(value)
    return tuple(values)  # what the driver is handed as it is (a list would be copied into one)


class _BatchSql(NamedTuple):
    """The statements of :func:`write_results`, in the driver's own parameter style: a batch is a handful of
    statements, where building them with SQLAlchemy's expressions cost as much as SQLite's insert."""

    lock: str
    """Touch an unfinished evaluation's row (its id): the lock, and whether it still runs."""
    stored: str
    """The (case, repeat) stored of an evaluation (its id) with case ids in a range (low, high)."""
    insert: str
    """Insert one result row (:func:`_encoded_result`), skipping one already stored."""
    done: str
    """Add a count (then the id) to an evaluation's ``done``."""


@cache
def _batch_sql(dialect: Dialect) -> _BatchSql:
    """:class:`_BatchSql` for ``dialect``."""
    quote = dialect.identifier_preparer.quote
    mark = "?" if dialect.paramstyle == "qmark" else "%s"  # sqlite3; psycopg takes %s for a sequence
    evaluations, results = quote(EvaluationRow.__tablename__), quote(ResultRow.__tablename__)
    evaluation_id, case_id, repeat = quote("evaluation_id"), quote("case_id"), quote("repeat")
    done, id_ = quote("done"), quote("id")
    unfinished = ", ".join(f"'{status.value}'" for status in UNFINISHED)  # the enum's own names
    names = ", ".join(quote(name) for name in _INSERTED_COLUMNS)
    marks = ", ".join([mark] * len(_INSERTED_COLUMNS))
    return _BatchSql(
        lock=f"UPDATE {evaluations} SET {done} = {done} WHERE {id_} = {mark} "
        f"AND {quote('status')} IN ({unfinished})",
        stored=f"SELECT {case_id}, {repeat} FROM {results} WHERE {evaluation_id} = {mark} "
        f"AND {case_id} >= {mark} AND {case_id} <= {mark}",
        insert=f"INSERT INTO {results} ({names}) VALUES ({marks}) "
        f"ON CONFLICT ({evaluation_id}, {case_id}, {repeat}) DO NOTHING",  # the unique key
        done=f"UPDATE {evaluations} SET {done} = {done} + {mark} WHERE {id_} = {mark}",
    )


def count_results(session: Session, evaluation_id: int) -> int:
    """How many (case, repeat) of the evaluation have a result."""
    return session.scalar(select(func.count()).where(ResultRow.evaluation_id == evaluation_id)) or 0


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


def some_errors(session: Session, evaluation_id: int, *, limit: int) -> list[str | None]:
    """The error reasons of up to ``limit`` stored results, a success first if there is one (whether the
    agent was ever reached, read without going through every row)."""
    reached = select(ResultRow.error).where(
        ResultRow.evaluation_id == evaluation_id, ResultRow.error.is_(None)
    )
    if session.execute(reached.limit(1)).first() is not None:
        return [None]
    query = select(ResultRow.error).where(ResultRow.evaluation_id == evaluation_id).limit(limit)
    return list(session.scalars(query))


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


INVALID_STATUSES = tuple(sorted(status.value for status in INVALID_VERDICTS))


def _result_filters(
    query: Select[Any],
    evaluation_id: int,
    outcome: Outcome | None,
    match_status: str | None,
    error: str | None,
    search: str | None,
    reason_code: str | None = None,
) -> Select[Any]:
    query = query.where(ResultRow.evaluation_id == evaluation_id)
    if outcome is Outcome.PASSED:
        query = query.where(ResultRow.passed.is_(True))
    elif outcome is Outcome.FAILED:
        query = query.where(ResultRow.passed.is_(False))
    elif outcome is Outcome.INVALID:
        query = query.where(ResultRow.match_status.in_(INVALID_STATUSES))
    elif outcome is Outcome.ERROR:
        query = query.where(ResultRow.error.is_not(None))
    if match_status is not None:
        query = query.where(ResultRow.match_status == match_status)
    if error is not None:
        query = query.where(ResultRow.error == error)
    if reason_code is not None:
        query = query.where(ResultRow.reason_code == reason_code)
    if search:
        pattern = search_pattern(search)
        query = query.where(
            ResultRow.input.ilike(pattern, escape="\\")
            | ResultRow.agent_response.ilike(pattern, escape="\\")
            | ResultRow.expected_output.ilike(pattern, escape="\\")
        )
    return query


def page_of_results(
    session: Session,
    evaluation_id: int,
    *,
    skip: int,
    limit: int,
    outcome: Outcome | None = None,
    match_status: str | None = None,
    error: str | None = None,
    search: str | None = None,
    reason_code: str | None = None,
    sort: ResultSort = ResultSort.NUMBER,
    descending: bool = False,
) -> tuple[Sequence[ResultRow], int]:
    """A page of an evaluation's results and how many match the filters in all."""
    column = {
        ResultSort.NUMBER: ResultRow.position,
        ResultSort.SCORE: ResultRow.score,
        ResultSort.LATENCY_MS: ResultRow.latency_ms,
    }[sort]
    order = column.desc().nulls_last() if descending else column.asc().nulls_last()
    filters = (evaluation_id, outcome, match_status, error, search, reason_code)
    query = _result_filters(select(ResultRow), *filters)
    ordered = query.order_by(order, ResultRow.position, ResultRow.repeat)
    rows = session.scalars(ordered.offset(skip).limit(limit)).all()
    counted = _result_filters(select(func.count()).select_from(ResultRow), *filters)
    return rows, session.scalar(counted) or 0


def search_pattern(search: str) -> BindParameter[str]:
    """The LIKE pattern (escape ``\\``) of a search in text columns, bound as plain text.

    The columns hold JSON string literals (SafeText): the text is looked for as it is written inside one
    (a backslash doubled, a quote escaped), and the pattern must not go through SafeText itself, whose JSON
    encoding would double the escapes that make ``%``, ``_`` and ``\\`` literal.
    """
    written = dump_json(search)[1:-1]
    escaped = written.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return literal(f"%{escaped}%", Text())


def iter_results(
    session: Session,
    evaluation_id: int,
    batch: int = 1000,
    *,
    outcome: Outcome | None = None,
    match_status: str | None = None,
    error: str | None = None,
    search: str | None = None,
    reason_code: str | None = None,
) -> Iterator[ResultRow]:
    """Every result of the evaluation that the filters let through, in case order, read in batches."""
    query = _result_filters(
        select(ResultRow), evaluation_id, outcome, match_status, error, search, reason_code
    )
    query = query.order_by(ResultRow.position, ResultRow.repeat)
    rows = session.scalars(query.execution_options(yield_per=batch))
    try:
        yield from rows
    finally:  # a download given up on closes its cursor now, while its session is open
        rows.close()


@dataclass(frozen=True, slots=True, kw_only=True)
class PairCounts:
    """Counts over the cases two evaluations both finished, and the cases only one of them did."""

    in_a: int
    in_b: int
    common: int
    a_passed: int
    b_passed: int
    pass_to_fail: int
    fail_to_pass: int


def pair_counts(session: Session, a_id: int, b_id: int) -> PairCounts:
    """Counts of a comparison of ``b`` with ``a``, aggregated by the database (no row leaves it)."""
    a, b = ResultRow.__table__.alias("a"), ResultRow.__table__.alias("b")
    a_failed, b_failed = a.c.passed.is_(False), b.c.passed.is_(False)

    def count_if(condition: Any) -> Any:
        return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

    joined = select(
        func.count(),
        count_if(a.c.passed.is_(True)),
        count_if(b.c.passed.is_(True)),
        count_if(a.c.passed.is_(True) & b_failed),
        count_if(a_failed & b.c.passed.is_(True)),
    ).select_from(a.join(b, (a.c.case_id == b.c.case_id) & (b.c.evaluation_id == b_id)))
    common, a_passed, b_passed, pass_to_fail, fail_to_pass = session.execute(
        joined.where(a.c.evaluation_id == a_id)
    ).one()
    sizes = dict(
        session.execute(
            select(ResultRow.evaluation_id, func.count())
            .where(ResultRow.evaluation_id.in_((a_id, b_id)))
            .group_by(ResultRow.evaluation_id)
        ).all()
    )
    return PairCounts(
        in_a=sizes.get(a_id, 0),
        in_b=sizes.get(b_id, 0),
        common=common,
        a_passed=a_passed,
        b_passed=b_passed,
        pass_to_fail=pass_to_fail,
        fail_to_pass=fail_to_pass,
    )


def passes_by_case(session: Session, evaluation_id: int) -> dict[int, tuple[int, int]]:
    """``case_id → (passed, runs)`` over the evaluation's results (an evaluation with repeats), counted by
    the database."""
    passed = func.coalesce(func.sum(case((ResultRow.passed.is_(True), 1), else_=0)), 0)
    query = (
        select(ResultRow.case_id, passed, func.count())
        .where(ResultRow.evaluation_id == evaluation_id)
        .group_by(ResultRow.case_id)
    )
    return {case_id: (passes, runs) for case_id, passes, runs in session.execute(query)}


def flipped_case_ids(
    session: Session, a_id: int, b_id: int, *, skip: int, limit: int, passed_in_a: bool | None = None
) -> list[tuple[int, bool]]:
    """One page of ``(case_id, passed_in_a)`` for the cases whose verdict differs between ``a`` and ``b``.

    In case order, optionally only those that passed (or failed) in ``a``; the database pages them.
    """
    a, b = ResultRow.__table__.alias("a"), ResultRow.__table__.alias("b")
    query = (
        select(a.c.case_id, a.c.passed)
        .select_from(a.join(b, (a.c.case_id == b.c.case_id) & (b.c.evaluation_id == b_id)))
        .where(a.c.evaluation_id == a_id, a.c.passed != b.c.passed)
        .where(true() if passed_in_a is None else a.c.passed.is_(passed_in_a))
        .order_by(a.c.case_id)
        .offset(skip)
        .limit(limit)
    )
    return [(case_id, passed) for case_id, passed in session.execute(query)]


def replies_by_case(
    session: Session, evaluation_id: int, case_ids: Sequence[int] | None = None
) -> Iterator[tuple[Any, ...]]:
    """``(case_id, response, error, error_detail, latency_ms, attempts, graded, trajectory_summary)`` of
    every result (re-grading), or of those of ``case_ids``; ``graded``: the result has details, so an error on
    it is its grader's, not the target's. With repeats, each case's first run (a re-grade asks once)."""
    query = select(
        ResultRow.case_id,
        ResultRow.agent_response,
        ResultRow.error,
        ResultRow.error_detail,
        ResultRow.latency_ms,
        ResultRow.attempts,
        ResultRow.details.is_not(None),
        ResultRow.trajectory_summary,
    ).where(ResultRow.evaluation_id == evaluation_id, ResultRow.repeat == 0)
    if case_ids is None:
        yield from session.execute(query.execution_options(yield_per=1000))
        return
    if not case_ids:
        return
    # A range, then the ids: an IN list of thousands of ids is slow to send.
    wanted = set(case_ids)
    query = query.where(ResultRow.case_id >= min(wanted), ResultRow.case_id <= max(wanted))
    for row in session.execute(query.execution_options(yield_per=1000)):
        if row[0] in wanted:
            yield row


def results_of_cases(session: Session, evaluation_id: int, case_ids: Sequence[int]) -> dict[int, ResultRow]:
    """The evaluation's results for ``case_ids`` (their first run, with repeats), by case id."""
    if not case_ids:
        return {}
    query = select(ResultRow).where(
        ResultRow.evaluation_id == evaluation_id, ResultRow.case_id.in_(case_ids), ResultRow.repeat == 0
    )
    return {row.case_id: row for row in session.scalars(query)}


SUMMARY_COLUMNS = (
    "passed",
    "score",
    "error",
    "latency_ms",
    "match_status",
    "reason_code",
    "details",
    "input_tokens",
    "output_tokens",
    "usage_model",
    "position",
    "judge_usage",
)
"""The columns of a result that its evaluation's summary counts, in the order :func:`summary_columns` reads
them."""


def summary_columns(session: Session, evaluation_id: int) -> Iterator[tuple[Any, ...]]:
    """:data:`SUMMARY_COLUMNS` of every result, for the summary."""
    columns = ResultRow.__table__.c
    query = select(*(columns[name] for name in SUMMARY_COLUMNS)).where(
        ResultRow.evaluation_id == evaluation_id
    )
    # On the session's connection: columns need none of the ORM's row loading (see iter_expected_outputs).
    yield from session.connection().execute(query)


def delete_evaluation(session: Session, evaluation_id: int) -> bool:
    """Delete an evaluation and its results (explicitly, not relying on the database's cascade); whether
    this deleted it (of two deletes racing, one does: the other's waits for its lock, then finds none)."""
    gone = session.execute(delete(EvaluationRow).where(EvaluationRow.id == evaluation_id))
    session.execute(delete(ResultRow).where(ResultRow.evaluation_id == evaluation_id))
    delete_trajectories(session, evaluation_id)
    return bool(getattr(gone, "rowcount", 0))
