"""OpenTelemetry spans following the GenAI semantic conventions, as OTLP/HTTP JSON
(``resourceSpans[].scopeSpans[].spans[]``), ordered by start time.

What becomes a step, by ``gen_ai.operation.name``:

- ``execute_tool`` (or no operation but a ``gen_ai.tool.name``): a tool call (``gen_ai.tool.name``,
  ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``), then its result (``gen_ai.tool.call.result``)
  when the span gives one or failed (status code 2, ``STATUS_CODE_ERROR``, or an ``error.type`` attribute);
- a model call (``chat``, ``text_completion``, ``generate_content``): the assistant's text from
  ``gen_ai.output.messages`` (their ``text`` parts), carrying the span's ``gen_ai.usage.input_tokens`` and
  ``gen_ai.usage.output_tokens``. Tool calls are read from ``execute_tool`` spans only, never again from a
  model's output, so a call is counted once.

Other spans (``invoke_agent``, HTTP, database...) are not steps. The trajectory's usage is the model calls'
summed (an ``invoke_agent`` span's own totals would count them twice); its seconds run from the first span's
start to the last span's end.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import Field, ValidationError

from assay.graders.trajectory.building import (
    MAX_ARGUMENT_CHARS,
    Shape,
    parse_arguments,
    shape_problem,
    too_many,
    trajectory,
)
from assay.graders.trajectory.record import JsonValue, Step, ToolCall, Trajectory, TrajectoryProblem

DIALECT = "otlp"
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_STATUS_ERROR = (2, "STATUS_CODE_ERROR")


class _AnyValue(Shape):
    string_value: str | None = Field(None, alias="stringValue")
    int_value: int | str | None = Field(None, alias="intValue")
    double_value: float | None = Field(None, alias="doubleValue")
    bool_value: bool | None = Field(None, alias="boolValue")

    def plain(self) -> str | int | float | bool | None:
        """The value as Python holds it (an ``intValue`` written as a string, as OTLP JSON does, an int)."""
        if self.string_value is not None:
            return self.string_value
        if self.int_value is not None:
            try:
                return int(self.int_value)
            except ValueError:
                return None
        return self.double_value if self.double_value is not None else self.bool_value


class _KeyValue(Shape):
    key: str
    value: _AnyValue | None = None


class _Status(Shape):
    code: int | str | None = None


class _Span(Shape):
    name: str = ""
    start: int = Field(0, alias="startTimeUnixNano", ge=0)
    end: int = Field(0, alias="endTimeUnixNano", ge=0)
    attributes: list[_KeyValue] = Field(default_factory=list)
    status: _Status | None = None


class _ScopeSpans(Shape):
    spans: list[_Span] = Field(default_factory=list)


class _ResourceSpans(Shape):
    scope_spans: list[_ScopeSpans] = Field(default_factory=list, alias="scopeSpans")


class _Document(Shape):
    resource_spans: list[_ResourceSpans] = Field(alias="resourceSpans")


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _output_text(value: object) -> str | None:
    """The text parts of ``gen_ai.output.messages`` (a JSON string of messages with ``parts``)."""
    if not isinstance(value, str) or len(value) > MAX_ARGUMENT_CHARS:
        return None
    try:
        messages = json.loads(value)
    except (ValueError, RecursionError):
        return value  # not the structured form: the text itself
    texts: list[str] = []
    for message in messages if isinstance(messages, list) else ():
        parts = message.get("parts") if isinstance(message, Mapping) else None
        for part in parts if isinstance(parts, list) else ():
            if (
                isinstance(part, Mapping)
                and part.get("type") == "text"
                and isinstance(part.get("content"), str)
            ):
                texts.append(part["content"])
    return "\n".join(texts) or None


def _span_steps(span: _Span, origin: int) -> list[Step]:
    attributes = {item.key: item.value.plain() for item in span.attributes if item.value is not None}
    operation = attributes.get("gen_ai.operation.name")
    if operation is None and "gen_ai.tool.name" in attributes:  # instrumentations older than the attribute
        operation = "execute_tool"
    started_ms = (span.start - origin) / 1e6
    duration_ms = max(0, span.end - span.start) / 1e6 if span.end else None
    if operation == "execute_tool":
        name = attributes.get("gen_ai.tool.name")
        if not isinstance(name, str) or not name:
            name = span.name.removeprefix("execute_tool ").strip() or "unknown"
        call_id = attributes.get("gen_ai.tool.call.id")
        call_id = call_id if isinstance(call_id, str) else None
        call = ToolCall(
            name=name,
            arguments=parse_arguments(attributes.get("gen_ai.tool.call.arguments")),
            call_id=call_id,
        )
        steps = [
            Step(
                kind="tool_call",
                role="assistant",
                tool_call=call,
                started_ms=started_ms,
                duration_ms=duration_ms,
            )
        ]
        result = attributes.get("gen_ai.tool.call.result")
        failed = (span.status is not None and span.status.code in _STATUS_ERROR) or "error.type" in attributes
        if result is not None or failed:
            text = result if isinstance(result, str) or result is None else json.dumps(result)
            steps.append(Step(kind="tool_result", role="tool", call_id=call_id, text=text, is_error=failed))
        return steps
    if operation in MODEL_OPERATIONS:
        return [
            Step(
                kind="message",
                role="assistant",
                text=_output_text(attributes.get("gen_ai.output.messages")),
                started_ms=started_ms,
                duration_ms=duration_ms,
                input_tokens=_count(attributes.get("gen_ai.usage.input_tokens")),
                output_tokens=_count(attributes.get("gen_ai.usage.output_tokens")),
            )
        ]
    return []


def read(value: JsonValue) -> Trajectory | TrajectoryProblem:
    """The trajectory of OTLP/HTTP JSON spans (see the module's docstring for what is read)."""
    try:
        document = _Document.model_validate(value)
    except ValidationError as error:
        return shape_problem(error, DIALECT)
    spans = [
        span for resource in document.resource_spans for scope in resource.scope_spans for span in scope.spans
    ]
    problem = too_many(spans, "spans", DIALECT)
    if problem is not None:
        return problem
    if not spans:
        return TrajectoryProblem(reason="holds no spans", dialect=DIALECT)
    spans.sort(key=lambda span: span.start)  # stable: spans starting together keep the document's order
    origin = spans[0].start
    steps = [step for span in spans for step in _span_steps(span, origin)]
    if not steps:
        return TrajectoryProblem(
            reason="holds no GenAI span (gen_ai.operation.name chat or execute_tool)", dialect=DIALECT
        )
    last_end = max(span.end for span in spans)
    seconds = (last_end - origin) / 1e9 if last_end > origin else None
    return trajectory(steps, DIALECT, value, seconds=seconds)
