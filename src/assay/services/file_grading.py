"""Grades every row of a JSONL/CSV file with one grader: the engine behind ``assay grade-file``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from assay.graders import GraderInterface
from assay.graders.verdict import status_of
from assay.serialization import json_line
from assay.services.row_reader import BadRow, RowFormat, read_rows

REQUIRED_FIELDS = ("agent_response", "expected_output")


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
) -> Iterator[bytes]:
    """A JSON line per good row: its fields plus ``passed``, ``score``, ``details``. Bad rows are tallied."""
    grade = grader.grade
    by_status = tally.by_status
    for item in read_rows(stream, row_format, REQUIRED_FIELDS):
        if isinstance(item, BadRow):
            tally.bad_rows.append(item)
            on_bad_row(item)
            continue
        data = item.data
        result = grade(data["agent_response"], data["expected_output"])
        tally.rows += 1
        if result["passed"]:
            tally.passed += 1
        by_status[status_of(result).value] += 1
        data.update(result)
        yield json_line(data)
