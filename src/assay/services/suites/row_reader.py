"""Reads rows of a JSONL or CSV file one at a time, reporting a bad row by its line number."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from assay.errors import Problem, ValidationError


class RowFormat(Enum):
    """Supported row file formats."""

    JSONL = "jsonl"
    CSV = "csv"

    @classmethod
    def for_path(cls, path: Path) -> RowFormat:
        """CSV for a ``.csv`` file, JSON lines otherwise."""
        return cls.CSV if path.suffix.lower() == ".csv" else cls.JSONL


@dataclass(slots=True)
class Row:
    """A row that parsed and has every required field (not frozen: made for every row of large files, and a
    frozen dataclass costs four times as much to make)."""

    line: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BadRow:
    """A row that could not be used, with the reason."""

    line: int
    message: str


def _missing(data: dict[str, Any], required: Sequence[str]) -> str | None:
    for name in required:  # a loop, not a list per row: nearly every row has every field
        if name not in data:
            absent = [name for name in required if name not in data]
            return f"missing field(s): {', '.join(absent)}"
    return None


def _jsonl_rows(stream: BinaryIO, required: Sequence[str]) -> Iterator[Row | BadRow]:
    loads = orjson.loads
    for number, raw in enumerate(stream, 1):
        try:
            data = loads(raw)
        except orjson.JSONDecodeError:
            if not raw.strip():
                continue
            try:  # orjson refuses escaped lone surrogates, which JSON allows and agents do emit
                data = json.loads(raw)
            except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError alike
                yield BadRow(number, f"invalid JSON ({exc})")
                continue
            except RecursionError:
                yield BadRow(number, "invalid JSON (nested too deeply)")
                continue
        if type(data) is not dict:
            yield BadRow(number, f"expected a JSON object, got {type(data).__name__}")
            continue
        problem = _missing(data, required) if required else None
        yield BadRow(number, problem) if problem else Row(number, data)


def _csv_rows(stream: BinaryIO, required: Sequence[str]) -> Iterator[Row | BadRow]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
    try:
        yield from _csv_text_rows(text, required)
    finally:
        # The caller owns ``stream``: the wrapper lets go of it rather than being left to the collector,
        # which would warn that it was never closed (ResourceWarning).
        if not stream.closed:
            text.detach()


def _csv_text_rows(text: io.TextIOWrapper, required: Sequence[str]) -> Iterator[Row | BadRow]:
    reader = csv.reader(text, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise ValidationError.of(Problem(("line", 1), f"bad CSV header ({exc})")) from exc
    if header is None:
        return
    absent = [name for name in required if name not in header]
    if absent:
        columns = "column" if len(absent) == 1 else "columns"
        raise ValidationError.of(Problem(("line", 1), f"the header lacks the {columns} {', '.join(absent)}"))
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield BadRow(start, f"bad CSV ({exc})")
            return  # the reader cannot resynchronise after a broken quote
        line, start = start, reader.line_num + 1  # a quoted cell may span lines: report where the row starts
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            yield BadRow(line, f"{len(cells)} cells, the header has {len(header)}")
            continue
        yield Row(line, dict(zip(header, cells, strict=True)))


def read_rows(stream: BinaryIO, row_format: RowFormat, required: Sequence[str]) -> Iterator[Row | BadRow]:
    """Each row of ``stream`` in order: a :class:`Row`, or a :class:`BadRow` saying what is wrong."""
    if row_format is RowFormat.CSV:
        return _csv_rows(stream, required)
    return _jsonl_rows(stream, required)
