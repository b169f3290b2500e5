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

from assay.graders.trajectory.building import Shape, ToolName, shape_problem, text_of, too_many, trajectory
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
    schema_version: str | None = None
    steps: list[_Step]
    final_metrics: _FinalMetrics | None = None


def _text(content: Content) -> str | None:
    return content if isinstance(content, str) or content is None else text_of(content)


def _steps(document: _Document) -> tuple[list[Step], float | None]:
    times = [step.timestamp.timestamp() for step in document.steps if step.timestamp is not None]
    start = min(times) if times else None
    steps: list[Step] = []
    for step in document.steps:
        role = _ROLES.get(step.source, step.source)
        started_ms = None
        if step.timestamp is not None and start is not None:
            started_ms = (step.timestamp.timestamp() - start) * 1000.0
        metrics = step.metrics or _Metrics()
        first = len(steps)
        text = _text(step.message)
        if text or not step.tool_calls:
            steps.append(Step(kind="message", role=role, text=text))
        for call in step.tool_calls or ():
            tool_call = ToolCall(name=call.function_name, arguments=call.arguments, call_id=call.tool_call_id)
            steps.append(Step(kind="tool_call", role=role, tool_call=tool_call))
        for result in step.observation.results if step.observation else ():
            steps.append(
                Step(
                    kind="tool_result", role="tool", call_id=result.source_call_id, text=_text(result.content)
                )
            )
        # the step's time and usage belong to its first normalised step (the model's turn)
        if len(steps) > first:
            steps[first] = replace(
                steps[first],
                started_ms=started_ms,
                input_tokens=metrics.prompt_tokens,
                output_tokens=metrics.completion_tokens,
            )
    seconds = max(times) - start if start is not None and len(times) > 1 else None
    return steps, seconds


def read(value: JsonValue) -> Trajectory | TrajectoryProblem:
    """The trajectory of an ATIF document (see the module's docstring for what is read)."""
    listed = value.get("steps") if isinstance(value, dict) else None
    problem = too_many(listed if isinstance(listed, list) else None, "steps", DIALECT)
    if problem is not None:
        return problem
    try:
        document = _Document.model_validate(value)
    except ValidationError as error:
        return shape_problem(error, DIALECT)
    if not document.steps:
        return TrajectoryProblem(reason="holds no steps", dialect=DIALECT)
    steps, seconds = _steps(document)
    final = document.final_metrics
    return trajectory(
        steps,
        DIALECT,
        value,
        input_tokens=final.total_prompt_tokens if final else None,
        output_tokens=final.total_completion_tokens if final else None,
        seconds=seconds,
    )
