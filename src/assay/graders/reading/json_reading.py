"""Reading one JSON value out of a text: the whole text, or the one fenced block of a Markdown answer.

Strict and bounded, so that reading never raises and never guesses: at most ``MAX_JSON_CHARS`` characters
and ``MAX_JSON_DEPTH`` levels of nesting (the standard library's parser would raise RecursionError deeper
down); ``NaN``, ``Infinity`` and numbers out of a double's range are not JSON; an object naming one key
twice is refused (the parser would silently keep the last value, so which one the answer meant is unclear);
two fenced blocks holding different values are refused rather than one of them picked.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

MAX_JSON_CHARS = 1_000_000
MAX_JSON_DEPTH = 100
_PREVIEW_CHARS = 2_000

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
"""Strings (skipped whole, so a bracket inside one does not count) and the brackets that nest."""


JsonReading = tuple[Any, str | None, str | None, int]
"""One side's ``(value, problem, source, chars)``: the JSON value, or why none was read (``problem``
completes a sentence starting with the side's name, "Response is not JSON ...", and is ``None`` when read);
``source`` is ``"whole"`` when the whole text is the value, ``"fenced"`` when it came from a fenced block;
``chars`` is the length of the JSON text the value was read from. A plain tuple: a named tuple costs as
much to build as parsing a short answer."""


class _DuplicateKeyError(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _not_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_keys, parse_float=_finite_float, parse_constant=_not_json_constant
)
"""Built once (as the standard library's own default decoder is): building one costs as much as a parse."""


def _too_deep(text: str) -> bool:
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:  # cannot nest deeper: no need to scan
        return False
    depth = 0
    for match in _STRUCTURE.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
"""The decoder's own scanner (the C one), called directly; typeshed does not declare the attribute."""
_SPACE = re.compile(r"[ \t\n\r]*")
"""JSON's whitespace, as the standard library's decoder skips it."""


def _after_space(text: str, index: int) -> int:
    space = _SPACE.match(text, index)
    return space.end() if space else index


def parse_json(text: str) -> tuple[Any, str | None]:
    """``(value, None)`` for strict JSON text, else ``(None, why it is not)``. Never raises."""
    if _too_deep(text):
        return None, f"is nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        # JSONDecoder.decode and raw_decode, inlined (two Python calls a side are a tenth of a small
        # answer's cost), with their errors
        try:
            value, end = _SCAN(text, _after_space(text, 0))
        except StopIteration as stop:
            raise json.JSONDecodeError("Expecting value", text, stop.value) from None
        if end != len(text) and (end := _after_space(text, end)) != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
    except json.JSONDecodeError as exc:
        return None, f"is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    except _DuplicateKeyError as exc:
        return None, f"names the key {excerpt_json(exc.args[0])} twice in one object"
    except (ValueError, RecursionError) as exc:  # a huge integer, NaN, 1e999; depth is checked above
        return None, f"is not JSON ({excerpt_text(str(exc))})"
    return value, None


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """The ``(language, content)`` of each fenced code block (CommonMark fences of backticks or tildes)."""
    lines = text.split("\n")
    blocks: list[tuple[str, str]] = []
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r")
        stripped = line.lstrip(" ")
        index += 1
        if len(line) - len(stripped) > 3 or stripped[:3] not in ("```", "~~~"):
            continue
        mark = stripped[0]
        width = len(stripped) - len(stripped.lstrip(mark))
        info = stripped[width:].strip()
        if mark == "`" and "`" in info:  # inline code, not a fence
            continue
        body: list[str] = []
        while index < len(lines):
            closing = lines[index].rstrip("\r").strip(" ")
            index += 1
            if len(closing) >= width and closing == mark * len(closing):
                break
            body.append(lines[index - 1])
        language = info.split()[0].casefold() if info else ""
        blocks.append((language, "\n".join(body)))
    return blocks


_VALUE_STARTS = frozenset('"{[-0123456789tfnNI')
"""The characters the standard library's scanner can begin a value with (NaN and Infinity too, which
are then refused by name): a text beginning otherwise is not JSON."""


def read_json(text: str, *, allow_fenced: bool) -> JsonReading:
    """The JSON value ``text`` holds: all of it, or else (when allowed) its one fenced ``json`` block.

    A fenced block counts when labelled ``json`` or unlabelled; an unlabelled block that is not JSON is
    ignored (it is some other code), a ``json`` block that is not JSON makes the answer unreadable, and
    blocks repeating one value are one value.
    """
    if len(text) > MAX_JSON_CHARS:
        return None, f"is longer than {MAX_JSON_CHARS:,} characters", None, 0
    stripped = text.strip()
    fenced = allow_fenced and ("```" in text or "~~~" in text)
    problem = None
    if not fenced or stripped[:1] in _VALUE_STARTS:
        value, problem = parse_json(stripped)
        if problem is None:
            return value, None, "whole", len(stripped)
        if not fenced:
            return None, problem, None, 0
    # else the whole text cannot be JSON ("```json ..."): why is worded below, only if no block is found
    found: list[Any] = []
    chars = 0
    for language, content in fenced_blocks(text):
        if language not in ("json", ""):
            continue
        block_value, block_problem = parse_json(content)
        if block_problem is None:
            if not any(json_equal(block_value, other) for other in found):
                found.append(block_value)
                chars = max(chars, len(content))
        elif language == "json":
            return None, f"holds a json block that {block_problem}", None, 0
    if not found:
        if problem is None:
            _, problem = parse_json(stripped)
        return None, f"{problem} and holds no fenced JSON block", None, 0
    if len(found) > 1:
        return None, f"holds {len(found)} different JSON blocks, so which one is meant is unclear", None, 0
    return found[0], None, "fenced", chars


def json_equal(left: Any, right: Any) -> bool:
    """Deep equality of JSON values: ``1 == 1.0``, but ``true`` is not ``1`` (Python's ``==`` says it is)."""
    kind = left.__class__
    if kind is not right.__class__:  # bool is its own class here, so only int against float may agree
        return kind in _NUMBER_CLASSES and right.__class__ in _NUMBER_CLASSES and bool(left == right)
    if kind is dict:
        return len(left) == len(right) and all(
            key in right and json_equal(value, right[key]) for key, value in left.items()
        )
    if kind is list:
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)


