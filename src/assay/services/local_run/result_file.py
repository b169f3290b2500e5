"""The results file of ``assay run`` (``--output``): one JSON line per graded case, written as results come.

Each batch of results is written with one ``os.write`` of whole lines to a file opened for appending, so a
kill leaves whole lines behind; at worst a kill in the middle of that one write cuts its last line, which a
resumed run drops and writes again. A resumed run (:func:`read_results`) reads the lines already there: each
names its case by number and key, as the suite does, and must be the result of the suite's case of that
number as it is now (same key, input and expected output), else the file belongs to another suite and is
refused rather than mixed.

The first line is the run's header (:class:`RunHeader`): the grader spec, its config and the suite file's
digest. A resumed run whose grader, config or suite differ is refused (two graders' verdicts in one report
would mean nothing), and every verdict read back is graded again from its answer (a grader that calls
nothing is cheap to ask), so a line saying ``"passed": true`` of an answer that does not pass is refused.
A file without a header (written before headers) is resumed on its lines' checks alone.
"""

from __future__ import annotations

import hashlib
import json
import os
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

import orjson

from assay.errors import Problem, ValidationError
from assay.json_types import JsonObject, JsonValue
from assay.serialization import json_line
from assay.services.execution.case_results import CaseResult
from assay.services.local_run.suite_stream import SuiteFacts, fingerprint
from assay.services.suites.case_keys import case_label, listed

MAX_LISTED = 10
_NOT_A_RESULT = "is not a result of assay run"
HEADER_KEY = "assay_run"
"""The key only a results file's header line has."""


class ResultLine(TypedDict):
    """A result line as :meth:`CaseResult.as_record` writes it, once :data:`_FIELDS` checked it (the keys
    not checked are read as JSON)."""

    number: int
    key: str | None
    input: str
    expected_output: str
    agent_response: str | None
    passed: bool
    score: float | None
    match_status: str | None
    details: JsonObject | None
    error: str | None
    error_detail: str | None
    latency_ms: float | None
    repeat: NotRequired[int]
    usage: NotRequired[JsonValue]
    judge_usage: NotRequired[JsonValue]


Regrade = Callable[[int, str, str], tuple[bool, float | None]]
"""Grades case ``number``'s answer against its expected output again: its ``passed`` and ``score``."""


@dataclass(frozen=True, slots=True)
class RunHeader:
    """What made a results file's verdicts: the grader, its effective config and version, and the suite."""

    grader_id: str
    config: JsonObject
    version: str
    suite_digest: str
    suite_name: str = ""
    """The suite's name (its file's stem): what a pushed run's suite is called on a server."""
    suite_cases: int = 0
    """How many cases the suite has: a pushed run must hold a result of each."""
    suite_path: str = ""
    """The suite file's absolute path: a push reads the cases' metadata and assertions from it."""
    assertions: JsonObject | None = None
    """Default assertions and rules given beside the suite file (``assay eval``'s), as a suite stores them:
    a push adds them to the suite file's own, so the server grades as the run did."""
    repeats: int = 1
    """How many times the run asks each case (its results carry their ``repeat``, from 0)."""

    def line(self) -> bytes:
        """The header as the file's first line."""
        fields = asdict(self)
        if self.assertions is None:
            del fields["assertions"]  # a plain run's header stays as it was before eval files
        if self.repeats == 1:
            del fields["repeats"]  # likewise before repeats
        return json_line({HEADER_KEY: fields})

    @classmethod
    def of(cls, record: object) -> RunHeader | None:
        """The header a line holds, if it is one (``None`` for a result, or a header not of this shape)."""
        if not isinstance(record, dict) or not isinstance(record.get(HEADER_KEY), dict):
            return None
        fields = record[HEADER_KEY]
        try:
            header = cls(**fields)
        except TypeError:
            return None
        texts = (header.grader_id, header.version, header.suite_digest, header.suite_name, header.suite_path)
        ok = (
            all(isinstance(text, str) for text in texts)
            and isinstance(header.config, dict)
            and type(header.suite_cases) is int
            and type(header.repeats) is int
            and (header.assertions is None or isinstance(header.assertions, dict))
        )
        return header if ok else None

    def mismatch(self, other: RunHeader) -> str | None:
        """What differs between the run that wrote this header and ``other`` (this run), if anything."""
        if (self.grader_id, self.config) != (other.grader_id, other.config):
            config = json.dumps(self.config, sort_keys=True)
            return f"it was graded by {self.grader_id} with config {config}, not as this run grades"
        if self.version != other.version:
            return f"it was graded by {self.grader_id} version {self.version}, not {other.version}"
        if self.assertions != other.assertions:
            return "it was graded with other default assertions or rules than this run's"
        if self.suite_digest != other.suite_digest:
            return "the suite file has changed since it was written"
        if self.repeats != other.repeats:
            return f"it asked each case {self.repeats} time(s), this run {other.repeats}"
        return None


