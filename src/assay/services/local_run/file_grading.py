"""Grades every row of a JSONL/CSV file with one grader: the engine behind ``assay grade-file``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from assay.graders import GraderInterface
from assay.graders.contract.verdict import GradeResult, error_of, status_of
from assay.serialization import json_line
from assay.services.grading.answers import GradePairs
from assay.services.suites.row_reader import BadRow, RowFormat, read_rows

REQUIRED_FIELDS = ("agent_response", "expected_output")
CHUNK_ROWS = 64
"""Rows graded together when a grader calls out: enough to keep the calls busy, few to hold in memory."""


@dataclass(slots=True)
class GradeTally:
    """What a file run has seen so far."""

    rows: int = 0
    passed: int = 0
    bad_rows: list[BadRow] = field(default_factory=list)
    by_status: Counter[str] = field(default_factory=Counter)

    @property
    def counted(self) -> int:
        """Rows that count in the pass rate: graded ones and unreadable ones (which count as failed)."""
        return self.rows + len(self.bad_rows)

    @property
    def pass_rate(self) -> float:
        """Passed over every row, unreadable ones included; 0.0 when there was no row."""
        return self.passed / self.counted if self.counted else 0.0


def grade_stream(
    grader: GraderInterface,
    stream: BinaryIO,
    row_format: RowFormat,
    tally: GradeTally,
    on_bad_row: Callable[[BadRow], None] = lambda bad: None,
    *,
    grade_pairs: GradePairs | None = None,
) -> Iterator[bytes]:
    """A JSON line per good row: its fields plus ``passed``, ``score``, ``details``. Bad rows are tallied.

    ``grade_pairs`` grades rows a chunk at a time (a grader that calls out: the calls of a chunk go at once);
    without it each row is graded as it is read. A verdict whose grader could not judge is counted under its
    error reason (``invalid_judgement``...) rather than its status.
    """
    if grade_pairs is not None:
        yield from _graded_in_chunks(grade_pairs, stream, row_format, tally, on_bad_row)
        return
    grade = grader.grade
    by_status = tally.by_status
    for item in read_rows(stream, row_format, REQUIRED_FIELDS):  # the hot loop: kept inline
        if isinstance(item, BadRow):
            tally.bad_rows.append(item)
            on_bad_row(item)
            continue
        data = item.data
        result = grade(data["agent_response"], data["expected_output"])
        tally.rows += 1
        if result["passed"]:
            tally.passed += 1
        by_status[error_of(result) or status_of(result).value] += 1
        data.update(result)
        yield json_line(data)


def _line(data: dict[str, Any], result: GradeResult, tally: GradeTally) -> bytes:
    tally.rows += 1
    if result["passed"]:
        tally.passed += 1
    tally.by_status[error_of(result) or status_of(result).value] += 1
    data.update(result)
    return json_line(data)


def _graded_in_chunks(
    grade_pairs: GradePairs,
    stream: BinaryIO,
    row_format: RowFormat,
    tally: GradeTally,
    on_bad_row: Callable[[BadRow], None],
) -> Iterator[bytes]:
    chunk: list[dict[str, Any]] = []
    for item in read_rows(stream, row_format, REQUIRED_FIELDS):
        if isinstance(item, BadRow):
            tally.bad_rows.append(item)
            on_bad_row(item)
            continue
        chunk.append(item.data)
        if len(chunk) >= CHUNK_ROWS:
            yield from _grade_chunk(grade_pairs, chunk, tally)
            chunk = []
    yield from _grade_chunk(grade_pairs, chunk, tally)


def _grade_chunk(grade_pairs: GradePairs, chunk: list[dict[str, Any]], tally: GradeTally) -> Iterator[bytes]:
    if not chunk:
        return
    results = grade_pairs([(data["agent_response"], data["expected_output"]) for data in chunk])
    for data, result in zip(chunk, results, strict=True):
        yield _line(data, result, tally)
