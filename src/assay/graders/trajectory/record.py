"""The normalised trajectory: what an agent did on the way to its answer, whatever dialect it was read from.

A :class:`Trajectory` is a flat, ordered tuple of :class:`Step` records: messages (``role`` and ``text``),
tool calls (a :class:`ToolCall`: name, arguments, id) and tool results (``call_id``, ``text``,
``is_error``), with usage and timings where the dialect gives them. Every reader (docs/trajectories.md)
produces this one record, and :func:`to_json` / :func:`from_json` are its one stored and exported form:

.. code-block:: json

    {"format": "assay.trajectory/1", "dialect": "openai-chat", "final_text": "Refunded.",
     "input_tokens": 812, "output_tokens": 95, "seconds": 2.4,
     "steps": [
       {"kind": "message", "role": "user", "text": "Refund order 7"},
       {"kind": "tool_call", "role": "assistant",
        "tool_call": {"name": "lookup_order", "arguments": {"id": 7}, "call_id": "c1"}},
       {"kind": "tool_result", "role": "tool", "call_id": "c1", "text": "{\\"status\\": \\"paid\\"}"},
       {"kind": "message", "role": "assistant", "text": "Refunded.", "input_tokens": 40, "output_tokens": 5}
     ]}

A step's key is written only when it holds something (``null`` and ``is_error: false`` are left out), so a
long trajectory stays small; :func:`from_json` fills them back.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from assay.graders.trajectory.streaming import Streamed

JsonValue = Any
"""A value as JSON holds it (object, array, string, number, boolean or null)."""

StepKind = Literal["message", "tool_call", "tool_result"]
STEP_KINDS: tuple[StepKind, ...] = ("message", "tool_call", "tool_result")

FORMAT = "assay.trajectory/1"
"""The ``format`` tag of the normalised JSON form; a later incompatible form gets a new number."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One call of a tool: its name, its arguments (the parsed JSON object, or the raw string when the
    agent's arguments do not parse) and the id its result refers to."""

    name: str
    arguments: JsonValue = None
    call_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One step of a trajectory: a message, a tool call or a tool result.

    ``call_id`` is a tool result's call (a tool call's own id is ``tool_call.call_id``); ``started_ms`` is
    milliseconds since the trajectory's first timed step, where the dialect gives times.
    """

    kind: StepKind
    role: str | None = None
    text: str | None = None
    tool_call: ToolCall | None = None
    call_id: str | None = None
    is_error: bool = False
    started_ms: float | None = None
    duration_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Trajectory:
    """What an agent did, in order, read from one dialect; ``raw`` is the document it was read from (kept
    for display and export, never compared)."""

    steps: tuple[Step, ...]
    dialect: str
    final_text: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    seconds: float | None = None
    raw: JsonValue = field(default=None, compare=False, repr=False)
    _calls: tuple[ToolCall, ...] = field(init=False, compare=False, repr=False)
    _names: tuple[str, ...] = field(init=False, compare=False, repr=False)
    _by_name: dict[str, tuple[ToolCall, ...]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # read once, asked by every grader of the case: a grade on a long trajectory stays in microseconds
        calls = tuple(step.tool_call for step in self.steps if step.tool_call is not None)
        object.__setattr__(self, "_calls", calls)
        object.__setattr__(self, "_names", tuple(call.name for call in calls))
        by_name: dict[str, list[ToolCall]] = {}
        for call in calls:
            by_name.setdefault(call.name, []).append(call)
        object.__setattr__(self, "_by_name", {name: tuple(named) for name, named in by_name.items()})

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Every tool call, in the order the agent made them."""
        return self._calls

    def tool_names(self) -> tuple[str, ...]:
        """The name of every tool call, in order (a tool called twice is named twice)."""
        return self._names

    def calls_of(self, name: str) -> tuple[ToolCall, ...]:
        """The calls of one tool, in order."""
        return self._by_name.get(name, ())


@dataclass(frozen=True, slots=True, kw_only=True)
class TrajectoryProblem:
    """Why a document could not be read as a trajectory: ``reason`` completes "The trajectory ..."."""

    reason: str
    dialect: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TrajectorySummary:
    """What a result row keeps of a trajectory: counts, the tools used (in first-use order, each with its
    number of calls), usage and duration."""

    steps: int
    tool_calls: int
    tool_names: tuple[tuple[str, int], ...]
    input_tokens: int | None
    output_tokens: int | None
    seconds: float | None

    def to_json(self) -> dict[str, JsonValue]:
        """The summary as JSON (``tool_names`` an object, name to count, in first-use order)."""
        return {
            "steps": self.steps,
            "tool_calls": self.tool_calls,
            "tool_names": dict(self.tool_names),
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "seconds": self.seconds,
        }


