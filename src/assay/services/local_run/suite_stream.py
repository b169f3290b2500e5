"""A suite file read as a stream, twice: checked whole before anything runs, then its cases run one by one.

``assay run`` holds no case longer than it takes to run it, so a suite of a million cases costs about the
memory of one of a thousand. JSONL and CSV files are read a row at a time; a JSON document is parsed whole
(use JSONL for a large suite). Cases are numbered by their place in the file (1, 2, ...), as everywhere; a
case's ``key`` (or ``id``) field, when the file has one, is its key. The keys of a keyed suite go to a
scratch database (:class:`KeyIndex`), where a key given twice is found and recorded answers find their case.
"""

from __future__ import annotations

from array import array
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from assay.domain import TURNS_DECIDE
from assay.errors import Loc, NotFoundError, Problem, ValidationError, location
from assay.graders import GraderInterface
from assay.services.execution.case_results import RunCase
from assay.services.grading.preflight import CheckedCase, PreflightReport, check_cases
from assay.services.suites.case_keys import KeyCheck
from assay.services.suites.files import CaseFields, FileProblems, SuiteFormat, read_cases, read_suite_file
from assay.services.suites.row_reader import RowFormat
from assay.targets import TargetCase

if TYPE_CHECKING:
    import sqlite3

    from assay.domain import Assertions, SuiteAssertions
    from assay.graders.composite.assertions import AssertionsGrader
    from assay.services.grading.assertions import CaseGraders

_ROW_FORMATS = {".jsonl": SuiteFormat.JSONL, ".ndjson": SuiteFormat.JSONL, ".csv": SuiteFormat.CSV}


IN_MEMORY_KEYS = 250_000
"""Keys an index holds in a dict (about 80 MB at most); past them it moves to a scratch database, so that
memory stays bounded whatever the suite's size."""


