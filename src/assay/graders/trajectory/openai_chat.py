"""OpenAI chat messages: ``messages`` with ``tool_calls`` and ``tool`` messages (or a chat completion).

Read from a bare list of messages, an object whose ``messages`` holds them, or a chat completion
(``choices[0].message``); the object's ``usage`` (``prompt_tokens``, ``completion_tokens``) is the
trajectory's. An assistant message's text is one step, each of its tool calls one more; a ``tool``
message is the result of the call its ``tool_call_id`` names.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, NonNegativeInt, ValidationError

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

DIALECT = "openai-chat"


class _Function(Shape):
    name: ToolName
    arguments: Any = None


class _ToolCall(Shape):
    id: str | None = None
    function: _Function


class _Part(Shape):
    type: str | None = None
    text: str | None = None


class _Message(Shape):
    role: str
    content: str | list[_Part | str] | None = None
    tool_calls: list[_ToolCall] | None = None
    tool_call_id: str | None = None


class _Usage(Shape):
    prompt_tokens: NonNegativeInt | None = None
    completion_tokens: NonNegativeInt | None = None


class _Choice(Shape):
    message: _Message


class _Document(Shape):
    messages: list[_Message] = Field(default_factory=list)
    choices: list[_Choice] = Field(default_factory=list)
    usage: _Usage | None = None


def _message_steps(message: _Message) -> list[Step]:
    content = message.content
    text = content if isinstance(content, str) or content is None else text_of(content)
    if message.role == "tool":
        return [Step(kind="tool_result", role="tool", call_id=message.tool_call_id, text=text)]
    steps: list[Step] = []
    if text or not message.tool_calls:
        steps.append(Step(kind="message", role=message.role, text=text))
    for call in message.tool_calls or ():
        function = call.function
        tool_call = ToolCall(
            name=function.name, arguments=parse_arguments(function.arguments), call_id=call.id
        )
        steps.append(Step(kind="tool_call", role=message.role, tool_call=tool_call))
    return steps


def _item_steps(value: JsonValue) -> list[Step]:
    return _message_steps(_Message.model_validate(value))


def read(value: JsonValue) -> Trajectory | TrajectoryProblem:
    """The trajectory of OpenAI chat messages (see the module's docstring for the shapes read)."""
    listed = value if is_list(value) else value.get("messages") if isinstance(value, dict) else None
    steps: list[Step] = []
    envelope = value
    if is_list(listed):  # each message validated on its own: a long (or streamed) list is never held twice
        read = read_each(
            listed,
            _item_steps,
            steps,
            what="messages",
            dialect=DIALECT,
            at="messages",
        )
        if isinstance(read, TrajectoryProblem):
            return read
        envelope = {**value, "messages": []} if isinstance(value, dict) else {}
    try:
        document = _Document.model_validate(envelope)
    except ValidationError as error:
        return shape_problem(error, DIALECT)
    for choice in document.choices[:1]:
        steps += _message_steps(choice.message)
    if not steps:  # every message makes a step
        return TrajectoryProblem(reason="holds no chat messages", dialect=DIALECT)
    usage = document.usage
    return trajectory(
        steps,
        DIALECT,
        value,
        input_tokens=usage.prompt_tokens if usage else None,
        output_tokens=usage.completion_tokens if usage else None,
    )
