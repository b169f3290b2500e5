"""OpenAI Responses items: a response's ``output`` (``message``, ``function_call``,
``function_call_output``), or a bare list of such items.

Items of other types (``reasoning``, ``web_search_call``...) are not steps. The response's ``usage``
(``input_tokens``, ``output_tokens``) is the trajectory's.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, NonNegativeInt, TypeAdapter, ValidationError

from assay.graders.trajectory.building import (
    Shape,
    ToolName,
    is_list,
    parse_arguments,
    read_each,
    shape_problem,
    text_of,
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
_ITEM: TypeAdapter[_Message | _FunctionCall | _FunctionCallOutput] = TypeAdapter(_Item)


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


def _item_steps(item: JsonValue) -> tuple[Step] | None:
    """The step of an item this reader knows, checked; ``None`` for the others (dropped, not checked)."""
    if isinstance(item, dict) and not (isinstance(item.get("type"), str) and item["type"] in ITEM_TYPES):
        return None
    return (_step(_ITEM.validate_python(item)),)


def read(value: JsonValue) -> Trajectory | TrajectoryProblem:
    """The trajectory of a Responses ``output`` (see the module's docstring for the shapes read)."""
    items = value if is_list(value) else value.get("output") if isinstance(value, dict) else None
    if not is_list(items):
        return TrajectoryProblem(reason="has no 'output' list of Responses items", dialect=DIALECT)
    steps: list[Step] = []
    read = read_each(items, _item_steps, steps, what="items", dialect=DIALECT, at="output")
    if isinstance(read, TrajectoryProblem):
        return read
    try:
        document = _Document.model_validate({**(value if isinstance(value, dict) else {}), "output": []})
    except ValidationError as error:
        return shape_problem(error, DIALECT)
    if not steps:
        return TrajectoryProblem(reason="holds no message or function call item", dialect=DIALECT)
    usage = document.usage
    return trajectory(
        steps,
        DIALECT,
        value,
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
    )
