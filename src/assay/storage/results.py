"""The queries that read the ``results`` table (mapped in :mod:`assay.storage.evaluations`, beside the table
its foreign key names, so that importing either module registers both).

A result snapshots the case it graded (input, expected output), so it keeps saying what was graded even
if the suite changes later. An evaluation asks about each case ``repeats`` times; one row per (evaluation,
case, repeat) is enforced by a unique key.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Select,
    Text,
    case,
    func,
    literal,
    select,
    true,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter

from assay.domain import Outcome, ResultSort
from assay.graders.contract.verdict import INVALID_STATUSES as INVALID_VERDICTS
from assay.storage.evaluations import ResultRow
from assay.storage.types import dump_json


def count_results(session: Session, evaluation_id: int) -> int:
    """How many (case, repeat) of the evaluation have a result."""
    return session.scalar(select(func.count()).where(ResultRow.evaluation_id == evaluation_id)) or 0


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
