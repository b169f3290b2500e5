"""Writing an evaluation's result rows in batches: under its row lock, counted in its progress.

Rows are inserted with ``ON CONFLICT DO NOTHING`` on the unique (evaluation, case, repeat): writing the same
batch twice (a retry, a resume) is harmless.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect

from assay.domain import UNFINISHED
from assay.json_types import JsonObject
from assay.storage.evaluations import EvaluationRow, ResultRow
from assay.storage.types import SafeJSON, SafeText, dump_json


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
