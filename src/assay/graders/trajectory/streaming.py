"""Reading a trajectory from JSON text without building it whole: its list of steps is read item by item.

:func:`outline` parses a reply's JSON text once into the document it holds, except for the list a trajectory
keeps its steps in (the value at the trajectory's path when it is a list, else that value's ``messages``,
``output`` or ``steps`` list): that list stays in the text as a :class:`Streamed` list, whose items are built
one at a time when a reader iterates it. Every reader takes a :class:`Streamed` list wherever it takes a list
(``building.is_list``), validating each item on its own, so a trajectory of any size costs its steps, never
its whole document as Python objects, and no single call holds the interpreter for long.

ijson with its C backend (yajl2) does the parsing: it reads the text 64 kB at a time and builds items in C,
where hand-written code would be slower and orjson can only build a whole document.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

JsonValue = Any

STEP_LISTS = frozenset({"messages", "output", "steps"})
"""The keys under which a trajectory document keeps its steps (chat and Anthropic, Responses, ATIF)."""


class UnreadableJsonError(ValueError):
    """The JSON text of a streamed list does not parse (a reader reports it as the trajectory's problem)."""


@dataclass(frozen=True, slots=True, eq=False)
class Streamed:
    """A JSON list left in its text: iterating it builds its items one at a time.

    ``prefix`` is the list's place in ``body`` as ijson names it (keys joined by dots, ``item`` for a list's
    element; ``""`` for the whole text).
    """

    body: bytes
    prefix: str

    def __iter__(self) -> Iterator[JsonValue]:
        import ijson  # loaded only by a run reading streamed trajectories

        items = ijson.items(self.body, f"{self.prefix}.item" if self.prefix else "item", use_float=True)
        try:
            yield from items
        except ijson.JSONError as error:
            raise UnreadableJsonError(str(error)[:200]) from error


def streamable(path: str | None) -> bool:
    """Whether the value at a dotted ``path`` can be outlined: no part of it is a list index."""
    return path is None or not any(part.isdigit() for part in path.split("."))


def outline(body: bytes, path: str | None) -> JsonValue:
    """The document ``body`` holds, with the step list of the value at ``path`` (see the module's docstring)
    left as a :class:`Streamed` list. ``ValueError`` when ``body`` is not JSON (the whole text is checked).

    ``path`` is dotted keys (:func:`streamable`); ``None`` is the whole document.
    """
    import ijson

    at = path or ""
    lists = {at} | {f"{at}.{key}" if at else key for key in STEP_LISTS}
    root: Any = None
    stack: list[Any] = []
    key: str = ""
    skipped: str | None = None

    def put(value: Any) -> None:
        nonlocal root
        if not stack:
            root = value
        elif isinstance(stack[-1], list):
            stack[-1].append(value)
        else:
            stack[-1][key] = value

    try:
        for prefix, event, value in ijson.parse(body, use_float=True):
            if skipped is not None:  # inside a streamed list: only its end matters here
                if event == "end_array" and prefix == skipped:
                    skipped = None
                continue
            if event == "map_key":
                key = value
            elif event == "start_map":
                container: Any = {}
                put(container)
                stack.append(container)
            elif event == "start_array":
                if prefix in lists:
                    put(Streamed(body, prefix))
                    skipped = prefix
                    continue
                container = []
                put(container)
                stack.append(container)
            elif event in ("end_map", "end_array"):
                stack.pop()
            else:
                put(value)
    except ijson.JSONError as error:
        raise UnreadableJsonError(str(error)[:200]) from error
    return root
