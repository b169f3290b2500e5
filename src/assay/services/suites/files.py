"""Suite files: read JSONL, CSV or JSON into cases (every bad line reported), write JSONL or CSV.

A ``key`` field (or ``id``, when there is no ``key``) is the case's key: the user's own name for it, unique
in the suite (see :mod:`assay.services.suites.case_keys`). Other fields besides ``input``, ``expected_output``
and ``metadata`` (a JSON object) are kept in the case's metadata, so that columns such as ``category`` survive
an import.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import TYPE_CHECKING, Any, BinaryIO

from assay.errors import Loc, Problem, ValidationError
from assay.serialization import json_text
from assay.services.suites.case_keys import ReadKey, key_problems, read_key
from assay.services.suites.row_reader import BadRow, RowFormat, read_rows

if TYPE_CHECKING:
    from assay.domain import Assertions, Case, Conversation, NewCase, SuiteAssertions

MAX_REPORTED_PROBLEMS = 1000
CASE_FIELDS = ("input", "expected_output", "metadata")
_CONVERSATION_FIELDS = ("turns", "stop_at_first_failure", "max_seconds")
"""A multi-turn case's fields (docs/conversations.md): never kept in its metadata."""
_NOT_METADATA = frozenset({*CASE_FIELDS, *_CONVERSATION_FIELDS})
ASSERTION_FIELDS = ("assert", "threshold")
"""A case's own assertions and threshold (docs/assertions.md): never kept in its metadata."""
CSV_COLUMNS = ("key", *CASE_FIELDS, *ASSERTION_FIELDS)
"""Columns of a CSV export (``key`` empty for a suite without keys)."""
# A cell starting with one of these is run as a formula by spreadsheet programs (CSV injection);
# the full-width forms count too in some of them.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
_SKIPPED_BEFORE_FORMULA = "".join(chr(code) for code in range(33)) + "\x7f\u00a0\u3000"


class SuiteFormat(Enum):
    """File formats a suite can be imported from or exported to."""

    JSONL = "jsonl"
    CSV = "csv"
    JSON = "json"

    @classmethod
    def for_filename(cls, filename: str) -> SuiteFormat:
        """The format a file name's extension says; ``ValidationError`` when it says none."""
        extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
        known = {"jsonl": cls.JSONL, "ndjson": cls.JSONL, "csv": cls.CSV, "json": cls.JSON}
        if extension not in known:
            raise ValidationError(
                f"Cannot tell the format of '{filename}': "
                "use a .jsonl, .csv or .json file, or give the format"
            )
        return known[extension]


@dataclass(slots=True)
class ParsedSuite:
    """Cases read from a file, and a name or description the file itself gave (JSON only)."""

    cases: list[NewCase] = field(default_factory=list)
    name: str | None = None
    description: str | None = None
    assertions: SuiteAssertions | None = None
    """The defaults and rules a JSON file's object gave (docs/assertions.md)."""
    places: list[Loc] = field(default_factory=list)
    """Where each case is in the file (``("line", 3)``, ``("case", 3)`` of a JSON array), for messages."""

    def add(self, case: NewCase, place: Loc) -> None:
        """Keep ``case``, read at ``place``."""
        self.cases.append(case)
        self.places.append(place)


class FileProblems:
    """Problems found so far, capped so that a garbage file does not make a giant response."""

    def __init__(self) -> None:
        self.listed: list[Problem] = []
        self.count = 0

    def add(self, loc: Loc, message: str) -> None:
        self.count += 1
        if len(self.listed) < MAX_REPORTED_PROBLEMS:
            self.listed.append(Problem(loc, message))

    def raise_if_any(self) -> None:
        if not self.count:
            return
        listed = list(self.listed)
        if self.count > len(listed):
            listed.append(Problem((), f"... and {self.count - len(listed)} more"))
        noun = "problem" if self.count == 1 else "problems"
        raise ValidationError(f"The file has {self.count} {noun}: {listed[0]}", problems=listed)


def suite_name_from(text: str) -> str:
    """A usable suite name made from a file's name or its ``name`` field: printable, trimmed, ≤ 200."""
    return "".join(ch for ch in text if ch.isprintable()).strip()[:200].strip()


CaseFields = tuple[str, str, dict[str, Any], str | None, "Assertions | None", "Conversation | None"]
"""A case as a file gives it: input (text for people), expected output, metadata, key, its own assertions,
its conversation (a tuple: a suite file makes millions)."""


