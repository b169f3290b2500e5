"""Evaluations without a server (``assay run``): a suite file in, results in memory and in a JSONL file.

The same runner as the server's; only the sink differs. Cases are numbered by their place in the file
(1, 2, ...); a case's ``id`` field, when the file has one, is what recorded responses are matched on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from assay.errors import NotFoundError, ValidationError
from assay.graders import GraderInterface
from assay.serialization import json_line
from assay.services.grading import calls_for, check_calls
from assay.services.row_reader import BadRow, RowFormat, read_rows
from assay.services.runner import CaseResult, RunCase, RunOutcome, run_cases
from assay.services.suite_files import SuiteFormat, read_suite_file
from assay.services.summary import ReportShape, ResultFacts
from assay.targets import TargetCase, TargetSpec, build_target, check_target
from assay.targets.base import response_text

_MAX_BAD_ROWS_LISTED = 20


def _key(value: object) -> str:
    return str(value).strip()


@dataclass(frozen=True, slots=True)
class LocalSuite:
    """A suite read from a file: its cases, and the key each case's recorded response is found under."""

    name: str
    cases: list[RunCase]
    keys: list[str]


def load_suite(path: Path) -> LocalSuite:
    """The cases of a JSONL, CSV or JSON suite file, read by the suite import's own reader."""
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise NotFoundError(f"cannot read {path}: {exc.strerror}") from exc
    known = path.suffix.lower() in {".csv", ".json", ".jsonl", ".ndjson"}
    parsed = read_suite_file(content, SuiteFormat.for_filename(path.name) if known else SuiteFormat.JSONL)
    cases: list[RunCase] = []
    keys: list[str] = []
    for number, case in enumerate(parsed.cases, 1):
        cases.append(RunCase(TargetCase(number, case.input, case.metadata), case.expected_output))
        keys.append(_key(case.metadata["id"]) if "id" in case.metadata else str(number))
    return LocalSuite(parsed.name or path.stem, cases, keys)


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
                self.stream.write(b"".join(json_line(result.as_record()) for result in results))


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
    check_calls(grader)
    async with (
        build_target(spec, concurrency=concurrency) as target,
        calls_for(grader, concurrency=concurrency) as calls,
    ):
        outcome = await run_cases(
            suite.cases, target, grader, sink, concurrency=concurrency, on_written=on_written, calls=calls
        )
    sink.results.sort(key=lambda result: result.case_id)
    return outcome


def facts_of_results(results: Iterable[CaseResult], shape: ReportShape) -> Iterator[ResultFacts]:
    """Summary facts of results held in memory."""
    return (result.facts(shape) for result in results)
