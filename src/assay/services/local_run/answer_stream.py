"""Recorded answers (``assay run --responses``) read as a stream: checked whole first, then handed out in
case order beside the suite's cases, so that no more of them is held than the cases in flight need.

A row names its case by ``key`` (or ``id``, ``case_id``): the case's key in a keyed suite, its number
otherwise; or by ``number``; a row naming none is the answer of the case at its own place (the third row,
the third case). A row that names no case, or a case another row answered, is refused before anything runs,
every such line listed: no answer is dropped unnoticed. Answers whose text fits :data:`HELD_ANSWER_CHARS`
are kept from that check, by case number, and handed out from memory; past it, rows in case order (the
usual file) are read again as the cases run, and rows in any other order are first copied, by case number,
to a scratch database.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from assay.errors import NotFoundError, Problem, ValidationError
from assay.services.local_run.suite_stream import SuiteFacts
from assay.services.suites.case_keys import is_number_of, key_text, listed, naming_rule, read_key
from assay.services.suites.row_reader import BadRow, Row, RowFormat, read_rows
from assay.targets import TargetCase
from assay.targets.base import response_text

MAX_LISTED = 20
ANSWER_NAME_FIELDS = ("key", "id", "case_id")
"""Fields of a row of answers that name its case: a key in a keyed suite, a number otherwise."""
_COPY_BATCH = 5000
HELD_ANSWER_CHARS = 32 * 1024 * 1024
"""Answers whose texts add up to no more than this (each counted :data:`_HELD_OVERHEAD` more, for its
object) are kept in memory from the check; a larger file is read again as the cases run."""
_HELD_OVERHEAD = 64


@dataclass(slots=True)
class _AnswerName:
    """How a row of answers names its case: ``text`` (a key, or a number) from ``field`` (``None``: the row's
    place, then ``place`` holds it), or what is wrong with the name."""

    text: str
    field: str | None
    is_number: bool
    place: int | None = None
    problem: str | None = None

    @property
    def how(self) -> str:
        """The name as messages quote it."""
        if self.field is None:
            return f"row {self.text} (no key: matched by its place)"
        return f"number {self.text}" if self.field == "number" else f"{self.field} '{self.text}'"


def _answer_name(row: Row, place: int) -> _AnswerName:
    named = read_key(row.data, ANSWER_NAME_FIELDS)
    if named.problem is not None:
        return _AnswerName("", None, is_number=False, problem=named.problem)
    if named.key is not None:
        return _AnswerName(named.key, named.field, False)  # in order: made for every row, twice
    number = row.data.get("number")
    if number is not None:
        text = key_text(number)
        if text is not None:
            return _AnswerName(text, "number", is_number=True)
    return _AnswerName(str(place), None, is_number=True, place=place)


@dataclass(slots=True)
class Answer:
    """A recorded answer (``text``) and the case it names: by ``number``, or by ``key``."""

    number: int | None
    key: str | None
    text: str | None

    def answers(self, case: TargetCase) -> bool:
        """Whether this is the answer of ``case``."""
        return self.number == case.place if self.key is None else self.key == case.key


class AnswerFile:
    """A file of recorded answers for the suite ``suite`` describes; see the module's docstring."""

    def __init__(self, path: Path, suite: SuiteFacts) -> None:
        self.path = path
        self.suite = suite
        self._format = RowFormat.for_path(path)
        self._copy: _AnswersByNumber | None = None
        self._held: list[str | _NotAnswered | None] | None = None

    def _rows(self) -> Iterator[tuple[int, Row | BadRow]]:
        try:
            stream = self.path.open("rb")
        except OSError as exc:
            raise NotFoundError(f"cannot read {self.path}: {exc.strerror}") from exc
        with stream:
            yield from enumerate(read_rows(stream, self._format, ("agent_response",)), 1)

    def _by_key(self, named: _AnswerName) -> bool:
        return self.suite.keyed and not named.is_number

    def _number(self, named: _AnswerName) -> int | None:
        """The number of the case a row names, if it names one."""
        if named.place is not None:
            return named.place if named.place <= self.suite.count else None
        if self._by_key(named):
            return self.suite.keys.number_of(named.text) if self.suite.keys is not None else None
        return int(named.text) if is_number_of(named.text, self.suite.count) else None

    def check(self) -> None:
        """Read every row once: ``ValidationError`` listing each one that cannot be used; rows out of case
        order are then copied to a scratch database."""
        if not self.path.is_file():
            raise NotFoundError(f"cannot read {self.path}: no such file")
        answered_on = array("I", bytes(4 * (self.suite.count + 1)))
        problems: list[Problem] = []
        total = 0
        last, in_order = 0, True
        held: list[str | _NotAnswered | None] | None = [_NOT_ANSWERED] * (self.suite.count + 1)
        held_chars = 0
        for place, row in self._rows():
            where = ("line", row.line)
            message: str | None = None
            number: int | None = None
            if isinstance(row, BadRow):
                message = row.message
            elif len(row.data) == 1 and place <= self.suite.count and not answered_on[place]:
                answered_on[place] = row.line  # the answer alone: the case at its place (the usual file)
                in_order, last = in_order and place > last, place
                number = place
            else:
                named = _answer_name(row, place)
                number = None if named.problem is not None else self._number(named)
                if named.problem is not None:
                    message = named.problem
                elif number is None:
                    rule = naming_rule(
                        keyed=self.suite.keyed, count=self.suite.count, by_key=self._by_key(named)
                    )
                    message = f"{named.how} matches no case ({rule})"
                elif answered_on[number]:
                    message = f"{named.how} names a case line {answered_on[number]} already answered"
                else:
                    answered_on[number] = row.line
                    in_order, last = in_order and number > last, number
            if message is not None:
                total += 1
                if len(problems) < MAX_LISTED:
                    problems.append(Problem(where, message))
            elif held is not None and number is not None and not isinstance(row, BadRow):
                text = response_text(row.data["agent_response"])
                held_chars += _HELD_OVERHEAD + (len(text) if text is not None else 0)
                held[number] = text
                if held_chars > HELD_ANSWER_CHARS:
                    held = None  # too much to hold: read again as the cases run
        if total:
            message = f"{total} answer(s) in {self.path.name} cannot be used"
            raise ValidationError(message, problems=listed(problems, total, limit=MAX_LISTED))
        if held is not None:
            self._held = held
        elif not in_order:
            numbered = (
                answer if answer.key is None else Answer(self._number_of_key(answer.key), None, answer.text)
                for answer in self._answers_as_written()
            )
            self._copy = _AnswersByNumber(numbered)

    def _answers_as_written(self) -> Iterator[Answer]:
        """Each row's answer, in the file's order (every row checked by :meth:`check`)."""
        for place, row in self._rows():
            if isinstance(row, BadRow):
                raise ValidationError(f"{self.path.name} changed while it was read: line {row.line}")
            text = response_text(row.data["agent_response"])
            if len(row.data) == 1:
                yield Answer(place, None, text)
                continue
            named = _answer_name(row, place)
            if named.place is not None:
                yield Answer(named.place, None, text)
            elif self._by_key(named):
                yield Answer(None, named.text, text)
            else:
                yield Answer(int(named.text), None, text)

    def in_case_order(self) -> Iterator[Answer]:
        """Every answer, by increasing case number (:meth:`check` first)."""
        if self._held is not None:
            return _held_answers(self._held)
        if self._copy is not None:
            return self._copy.answers()
        return self._answers_as_written()

    def close(self) -> None:
        """Drop the answers held, or the scratch copy, if one was made."""
        self._held = None
        if self._copy is not None:
            self._copy.close()

    def _number_of_key(self, key: str) -> int:
        number = self.suite.keys.number_of(key) if self.suite.keys is not None else None
        if number is None:
            raise ValidationError(f"{self.path.name} changed while it was read: key '{key}'")
        return number