def file_digest(path: Path) -> str:
    """``sha256:<hex>`` of a file's bytes (a suite file's, in a results file's header)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as stream:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as exc:
        raise ValidationError(f"cannot read {path}: {exc.strerror}") from exc
    return f"sha256:{digest.hexdigest()}"


def read_header(path: Path) -> RunHeader | None:
    """The header of a results file (``None`` for a file without one)."""
    with path.open("rb") as stream:
        first = stream.readline()
    return RunHeader.of(_record(first)) if first.endswith(b"\n") else None


def _record(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        try:  # a result holding a lone surrogate was written escaped by the standard library
            return json.loads(line)
        except (ValueError, RecursionError):
            return None


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _is_text_or_null(value: object) -> bool:
    return value is None or isinstance(value, str)


def _is_number_or_null(value: object) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


_FIELDS: dict[str, Callable[[object], bool]] = {
    "number": lambda value: type(value) is int,
    "key": _is_text_or_null,
    "input": _is_text,
    "expected_output": _is_text,
    "agent_response": _is_text_or_null,
    "passed": lambda value: isinstance(value, bool),
    "score": _is_number_or_null,
    "match_status": _is_text_or_null,
    "details": lambda value: value is None or isinstance(value, dict),
    "error": _is_text_or_null,
    "error_detail": _is_text_or_null,
    "latency_ms": _is_number_or_null,
}
"""What each field of a result line must hold, as :meth:`CaseResult.as_record` writes it."""


def _shape_problem(record: object, count: int, repeats: int = 1) -> str | None:
    """Why ``record`` cannot be the result of a case of a suite of ``count`` cases, asked ``repeats`` times,
    if it cannot."""
    if not isinstance(record, dict):
        return f"{_NOT_A_RESULT} (not a JSON object)"
    wrong = [name for name, holds in _FIELDS.items() if name not in record or not holds(record[name])]
    if wrong:
        return f"{_NOT_A_RESULT} (field(s) {', '.join(wrong)})"
    if not 1 <= record["number"] <= count:
        return f"case #{record['number']} is not a case of the suite (it has {count})"
    if record["error"] is not None and record["passed"]:
        return f"{_NOT_A_RESULT} (a case with an error cannot pass)"
    repeat = record.get("repeat", 0)
    if type(repeat) is not int or not 0 <= repeat < repeats:
        return f"repeat {repeat!r} is not one of this run's (it asks each case {repeats} time(s))"
    return None


def _regrade_problem(record: ResultLine, regrade: Regrade) -> str | None:
    """Why a graded line's verdict is not what its answer grades to now, if it is not."""
    if record["error"] is not None or record["agent_response"] is None:
        return None
    passed, score = regrade(record["number"], record["agent_response"], record["expected_output"])
    if passed != record["passed"] or (score is not None and score != record["score"]):
        said = "passed" if record["passed"] else "failed"
        now = "passes" if passed else "fails"
        return f"its verdict does not re-grade to what the line says ({said}; the answer {now} now)"
    return None