def _assertions(record: dict[str, Any]) -> Assertions | str | None:
    """The record's own assertions (popped from it), ``None`` for none, or what is wrong with them."""
    raw, threshold = record.pop("assert", None), record.pop("threshold", None)
    if raw is None and threshold is None:
        return None
    try:  # rows of a file repeat their lists: each distinct one is checked once (see _checked)
        text = json.dumps([raw, threshold], sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return "'assert' must be a JSON list of assertions"
    return _checked(text)


@lru_cache(maxsize=1024)
def _checked(text: str) -> Assertions | str:
    """The assertions ``[raw, threshold]`` (as canonical JSON) give, or what is wrong with them."""
    from assay.graders.composite.assertions import InvalidAssertionsError, read_assertions

    raw, threshold = json.loads(text)
    try:
        return read_assertions(raw, threshold)
    except InvalidAssertionsError as exc:
        return "; ".join(problem.message for problem in exc.problems[:5])


def _case(record: dict[str, Any]) -> CaseFields | str:
    """The case a record describes, or what is wrong with it."""
    input_text, expected = record.get("input"), record.get("expected_output")
    if len(record) == 2 and isinstance(input_text, str) and isinstance(expected, str):
        return input_text, expected, {}, None, None, None  # the usual record, nothing else in it
    conversation = None
    if isinstance(input_text, list) or any(name in record for name in _CONVERSATION_FIELDS):
        from assay.services.suites.conversations import read_conversation  # docs/conversations.md

        found = read_conversation(record)
        if isinstance(found, str):
            return found
        conversation, input_text = found, found.text
        if found.turns and "expected_output" not in record:
            expected = ""  # a multi-turn case's checks are usually its turns'
    assertions = _assertions(record) if "assert" in record or "threshold" in record else None
    if isinstance(assertions, str):
        return assertions
    metadata = record.get("metadata")
    if metadata is None:
        metadata = {}
    read = read_key(record)
    if not (isinstance(input_text, str) and isinstance(expected, str) and isinstance(metadata, dict)):
        return _case_problem(record, metadata, read)
    if read.problem is not None:
        return read.problem
    known = sum(name in record for name in _NOT_METADATA) + (read.key is not None)
    if len(record) > known:  # other fields are kept in the metadata (a file's own columns)
        extra = {
            name: value
            for name, value in record.items()
            if name not in _NOT_METADATA and (name != read.field or read.key is None)
        }
        metadata = {**extra, **metadata}
    return input_text, expected, metadata, read.key, assertions, conversation


def _new_case(fields: CaseFields) -> NewCase:
    from assay.domain import NewCase  # here: `assay run` streams fields and makes no record

    input_text, expected, metadata, key, assertions, conversation = fields
    return NewCase(input_text, expected, metadata, key=key, assertions=assertions, conversation=conversation)


def _csv_cells(record: dict[str, Any]) -> str | None:
    """Reads a CSV row's JSON cells in place (``metadata``, ``assert``, ``threshold``); what is wrong, if any.

    An empty cell is none."""
    for name in ("metadata", "assert", "threshold"):
        if name not in record:
            continue
        cell = record[name]
        if not cell.strip():
            if name == "metadata":
                record[name] = {}
            else:
                del record[name]
            continue
        try:
            record[name] = json.loads(cell)
        except json.JSONDecodeError as exc:
            return f"'{name}' is not valid JSON ({exc.msg})"
        except RecursionError:
            return f"'{name}' is nested too deeply"
    return None


def _case_problem(record: dict[str, Any], metadata: object, read: ReadKey) -> str:
    """What is wrong with a record that is not a case."""
    wrong = [
        f"'{name}' is missing" if name not in record else f"'{name}' must be a string"
        for name in ("input", "expected_output")
        if not isinstance(record.get(name), str)
    ]
    if not isinstance(metadata, dict):
        wrong.append("'metadata' must be an object")
    if read.problem is not None:
        wrong.append(read.problem)
    return "; ".join(wrong)


def _decode(content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content[: exc.start].count(b"\n") + 1
        raise ValidationError.of(Problem(("line", line), "not valid UTF-8 text")) from exc


def read_cases(stream: BinaryIO, row_format: RowFormat) -> Iterator[tuple[Loc, CaseFields | str]]:
    """Each row of a JSONL or CSV file as it is read: where it is, and its case or what is wrong with it.

    Read by the one row reader that ``assay grade-file`` uses too; keys are not compared here (see
    :mod:`assay.services.suites.case_keys`)."""
    is_csv = row_format is RowFormat.CSV
    required = ("input", "expected_output") if is_csv else ()
    for item in read_rows(stream, row_format, required):
        place: Loc = ("line", item.line)
        if isinstance(item, BadRow):
            yield place, item.message
            continue
        record: dict[str, Any] = item.data
        if is_csv and ("metadata" in record or "assert" in record or "threshold" in record):
            problem = _csv_cells(record)
            if problem is not None:
                yield place, problem
                continue
        yield place, _case(record)


def _lines(content: bytes, row_format: RowFormat, problems: FileProblems) -> ParsedSuite:
    """Cases of a JSONL or CSV file."""
    parsed = ParsedSuite()
    for place, case in read_cases(io.BytesIO(content), row_format):
        if isinstance(case, str):
            problems.add(place, case)
        else:
            parsed.add(_new_case(case), place)
    return parsed


def _json(text: str, problems: FileProblems) -> ParsedSuite:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError.of(Problem(("line", exc.lineno), f"invalid JSON ({exc.msg})")) from exc
    except RecursionError:
        raise ValidationError.of(Problem((), "invalid JSON (nested too deeply)")) from None
    parsed = ParsedSuite()
    records = document
    if isinstance(document, dict):
        records = document.get("cases")
        name, description = document.get("name"), document.get("description")
        parsed.name = name if isinstance(name, str) else None
        parsed.description = description if isinstance(description, str) else None
        parsed.assertions = _suite_assertions(document, problems)
    if not isinstance(records, list):
        raise ValidationError.of(
            Problem((), 'expected a JSON array of cases, or an object with a "cases" array')
        )
    for number, record in enumerate(records, 1):
        case = (
            _case(record) if isinstance(record, dict) else f"expected an object, got {type(record).__name__}"
        )
        if isinstance(case, str):
            problems.add(("case", number), case)
        else:
            parsed.add(_new_case(case), ("case", number))
    return parsed


def _suite_assertions(document: dict[str, Any], problems: FileProblems) -> SuiteAssertions | None:
    """A JSON file's default assertions and rules, if it gives any; each problem added to ``problems``."""
    if not any(name in document for name in ("assert", "threshold", "rules")):
        return None
    from assay.graders.composite.assertions import InvalidAssertionsError, read_suite_assertions

    try:
        found = read_suite_assertions(
            document.get("assert"), document.get("threshold"), document.get("rules")
        )
    except InvalidAssertionsError as exc:
        for problem in exc.problems:
            problems.add(tuple(problem.parts), problem.message)
        return None
    return None if found.empty else found


def read_suite_file(content: bytes, file_format: SuiteFormat) -> ParsedSuite:
    """The cases of a file; ``ValidationError`` listing every bad line (or JSON item) by number."""
    text = _decode(content)
    problems = FileProblems()
    if file_format is SuiteFormat.JSON:
        parsed = _json(text, problems)
    else:
        parsed = _lines(content, RowFormat(file_format.value), problems)
    for problem in key_problems([case.key for case in parsed.cases], parsed.places).all:
        problems.add(problem.loc, problem.message)
    problems.raise_if_any()
    if not parsed.cases:
        raise ValidationError.of(Problem((), "the file holds no cases"))
    return parsed


def jsonl_lines(cases: Iterable[Case]) -> Iterator[bytes]:
    """Each case as a JSON line; reads back exactly (lone surrogates and NULs included)."""
    for case in cases:
        conversation = case.conversation
        record: dict[str, Any] = (
            {"input": case.input} if conversation is None else _conversation_input(conversation)
        )
        record["expected_output"] = case.expected_output
        record["metadata"] = case.metadata
        if conversation is not None:
            record.update(_conversation_fields(conversation))
        if case.key is not None:
            record = {"key": case.key, **record}
        if case.assertions is not None:
            record.update(case.assertions.as_json())
        yield (json_text(record) + "\n").encode("utf-8")


def _conversation_input(conversation: Conversation) -> dict[str, Any]:
    """A conversation case's ``input``: its messages themselves, not their text; none when it has only
    turns (docs/conversations.md)."""
    return {"input": conversation.input_json()} if conversation.messages else {}


def _conversation_fields(conversation: Conversation) -> dict[str, Any]:
    """A conversation case's ``turns``, ``stop_at_first_failure`` and ``max_seconds``, when it has them."""
    fields = conversation.as_json()
    fields.pop("messages", None)
    return fields


def neutralise_formula(cell: str) -> str:
    """``cell`` with a leading quote when a spreadsheet would otherwise run it as a formula.

    Spreadsheets skip leading spaces and line breaks before they look for ``=``, so what counts is the
    first character that is neither whitespace nor a control character (``" =1"``, ``"\n=1"``).
    """
    risky = cell.startswith(FORMULA_STARTS) or cell.lstrip(_SKIPPED_BEFORE_FORMULA).startswith(FORMULA_STARTS)
    return "'" + cell if risky else cell


def csv_lines(cases: Iterable[Case]) -> Iterator[bytes]:
    """The cases as CSV rows (header first), formulas neutralised; lone surrogates become ``?``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for case in cases:
        metadata = json.dumps(case.metadata, ensure_ascii=False)
        own = case.assertions.as_json() if case.assertions is not None else {}
        listed = json.dumps(own["assert"], ensure_ascii=False) if own.get("assert") else ""
        threshold = "" if own.get("threshold") is None else str(own["threshold"])
        cells = (case.key or "", case.input, case.expected_output, metadata, listed, threshold)
        writer.writerow([neutralise_formula(cell) for cell in cells])
        yield buffer.getvalue().encode("utf-8", "replace")
        buffer.seek(0)
        buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue().encode("utf-8", "replace")
