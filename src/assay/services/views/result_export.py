"""Evaluation results as files: JSON lines, or CSV whose cells cannot run as spreadsheet formulas.

Each case is named by its number (1-based place in the suite) and key, as every other surface names it, and
carries its metadata: a ``metadata`` object in JSON lines, a ``metadata.<key>`` column per key in CSV (so a
spreadsheet can pivot by ``lang``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence

from assay.serialization import json_line, json_text
from assay.services.evaluations.records import ExportedResult
from assay.services.suites.files import neutralise_formula

CSV_COLUMNS = (
    "number",
    "key",
    "repeat",
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


METADATA_PREFIX = "metadata."


def jsonl_lines(results: Iterable[ExportedResult], results_url: str | None = None) -> Iterator[bytes]:
    """One JSON object per result, its case's metadata included. A result with a trajectory carries its
    summary, and, given ``results_url`` (``/api/evaluations/{id}/results``), where its steps are paged
    (``trajectory.steps_url``): a reference, not the steps, so a line stays small whatever the trajectory."""
    for item in results:
        record = item.result.as_record()
        if results_url is not None and isinstance(summary := record.get("trajectory"), dict):
            record["trajectory"] = {**summary, "steps_url": f"{results_url}/{item.result.case_id}/trajectory"}
        yield json_line({**record, "metadata": item.metadata})


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


def csv_lines(results: Iterable[ExportedResult], metadata_keys: Sequence[str] = ()) -> Iterator[bytes]:
    """A header, then one CSV row per result (formulas neutralised; lone surrogates become ``?``), with a
    ``metadata.<key>`` column per key of ``metadata_keys`` (empty where a case has no such key)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([*CSV_COLUMNS, *(neutralise_formula(METADATA_PREFIX + key) for key in metadata_keys)])
    for count, item in enumerate(results, 1):
        record = {"repeat": 0, **item.result.as_record()}  # the record names a repeat past the first only
        writer.writerow(
            [
                *(_cell(record[column]) for column in CSV_COLUMNS),
                *(_cell(item.metadata.get(key)) for key in metadata_keys),
            ]
        )
        if not count % _ROWS_PER_CHUNK:
            yield buffer.getvalue().encode("utf-8", "replace")
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode("utf-8", "replace")