def read_results(
    path: Path,
    suite: SuiteFacts,
    on_result: Callable[[ResultLine], None],
    *,
    header: RunHeader,
    regrade: Regrade | None = None,
) -> array[int]:
    """The cases ``path`` already holds a result of, for a resumed run: ``done[slot]`` is the line of the
    result of the (case, repeat) at that slot (:func:`~assay.services.local_run.run.done_slot`; the case's
    number without repeats), 0: none. ``on_result`` sees each result; a last line cut by a kill is cut off
    the file.

    ``ValidationError`` (nothing changed) when the file's header is not this run's ``header``, a line is not
    a result of this suite's cases, a case has two, or (with ``regrade``) a verdict does not grade again to
    what the line says. ``suite`` must have been scanned with its fingerprints.
    """
    if suite.fingerprints is None:
        raise ValueError("a resumed run needs the suite's fingerprints")
    written = read_header(path)
    differs = written.mismatch(header) if written is not None else None
    if differs is not None:
        raise ValidationError(
            f"{path.name} cannot be resumed: {differs}; give another --output to start afresh"
        )
    repeats = header.repeats
    done = array("I", bytes(4 * (suite.count * repeats + 1)))
    problems: list[Problem] = []
    total = 0
    whole_end = 0
    with path.open("rb") as stream:
        for line_number, line in enumerate(stream, 1):
            if not line.endswith(b"\n"):
                break  # cut by a kill while it was written: dropped, the case runs again
            whole_end += len(line)
            if not line.strip() or (line_number == 1 and written is not None):
                continue
            read = _record(line)
            message = _shape_problem(read, suite.count, repeats)
            if message is None:
                record = cast(ResultLine, read)  # its fields' types: checked by _shape_problem
                number = record["number"]
                slot = (number - 1) * repeats + record.get("repeat", 0) + 1
                label = case_label(number, record["key"])
                if repeats > 1:
                    label = f"{label} (repeat {record.get('repeat', 0)})"
                if done[slot]:
                    message = f"{label} already has a result on line {done[slot]}"
                elif (
                    fingerprint(record["key"], record["input"], record["expected_output"])
                    != (suite.fingerprints[number - 1])
                ):
                    message = (
                        f"{label} is not the suite's case #{number} as it is now (key, input or expected "
                        "output differ)"
                    )
                elif regrade is not None and (problem := _regrade_problem(record, regrade)) is not None:
                    message = f"{label}: {problem}"
                else:
                    done[slot] = line_number
                    on_result(record)
            if message is not None:
                total += 1
                if len(problems) < MAX_LISTED:
                    problems.append(Problem(("line", line_number), message))
    if total:
        raise ValidationError(
            f"{path.name} cannot be resumed: {total} line(s) are not results of this suite's cases as this "
            "run grades them; give another --output to start afresh",
            problems=listed(problems, total, limit=MAX_LISTED),
        )
    if whole_end < path.stat().st_size:
        os.truncate(path, whole_end)
    return done


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every result of a results file, in its order (the file was checked or written by this run)."""
    with path.open("rb") as stream:
        for line in stream:
            if line.endswith(b"\n") and line.strip():
                record = _record(line)
                if isinstance(record, dict) and HEADER_KEY not in record:
                    yield record


class ResultAppender:
    """Appends results to a results file, each batch in one write of whole lines (see the module)."""

    def __init__(self, path: Path, header: RunHeader | None = None) -> None:
        self.path = path
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ValidationError(f"cannot write {path}: {exc.strerror}") from exc
        if header is not None and os.fstat(self._fd).st_size == 0:
            os.write(self._fd, header.line())  # a new file: the header first; a resumed one has its own

    def append(self, results: Sequence[CaseResult]) -> None:
        """Write ``results`` at the end of the file."""
        # Filled line by line rather than joined from a list: holding a batch's lines at once (each made in a
        # larger buffer, then shrunk) had the C allocator grow and trim its heap on every batch, which cost
        # a sixth of a large run's time in the kernel.
        lines = bytearray()
        for result in results:
            lines += json_line(result.as_record())
        data = memoryview(lines)
        while data:
            data = data[os.write(self._fd, data) :]

    def close(self) -> None:
        """Close the file."""
        os.close(self._fd)
