"""Test suites: create, list, read, rename, delete, and add cases, with their rules checked once here."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from assay.domain import Assertions, Case, Conversation, NewCase, Page, SuiteAssertions
from assay.errors import ConflictError, Loc, NotFoundError, Problem, ValidationError
from assay.services.suites.case_keys import key_problems
from assay.storage import evaluations as evaluation_store
from assay.storage import suites as store
from assay.storage.suites import CaseRow, SuiteRow
from assay.storage.types import utc_now

EXPORT_BATCH = 1000
_MAX_ID = 2**31 - 1  # ids are 32-bit on PostgreSQL: a larger number is a name, never an id

__all__ = ["Case", "NewCase", "Page", "Suite", "SuiteService"]


@dataclass(frozen=True, slots=True)
class Suite:
    """A suite as the outside sees it, with its number of cases."""

    id: int
    name: str
    description: str
    case_count: int
    created_at: datetime
    updated_at: datetime
    assertions: SuiteAssertions | None = None
    """Default assertions and rules by metadata (docs/assertions.md); ``None``: none."""


def suite_assertions(stored: dict[str, Any] | None) -> SuiteAssertions | None:
    """A suite's stored assertions as their record (``None``: none)."""
    return SuiteAssertions.from_json(stored) if stored else None


def case_assertions(stored: dict[str, Any] | None) -> Assertions | None:
    """A case's stored assertions as their record (``None``: none)."""
    return Assertions.from_json(stored) if stored else None


def _suite(row: SuiteRow, case_count: int) -> Suite:
    return Suite(
        id=row.id,
        name=row.name,
        description=row.description,
        case_count=case_count,
        created_at=row.created_at,
        updated_at=row.updated_at,
        assertions=suite_assertions(row.assertions),
    )


def _case(row: CaseRow) -> Case:
    return Case(
        id=row.id,
        suite_id=row.suite_id,
        position=row.position,
        input=row.input,
        expected_output=row.expected_output,
        metadata=row.case_metadata,
        key=row.case_key,
        assertions=case_assertions(row.assertions),
        conversation=Conversation.from_json(row.conversation) if row.conversation else None,
    )


def _stored(assertions: SuiteAssertions | None) -> dict[str, Any] | None:
    return None if assertions is None or assertions.empty else assertions.as_json()


def _duplicate_name(name: str) -> ConflictError:
    return ConflictError(f"A suite named '{name}' already exists")


def _encoded(cases: Sequence[NewCase]) -> builtins.list[store.EncodedCase]:
    return [
        store.encode_case(
            case.input,
            case.expected_output,
            case.metadata,
            case.key,
            None if case.assertions is None else case.assertions.as_json(),
            None if case.conversation is None else case.conversation.as_json(),
        )
        for case in cases
    ]


def _check_keys(cases: Sequence[NewCase], places: Sequence[Loc] | None = None) -> None:
    """Refuse keys given to some cases and not others (``ValidationError``) or twice (``ConflictError``,
    as a suite name taken twice is); ``places`` name the cases in messages, ``cases.0`` by default."""
    places = places if places is not None else [("cases", index) for index in range(len(cases))]
    problems = key_problems([case.key for case in cases], places)
    if problems.mixed:
        message = f"{len(problems.mixed)} case(s) break the key rule: {problems.mixed[0]}"
        raise ValidationError(message, problems=problems.all)
    if problems.repeated:
        message = f"{len(problems.repeated)} key(s) given twice: {problems.repeated[0]}"
        raise ConflictError(message, problems=problems.repeated)


def _check_keys_against(session: Session, suite_id: int, cases: Sequence[NewCase]) -> None:
    """Refuse new cases whose keys do not fit the suite's: keys where its cases have none (or none where
    they have keys), or a key a case of the suite already has; a ``ConflictError`` with the suite's state."""
    keyed = store.is_keyed(session, suite_id)
    if keyed is None or not cases:
        return
    if (cases[0].key is not None) != keyed:
        message = (
            "the suite's cases have keys: give every new case one"
            if keyed
            else "the suite's cases have no keys: give the new cases none"
        )
        raise ConflictError(message, problems=[Problem(("cases",), message)])
    keys = [case.key for case in cases if case.key is not None]
    taken = store.positions_of_keys(session, suite_id, keys)
    if taken:
        problems = [
            Problem(
                ("cases", index, "key"), f"'{case.key}' is already the key of case #{taken[case.key] + 1}"
            )
            for index, case in enumerate(cases)
            if case.key in taken
        ]
        raise ConflictError(f"{len(problems)} key(s) already in the suite: {problems[0]}", problems=problems)


def _no_job(evaluation_id: int) -> None:
    """Stops nothing: where no evaluation runs in this process."""


