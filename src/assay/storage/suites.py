"""The ``suites`` and ``cases`` tables and the queries on them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Integer, String, UniqueConstraint, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from assay.storage.database import Base
from assay.storage.types import SafeJSON, SafeText, UTCDateTime, utc_now


class SuiteRow(Base):
    """A named, ordered collection of test cases."""

    __tablename__ = "suites"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    description: Mapped[str] = mapped_column(SafeText, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utc_now)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utc_now)


class CaseRow(Base):
    """One test case: an input for the agent and the output expected from it."""

    __tablename__ = "cases"
    __table_args__ = (UniqueConstraint("suite_id", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    input: Mapped[str] = mapped_column(SafeText)
    expected_output: Mapped[str] = mapped_column(SafeText)
    case_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", SafeJSON)


def find_suite(session: Session, suite_id: int, *, for_update: bool = False) -> SuiteRow | None:
    """The suite with this id, if any; ``for_update`` locks its row until commit (PostgreSQL)."""
    return session.get(SuiteRow, suite_id, with_for_update=for_update or None)


def find_suite_by_name(session: Session, name: str) -> SuiteRow | None:
    """The suite with this name, if any."""
    return session.scalars(select(SuiteRow).where(SuiteRow.name == name)).first()


def count_suites(session: Session) -> int:
    """How many suites there are."""
    return session.scalar(select(func.count()).select_from(SuiteRow)) or 0


def page_of_suites(session: Session, *, skip: int, limit: int) -> Sequence[SuiteRow]:
    """Suites, newest first."""
    query = select(SuiteRow).order_by(SuiteRow.id.desc()).offset(skip).limit(limit)
    return session.scalars(query).all()


def case_counts(session: Session, suite_ids: Sequence[int]) -> dict[int, int]:
    """Number of cases of each suite in ``suite_ids`` (absent when zero)."""
    if not suite_ids:
        return {}
    query = (
        select(CaseRow.suite_id, func.count())
        .where(CaseRow.suite_id.in_(suite_ids))
        .group_by(CaseRow.suite_id)
    )
    return dict(session.execute(query).all())


def count_cases(session: Session, suite_id: int) -> int:
    """How many cases the suite has."""
    return session.scalar(select(func.count()).where(CaseRow.suite_id == suite_id)) or 0


def page_of_cases(session: Session, suite_id: int, *, skip: int, limit: int) -> Sequence[CaseRow]:
    """Cases of a suite in their order."""
    query = (
        select(CaseRow)
        .where(CaseRow.suite_id == suite_id)
        .order_by(CaseRow.position)
        .offset(skip)
        .limit(limit)
    )
    return session.scalars(query).all()


def cases_from(session: Session, suite_id: int, position: int) -> Sequence[CaseRow]:
    """Cases of a suite at ``position`` and after, in order."""
    query = (
        select(CaseRow)
        .where(CaseRow.suite_id == suite_id, CaseRow.position >= position)
        .order_by(CaseRow.position)
    )
    return session.scalars(query).all()


def iter_expected_outputs(
    session: Session, suite_id: int, batch: int = 1000
) -> Iterator[tuple[int, int, str]]:
    """``(case_id, position, expected_output)`` of every case in order, read in batches (preflight)."""
    query = (
        select(CaseRow.id, CaseRow.position, CaseRow.expected_output)
        .where(CaseRow.suite_id == suite_id)
        .order_by(CaseRow.position)
    )
    yield from session.execute(query.execution_options(yield_per=batch))


def next_position(session: Session, suite_id: int) -> int:
    """The position after the last case of the suite (0 for an empty one)."""
    last = session.scalar(select(func.max(CaseRow.position)).where(CaseRow.suite_id == suite_id))
    return 0 if last is None else last + 1
