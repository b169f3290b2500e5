"""Reading a foreign file within limits: its size, its rows and each row's size are capped, and a file that
does not parse is one clear error naming the file and the line."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from assay.errors import Problem, ValidationError

__all__ = ["MAX_FILE_BYTES", "MAX_ROWS", "MAX_ROW_BYTES", "csv_records", "jsonl_records", "text_of"]

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Largest file an import reads (the API's default import limit)."""
MAX_ROWS = 1_000_000
"""Most rows (tests, lines) one import makes."""
MAX_ROW_BYTES = 1024 * 1024
"""Largest single line (or CSV row) of a file."""


def refuse(source: str, line: int | None, message: str) -> ValidationError:
    """The error of a file that cannot be imported, naming it (and the line)."""
    where = f"{source} line {line}" if line is not None else source
    return ValidationError(f"{where}: {message}", problems=[Problem(("line", line) if line else (), message)])


def text_of(content: bytes, source: str) -> str:
    """``content`` as text: capped, UTF-8 (a byte-order mark ignored), else one clear error."""
    if len(content) > MAX_FILE_BYTES:
        raise refuse(source, None, f"the file is over {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise refuse(source, content[: exc.start].count(b"\n") + 1, "not valid UTF-8 text") from exc


def _count(number: int, source: str, line: int) -> None:
    if number > MAX_ROWS:
        raise refuse(source, line, f"more than {MAX_ROWS:,} rows")


def parse_json(text: str, source: str, line: int | None = None) -> Any:
    """The JSON value of ``text``; a refusal naming the place (the line of the error in a whole document)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise refuse(source, line if line is not None else exc.lineno, f"invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise refuse(source, line, "invalid JSON (nested too deeply)") from None


def jsonl_records(text: str, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-blank line; a line over the cap, not JSON or not an object refuses
    the whole file (an import is lossless or loud)."""
    rows = 0
    for number, raw in enumerate(text.split("\n"), 1):  # not splitlines(): JSON text may hold U+2028
        if not raw.strip():
            continue
        if len(raw.encode("utf-8", "surrogatepass")) > MAX_ROW_BYTES:
            raise refuse(source, number, f"the line is over {MAX_ROW_BYTES // 1024} KiB")
        record = parse_json(raw, source, number)
        if not isinstance(record, dict):
            raise refuse(source, number, f"expected a JSON object, got {type(record).__name__}")
        rows += 1
        _count(rows, source, number)
        yield number, record


def csv_records(text: str, source: str) -> Iterator[tuple[int, dict[str, str]]]:
    """(line where the row starts, cells by column) of each non-blank row after the header."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            return
        if len(set(header)) != len(header):
            raise refuse(source, 1, "the header names a column twice")
        rows, start = 0, reader.line_num + 1
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in cells):
                continue
            if sum(len(cell) for cell in cells) > MAX_ROW_BYTES:
                raise refuse(source, line, f"the row is over {MAX_ROW_BYTES // 1024} KiB")
            if len(cells) != len(header):
                raise refuse(source, line, f"{len(cells)} cells, the header has {len(header)}")
            rows += 1
            _count(rows, source, line)
            yield line, dict(zip(header, cells, strict=True))
    except csv.Error as exc:
        raise refuse(source, reader.line_num, f"bad CSV ({exc})") from None
