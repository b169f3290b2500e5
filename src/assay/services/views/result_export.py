"""Evaluation results as files: JSON lines, or CSV whose cells cannot run as spreadsheet formulas.

Each case is named by its number (1-based place in the suite) and key, as every other surface names it."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from assay.serialization import json_line, json_text
from assay.services.evaluations.records import Result
from assay.services.suites.files import neutralise_formula

CSV_COLUMNS = (
    "number",
    "key",
    "input",
    "expected_output",
    "agent_response",
    "passed",
    "score",
    "match_status",
    "error",
    "error_detail",
    "latency_ms",
    "attempts",
    "details",
)
_ROWS_PER_CHUNK = 500


def jsonl_lines(results: Iterable[Result]) -> Iterator[bytes]:
    """One JSON object per result."""
    for result in results:
        yield json_line(result.as_record())


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return neutralise_formula(json_text(value))
    if isinstance(value, str):
        return neutralise_formula(value)
    return str(value)


def csv_lines(results: Iterable[Result]) -> Iterator[bytes]:
    """A header, then one CSV row per result (formulas neutralised; lone surrogates become ``?``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for count, result in enumerate(results, 1):
        record = result.as_record()
        writer.writerow([_cell(record[column]) for column in CSV_COLUMNS])
        if not count % _ROWS_PER_CHUNK:
            yield buffer.getvalue().encode("utf-8", "replace")
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode("utf-8", "replace")
