"""Evaluations without a server (``assay run``): a suite file in, results in memory and in a JSONL file.

The same runner as the server's; only the sink differs. Cases are numbered by their place in the file
(1, 2, ...); a case's ``id`` field, when the file has one, is what recorded responses are matched on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from assay.errors import NotFoundError, ValidationError
from assay.graders import GraderInterface
from assay.serialization import json_line
from assay.services.row_reader import BadRow, Row, RowFormat, read_rows
from assay.services.runner import CaseResult, RunCase, RunOutcome, run_cases
from assay.services.summary import ResultFacts
from assay.targets import TargetCase, TargetSpec, build_target, check_target
from assay.targets.base import response_text

_MAX_BAD_ROWS_LISTED = 20
SUITE_FIELDS = ("input", "expected_output")


def _key(value: object) -> str:
    return str(value).strip()


@dataclass(frozen=True, slots=True)
class LocalSuite:
    """A suite read from a file: its cases, and the key each case's recorded response is found under."""

    name: str
    cases: list[RunCase]
    keys: list[str]


def _suite_rows(path: Path) -> Iterator[Row | BadRow]:
    if path.suffix.lower() != ".json":
        row_format = RowFormat.CSV if path.suffix.lower() == ".csv" else RowFormat.JSONL
        with path.open("rb") as stream:
            yield from read_rows(stream, row_format, SUITE_FIELDS)
        return
    try:
        document = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise ValidationError(f"{path.name} is not valid JSON: {exc}") from exc
    records = document.get("cases") if isinstance(document, dict) else document
    if not isinstance(records, list):
        raise ValidationError(
            f'{path.name}: expected a JSON array of cases, or an object with a "cases" array'
        )
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict):
            yield BadRow(number, f"case {number}: expected an object, got {type(record).__name__}")
        elif missing := [name for name in SUITE_FIELDS if name not in record]:
            yield BadRow(number, f"case {number}: missing field(s): {', '.join(missing)}")
        else:
            yield Row(number, record)


def _case_of(row: Row) -> tuple[str, str, dict[str, Any]] | str:
    """``(input, expected_output, metadata)``, or what is wrong; the same rules as a suite import."""
    data = row.data
    if not isinstance(data["input"], str) or not isinstance(data["expected_output"], str):
        return "'input' and 'expected_output' must be strings"
    metadata: Any = data.get("metadata") or {}
    if isinstance(metadata, str):  # a CSV cell
        try:
            metadata = orjson.loads(metadata) if metadata.strip() else {}
        except orjson.JSONDecodeError:
            return "'metadata' is not valid JSON"
    if not isinstance(metadata, dict):
        return "'metadata' must be an object"
    extra = {key: value for key, value in data.items() if key not in (*SUITE_FIELDS, "metadata")}
    return data["input"], data["expected_output"], {**extra, **metadata}


def load_suite(path: Path) -> LocalSuite:
    """The cases of a JSONL, CSV or JSON suite file (every bad line reported at once).

    Read here rather than with the suite import's reader, which loads SQLAlchemy: ``assay run`` is
    meant to start fast in CI.
    """
    if not path.is_file():
        raise NotFoundError(f"cannot read {path}: no such file")
    cases: list[RunCase] = []
    keys: list[str] = []
    problems: list[str] = []
    for row in _suite_rows(path):
        case = row.message if isinstance(row, BadRow) else _case_of(row)
        if isinstance(case, str):
            problems.append(f"{path.name} line {row.line}: {case}")
            continue
        text, expected, metadata = case
        number = len(cases) + 1
        cases.append(RunCase(TargetCase(number, text, metadata), expected))
        keys.append(_key(metadata["id"]) if "id" in metadata else str(number))
    if problems:
        raise ValidationError(
            f"{len(problems)} bad case(s) in {path.name}", problems=problems[:_MAX_BAD_ROWS_LISTED]
        )
    if not cases:
        raise ValidationError(f"{path.name} holds no cases")
    return LocalSuite(path.stem, cases, keys)


def load_responses(path: Path, suite: LocalSuite) -> dict[str, str | None]:
    """Recorded responses (rows with ``agent_response``) by case id, for a ``recorded`` target.

    A row's ``case_id`` (or ``id``) names its case; rows without either match the cases in file order.
    """
    if not path.is_file():
        raise NotFoundError(f"cannot read {path}: no such file")
    row_format = RowFormat.CSV if path.suffix.lower() == ".csv" else RowFormat.JSONL
    by_name: dict[str, str | None] = {}
    by_place: dict[int, str | None] = {}
    bad: list[BadRow] = []
    with path.open("rb") as stream:
        for place, row in enumerate(read_rows(stream, row_format, ("agent_response",)), 1):
            if isinstance(row, BadRow):
                bad.append(row)
                continue
            name = row.data.get("case_id", row.data.get("id"))
            if name is None:
                by_place[place] = response_text(row.data["agent_response"])
            else:
                by_name[_key(name)] = response_text(row.data["agent_response"])
    if bad:
        problems = [f"{path.name} line {row.line}: {row.message}" for row in bad[:_MAX_BAD_ROWS_LISTED]]
        raise ValidationError(f"{len(bad)} bad row(s) in {path.name}", problems=problems)
    responses: dict[str, str | None] = {}
    for case, key in zip(suite.cases, suite.keys, strict=True):
        number = case.target_case.case_id
        if key in by_name:
            responses[str(number)] = by_name[key]
        elif number in by_place:
            responses[str(number)] = by_place[number]
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
                self.stream.write(b"".join(json_line(result_record(result)) for result in results))


def result_record(result: CaseResult) -> dict[str, Any]:
    """A result as one JSON object of the output file."""
    return {
        "case_id": result.case_id,
        "input": result.input,
        "expected_output": result.expected_output,
        "agent_response": result.agent_response,
        "passed": result.passed,
        "score": result.score,
        "match_status": result.match_status,
        "details": result.details,
        "error": result.error,
        "error_detail": result.error_detail,
        "latency_ms": result.latency_ms,
        "attempts": result.attempts,
    }


async def run_local(
    suite: LocalSuite,
    spec: TargetSpec,
    grader: GraderInterface,
    sink: FileSink,
    *,
    concurrency: int,
    on_written: Callable[[int], None] = lambda count: None,
) -> RunOutcome:
    """Run every case of ``suite`` into ``sink``; results are sorted into case order at the end."""
    check_target(spec)
    async with build_target(spec, concurrency=concurrency) as target:
        outcome = await run_cases(
            suite.cases, target, grader, sink, concurrency=concurrency, on_written=on_written
        )
    sink.results.sort(key=lambda result: result.case_id)
    return outcome


def facts_of_results(results: Iterable[CaseResult]) -> Iterator[ResultFacts]:
    """Summary facts of results held in memory."""
    return (result.facts() for result in results)