def summarize(trajectory: Trajectory) -> TrajectorySummary:
    """The summary of ``trajectory``."""
    counts: dict[str, int] = {}
    for name in trajectory.tool_names():
        counts[name] = counts.get(name, 0) + 1
    return TrajectorySummary(
        steps=len(trajectory.steps),
        tool_calls=sum(counts.values()),
        tool_names=tuple(counts.items()),
        input_tokens=trajectory.input_tokens,
        output_tokens=trajectory.output_tokens,
        seconds=trajectory.seconds,
    )


def _step_json(step: Step) -> dict[str, JsonValue]:
    written: dict[str, JsonValue] = {"kind": step.kind}
    for name in ("role", "text", "call_id", "started_ms", "duration_ms", "input_tokens", "output_tokens"):
        value = getattr(step, name)
        if value is not None:
            written[name] = value
    if step.tool_call is not None:
        call = step.tool_call
        written["tool_call"] = {"name": call.name, "arguments": call.arguments, "call_id": call.call_id}
    if step.is_error:
        written["is_error"] = True
    return written


def to_json(trajectory: Trajectory) -> dict[str, JsonValue]:
    """The normalised JSON form of ``trajectory`` (the module docstring shows it); ``raw`` is not in it."""
    return {
        "format": FORMAT,
        "dialect": trajectory.dialect,
        "final_text": trajectory.final_text,
        "input_tokens": trajectory.input_tokens,
        "output_tokens": trajectory.output_tokens,
        "seconds": trajectory.seconds,
        "steps": [_step_json(step) for step in trajectory.steps],
    }


def _optional(value: object, kind: type, name: str) -> Any:
    if value is None:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if type(value) is not kind or (kind is float and not math.isfinite(value)):  # type: ignore[arg-type]
        raise ValueError(f"'{name}' must be {kind.__name__} or null")
    if kind is int and value < 0:  # type: ignore[operator]
        raise ValueError(f"'{name}' must not be negative")
    return value


def _read_step(value: object, index: int) -> Step:
    if not isinstance(value, Mapping):
        raise ValueError(f"step {index} is not an object")
    kind = value.get("kind")
    if kind not in STEP_KINDS:
        raise ValueError(f"step {index} has no kind among {', '.join(STEP_KINDS)}")
    call = value.get("tool_call")
    tool_call = None
    if call is not None:
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise ValueError(f"step {index}'s tool_call has no name")
        tool_call = ToolCall(
            name=call["name"],
            arguments=call.get("arguments"),
            call_id=_optional(call.get("call_id"), str, "call_id"),
        )
    if (kind == "tool_call") != (tool_call is not None):
        raise ValueError(f"step {index}: a tool_call step, and only one, holds a tool_call")
    is_error = value.get("is_error", False)
    if not isinstance(is_error, bool):
        raise ValueError(f"step {index}'s is_error is not a boolean")
    return Step(
        kind=kind,
        role=_optional(value.get("role"), str, "role"),
        text=_optional(value.get("text"), str, "text"),
        tool_call=tool_call,
        call_id=_optional(value.get("call_id"), str, "call_id"),
        is_error=is_error,
        started_ms=_optional(value.get("started_ms"), float, "started_ms"),
        duration_ms=_optional(value.get("duration_ms"), float, "duration_ms"),
        input_tokens=_optional(value.get("input_tokens"), int, "input_tokens"),
        output_tokens=_optional(value.get("output_tokens"), int, "output_tokens"),
    )


def from_json(value: object, *, raw: JsonValue = None) -> Trajectory:
    """The trajectory a :func:`to_json` document holds; ``ValueError`` saying why when it holds none."""
    if not isinstance(value, Mapping) or value.get("format") != FORMAT:
        raise ValueError(f"not a normalised trajectory (its 'format' is not {FORMAT!r})")
    steps = value.get("steps")
    if not isinstance(steps, list | Streamed):
        raise ValueError("'steps' is not a list")
    dialect = value.get("dialect")
    if not isinstance(dialect, str):
        raise ValueError("'dialect' is not a string")
    return Trajectory(
        steps=tuple(_read_step(step, index) for index, step in enumerate(steps)),
        dialect=dialect,
        final_text=_optional(value.get("final_text"), str, "final_text"),
        input_tokens=_optional(value.get("input_tokens"), int, "input_tokens"),
        output_tokens=_optional(value.get("output_tokens"), int, "output_tokens"),
        seconds=_optional(value.get("seconds"), float, "seconds"),
        raw=raw,
    )


def iter_steps_json(trajectory: Trajectory) -> Iterator[dict[str, JsonValue]]:
    """The normalised JSON of each step (as in :func:`to_json`), one at a time: storage writes a long
    trajectory chunk by chunk without building its whole document."""
    return (_step_json(step) for step in trajectory.steps)
