"""Inspect datasets (JSONL, CSV or JSON): ``input`` (text or chat messages), ``target`` (text or a list),
``choices``, ``id`` and ``metadata``, as suite rows. A dataset names no scorer, so the evaluation's grader
checks a text target; a list of several targets (Inspect's scorers take any of them as right) becomes an
``any`` assertion of ``string-match`` children, one per target."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from typing import Any

from assay.services.suites.case_keys import read_key
from assay.services.suites.imports.conversation import conversation_input
from assay.services.suites.imports.reading import (
    MAX_ROWS,
    csv_records,
    jsonl_records,
    parse_json,
    refuse,
    text_of,
)
from assay.services.suites.imports.records import (
    Assertion,
    ImportedRow,
    LineReport,
    UnsupportedError,
    put,
)
from assay.services.suites.imports.session import Session

__all__ = ["import_inspect"]

_FIELDS = ("input", "target", "choices", "id", "metadata")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _json_records(text: str, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    document = parse_json(text, source)
    if not isinstance(document, list):
        raise refuse(source, None, "expected a JSON array of samples")
    if len(document) > MAX_ROWS:
        raise refuse(source, None, f"more than {MAX_ROWS:,} samples")
    for number, record in enumerate(document, 1):
        if not isinstance(record, dict):
            raise refuse(source, None, f"sample {number} is not an object")
        yield number, record


def import_inspect(content: bytes, source: str, session: Session) -> None:
    """Rows of an Inspect dataset into ``session`` (the format from the file's extension)."""
    text = text_of(content, source)
    lowered = source.lower()
    records: Iterator[tuple[int, dict[str, Any]]]
    if lowered.endswith(".csv"):
        records = csv_records(text, source)
    elif lowered.endswith(".json"):
        records = _json_records(text, source)
    else:
        records = jsonl_records(text, source)
    unit = "case" if lowered.endswith(".json") else "line"
    for number, record in records:
        report = session.line((unit, number))
        try:
            row = _row(record, report, is_csv=lowered.endswith(".csv"))
            targets = record.get("target")
            if isinstance(targets, list) and len(targets) > 1:
                found = session.check(report, "target (a list)", partial(_any_of, targets))
                if found is None:
                    continue
                row.assertions.append(found)
            session.add_row(row, report)
        except UnsupportedError as problem:
            session.unsupported(report, problem, whole_line=True)


def _row(record: dict[str, Any], report: LineReport, *, is_csv: bool) -> ImportedRow:
    if is_csv:
        record = _from_csv(record)
    own = record.get("metadata") or {}
    if not isinstance(own, dict):
        raise UnsupportedError("metadata", "must be an object")
    metadata: dict[str, Any] = dict(own)
    report.metadata.extend(f"metadata.{name}" for name in own)
    raw_input = record.get("input")
    input_value: str | list[dict[str, Any]]
    if isinstance(raw_input, str):
        input_value = raw_input
    elif isinstance(raw_input, list) and raw_input:
        input_value = conversation_input(raw_input)  # the messages themselves (docs/conversations.md)
    else:
        raise UnsupportedError("the input", "must be text or a list of chat messages")
    choices = record.get("choices")
    if choices is not None:
        if (
            not isinstance(choices, list)
            or not all(isinstance(c, str) for c in choices)
            or len(choices) > len(_LETTERS)
        ):
            raise UnsupportedError("choices", f"must be a list of at most {len(_LETTERS)} texts")
        # Inspect's multiple_choice solver shows the options lettered under the question; the agent here
        # sees only the input, so the options are written into it (a conversation: its last message).
        lettered = "\n\n" + "\n".join(f"{_LETTERS[i]}) {choice}" for i, choice in enumerate(choices))
        input_value = _with_choices(input_value, lettered)
        put(metadata, "choices", choices)
        report.metadata.append("choices (also lettered in the input)")
    for name, value in record.items():
        if name not in _FIELDS:
            put(metadata, name, value)
            report.metadata.append(f"{name} (not used by Assay)")
    read = read_key(record, ("id",))  # the suite reader's rule: text or a whole number, at most 200
    if read.problem is not None:
        raise UnsupportedError("id", read.problem)
    return ImportedRow(
        input=input_value, expected_output=_expected(record.get("target")), metadata=metadata, key=read.key
    )


def _with_choices(input_value: str | list[dict[str, Any]], lettered: str) -> str | list[dict[str, Any]]:
    """The input with the lettered choices under its text, or under its last message's (a user's)."""
    if isinstance(input_value, str):
        return input_value + lettered
    last = input_value[-1]
    if last["role"] != "user" or not isinstance(last.get("content"), str):
        raise UnsupportedError("choices", "are lettered under the last message, which must be a user's text")
    return [*input_value[:-1], {**last, "content": last["content"] + lettered}]


def _expected(target: Any) -> str:
    """The expected output a target makes: its text; of a list, its first (several are checked by
    :func:`_any_of`)."""
    if target is None:
        return ""
    if isinstance(target, str):
        return target
    if isinstance(target, list) and all(isinstance(item, str) for item in target):
        return target[0] if target else ""
    raise UnsupportedError("target", "must be text or a list of texts")


def _any_of(targets: list[str]) -> Assertion:
    """Passes when the answer matches any of ``targets``, each as the default grader (``string-match`` with
    its default config) would match a text target."""
    return Assertion(
        grader_id="any",
        config={"graders": [{"grader_id": "string-match", "expected_output": text} for text in targets]},
        name="target",
    )


def _from_csv(cells: dict[str, str]) -> dict[str, Any]:
    """A CSV row as Inspect's default field spec reads it: ``choices`` and ``metadata`` cells hold JSON, an
    empty ``id`` is none; any other column is metadata."""
    record: dict[str, Any] = {}
    extra: dict[str, str] = {}
    for name, cell in cells.items():
        if name in ("choices", "metadata"):
            if cell.strip():
                try:
                    record[name] = json.loads(cell)
                except (json.JSONDecodeError, RecursionError):
                    raise UnsupportedError(f"'{name}'", "is not valid JSON") from None
        elif name == "id":
            if cell.strip():
                record["id"] = cell
        elif name in ("input", "target"):
            record[name] = cell
        else:
            extra[name] = cell
    if extra:
        own = record.get("metadata", {})
        if not isinstance(own, dict):
            raise UnsupportedError("metadata", "must be an object")
        record["metadata"] = {**extra, **own}
    return record