class _NotAnswered:
    """Marks a case no row answered (an answer's text may itself be ``None``)."""


_NOT_ANSWERED = _NotAnswered()


def _held_answers(held: list[str | _NotAnswered | None]) -> Iterator[Answer]:
    for number, text in enumerate(held):
        if not isinstance(text, _NotAnswered):
            yield Answer(number, None, text)


class _AnswersByNumber:
    """Answers in a scratch database by case number, read back in case order (as UTF-8 that keeps a lone
    surrogate, which JSON allows and agents do emit)."""

    def __init__(self, answers: Iterator[Answer]) -> None:
        from assay.services.local_run.scratch_db import scratch_database  # only for answers out of case order

        self._db = scratch_database()
        self._db.execute("CREATE TABLE answers (number INTEGER PRIMARY KEY, text BLOB)")
        self._db.execute("BEGIN")
        batch: list[tuple[int | None, bytes | None]] = []
        for answer in answers:
            text = None if answer.text is None else answer.text.encode("utf-8", "surrogatepass")
            batch.append((answer.number, text))
            if len(batch) >= _COPY_BATCH:
                self._db.executemany("INSERT INTO answers VALUES (?, ?)", batch)
                batch.clear()
        self._db.executemany("INSERT INTO answers VALUES (?, ?)", batch)
        self._db.execute("COMMIT")

    def answers(self) -> Iterator[Answer]:
        for number, text in self._db.execute("SELECT number, text FROM answers ORDER BY number"):
            yield Answer(number, None, None if text is None else text.decode("utf-8", "surrogatepass"))

    def close(self) -> None:
        self._db.close()
