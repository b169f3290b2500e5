"""Anthropic messages: content blocks ``text``, ``tool_use`` and ``tool_result``.

Read from a bare list of messages (``role`` and ``content``: a string or a list of blocks), an object whose
``messages`` holds them, or one message (a Messages API response: ``role`` and a ``content`` list, with its
``usage``: ``input_tokens``, ``output_tokens``). Blocks of other types (``thinking``, ``image``...) are not
steps. A ``tool_result`` block is the result of the ``tool_use`` its ``tool_use_id`` names.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

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

DIALECT = "anthropic"
BLOCK_TYPES = frozenset({"text", "tool_use", "tool_result"})
TOOL_BLOCK_TYPES = frozenset({"tool_use", "tool_result"})


class _Text(Shape):
    type: Literal["text"]
    text: str


class _ToolUse(Shape):
    type: Literal["tool_use"]
    id: str | None = None
    name: ToolName
    input: Any = None


class _ToolResult(Shape):
    type: Literal["tool_result"]
    tool_use_id: str | None = None
    content: str | list[_Text | dict[str, Any]] | None = None
    is_error: bool = False


_Block = Annotated[_Text | _ToolUse | _ToolResult, Field(discriminator="type")]


class _Usage(Shape):
    input_tokens: NonNegativeInt | None = None
    output_tokens: NonNegativeInt | None = None


class _Message(Shape):
    role: str
    content: str | list[_Block]
    usage: _Usage | None = None
    """A Messages API response's own usage, when the conversation keeps it: the message's first step's."""


class _Document(Shape):
    messages: list[_Message]
    usage: _Usage | None = None


def _known_blocks(message: object) -> object:
    """A message with only the blocks this reader knows (the others are not steps, nor checked)."""
    if isinstance(message, dict) and isinstance(message.get("content"), list):
        blocks = [
            b
            for b in message["content"]
            if not isinstance(b, dict) or (isinstance(b.get("type"), str) and b["type"] in BLOCK_TYPES)
        ]
        return {**message, "content": blocks}
    return message


def _block_steps(role: str, blocks: list[_Text | _ToolUse | _ToolResult]) -> list[Step]:
    """A message's blocks as steps: each run of text one message step, in place among the tool blocks."""
    steps: list[Step] = []
    texts: list[str] = []
    for block in blocks:
        if isinstance(block, _Text):
            texts.append(block.text)
            continue
        if texts:
            steps.append(Step(kind="message", role=role, text="\n".join(texts)))
            texts = []
        if isinstance(block, _ToolUse):
            call = ToolCall(name=block.name, arguments=block.input, call_id=block.id)
            steps.append(Step(kind="tool_call", role=role, tool_call=call))
        else:
            content = block.content
            text = content if isinstance(content, str) or content is None else text_of(content)
            result = Step(
                kind="tool_result", role="tool", call_id=block.tool_use_id, text=text, is_error=block.is_error
            )
            steps.append(result)
    if texts:
        steps.append(Step(kind="message", role=role, text="\n".join(texts)))
    return steps


def _item_steps(value: JsonValue) -> list[Step]:
    return _message_steps(_Message.model_validate(_known_blocks(value)))


def _message_steps(message: _Message) -> list[Step]:
    if isinstance(message.content, str):
        own = [Step(kind="message", role=message.role, text=message.content)]
    else:
        own = _block_steps(message.role, message.content)
    if message.usage is not None and own:  # the model's turn: its first step carries the usage
        usage = message.usage
        own[0] = replace(own[0], input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)
    return own


def _messages(value: JsonValue) -> object:
    """The messages a document holds: a bare list, its ``messages``, or itself as one message."""
    if isinstance(value, dict):
        return value.get("messages", [value] if "content" in value else None)
    return value


def read(value: JsonValue) -> Trajectory | TrajectoryProblem:
    """The trajectory of Anthropic messages (see the module's docstring for the shapes read)."""
    messages = _messages(value)
    if not is_list(messages):
        return TrajectoryProblem(reason="holds no list of messages", dialect=DIALECT)
    steps: list[Step] = []
    read = read_each(messages, _item_steps, steps, what="messages", dialect=DIALECT, at="messages")
    if isinstance(read, TrajectoryProblem):
        return read
    usage = value.get("usage") if isinstance(value, dict) and "messages" in value else None
    try:
        document = _Document.model_validate({"messages": [], "usage": usage})
    except ValidationError as error:
        return shape_problem(error, DIALECT)
    if not read:
        return TrajectoryProblem(reason="holds no messages", dialect=DIALECT)
    total = document.usage
    return trajectory(
        steps,
        DIALECT,
        value,
        input_tokens=total.input_tokens if total else None,
        output_tokens=total.output_tokens if total else None,
    )
