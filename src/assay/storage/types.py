"""Column types that store any agent text or JSON value unchanged on SQLite and PostgreSQL alike.

PostgreSQL ``text`` cannot hold a NUL byte, ``jsonb`` cannot hold ``\\u0000``, and neither UTF-8 driver
accepts a lone surrogate; agents produce all three. So values are stored as JSON text whose escapes carry
those characters, and read back with ``json.loads``: every Python ``str`` survives a round trip.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import DateTime, Dialect, Text
from sqlalchemy.types import TypeDecorator

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""``json.dumps`` with these options, without making an encoder per call (every result stores its details)."""
_ENCODE_ASCII = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode
_ORJSON_AS_JSON = (
    orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
)
"""Types json does not write as orjson would (dataclasses, dates, subclasses of str, int, dict...) refused."""
_DIGITS = b"0123456789"
_LONG_DIGITS = 19
"""Digits of the shortest integer past 64 bits (``-(2**63) - 1``)."""


def dump_json(value: object) -> str:
    """``value`` as the JSON text these column types store (ASCII escapes only where UTF-8 cannot go): what
    ``json.dumps`` writes, or for a value with no ``null`` in it, orjson's text of the same value."""
    if type(value) is str:
        # Every result row stores several texts: orjson writes a string 5x faster, byte for byte what
        # json.dumps(ensure_ascii=False) writes for every code point (checked over all of them); a lone
        # surrogate, which it refuses, takes the path below.
        try:
            return orjson.dumps(value).decode()
        except TypeError:
            pass
    else:
        # Every result stores its details too: orjson writes them 4x faster. It writes NaN and infinities
        # as null, which json keeps, so a text with a null in it (or refused: a key that is not a string,
        # an integer past 64 bits, a lone surrogate, a type json does not know) is written by json.
        try:
            written = orjson.dumps(value, option=_ORJSON_AS_JSON)
        except TypeError:
            written = b"null"
        if b"null" not in written:
            return written.decode()
    text = _ENCODE(value)
    if text.isascii():  # nothing to check: most details
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escape every non-ASCII character instead
        text = _ENCODE_ASCII(value)
    return text


def load_text(text: str) -> str:
    """The ``str`` of a JSON string literal written by :func:`dump_json`: orjson (10x faster at reading a
    row's texts), else ``json`` (an escaped lone surrogate, which orjson refuses). Only for strings: orjson
    reads an integer past 64 bits as a float, which ``json`` keeps whole."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = None
    if isinstance(value, str):
        return value
    read: str = json.loads(text)
    return read


def load_json(text: str) -> Any:
    """The value of JSON text written by :func:`dump_json`, exactly as ``json.loads`` reads it: orjson (3-5x
    faster; a recount reads every result's details), else ``json`` for what orjson refuses (``NaN``, an
    escaped lone surrogate) or could read otherwise: an integer past 64 bits, which it reads as a float, so
    text with 19 digits or more in all goes to ``json`` (counted in C: a regex for a run costs a parse)."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) - len(raw.translate(None, _DIGITS)) < _LONG_DIGITS:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


class SafeText(TypeDecorator[str]):
    """Any Python ``str`` (NUL bytes and lone surrogates included), stored reversibly as JSON text."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        """The JSON string literal of ``value``."""
        return None if value is None else dump_json(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> str | None:
        """The original ``str``."""
        if value is None:
            return None
        return load_text(value)


class SafeJSON(TypeDecorator[Any]):
    """Any JSON-able value (strings inside may hold NUL bytes or lone surrogates), stored as JSON text."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        """``value`` as JSON text."""
        return None if value is None else dump_json(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> Any:
        """The original value."""
        return None if value is None else load_json(value)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC ``datetime`` on both databases (SQLite keeps no zone, so UTC is put back)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """``value`` in UTC; a naive value is refused rather than guessed."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("UTCDateTime needs a timezone-aware datetime")
        utc = value.astimezone(UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """The stored instant as an aware UTC ``datetime``."""
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utc_now() -> datetime:
    """The current instant, timezone-aware, in UTC."""
    return datetime.now(UTC)
