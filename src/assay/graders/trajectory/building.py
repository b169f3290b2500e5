"""What every dialect's reader shares: the caps, the shape checks' wording, and turning read steps into a
:class:`Trajectory`.

The caps (docs/trajectories.md#caps): a trajectory holds at most ``MAX_STEPS`` steps (checked on the
document's lists before any is validated, so a huge list costs nothing), a tool's name at most
``MAX_NAME_CHARS`` characters, and a call's arguments are parsed from text only up to ``MAX_ARGUMENT_CHARS``
characters and ``MAX_ARGUMENT_DEPTH`` levels (longer or deeper ones are kept as the raw string).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, TypeGuard

import orjson
from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from assay.graders.trajectory.record import JsonValue, Step, Trajectory, TrajectoryProblem
from assay.graders.trajectory.streaming import Streamed

MAX_STEPS = 100_000
MAX_NAME_CHARS = 256
MAX_ARGUMENT_CHARS = 1_000_000
MAX_ARGUMENT_DEPTH = 100

ToolName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_CHARS)]
"""A tool's name as a dialect gives it: not empty, at most ``MAX_NAME_CHARS`` characters."""


class Shape(BaseModel):
    """A dialect's JSON shape: fields it does not use are ignored, the ones it reads are checked."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


Items = list[Any] | Streamed
"""A document's list: built, or left in its JSON text (``streaming.Streamed``) to be read item by item."""


def is_list(value: object) -> TypeGuard[Items]:
    """Whether a document's value is a list, built or streamed."""
    return isinstance(value, list | Streamed)


def too_many(items: Sequence[Any] | None, what: str, dialect: str) -> TrajectoryProblem | None:
    """A problem when a document's list would make more than ``MAX_STEPS`` steps."""
    if items is not None and len(items) > MAX_STEPS:
        return TrajectoryProblem(reason=f"has more than {MAX_STEPS:,} {what}", dialect=dialect)
    return None


def shape_problem(error: ValidationError, dialect: str, at: tuple[str | int, ...] = ()) -> TrajectoryProblem:
    """The first place a document departs from its dialect's shape (``at``: where the validated value
    lies in the document), as a problem."""
    first = error.errors(include_url=False, include_input=False)[0]
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in (*at, *first["loc"]))
    return TrajectoryProblem(reason=f"is not {dialect} at ${where}: {first['msg']}", dialect=dialect)


def read_each(
    items: Items,
    item_steps: Callable[[JsonValue], Iterable[Step] | None],
    steps: list[Step],
    *,
    what: str,
    dialect: str,
    at: str,
) -> TrajectoryProblem | int:
    """Validate each item of a document's list on its own and add its steps to ``steps``, one item at a
    time (a streamed list is never built whole); the first item that departs from its shape is the problem.

    ``item_steps`` validates one item (raising pydantic's ``ValidationError``) and gives its steps, or
    ``None`` for an item that is not a step (skipped, and not counted in the place a problem names, as
    whole-list validation of the kept items counts them); ``at`` is the list's key in the document. The
    caps hold mid-list: more than ``MAX_STEPS`` items or steps stop the reading. Gives the number of items
    read as steps.
    """
    if isinstance(items, list) and len(items) > MAX_STEPS:  # a built list says its size before any is read
        return TrajectoryProblem(reason=f"has more than {MAX_STEPS:,} {what}", dialect=dialect)
    kept = 0
    for index, item in enumerate(items):
        if index >= MAX_STEPS:
            return TrajectoryProblem(reason=f"has more than {MAX_STEPS:,} {what}", dialect=dialect)
        try:
            own = item_steps(item)
        except ValidationError as error:
            return shape_problem(error, dialect, (at, kept))
        if own is None:
            continue
        kept += 1
        steps.extend(own)
        if len(steps) > MAX_STEPS:
            return TrajectoryProblem(reason=f"has more than {MAX_STEPS:,} steps", dialect=dialect)
    return kept


_LONG_NUMBER = re.compile(r"\d{19}")


def _depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_arguments(value: JsonValue) -> JsonValue:
    """A call's arguments: the JSON they hold when given as text that parses, else as given."""
    if not isinstance(value, str):
        return value
    if len(value) > MAX_ARGUMENT_CHARS or (
        value.count("{") + value.count("[") > MAX_ARGUMENT_DEPTH and _depth(value) > MAX_ARGUMENT_DEPTH
    ):
        return value
    if _LONG_NUMBER.search(value) is None:  # orjson reads an integer past 64 bits as a float, json as an int
        try:
            return orjson.loads(value)  # a few times faster than json on the short texts arguments are
        except orjson.JSONDecodeError:
            pass
    try:  # what orjson refuses and json reads (NaN, lone surrogates) reads as before
        return json.loads(value)
    except (ValueError, RecursionError):  # not JSON: the agent's raw string is what it sent
        return value


def text_of(parts: Iterable[Any], *, key: str = "text") -> str:
    """The text of a list of content parts: each part's ``key`` text (or a bare string), joined by lines."""
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        else:
            text = getattr(part, key, None)
            if isinstance(text, str):
                texts.append(text)
    return "\n".join(texts)


def last_text(steps: Sequence[Step]) -> str | None:
    """The last assistant message's text: the agent's final answer."""
    for step in reversed(steps):
        if step.kind == "message" and step.role == "assistant" and step.text:
            return step.text
    return None


def total(values: Iterable[int | None]) -> int | None:
    """The sum of the counts given, ``None`` when none is."""
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def trajectory(
    steps: list[Step],
    dialect: str,
    raw: JsonValue,
    *,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    seconds: float | None = None,
) -> Trajectory | TrajectoryProblem:
    """The trajectory of these steps; the usage, unless given, is the steps' own summed."""
    if len(steps) > MAX_STEPS:
        return TrajectoryProblem(reason=f"has more than {MAX_STEPS:,} steps", dialect=dialect)
    return Trajectory(
        steps=tuple(steps),
        dialect=dialect,
        final_text=last_text(steps),
        input_tokens=input_tokens if input_tokens is not None else total(s.input_tokens for s in steps),
        output_tokens=output_tokens if output_tokens is not None else total(s.output_tokens for s in steps),
        seconds=seconds,
        raw=raw,
    )