class KeyIndex:
    """The keys of a suite: each one's case number, and where it was given; in memory, then (a suite with
    more than :data:`IN_MEMORY_KEYS` keys) in a scratch database."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[int, Loc]] | None = {}
        self._db: sqlite3.Connection | None = None

    def add(self, key: str, number: int, place: Loc) -> Loc | None:
        """Keep ``key`` as case ``number``'s, unless another case has it: then where that case was given."""
        if self._held is not None:
            entry = (number, place)
            first = self._held.setdefault(key, entry)
            if first is not entry:
                return first[1]
            if len(self._held) > IN_MEMORY_KEYS:
                self._spill(self._held)
            return None
        import sqlite3  # loaded by _spill already: only a suite past IN_MEMORY_KEYS keys needs it

        assert self._db is not None
        try:
            self._db.execute("INSERT INTO keys VALUES (?, ?, ?)", (key, number, orjson.dumps(place)))
        except sqlite3.IntegrityError:
            (given,) = self._db.execute("SELECT place FROM keys WHERE key = ?", (key,)).fetchone()
            return tuple(orjson.loads(given))
        return None

    def _spill(self, held: dict[str, tuple[int, Loc]]) -> None:
        from assay.services.local_run.scratch_db import scratch_database

        self._db = scratch_database()
        self._db.execute(
            "CREATE TABLE keys (key TEXT PRIMARY KEY, number INTEGER NOT NULL, place TEXT NOT NULL) "
            "WITHOUT ROWID"
        )
        self._db.execute("BEGIN")
        rows = ((key, number, orjson.dumps(place)) for key, (number, place) in held.items())
        self._db.executemany("INSERT INTO keys VALUES (?, ?, ?)", rows)
        self._held = None

    def number_of(self, key: str) -> int | None:
        """The number of the case whose key is ``key``, if there is one."""
        if self._held is not None:
            entry = self._held.get(key)
            return None if entry is None else entry[0]
        assert self._db is not None
        if self._db.in_transaction:
            self._db.execute("COMMIT")
        row = self._db.execute("SELECT number FROM keys WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def close(self) -> None:
        """Drop the index (a scratch database's file goes with it)."""
        self._held = None
        if self._db is not None:
            self._db.close()


class _NumberedKeys:
    """The :class:`KeyCheck` memory of a streamed suite: its :class:`KeyIndex`, made on the first key."""

    def __init__(self) -> None:
        self.index: KeyIndex | None = None
        self.number = 0

    def first_place(self, key: str, place: Loc) -> Loc | None:
        if self.index is None:
            self.index = KeyIndex()
        return self.index.add(key, self.number, place)


def combined_assertions(
    first: SuiteAssertions | None, then: SuiteAssertions | None
) -> SuiteAssertions | None:
    """A file's own defaults and rules, then those given beside it: its rules first, its defaults first."""
    if first is None or then is None:
        return first if then is None else then
    from assay.domain import SuiteAssertions

    return SuiteAssertions(first.defaults or then.defaults, (*first.rules, *then.rules))


def fingerprint(key: str | None, input_text: str, expected_output: str) -> int:
    """What tells one case from another in this process: a resumed run checks the cases it skips by it."""
    return hash((key, input_text, expected_output))


@dataclass(frozen=True, slots=True, kw_only=True)
class SuiteFacts:
    """What a scan of a suite file found: its name, number of cases, keys, and cases' fingerprints (when
    asked for: ``fingerprints[n - 1]`` is case ``n``'s)."""

    name: str
    count: int
    keyed: bool
    keys: KeyIndex | None
    fingerprints: array[int] | None


class SuiteFile:
    """A suite file (JSONL, CSV or JSON), read as a stream; see the module's docstring."""

    def __init__(self, path: Path, *, defaults: SuiteAssertions | None = None) -> None:
        self.path = path
        self.defaults = defaults
        """Default assertions and rules given beside the file (an ``assay.yaml``): after the file's own."""
        suffix = path.suffix.lower()
        self.format = SuiteFormat.JSON if suffix == ".json" else _ROW_FORMATS.get(suffix, SuiteFormat.JSONL)
        self.name = path.stem
        self._whole: list[tuple[Loc, CaseFields | str]] | None = None
        self._checks: CaseGraders | None = None
        self._suite_assertions: SuiteAssertions | None = None

    @property
    def checks(self) -> CaseGraders:
        """The graders of the cases' own assertions, and of a JSON file's defaults and rules."""
        if self._checks is None:
            from assay.services.grading.assertions import (  # loaded by a suite with assertions only
                CaseGraders,
                check_assertion_calls,
            )

            own = self._suite_assertions if self.format is SuiteFormat.JSON else None
            # a judge among them has its key and URL checked as its list is first built: by the scan
            self._checks = CaseGraders(
                combined_assertions(own, self.defaults), check=check_assertion_calls(None)
            )
        return self._checks

    @property
    def _plain_rows(self) -> bool:
        """Whether a row without assertions of its own is graded by the run's grader, unasked: a JSONL or CSV
        file with no defaults beside it."""
        return self.format is not SuiteFormat.JSON and self.defaults is None

    @property
    def calls_out(self) -> bool:
        """Whether a case's assertions hold a grader that calls out (a model judge); known once scanned."""
        return self._checks is not None and self._checks.calling

    def _rows(self) -> Iterator[tuple[Loc, CaseFields | str]]:
        """Each row's place, and its case or what is wrong with it."""
        if self.format is SuiteFormat.JSON:
            yield from self._document()
            return
        try:
            stream = self.path.open("rb")
        except OSError as exc:
            raise NotFoundError(f"cannot read {self.path}: {exc.strerror}") from exc
        with stream:
            yield from read_cases(stream, RowFormat(self.format.value))

    def _document(self) -> list[tuple[Loc, CaseFields | str]]:
        """A JSON suite, parsed whole once (every problem raised as the suite import raises them)."""
        if self._whole is None:
            try:
                content = self.path.read_bytes()
            except OSError as exc:
                raise NotFoundError(f"cannot read {self.path}: {exc.strerror}") from exc
            parsed = read_suite_file(content, SuiteFormat.JSON)
            self.name = parsed.name or self.name
            self._suite_assertions = parsed.assertions
            self._whole = [
                (
                    place,
                    (
                        case.input,
                        case.expected_output,
                        case.metadata,
                        case.key,
                        case.assertions,
                        case.conversation,
                    ),
                )
                for place, case in zip(parsed.places, parsed.cases, strict=True)
            ]
        return self._whole

    def scan(
        self, *, preflight: GraderInterface | None, fingerprints: bool = False
    ) -> tuple[SuiteFacts, PreflightReport | None]:
        """Read the whole file once, holding nothing per case but an index of keys and the ``fingerprints``.

        ``ValidationError`` listing every bad row, key given twice, or case with a key where others have none
        (or the reverse); then, with a ``preflight`` grader, its report on every case.
        """
        problems = FileProblems()
        keys = _NumberedKeys()
        check = KeyCheck(places=keys)
        prints: array[int] | None = array("q") if fingerprints else None

        rows = self._plain_rows

        def cases() -> Iterator[CheckedCase]:
            number = 0
            for place, case in self._rows():
                if isinstance(case, str):
                    problems.add(place, case)
                    continue
                input_text, expected, metadata, key, own, conversation = case
                number += 1
                keys.number = number
                found = check.check(key, place)
                if found is not None:
                    problems.add(found[1].loc, found[1].message)
                if prints is not None:
                    prints.append(fingerprint(key, input_text, expected))
                # A row of a JSONL or CSV file without assertions: the path it always took (no call).
                decided = conversation is not None and conversation.turns and expected == ""
                yield (
                    number,
                    number,
                    key,
                    TURNS_DECIDE if decided else expected,
                    None if own is None and rows else self._case_checks(own, metadata),
                )

        report = None
        try:
            if preflight is not None:
                report = check_cases(preflight, cases())
                count = report.checked
            else:
                count = sum(1 for _ in cases())
            problems.raise_if_any()
            if not count:
                raise ValidationError.of(Problem((), "the file holds no cases"))
        except BaseException:
            if keys.index is not None:
                keys.index.close()
            raise
        facts = SuiteFacts(
            name=self.name, count=count, keyed=bool(check.keyed), keys=keys.index, fingerprints=prints
        )
        return facts, report

    def cases(self) -> Generator[RunCase, None, None]:
        """Every case in order, numbered from 1, read again from the file (checked by :meth:`scan` first)."""
        rows = self._plain_rows
        for number, (place, case) in enumerate(self._rows(), 1):
            if isinstance(case, str):
                raise ValidationError(
                    f"{self.path.name} changed while it was read: {location(place)}: {case}"
                )
            input_text, expected, metadata, key, own, conversation = case
            messages, turns = None, None
            if conversation is not None:  # the chat's record (pydantic) is loaded only for a chat
                from assay.services.execution.conversation import messages_of, turns_of

                messages, turns = messages_of(conversation), turns_of(conversation)
            yield RunCase(
                TargetCase(number, input_text, metadata, number=number, key=key, messages=messages),
                expected,
                None if own is None and rows else self._case_checks(own, metadata),
                turns,
            )

    def _case_checks(self, own: Assertions | None, metadata: dict[str, Any]) -> AssertionsGrader | None:
        """The grader of a case's assertions (``None``: the run's grader); a JSON file's rules read first."""
        if self.format is SuiteFormat.JSON:
            self._document()
        return self.checks.for_case(own, metadata)

    def first_case(self) -> RunCase:
        """The first case (the file is scanned first)."""
        cases = self.cases()
        try:
            return next(cases)
        finally:
            cases.close()
