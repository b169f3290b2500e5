"""JSON lines for any value a grader or an agent can produce, fast in the common case."""

from __future__ import annotations

import json

import orjson


def json_line(value: object) -> bytes:
    """``value`` as one UTF-8 JSON line ending in a newline; never fails on odd text or types.

    orjson is tried first for speed; it refuses lone surrogates and unknown types, which then go
    through the standard library with every non-ASCII character escaped, so the line is still valid.
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        return (json.dumps(value, ensure_ascii=True, default=str) + "\n").encode("ascii")


def json_text(value: object, *, indent: int | None = None) -> str:
    """``value`` as JSON text for people (non-ASCII kept, lone surrogates escaped). Never fails."""
    try:
        text = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, indent=indent, default=str)
    return text
