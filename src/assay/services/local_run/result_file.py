"""The results file of ``assay run`` (``--output``): one JSON line per graded case, written as results come.

Each batch of results is written with one ``os.write`` of whole lines to a file opened for appending, so a
kill leaves whole lines behind; at worst a kill in the middle of that one write cuts its last line, which a
resumed run drops and writes again. A resumed run (:func:`read_results`) reads the lines already there: each
names its case by number and key, as the suite does, and must be the result of the suite's case of that
number as it is now (same key, input and expected output), else the file belongs to another suite and is
refused rather than mixed.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from assay.errors import Problem, ValidationError
from assay.serialization import json_line
from assay.services.execution.case_results import CaseResult
from assay.services.local_run.suite_stream import SuiteFacts, fingerprint
from assay.services.suites.case_keys import case_label, listed

MAX_LISTED = 10
_NOT_A_RESULT = "is not a result of assay run"


def _record(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        try:  # a result holding a lone surrogate was written escaped by the standard library
            return json.loads(line)
        except (ValueError, RecursionError):
            return None


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _is_text_or_null(value: object) -> bool:
    return value is None or isinstance(value, str)


def _is_number_or_null(value: object) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


_FIELDS: dict[str, Callable[[object], bool]] = {
    "number": lambda value: type(value) is int,
    "key": _is_text_or_null,
    "input": _is_text,
    "expected_output": _is_text,
    "agent_response": _is_text_or_null,
    "passed": lambda value: isinstance(value, bool),
    "score": _is_number_or_null,
    "match_status": _is_text_or_null,
    "details": lambda value: value is None or isinstance(value, dict),
    "error": _is_text_or_null,
    "error_detail": _is_text_or_null,
    "latency_ms": _is_number_or_null,
}
"""What each field of a result line must hold, as :meth:`CaseResult.as_record` writes it."""


def _shape_problem(record: Any, count: int) -> str | None:
    """Why ``record`` cannot be the result of a case of a suite of ``count`` cases, if it cannot."""
    if not isinstance(record, dict):
        return f"{_NOT_A_RESULT} (not a JSON object)"
    wrong = [name for name, holds in _FIELDS.items() if name not in record or not holds(record[name])]
    if wrong:
        return f"{_NOT_A_RESULT} (field(s) {', '.join(wrong)})"
    if not 1 <= record["number"] <= count:
        return f"case #{record['number']} is not a case of the suite (it has {count})"
    return None


def read_results(path: Path, suite: SuiteFacts, on_result: Callable[[dict[str, Any]], None]) -> array[int]:
    """The cases ``path`` already holds a result of, for a resumed run: ``done[n]`` is the line of case
    ``n``'s result (0: none). ``on_result`` sees each result; a last line cut by a kill is cut off the file.

    ``ValidationError`` (nothing changed) when a line is not a result of this suite's cases, or a case has
    two. ``suite`` must have been scanned with its fingerprints.
    """
    if suite.fingerprints is None:
        raise ValueError("a resumed run needs the suite's fingerprints")
    done = array("I", bytes(4 * (suite.count + 1)))
    problems: list[Problem] = []
    total = 0
    whole_end = 0
    with path.open("rb") as stream:
        for line_number, line in enumerate(stream, 1):
            if not line.endswith(b"\n"):
                break  # cut by a kill while it was written: dropped, the case runs again
            whole_end += len(line)
            if not line.strip():
                continue
            record = _record(line)
            message = _shape_problem(record, suite.count)
            if message is None:
                number = record["number"]
                label = case_label(number, record["key"])
                if done[number]:
                    message = f"{label} already has a result on line {done[number]}"
                elif (
                    fingerprint(record["key"], record["input"], record["expected_output"])
                    != (suite.fingerprints[number - 1])
                ):
                    message = (
                        f"{label} is not the suite's case #{number} as it is now (key, input or expected "
                        "output differ)"
                    )
                else:
                    done[number] = line_number
                    on_result(record)
            if message is not None:
                total += 1
                if len(problems) < MAX_LISTED:
                    problems.append(Problem(("line", line_number), message))
    if total:
        raise ValidationError(
            f"{path.name} cannot be resumed: {total} line(s) are not results of this suite's cases; give "
            "another --output to start afresh",
            problems=listed(problems, total, limit=MAX_LISTED),
        )
    if whole_end < path.stat().st_size:
        os.truncate(path, whole_end)
    return done


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every result of a results file, in its order (the file was checked or written by this run)."""
    with path.open("rb") as stream:
        for line in stream:
            if line.endswith(b"\n") and line.strip():
                record = _record(line)
                if isinstance(record, dict):
                    yield record


class ResultAppender:
    """Appends results to a results file, each batch in one write of whole lines (see the module)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ValidationError(f"cannot write {path}: {exc.strerror}") from exc

    def append(self, results: Sequence[CaseResult]) -> None:
        """Write ``results`` at the end of the file."""
        # Filled line by line rather than joined from a list: holding a batch's lines at once (each made in a
        # larger buffer, then shrunk) had the C allocator grow and trim its heap on every batch, which cost
        # a sixth of a large run's time in the kernel.
        lines = bytearray()
        for result in results:
            lines += json_line(result.as_record())
        data = memoryview(lines)
        while data:
            data = data[os.write(self._fd, data) :]

    def close(self) -> None:
        """Close the file."""
        os.close(self._fd)
