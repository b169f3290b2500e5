"""OpenAI Responses items: a response's ``output`` (``message``, ``function_call``,
``function_call_output``), or a bare list of such items.

Items of other types (``reasoning``, ``web_search_call``...) are not steps. The response's ``usage``
(``input_tokens``, ``output_tokens``) is the trajectory's.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, NonNegativeInt, ValidationError

from assay.graders.trajectory.building import (
    Shape,
    ToolName,
    parse_arguments,
    shape_problem,
    text_of,
    too_many,
    trajectory,
)
from assay.graders.trajectory.record import JsonValue, Step, ToolCall, Trajectory, TrajectoryProblem

DIALECT = "openai-responses"
ITEM_TYPES = frozenset({"message", "function_call", "function_call_output"})


class _Part(Shape):
    type: str | None = None
    text: str | None = None


class _Message(Shape):
    type: Literal["message"]
    role: str = "assistant"
    content: str | list[_Part | str] = Field(default_factory=list)


class _FunctionCall(Shape):
    type: Literal["function_call"]
    name: ToolName
    arguments: Any = None
    call_id: str | None = None


class _FunctionCallOutput(Shape):
    type: Literal["function_call_output"]
    call_id: str | None = None
    output: str | list[_Part | str] | None = None


_Item = Annotated[_Message | _FunctionCall | _FunctionCallOutput, Field(discriminator="type")]


class _Usage(Shape):
    input_tokens: NonNegativeInt | None = None
    output_tokens: NonNegativeInt | None = None


class _Document(Shape):
    output: list[_Item]
    usage: _Usage | None = None


def _text(content: str | list[_Part | str] | None) -> str | None:
    return content if isinstance(content, str) or content is None else text_of(content)


def _step(item: _Message | _FunctionCall | _FunctionCallOutput) -> Step:
    if isinstance(item, _Message):
        return Step(kind="message", role=item.role, text=_text(item.content))
    if isinstance(item, _FunctionCall):
        call = ToolCall(name=item.name, arguments=parse_arguments(item.arguments), call_id=item.call_id)
        return Step(kind="tool_call", role="assistant", tool_call=call)
    return Step(kind="tool_result", role="tool", call_id=item.call_id, text=_text(item.output))


def read(value: JsonValue) -> Trajectory | TrajectoryProblem:
    """The trajectory of a Responses ``output`` (see the module's docstring for the shapes read)."""
    items = value if isinstance(value, list) else value.get("output") if isinstance(value, dict) else None
    if not isinstance(items, list):
        return TrajectoryProblem(reason="has no 'output' list of Responses items", dialect=DIALECT)
    problem = too_many(items, "items", DIALECT)
    if problem is not None:
        return problem
    # the items this reader knows are checked; the others are dropped before validation
    known = [
        item
        for item in items
        if not isinstance(item, dict) or (isinstance(item.get("type"), str) and item["type"] in ITEM_TYPES)
    ]
    try:
        document = _Document.model_validate({**(value if isinstance(value, dict) else {}), "output": known})
    except ValidationError as error:
        return shape_problem(error, DIALECT)
    if not document.output:
        return TrajectoryProblem(reason="holds no message or function call item", dialect=DIALECT)
    usage = document.usage
    return trajectory(
        [_step(item) for item in document.output],
        DIALECT,
        value,
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
    )
