"""Reads rows of a JSONL or CSV file one at a time, reporting a bad row by its line number."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from assay.errors import ValidationError


class RowFormat(Enum):
    """Supported row file formats."""

    JSONL = "jsonl"
    CSV = "csv"

    @classmethod
    def for_path(cls, path: Path) -> RowFormat:
        """CSV for a ``.csv`` file, JSON lines otherwise."""
        return cls.CSV if path.suffix.lower() == ".csv" else cls.JSONL


@dataclass(frozen=True, slots=True)
class Row:
    """A row that parsed and has every required field."""

    line: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BadRow:
    """A row that could not be used, with the reason."""

    line: int
    message: str


def _missing(data: dict[str, Any], required: Sequence[str]) -> str | None:
    absent = [name for name in required if name not in data]
    return f"missing field(s): {', '.join(absent)}" if absent else None


def _jsonl_rows(stream: BinaryIO, required: Sequence[str]) -> Iterator[Row | BadRow]:
    for number, raw in enumerate(stream, 1):
        if not raw.strip():
            continue
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            yield BadRow(number, f"invalid JSON: {exc}")
            continue
        if not isinstance(data, dict):
            yield BadRow(number, f"expected a JSON object, got {type(data).__name__}")
            continue
        problem = _missing(data, required)
        yield BadRow(number, problem) if problem else Row(number, data)


def _csv_rows(stream: BinaryIO, required: Sequence[str]) -> Iterator[Row | BadRow]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
    reader = csv.DictReader(text)
    header = reader.fieldnames or []
    absent = [name for name in required if name not in header]
    if absent:
        raise ValidationError(f"CSV header lacks column(s): {', '.join(absent)} (line 1)")
    line = 1
    for record in reader:
        start, line = line + 1, reader.line_num
        extra = record.pop(None, None)
        if extra is not None:
            yield BadRow(start, f"{len(extra)} more cell(s) than the header has")
            continue
        data = {key: value for key, value in record.items() if value is not None}
        problem = _missing(data, required)
        yield BadRow(start, problem) if problem else Row(start, data)


def read_rows(stream: BinaryIO, row_format: RowFormat, required: Sequence[str]) -> Iterator[Row | BadRow]:
    """Each row of ``stream`` in order: a :class:`Row`, or a :class:`BadRow` saying what is wrong."""
    if row_format is RowFormat.CSV:
        return _csv_rows(stream, required)
    return _jsonl_rows(stream, required)
