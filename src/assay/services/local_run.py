"""Evaluations without a server (``assay run``): a suite file in, results in memory and in a JSONL file.

The same runner as the server's; only the sink differs. Cases are numbered by their place in the file
(1, 2, ...), as everywhere; a case's ``key`` (or ``id``) field, when the file has one, is its key, and
recorded answers are matched on it (see :mod:`assay.services.case_keys`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from assay.errors import NotFoundError, Problem, ValidationError
from assay.graders import GraderInterface
from assay.serialization import json_line
from assay.services.case_keys import key_text, listed, naming_rule, read_key
from assay.services.grading import calls_for, check_calls
from assay.services.reachability import ReachabilityWatch
from assay.services.row_reader import BadRow, Row, RowFormat, read_rows
from assay.services.runner import CaseResult, RunCase, RunOutcome, run_cases
from assay.services.suite_files import SuiteFormat, read_suite_file
from assay.services.summary import ReportShape, ResultFacts
from assay.targets import TargetCase, TargetSpec, build_target, check_target
from assay.targets.base import response_text

_MAX_BAD_ROWS_LISTED = 20
ANSWER_NAME_FIELDS = ("key", "id", "case_id")
"""Fields of a row of answers that name its case: a key in a keyed suite, a number otherwise."""


@dataclass(frozen=True, slots=True)
class LocalSuite:
    """A suite read from a file: its cases (each numbered from 1, with its key when the suite has keys)."""

    name: str
    cases: list[RunCase]

    @property
    def is_keyed(self) -> bool:
        """Whether the suite's cases have keys (then every one has)."""
        return bool(self.cases) and self.cases[0].target_case.key is not None


def load_suite(path: Path) -> LocalSuite:
    """The cases of a JSONL, CSV or JSON suite file, read by the suite import's own reader."""
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise NotFoundError(f"cannot read {path}: {exc.strerror}") from exc
    known = path.suffix.lower() in {".csv", ".json", ".jsonl", ".ndjson"}
    parsed = read_suite_file(content, SuiteFormat.for_filename(path.name) if known else SuiteFormat.JSONL)
    cases = [
        RunCase(
            TargetCase(number, case.input, case.metadata, number=number, key=case.key), case.expected_output
        )
        for number, case in enumerate(parsed.cases, 1)
    ]
    return LocalSuite(parsed.name or path.stem, cases)


@dataclass(frozen=True, slots=True)
class _AnswerName:
    """How a row of answers names its case: ``text`` (a key, or a number), how, for messages."""

    text: str
    how: str
    is_number: bool
    problem: str | None = None


def _answer_name(row: Row, place: int) -> _AnswerName:
    named = read_key(row.data, ANSWER_NAME_FIELDS)
    if named.problem is not None:
        return _AnswerName("", "", is_number=False, problem=named.problem)
    if named.key is not None:
        return _AnswerName(named.key, f"{named.field} '{named.key}'", is_number=False)
    number = key_text(row.data.get("number"))
    if number is not None:
        return _AnswerName(number, f"number {number}", is_number=True)
    return _AnswerName(str(place), f"row {place} (no key: matched by its place)", is_number=True)


def load_responses(path: Path, suite: LocalSuite) -> dict[str, str | None]:
    """Recorded answers (rows with ``agent_response``) by case name, for a ``recorded`` target.

    A row names its case by ``key`` (or ``id``, ``case_id``): the case's key in a keyed suite, its number
    otherwise; or by ``number``; a row naming none is the answer of the case at its own place (the third
    row, the third case). A row that names no case, or a case another row answered, is a
    ``ValidationError`` listing every such line: no answer is dropped unnoticed.
    """
    if not path.is_file():
        raise NotFoundError(f"cannot read {path}: no such file")
    row_format = RowFormat.CSV if path.suffix.lower() == ".csv" else RowFormat.JSONL
    keyed = suite.is_keyed
    names_by_number = {str(case.target_case.place): case.target_case.name for case in suite.cases}
    keys = {case.target_case.name for case in suite.cases} if keyed else set()
    responses: dict[str, str | None] = {}
    answered_on: dict[str, int] = {}
    problems: list[Problem] = []
    with path.open("rb") as stream:
        for place, row in enumerate(read_rows(stream, row_format, ("agent_response",)), 1):
            where = ("line", row.line)
            if isinstance(row, BadRow):
                problems.append(Problem(where, row.message))
                continue
            named = _answer_name(row, place)
            if named.problem is not None:
                problems.append(Problem(where, named.problem))
                continue
            by_key = keyed and not named.is_number
            name = named.text if by_key else names_by_number.get(named.text)
            if name is None or (by_key and name not in keys):
                rule = naming_rule(keyed=keyed, count=len(suite.cases), by_key=by_key)
                problems.append(Problem(where, f"{named.how} matches no case ({rule})"))
            elif name in answered_on:
                message = f"{named.how} names a case line {answered_on[name]} already answered"
                problems.append(Problem(where, message))
            else:
                answered_on[name] = row.line
                responses[name] = response_text(row.data["agent_response"])
    if problems:
        message = f"{len(problems)} answer(s) in {path.name} cannot be used"
        raise ValidationError(message, problems=listed(problems, limit=_MAX_BAD_ROWS_LISTED))
    return responses


@dataclass
class FileSink:
    """Keeps every result, and writes each as a JSON line to ``stream`` when one is given."""

    stream: BinaryIO | None = None
    results: list[CaseResult] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def write(self, results: Sequence[CaseResult]) -> None:
        """Keep the batch, and write it out."""
        with self._lock:
            self.results.extend(results)
            if self.stream is not None:
                self.stream.write(b"".join(json_line(result.as_record()) for result in results))


async def run_local(
    suite: LocalSuite,
    spec: TargetSpec,
    grader: GraderInterface,
    sink: FileSink,
    *,
    concurrency: int,
    on_written: Callable[[int], None] = lambda count: None,
    reachability: ReachabilityWatch | None = None,
) -> RunOutcome:
    """Run every case of ``suite`` into ``sink``; results are sorted into case order at the end.

    A ``reachability`` watch stops the run when the first cases all fail to reach the agent."""
    check_target(spec)
    check_calls(grader)
    async with (
        build_target(spec, concurrency=concurrency) as target,
        calls_for(grader, concurrency=concurrency) as calls,
    ):
        outcome = await run_cases(
            suite.cases,
            target,
            grader,
            sink,
            concurrency=concurrency,
            on_written=on_written,
            reachability=reachability,
            calls=calls,
        )
    sink.results.sort(key=lambda result: result.number)
    return outcome


def facts_of_results(results: Iterable[CaseResult], shape: ReportShape) -> Iterator[ResultFacts]:
    """Summary facts of results held in memory."""
    return (result.facts(shape) for result in results)