_NUMBER_CLASSES = frozenset({int, float})


def may_hold_booleans(text: str) -> bool:
    """Whether JSON read from ``text`` (or a part of it) may hold ``true`` or ``false``: the parser makes
    booleans of these words only. Where neither side can, Python's ``==`` is :func:`json_equal`."""
    return "true" in text or "false" in text


def excerpt_text(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, for a reason sentence."""
    return text if len(text) <= limit else text[:limit] + "…"


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_DETAIL = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
"""What ``json.dumps`` with these options uses, built once (given options, ``dumps`` builds one a call)."""


def excerpt_json(value: Any, limit: int = 60) -> str:
    """``value`` written as compact JSON and cut to ``limit`` characters, for a reason sentence."""
    try:
        written = _COMPACT.encode(value)
    except (TypeError, ValueError, RecursionError):
        written = repr(value)
    return excerpt_text(written, limit)


MAX_GROWTH = 5
"""Written out by ``json.dumps``, a value read from strict JSON text of n characters takes under 5n: only
a float grows much ("1e15" is written "1000000000000000.0"), a ',' or ':' gains a space, and strings,
integers and literals never grow."""


def detail_value(value: Any, chars: int | None = None) -> Any:
    """``value`` itself for a verdict's details when small, else a preview string of its JSON text.

    Details are stored with every result: a large answer is not stored twice, and a value that is not
    strict JSON (an infinite number a pick produced) is stored as its text. ``chars``, the length of the
    strict JSON text ``value`` was read from (or a bound of its length written out), saves writing a small
    value out to measure it.
    """
    if value is None or (chars is not None and chars <= _PREVIEW_CHARS):
        return value
    try:
        written = _DETAIL.encode(value)
    except (TypeError, ValueError, RecursionError):
        return excerpt_json(value, _PREVIEW_CHARS)
    return value if len(written) <= _PREVIEW_CHARS else written[:_PREVIEW_CHARS] + "…"


def json_path(parts: Any) -> str:
    """A JSON path for keys and indices: ``$``, ``$.name``, ``$.items[0]``, ``$["a key"]``."""
    path = "$"
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _IDENTIFIER.fullmatch(part):
            path += f".{part}"
        else:
            path += f"[{excerpt_json(part)}]"
    return path
