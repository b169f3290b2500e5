"""ATIF, Harbor's Agent Trajectory Interchange Format (RFC 0001, v1.x): ``steps`` of ``source`` system,
user or agent, each with its ``message``, an agent step's ``tool_calls`` (``tool_call_id``,
``function_name``, ``arguments``), its ``observation.results`` (``source_call_id``, ``content``) and its
``metrics`` (``prompt_tokens``, ``completion_tokens``); ``final_metrics`` totals the usage.

An agent step becomes its message, then its tool calls, then their results; the source ``agent`` is the
role ``assistant``. Step ``timestamp``s (ISO 8601) give each step's start and the trajectory's seconds.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from pydantic import Field, NonNegativeInt, ValidationError

from assay.graders.trajectory.building import (
    Shape,
    ToolName,
    is_list,
    read_each,
    shape_problem,
    text_of,
    trajectory,
)
from assay.graders.trajectory.record import JsonValue, Step, ToolCall, Trajectory, TrajectoryProblem

DIALECT = "atif"
_ROLES = {"agent": "assistant"}


class _Part(Shape):
    type: str | None = None
    text: str | None = None


Content = str | list[_Part | str] | None


class _ToolCall(Shape):
    tool_call_id: str | None = None
    function_name: ToolName
    arguments: Any = None


class _Result(Shape):
    source_call_id: str | None = None
    content: Content = None


class _Observation(Shape):
    results: list[_Result] = Field(default_factory=list)


class _Metrics(Shape):
    prompt_tokens: NonNegativeInt | None = None
    completion_tokens: NonNegativeInt | None = None


class _Step(Shape):
    source: str
    message: Content = None
    timestamp: datetime | None = None
    tool_calls: list[_ToolCall] | None = None
    observation: _Observation | None = None
    metrics: _Metrics | None = None


class _FinalMetrics(Shape):
    total_prompt_tokens: NonNegativeInt | None = None
    total_completion_tokens: NonNegativeInt | None = None


class _Document(Shape):
    steps: list[_Step]
    """First: a step's problem is named before the others', whether the steps are validated with the
    document or streamed one by one before it."""
    schema_version: str | None = None
    final_metrics: _FinalMetrics | None = None


def _text(content: Content) -> str | None:
    return content if isinstance(content, str) or content is None else text_of(content)


def _own_steps(step: _Step) -> list[Step]:
    """An ATIF step's normalised steps: its message, its tool calls, their results; its usage on the first
    (the model's turn). Its time is set once every step's is known (:func:`_timed`)."""
    role = _ROLES.get(step.source, step.source)
    steps: list[Step] = []
    text = _text(step.message)
    if text or not step.tool_calls:
        steps.append(Step(kind="message", role=role, text=text))
    for call in step.tool_calls or ():
        tool_call = ToolCall(name=call.function_name, arguments=call.arguments, call_id=call.tool_call_id)
        steps.append(Step(kind="tool_call", role=role, tool_call=tool_call))
    for result in step.observation.results if step.observation else ():
        steps.append(
            Step(kind="tool_result", role="tool", call_id=result.source_call_id, text=_text(result.content))
        )
    metrics = step.metrics or _Metrics()
    steps[0] = replace(steps[0], input_tokens=metrics.prompt_tokens, output_tokens=metrics.completion_tokens)
    return steps


def _timed(steps: list[Step], starts: list[tuple[int, float]]) -> float | None:
    """Set each ATIF step's start (``starts``: its first normalised step and its timestamp) from the
    earliest timestamp; the seconds from the earliest to the latest."""
    if not starts:
        return None
    times = [stamp for _, stamp in starts]
    start = min(times)
    for first, stamp in starts:
        steps[first] = replace(steps[first], started_ms=(stamp - start) * 1000.0)
    return max(times) - start if len(times) > 1 else None


def read(value: JsonValue) -> Trajectory | TrajectoryProblem:
    """The trajectory of an ATIF document (see the module's docstring for what is read)."""
    listed = value.get("steps") if isinstance(value, dict) else None
    steps: list[Step] = []
    starts: list[tuple[int, float]] = []

    def own_steps(value: JsonValue) -> list[Step]:
        step = _Step.model_validate(value)
        if step.timestamp is not None:  # its first normalised step will be at len(steps)
            starts.append((len(steps), step.timestamp.timestamp()))
        return _own_steps(step)

    envelope = value
    count = 0
    if is_list(listed):
        read = read_each(listed, own_steps, steps, what="steps", dialect=DIALECT, at="steps")
        if isinstance(read, TrajectoryProblem):
            return read
        count, envelope = read, {**value, "steps": []}
    try:
        document = _Document.model_validate(envelope)
    except ValidationError as error:
        return shape_problem(error, DIALECT)
    if not count:
        return TrajectoryProblem(reason="holds no steps", dialect=DIALECT)
    seconds = _timed(steps, starts)
    final = document.final_metrics
    return trajectory(
        steps,
        DIALECT,
        value,
        input_tokens=final.total_prompt_tokens if final else None,
        output_tokens=final.total_completion_tokens if final else None,
        seconds=seconds,
    )