class SuiteService:
    """Use cases on test suites, within one database session."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def _row(self, suite_id: int, *, for_update: bool = False) -> SuiteRow:
        row = store.find_suite(self.session, suite_id, for_update=for_update)
        if row is None:
            raise NotFoundError("Suite not found")
        return row

    def _commit(self, name: str) -> None:
        try:
            self.session.commit()
        except IntegrityError as exc:  # another writer took the name between our check and our insert
            self.session.rollback()
            raise _duplicate_name(name) from exc

    def _add_cases(self, suite_id: int, cases: Sequence[store.EncodedCase]) -> int:
        """Insert encoded ``cases`` after the suite's last one; returns the position of the first."""
        start = store.next_position(self.session, suite_id)
        store.insert_encoded_cases(self.session, suite_id, start, cases)
        return start

    def create(
        self,
        name: str,
        description: str = "",
        cases: Sequence[NewCase] = (),
        *,
        places: Sequence[Loc] | None = None,
        assertions: SuiteAssertions | None = None,
    ) -> Suite:
        """A new suite holding ``cases`` in order; ``ConflictError`` when the name is taken, a
        ``ValidationError`` when some cases have keys and others not, or two the same (``places`` name
        the cases in messages, ``cases.0`` by default)."""
        _check_keys(cases, places)
        if store.find_suite_by_name(self.session, name) is not None:
            raise _duplicate_name(name)
        # Encoded before the first write: on SQLite the write lock is held only while the rows go in.
        encoded = _encoded(cases)
        now = utc_now()
        row = SuiteRow(
            name=name,
            description=description,
            created_at=now,
            updated_at=now,
            assertions=_stored(assertions),
        )
        self.session.add(row)
        try:
            self.session.flush()
        except IntegrityError as exc:
            self.session.rollback()
            raise _duplicate_name(name) from exc
        self._add_cases(row.id, encoded)
        self._commit(name)
        return _suite(row, len(cases))

    def get(self, suite_id: int) -> Suite:
        """The suite; ``NotFoundError`` when there is none with this id."""
        row = self._row(suite_id)
        return _suite(row, store.count_cases(self.session, suite_id))

    def find(self, reference: str) -> Suite:
        """The suite with this id (digits) or else this exact name; ``NotFoundError`` naming what was
        looked for when there is none."""
        suite_id = int(reference) if reference.isascii() and reference.isdigit() else 0
        row = store.find_suite(self.session, suite_id) if 0 < suite_id <= _MAX_ID else None
        row = row or store.find_suite_by_name(self.session, reference)
        if row is None:
            raise NotFoundError(f"Suite not found: no suite has the id or the name {reference!r}")
        return _suite(row, store.count_cases(self.session, row.id))

    def list(self, *, skip: int, limit: int) -> Page[Suite]:
        """A page of suites, newest first."""
        rows = store.page_of_suites(self.session, skip=skip, limit=limit)
        counts = store.case_counts(self.session, [row.id for row in rows])
        suites = [_suite(row, counts.get(row.id, 0)) for row in rows]
        return Page(items=suites, total=store.count_suites(self.session))

    def update(
        self,
        suite_id: int,
        *,
        name: str | None = None,
        description: str | None = None,
        assertions: SuiteAssertions | None = None,
    ) -> Suite:
        """Rename, redescribe and/or give new default assertions and rules; ``None`` leaves a field as it is
        (empty ``assertions`` remove them)."""
        row = self._row(suite_id)
        if assertions is not None:
            row.assertions = _stored(assertions)
        if name is not None and name != row.name:
            if store.find_suite_by_name(self.session, name) is not None:
                raise _duplicate_name(name)
            row.name = name
        if description is not None:
            row.description = description
        row.updated_at = utc_now()
        try:
            self._commit(row.name)
        except StaleDataError:  # deleted by another request since it was read
            self.session.rollback()
            raise NotFoundError("Suite not found") from None
        return _suite(row, store.count_cases(self.session, suite_id))

    def delete(
        self,
        suite_id: int,
        *,
        cascade: bool = False,
        stop_evaluation: Callable[[int], object] = lambda _: None,
    ) -> int:
        """Delete a suite and its cases; how many evaluations went with it.

        A suite that has evaluations is kept (``CONFLICT``) unless ``cascade``: then each evaluation is
        stopped first (``stop_evaluation``), and they and their results are deleted with the suite.
        """
        self._row(suite_id)
        evaluations = evaluation_store.evaluation_ids_of_suite(self.session, suite_id)
        if evaluations and not cascade:
            message = (
                f"the suite has {len(evaluations)} evaluation(s): delete them first, or delete the suite "
                "with cascade=true to delete its evaluations and their results with it"
            )
            raise ConflictError.of(Problem((), message))
        for evaluation_id in evaluations:
            stop_evaluation(evaluation_id)
        if not store.delete_suite(self.session, suite_id):
            self.session.rollback()
            raise NotFoundError("Suite not found")
        self.session.commit()
        return len(evaluations)

    def cases(self, suite_id: int, *, skip: int, limit: int) -> Page[Case]:
        """A page of the suite's cases, in order."""
        self._row(suite_id)
        rows = store.page_of_cases(self.session, suite_id, skip=skip, limit=limit)
        return Page(items=[_case(row) for row in rows], total=store.count_cases(self.session, suite_id))

    def add_cases(self, suite_id: int, cases: Sequence[NewCase]) -> builtins.list[Case]:
        """Append ``cases`` after the suite's last case."""
        # The suite's row is locked so that two appends cannot take the same positions; where the database
        # cannot lock a row (SQLite), the loser of such a race gets a CONFLICT to retry, not a 500.
        encoded = _encoded(cases)
        row = self._row(suite_id, for_update=True)
        _check_keys(cases)
        _check_keys_against(self.session, suite_id, cases)
        try:
            start = self._add_cases(suite_id, encoded)
            row.updated_at = utc_now()
            self.session.commit()
        except IntegrityError as exc:
            self.session.rollback()
            raise ConflictError("The suite changed while the cases were added; retry") from exc
        added = store.cases_from(self.session, suite_id, start)
        return [_case(case) for case in added]

    def iter_cases(self, suite_id: int) -> Iterator[Case]:
        """Every case of the suite in order, read in batches."""
        self._row(suite_id)
        query = select(CaseRow).where(CaseRow.suite_id == suite_id).order_by(CaseRow.position)
        for row in self.session.scalars(query.execution_options(yield_per=EXPORT_BATCH)):
            yield _case(row)
