"""The ``suites`` and ``cases`` tables and the queries on them."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ForeignKey,
    Index,
    Integer,
    Select,
    String,
    UniqueConstraint,
    column,
    delete,
    func,
    insert,
    select,
    table,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from assay.domain import TURNS_DECIDE, Assertions, Conversation
from assay.storage.database import Base
from assay.storage.types import SafeJSON, SafeText, UTCDateTime, dump_json, utc_now


class SuiteRow(Base):
    """A named, ordered collection of test cases."""

    __tablename__ = "suites"
    __table_args__ = ({"sqlite_autoincrement": True},)  # an id is never given twice (old links)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    description: Mapped[str] = mapped_column(SafeText, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utc_now)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utc_now)
    assertions: Mapped[dict[str, Any] | None] = mapped_column(SafeJSON, nullable=True)
    """Default assertions and rules by metadata for its cases (docs/assertions.md); ``None``: none."""


class Placed:
    """A row of a case (the case itself, or a result of it) that knows its ``position`` in the suite."""

    position: Mapped[int]

    @property
    def number(self) -> int:
        """The case's place in its suite, from 1: the number every surface shows (``position`` is from 0)."""
        return self.position + 1


class CaseRow(Placed, Base):
    """One test case: an input for the agent and the output expected from it."""

    __tablename__ = "cases"
    __table_args__ = (
        UniqueConstraint("suite_id", "position"),
        Index("uq_cases_suite_id_case_key", "suite_id", "case_key", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    """From 0 in the table; users see ``position + 1``, the case's number."""
    input: Mapped[str] = mapped_column(SafeText)
    expected_output: Mapped[str] = mapped_column(SafeText)
    case_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", SafeJSON)
    case_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """The user's own name for the case (a file's ``id``), unique in the suite; all or none of a suite's."""
    assertions: Mapped[dict[str, Any] | None] = mapped_column(SafeJSON, nullable=True)
    """The case's own assertions and threshold (docs/assertions.md); ``None``: it says nothing."""
    conversation: Mapped[dict[str, Any] | None] = mapped_column(SafeJSON, nullable=True)
    """Chat messages as input and scripted turns (docs/conversations.md); ``None``: the input is a string."""


def find_suite(session: Session, suite_id: int, *, for_update: bool = False) -> SuiteRow | None:
    """The suite with this id, if any; ``for_update`` locks its row until commit (PostgreSQL)."""
    return session.get(SuiteRow, suite_id, with_for_update=for_update or None)


def stored_assertions(session: Session, suite_id: int) -> dict[str, Any] | None:
    """The suite's stored default assertions and rules, if it has any."""
    return session.scalar(select(SuiteRow.assertions).where(SuiteRow.id == suite_id))


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


def count_cases(session: Session, suite_id: int, *, among: Select[Any] | None = None) -> int:
    """How many cases the suite has (only those whose id ``among`` selects, when given)."""
    query = select(func.count()).where(CaseRow.suite_id == suite_id)
    if among is not None:
        query = query.where(CaseRow.id.in_(among))
    return session.scalar(query) or 0


def page_of_cases(
    session: Session, suite_id: int, *, skip: int, limit: int, among: Select[Any] | None = None
) -> Sequence[CaseRow]:
    """Cases of a suite in their order (only those whose id ``among`` selects, when given)."""
    query = select(CaseRow).where(CaseRow.suite_id == suite_id)
    if among is not None:
        query = query.where(CaseRow.id.in_(among))
    return session.scalars(query.order_by(CaseRow.position).offset(skip).limit(limit)).all()


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
) -> Iterator[tuple[int, int, str | None, object]]:
    """``(case_id, position, case_key, expected_output)`` of every case in order, in batches (preflight); the
    expected output is :data:`~assay.domain.TURNS_DECIDE` for a multi-turn case its turns alone decide."""
    query = (
        select(CaseRow.id, CaseRow.position, CaseRow.case_key, CaseRow.expected_output, CaseRow.conversation)
        .where(CaseRow.suite_id == suite_id)
        .order_by(CaseRow.position)
    )
    # On the session's connection: columns need none of the ORM's row loading, which cost more than the
    # read itself (a third of a 10,000-case evaluation's preflight).
    for case_id, position, key, expected, conversation in session.connection().execute(
        query.execution_options(yield_per=batch)
    ):
        if conversation is not None and Conversation.turns_decide(conversation, expected):
            expected = TURNS_DECIDE
        yield case_id, position, key, expected


def iter_case_checks(
    session: Session, suite_id: int, batch: int = 1000
) -> Iterator[tuple[int, int, str | None, object, dict[str, Any], Assertions | None]]:
    """``(case_id, position, case_key, expected_output, metadata, own assertions)`` of every case in order,
    in batches: the preflight of a suite with assertions."""
    query = (
        select(
            CaseRow.id,
            CaseRow.position,
            CaseRow.case_key,
            CaseRow.expected_output,
            CaseRow.case_metadata,
            CaseRow.assertions,
            CaseRow.conversation,
        )
        .where(CaseRow.suite_id == suite_id)
        .order_by(CaseRow.position)
    )
    for case_id, position, key, expected, metadata, own, conversation in session.execute(
        query.execution_options(yield_per=batch)
    ):
        if conversation is not None and Conversation.turns_decide(conversation, expected):
            expected = TURNS_DECIDE
        yield case_id, position, key, expected, metadata, Assertions.from_json(own) if own else None


def has_case_assertions(session: Session, suite_id: int) -> bool:
    """Whether a case of the suite carries its own assertions."""
    query = select(CaseRow.id).where(CaseRow.suite_id == suite_id, CaseRow.assertions.is_not(None)).limit(1)
    return session.scalar(query) is not None


def conversation_of(session: Session, case_id: int) -> dict[str, Any] | None:
    """A case's stored conversation (``None``: a text input, or no such case any more)."""
    return session.scalar(select(CaseRow.conversation).where(CaseRow.id == case_id))


def case_at(session: Session, suite_id: int, position: int) -> CaseRow | None:
    """The suite's case at ``position`` (from 0), if there is one."""
    query = select(CaseRow).where(CaseRow.suite_id == suite_id, CaseRow.position == position)
    return session.scalars(query).first()


def is_keyed(session: Session, suite_id: int) -> bool | None:
    """Whether the suite's cases have keys (all do or none does); ``None`` for a suite with no case."""
    first = case_at(session, suite_id, 0)
    return None if first is None else first.case_key is not None


def positions_of_keys(session: Session, suite_id: int, keys: Sequence[str]) -> dict[str, int]:
    """The position of each of ``keys`` that a case of the suite has, by key."""
    found: dict[str, int] = {}
    for start in range(0, len(keys), 1000):  # bounded IN lists
        query = select(CaseRow.case_key, CaseRow.position).where(
            CaseRow.suite_id == suite_id, CaseRow.case_key.in_(keys[start : start + 1000])
        )
        found.update({key: position for key, position in session.execute(query) if key is not None})
    return found


def next_position(session: Session, suite_id: int) -> int:
    """The position after the last case of the suite (0 for an empty one)."""
    last = session.scalar(select(func.max(CaseRow.position)).where(CaseRow.suite_id == suite_id))
    return 0 if last is None else last + 1


@dataclass(frozen=True, slots=True)
class EncodedCase:
    """A case's columns as the database stores them (JSON text), made before any write begins."""

    input: str
    expected_output: str
    metadata: str
    key: str | None = None
    assertions: str | None = None
    conversation: str | None = None


def encode_case(
    input_text: str,
    expected_output: str,
    metadata: Mapping[str, Any],
    key: str | None = None,
    assertions: Mapping[str, Any] | None = None,
    conversation: Mapping[str, Any] | None = None,
) -> EncodedCase:
    """The stored form of one case (what ``SafeText``/``SafeJSON`` would write)."""
    return EncodedCase(
        dump_json(input_text),
        dump_json(expected_output),
        dump_json(dict(metadata)),
        key,
        None if assertions is None else dump_json(dict(assertions)),
        None if conversation is None else dump_json(dict(conversation)),
    )


# The ``cases`` table without column types: values go in already encoded, so the insert itself (what holds
# SQLite's write lock) does no per-row Python work beyond handing them to the driver.
_RAW_CASES = table(
    "cases",
    column("suite_id"),
    column("position"),
    column("input"),
    column("expected_output"),
    column("metadata"),
    column("case_key"),
    column("assertions"),
    column("conversation"),
)


def insert_encoded_cases(session: Session, suite_id: int, start: int, cases: Sequence[EncodedCase]) -> None:
    """Insert encoded ``cases`` at positions ``start``, ``start + 1``…, in the session's transaction."""
    if not cases:
        return
    rows = [
        {
            "suite_id": suite_id,
            "position": start + offset,
            "input": case.input,
            "expected_output": case.expected_output,
            "metadata": case.metadata,
            "case_key": case.key,
            "assertions": case.assertions,
            "conversation": case.conversation,
        }
        for offset, case in enumerate(cases)
    ]
    session.execute(insert(_RAW_CASES), rows)


def delete_suite(session: Session, suite_id: int) -> bool:
    """Delete the suite (its cases, evaluations and results go with it); whether it was there.

    One statement, not an ORM delete of a loaded row: a suite deleted meanwhile is a ``False``, not an error.
    """
    result = session.execute(delete(SuiteRow).where(SuiteRow.id == suite_id))
    return bool(getattr(result, "rowcount", 0))


def metadata_of_cases(session: Session, case_ids: Collection[int]) -> dict[int, dict[str, Any]]:
    """The metadata of these cases by id (a case deleted since is left out)."""
    if not case_ids:
        return {}
    query = select(CaseRow.id, CaseRow.case_metadata).where(CaseRow.id.in_(case_ids))
    return {case_id: metadata or {} for case_id, metadata in session.execute(query)}
