"""How users name a case, the same on every surface: its number, and its key when its suite has keys.

A case's **number** is its 1-based place in its suite: ``#1`` is the first case in the UI, the CLI, JUnit
and every export. Its **key** is the user's own name for it, read from an imported file's ``key`` field
(or ``id``, when there is no ``key``). In one suite either every case has a key or none does, and no two
share one. Recorded answers find their case by key in a keyed suite and by number otherwise; an answer
that names no case is reported, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple, Protocol

from assay.errors import Loc, Problem, location

KEY_FIELDS = ("key", "id")
"""Fields of a suite file (or of a row of answers) that name a case, first found wins."""
MAX_KEY_CHARS = 200
"""Longest case key (the user's own name for a case, e.g. the ``id`` field of an imported file)."""
MAX_LISTED = 10


class ReadKey(NamedTuple):
    """The key a record gives (``None``: it gives none), the field it came from, or what is wrong with it.

    A named tuple: read for every case and every answer, twice (checked, then run), where a frozen dataclass
    costs several times as much to make."""

    key: str | None = None
    field: str | None = None
    problem: str | None = None


_NOT_TEXT = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
"""A control character or a lone surrogate (a str holds a surrogate only unpaired)."""


def is_text(value: str) -> bool:
    """Whether ``value`` is text a person could type: no control character, no lone surrogate."""
    return _NOT_TEXT.search(value) is None


def key_text(value: object) -> str | None:
    """A key as stored: text trimmed, a whole number as its digits; ``None`` for none (null, blank text)."""
    if type(value) is str:  # the common case first
        return value.strip() or None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value.strip() or None
    return None


def read_key(record: Mapping[str, Any], fields: Sequence[str] = KEY_FIELDS) -> ReadKey:
    """The key of a record: its first non-blank field of ``fields`` (text or a whole number)."""
    for name in fields:
        value = record.get(name)
        if value is None:
            continue
        if type(value) is str:  # the usual key, checked in a few steps (read for every case and answer)
            stripped = value.strip()
            if not stripped:
                continue
            if len(stripped) <= MAX_KEY_CHARS and _NOT_TEXT.search(stripped) is None:
                return ReadKey(stripped, name)
        elif isinstance(value, str) and not value.strip():
            continue
        key = key_text(value)
        if key is None:
            return ReadKey(field=name, problem=f"'{name}' must be text or a whole number")
        if len(key) > MAX_KEY_CHARS:
            return ReadKey(field=name, problem=f"'{name}' is longer than {MAX_KEY_CHARS} characters")
        if not is_text(key):
            return ReadKey(field=name, problem=f"'{name}' holds a control character or a lone surrogate")
        return ReadKey(key=key, field=name)
    return _NO_KEY


_NO_KEY = ReadKey()


def shown(name: str, limit: int = 60) -> str:
    """A name as quoted in a message: in quotes, cut to ``limit`` characters."""
    return repr(name) if len(name) <= limit else repr(name[:limit]) + "..."


def listed(problems: Sequence[Problem], total: int | None = None, limit: int = MAX_LISTED) -> list[Problem]:
    """The first ``limit`` of ``problems`` (of ``total`` found) and one saying how many more there are."""
    total = len(problems) if total is None else total
    kept = list(problems[:limit])
    if total > len(kept):
        kept.append(Problem((), f"... and {total - len(kept)} more"))
    return kept


def case_label(number: int, key: str | None) -> str:
    """A case as users read it everywhere: ``case #3``, or ``case #3 (key q-7)``."""
    return f"case #{number}" if key is None else f"case #{number} (key {key})"


@dataclass(frozen=True, slots=True)
class KeyProblems:
    """What is wrong with the keys of new cases: some with a key and some without (``mixed``: a malformed
    request), or a key given twice (``repeated``: a conflict, as a suite name taken twice is)."""

    mixed: list[Problem]
    repeated: list[Problem]

    @property
    def all(self) -> list[Problem]:
        """Every problem, the mixed ones first."""
        return [*self.mixed, *self.repeated]


class KeyPlaces(Protocol):
    """Where each key of a suite was first given: a dict, or an index on disk for a suite too big to hold."""

    def first_place(self, key: str, place: Loc) -> Loc | None:
        """Remember ``key`` at ``place`` unless it was given before; the place it was given first, if so."""


class _PlacesInMemory:
    def __init__(self) -> None:
        self._seen: dict[str, Loc] = {}

    def first_place(self, key: str, place: Loc) -> Loc | None:
        first = self._seen.get(key)
        if first is None:
            self._seen[key] = place
        return first


class KeyIssue(Enum):
    """What is wrong with a case's key: given where others have none or the reverse, or given twice."""

    MIXED = "mixed"
    REPEATED = "repeated"


class KeyCheck:
    """The keys of new cases checked one case at a time, as they are read (see :func:`key_problems`).

    Every case has a key or none has, counting the suite's own cases (``keyed``: whether they have keys,
    ``None`` for a new or empty suite); no key is given twice (``places`` remembers where each was given).
    """

    def __init__(self, *, keyed: bool | None = None, places: KeyPlaces | None = None) -> None:
        self.keyed = keyed
        self._rule = (
            None
            if keyed is None
            else ("the suite's cases have keys" if keyed else "the suite's cases have none")
        )
        self._places = places if places is not None else _PlacesInMemory()

    def check(self, key: str | None, place: Loc) -> tuple[KeyIssue, Problem] | None:
        """What is wrong with ``key``, the key of the case at ``place`` (``("line", 3)``), if anything."""
        if self.keyed is None:
            self.keyed = key is not None
            self._rule = f"{location(place)} has one" if self.keyed else f"{location(place)} has none"
        if (key is not None) != self.keyed:
            given = "no key" if key is None else f"key '{key}'"
            return KeyIssue.MIXED, Problem(
                place, f"{given}, while {self._rule}; give every case a key or none"
            )
        if key is not None:
            first = self._places.first_place(key, place)
            if first is not None:
                return KeyIssue.REPEATED, Problem(place, f"key '{key}' is also the key of {location(first)}")
        return None


def key_problems(
    keys: Sequence[str | None], places: Sequence[Loc], *, keyed: bool | None = None
) -> KeyProblems:
    """What is wrong with the keys of new cases (``places`` locate them: ``("line", 3)``); see
    :class:`KeyCheck`."""
    mixed: list[Problem] = []
    repeated: list[Problem] = []
    check = KeyCheck(keyed=keyed)
    for key, place in zip(keys, places, strict=True):
        found = check.check(key, place)
        if found is not None:
            (mixed if found[0] is KeyIssue.MIXED else repeated).append(found[1])
    return KeyProblems(mixed, repeated)


def unmatched_names(names: Iterable[str], *, keyed: bool, count: int, keys: Iterable[str] = ()) -> list[str]:
    """The answer names (in order given) that name no case: an unknown key in a keyed suite, else anything
    but a number from 1 to ``count``."""
    if keyed:
        known = set(keys)
        return [name for name in names if name not in known]
    return [name for name in names if not is_number_of(name, count)]


def is_number_of(name: str, count: int) -> bool:
    """Whether ``name`` is a case's number (``1`` to ``count``, as written: no sign, no leading zero)."""
    return name.isascii() and name.isdigit() and str(int(name)) == name and 1 <= int(name) <= count


def naming_rule(*, keyed: bool, count: int, by_key: bool | None = None) -> str:
    """Why an answer names no case: how the suite's cases are named (by key, when ``by_key``; else by
    number, which a keyed suite's cases have too)."""
    by_key = keyed if by_key is None else by_key
    if by_key:
        return "no case of the suite has this key"
    if keyed:
        return f"the suite's cases are numbered 1 to {count}"
    return f"the suite's cases have no keys: they are numbered 1 to {count}"
