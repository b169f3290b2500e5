"""Results counted by group, in the database: per value of a case metadata key, per failure reason, per
evaluation; and the cases on which evaluations disagree.

Metadata is JSON text, read by the database's JSON functions (SQLite's ``json_each``, PostgreSQL's
``json_extract_path``). Neither reads every document faithfully: SQLite cuts a string at ``\\u0000``,
PostgreSQL refuses ``\\u0000`` and lone surrogates (all stored faithfully, see ``types.py``). So the database
counts every other row, and the rare rows holding such an escape are counted here, in Python, and merged.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    Select,
    Text,
    and_,
    case,
    cast,
    func,
    literal,
    or_,
    select,
    true,
    type_coerce,
)
from sqlalchemy.orm import Session

from assay.json_types import JsonObject
from assay.storage.evaluations import ResultRow
from assay.storage.suites import CaseRow
from assay.storage.types import dump_json

__all__ = [
    "MISSING",
    "FailureCount",
    "ValueCount",
    "ValueCounts",
    "cases_where_verdicts_differ",
    "count_failed",
    "failure_counts",
    "metadata_key_counts",
    "pass_counts",
    "value_counts",
]

_RESULTS = ResultRow.__table__
_CASES = CaseRow.__table__
_META = type_coerce(_CASES.c.metadata, Text)
"""The stored JSON text of a case's metadata, undecoded."""
_ODD_ESCAPES_POSTGRES = r"\\u(0000|[dD][89a-fA-F])"
_ODD_ESCAPES_SQLITE = ("*\\u0000*", "*\\u[dD][89a-fA-F]*")
"""Escapes of NUL and of surrogates (paired ones, rare, are merely counted in Python too)."""


class _Missing:
    """The value of a key a case's metadata does not hold."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueCount:
    """Results whose case has ``value`` under the key (``MISSING`` when it has no such key)."""

    value: Any
    total: int
    passed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueCounts:
    """The most common values of a key among an evaluation's results, and the totals over all of them."""

    values: list[ValueCount]
    """At most ``limit`` values, the most frequent first."""
    distinct: int
    """Distinct values in all (as the database tells them apart)."""
    total: int
    passed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureCount:
    """Failed results sharing a ``match_status`` and an ``error`` reason."""

    match_status: str | None
    error: str | None
    count: int


def _passed_count() -> ColumnElement[Any]:
    return func.coalesce(func.sum(case((_RESULTS.c.passed.is_(True), 1), else_=0)), 0)


def _is_postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def _has_odd_escapes(session: Session) -> ColumnElement[bool]:
    """Whether a case's metadata holds an escape the database's JSON functions mishandle."""
    if _is_postgres(session):
        return _META.regexp_match(_ODD_ESCAPES_POSTGRES)
    return or_(*(_META.op("GLOB")(pattern) for pattern in _ODD_ESCAPES_SQLITE))


def _read_in_sql(session: Session) -> ColumnElement[bool]:
    return or_(_META.is_(None), ~_has_odd_escapes(session))


def _value_key(value: Any) -> str | None:
    return None if value is MISSING else dump_json(value)


def _sqlite_value(kind: str | None, value: Any) -> Any:
    """A value as ``json_each`` gives it: its JSON type and its SQL value (JSON text for a container)."""
    match kind:
        case None:
            return MISSING
        case "true" | "false":
            return kind == "true"
        case "object" | "array":
            return json.loads(value)
        case "real":
            return float(value)
        case _:  # null, integer, text
            return value


def _with_cases(evaluation_id: int) -> Select[Any]:
    """Select from the evaluation's results joined to their cases (a case no longer there has no metadata)."""
    joined = _RESULTS.outerjoin(_CASES, _CASES.c.id == _RESULTS.c.case_id)
    return select().select_from(joined).where(_RESULTS.c.evaluation_id == evaluation_id)


_Row = tuple[Any, int, int]
"""A decoded value, its results and how many passed."""


def value_counts(session: Session, evaluation_id: int, key: str, *, limit: int) -> ValueCounts:
    """How many of the evaluation's results have each value of metadata ``key``, and how many passed.

    The database groups and counts; the ``limit`` most frequent values come back (ties by value).
    """
    counted = (func.count(), _passed_count(), func.count().over())
    results = _with_cases(evaluation_id)
    if _is_postgres(session):
        value = cast(func.json_extract_path(cast(_META, JSON), literal(key, Text)), Text)
        query = (
            results.add_columns(value, *counted)
            .group_by(value)
            .order_by(func.count().desc(), value.asc().nulls_last())
        )
        found = session.execute(query.where(_read_in_sql(session)).limit(limit)).all()
        rows: list[_Row] = [(MISSING if raw is None else json.loads(raw), n, p) for raw, n, p, _ in found]
    else:
        each = func.json_each(_CASES.c.metadata).table_valued("key", "value", "type", name="je")
        query = (
            select(each.c.type, each.c.value, *counted)
            .select_from(
                _RESULTS.outerjoin(_CASES, _CASES.c.id == _RESULTS.c.case_id).outerjoin(
                    each, each.c.key == key
                )
            )
            .where(_RESULTS.c.evaluation_id == evaluation_id, _read_in_sql(session))
            .group_by(each.c.type, each.c.value)
            .order_by(func.count().desc(), each.c.type.asc().nulls_last(), each.c.value)
        )
        found = session.execute(query.limit(limit)).all()
        rows = [(_sqlite_value(kind, raw), n, p) for kind, raw, n, p, _ in found]
    odd_query = results.add_columns(_CASES.c.metadata, _RESULTS.c.passed).where(~_read_in_sql(session))
    odd = [(_value_of(metadata, key), 1, int(passed)) for metadata, passed in session.execute(odd_query)]
    # Values only the odd rows have add to the database's count of distinct values (one it also has but
    # did not list would be counted twice: rare among rare rows, and the count is only shown).
    listed = {_value_key(value) for value, _, _ in rows}
    distinct = max((row[-1] for row in found), default=0) + len({_value_key(v) for v, _, _ in odd} - listed)
    merged = _merged(rows + odd)
    totals = select(func.count(), _passed_count()).where(_RESULTS.c.evaluation_id == evaluation_id)
    total, passed = session.execute(totals).one()
    values = sorted(merged, key=lambda item: -item.total)[:limit]
    return ValueCounts(values=values, distinct=distinct, total=total, passed=passed)


def _value_of(metadata: Any, key: str) -> Any:
    return metadata.get(key, MISSING) if isinstance(metadata, dict) else MISSING


def _merged(rows: Iterable[_Row]) -> list[ValueCount]:
    """One count per value: two spellings of one JSON value (``"é"``, ``"\\u00e9"``) meet here."""
    merged: dict[str | None, ValueCount] = {}
    for value, total, passed in rows:
        marker = _value_key(value)
        known = merged.get(marker)
        if known is not None:
            total, passed = total + known.total, passed + known.passed
        merged[marker] = ValueCount(value=value, total=total, passed=passed)
    return list(merged.values())


def metadata_key_counts(session: Session, suite_id: int, *, limit: int) -> list[tuple[str, int]]:
    """The metadata keys of the suite's cases with how many cases have each, the most common first."""
    of_suite = and_(_CASES.c.suite_id == suite_id, _read_in_sql(session))
    if _is_postgres(session):
        keys = select(func.json_object_keys(cast(_META, JSON)).label("key")).where(of_suite).subquery()
        query = (
            select(keys.c.key, func.count()).group_by(keys.c.key).order_by(func.count().desc(), keys.c.key)
        )
    else:
        each = func.json_each(_CASES.c.metadata).table_valued("key", name="je")
        query = (
            select(each.c.key, func.count())
            .select_from(_CASES.join(each, true()))
            .where(of_suite)
            .group_by(each.c.key)
            .order_by(func.count().desc(), each.c.key)
        )
    counts = Counter[str](dict(session.execute(query.limit(limit)).all()))
    odd = select(_CASES.c.metadata).where(_CASES.c.suite_id == suite_id, ~_read_in_sql(session))
    for metadata in session.scalars(odd):
        counts.update(metadata.keys() if isinstance(metadata, dict) else ())
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]


def failure_counts(session: Session, evaluation_id: int, *, limit: int) -> list[FailureCount]:
    """The evaluation's failed results counted by ``(match_status, error)``, the largest group first."""
    query = (
        select(_RESULTS.c.match_status, _RESULTS.c.error, func.count())
        .where(_RESULTS.c.evaluation_id == evaluation_id, _RESULTS.c.passed.is_(False))
        .group_by(_RESULTS.c.match_status, _RESULTS.c.error)
        .order_by(
            func.count().desc(),
            _RESULTS.c.match_status.asc().nulls_last(),
            _RESULTS.c.error.asc().nulls_last(),
        )
        .limit(limit)
    )
    return [
        FailureCount(match_status=status, error=error, count=count)
        for status, error, count in session.execute(query)
    ]


def count_failed(session: Session, evaluation_id: int) -> int:
    """How many of the evaluation's results did not pass."""
    query = select(func.count()).where(
        _RESULTS.c.evaluation_id == evaluation_id, _RESULTS.c.passed.is_(False)
    )
    return session.scalar(query) or 0


def pass_counts(session: Session, evaluation_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """``(passed, results)`` of each evaluation, counted by the database."""
    if not evaluation_ids:
        return {}
    query = (
        select(_RESULTS.c.evaluation_id, _passed_count(), func.count())
        .where(_RESULTS.c.evaluation_id.in_(evaluation_ids))
        .group_by(_RESULTS.c.evaluation_id)
    )
    return {evaluation: (passed, total) for evaluation, passed, total in session.execute(query)}


def cases_where_verdicts_differ(evaluation_ids: Sequence[int]) -> Select[Any]:
    """Ids of the cases that passed in some of these evaluations and failed in others (a subquery)."""
    return (
        select(_RESULTS.c.case_id)
        .where(_RESULTS.c.evaluation_id.in_(evaluation_ids))
        .group_by(_RESULTS.c.case_id)
        .having(and_(func.count(_RESULTS.c.passed.distinct()) > 1))
    )


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """A result that has a trajectory: its case, whether it passed, and its stored summary."""

    case_id: int
    position: int
    case_key: str | None
    passed: bool
    summary: JsonObject


def iter_summaries(session: Session, evaluation_id: int) -> Iterator[SummaryRow]:
    """The evaluation's results that hold a trajectory summary, in case order, read a batch at a time."""
    query = (
        select(
            ResultRow.case_id,
            ResultRow.position,
            ResultRow.case_key,
            ResultRow.passed,
            ResultRow.trajectory_summary,
        )
        .where(ResultRow.evaluation_id == evaluation_id, ResultRow.trajectory_summary.is_not(None))
        .order_by(ResultRow.position)
        .execution_options(yield_per=1000)
    )
    for case_id, position, key, passed, summary in session.execute(query):
        if isinstance(summary, dict):
            yield SummaryRow(case_id, position, key, bool(passed), summary)
