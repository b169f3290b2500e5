"""Reading a list of chat messages in OpenAI's chat format or as Anthropic content blocks into
:class:`~assay.chat.messages.Message` records; what cannot be read is a problem with its place.

Both dialects are read by one rule, per message: ``content`` is text, or a list of blocks, each ``text``
(also ``input_text``/``output_text``), ``tool_use`` (an assistant's call: Anthropic) or ``tool_result`` (a
user message's answer to a call: Anthropic, read as a ``tool`` message); OpenAI's ``tool_calls`` and
``tool_call_id`` are read as they are. Other blocks (images, documents) are refused: a conversation is
kept without loss or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, get_args

from assay.chat.messages import Message, Role, ToolCall

MAX_MESSAGES = 1000
"""Messages in one conversation (an input, or a multi-turn case's history)."""
MAX_MESSAGE_CHARS = 1_000_000
"""Characters of all the messages' content and arguments together (an answer's cap is 1 MiB too)."""
_ROLES = frozenset(get_args(Role))
_TEXT_BLOCKS = ("text", "input_text", "output_text")

Place = tuple[str | int, ...]


class MessagesError(ValueError):
    """Messages that cannot be read: each problem with its place inside the list (``(2, "content", 0)``)."""

    def __init__(self, problems: Sequence[tuple[Place, str]]) -> None:
        self.problems = list(problems)
        first_place, first = self.problems[0]
        where = ".".join(str(part) for part in first_place)
        super().__init__(f"message {where}: {first}" if where else first)


class _ProblemError(Exception):
    def __init__(self, place: Place, message: str) -> None:
        super().__init__(message)
        self.place = place
        self.message = message


def read_messages(raw: object) -> tuple[Message, ...]:
    """The messages ``raw`` holds (a non-empty list, either dialect), normalised; :class:`MessagesError`."""
    if not isinstance(raw, list) or not raw:
        raise MessagesError([((), "a conversation is a non-empty list of chat messages")])
    if len(raw) > MAX_MESSAGES:
        raise MessagesError([((), f"a conversation holds at most {MAX_MESSAGES} messages, not {len(raw)}")])
    read: list[Message] = []
    problems: list[tuple[Place, str]] = []
    for index, item in enumerate(raw):
        try:
            read.extend(_message(item, index))
        except _ProblemError as problem:
            problems.append((problem.place, problem.message))
    if problems:
        raise MessagesError(problems)
    size = sum(
        len(message.content or "") + sum(len(c.arguments) for c in message.tool_calls) for message in read
    )
    if size > MAX_MESSAGE_CHARS:
        raise MessagesError(
            [((), f"a conversation holds at most {MAX_MESSAGE_CHARS:,} characters, not {size:,}")]
        )
    return tuple(read)


def _message(item: object, index: int) -> list[Message]:
    if not isinstance(item, dict):
        raise _ProblemError((index,), f"expected an object, got {type(item).__name__}")
    role: Role = item.get("role")  # type: ignore[assignment]  # checked on the next line
    if role not in _ROLES:
        raise _ProblemError((index, "role"), f"must be one of {', '.join(sorted(_ROLES))}")
    unknown = set(item) - {"role", "content", "tool_calls", "tool_call_id", "name"}
    if unknown:
        raise _ProblemError((index,), f"unknown field(s) {', '.join(sorted(unknown))}")
    name = _optional_text(item, "name", index)
    tool_call_id = _optional_text(item, "tool_call_id", index)
    content = item.get("content")
    calls = [
        _openai_call(call, (index, "tool_calls", n))
        for n, call in enumerate(_list(item, "tool_calls", index))
    ]
    results: list[Message] = []
    if isinstance(content, list):
        content, more_calls, results = _blocks(content, role, index)
        calls.extend(more_calls)
    elif content is not None and not isinstance(content, str):
        raise _ProblemError((index, "content"), "must be text or a list of content blocks")
    if calls and role != "assistant":
        raise _ProblemError((index,), "only an assistant message calls tools")
    if role == "tool" and tool_call_id is None:
        raise _ProblemError((index, "tool_call_id"), "a tool message names the call it answers")
    if content is None and not calls and not results:
        raise _ProblemError((index, "content"), "is missing")
    made = (
        []
        if content is None and not calls
        else [
            Message(role=role, content=content, tool_calls=tuple(calls), tool_call_id=tool_call_id, name=name)
        ]
    )
    return results + made  # a user message's tool results answer the calls before its own text


def _blocks(blocks: list[Any], role: str, index: int) -> tuple[str | None, list[ToolCall], list[Message]]:
    """Text, tool calls and tool results of a content-block list."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    results: list[Message] = []
    for number, block in enumerate(blocks):
        place: Place = (index, "content", number)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in _TEXT_BLOCKS and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use" and role == "assistant":
            calls.append(_anthropic_call(block, place))
        elif kind == "tool_result" and role == "user":
            results.append(_tool_result(block, place))
        else:
            raise _ProblemError(
                place,
                f"a '{kind}' block cannot be read here: only text, an assistant's tool_use and a user's "
                "tool_result",
            )
    return ("".join(texts) if texts else None), calls, results


def _openai_call(call: object, place: Place) -> ToolCall:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(function, dict):
        raise _ProblemError(place, "a tool call is {id, type: function, function: {name, arguments}}")
    call_id, name, arguments = call.get("id"), function.get("name"), function.get("arguments", "{}")
    if not isinstance(call_id, str) or not isinstance(name, str) or not name:
        raise _ProblemError(place, "a tool call has a text 'id' and a 'function.name'")
    return ToolCall(id=call_id, name=name, arguments=_arguments(arguments, place))


def _anthropic_call(block: dict[str, Any], place: Place) -> ToolCall:
    call_id, name = block.get("id"), block.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str) or not name:
        raise _ProblemError(place, "a tool_use block has a text 'id' and 'name'")
    return ToolCall(id=call_id, name=name, arguments=_arguments(block.get("input", {}), place))


def _arguments(value: object, place: Place) -> str:
    """Arguments as JSON text: a string as given (OpenAI's form), an object encoded (Anthropic's)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        raise _ProblemError(place, "a tool call's arguments are JSON") from None


def _tool_result(block: dict[str, Any], place: Place) -> Message:
    call_id, content = block.get("tool_use_id"), block.get("content", "")
    if not isinstance(call_id, str):
        raise _ProblemError(place, "a tool_result block names its 'tool_use_id'")
    if isinstance(content, list):
        parts = [
            part.get("text") if isinstance(part, dict) and part.get("type") == "text" else None
            for part in content
        ]
        if not all(isinstance(part, str) for part in parts):
            raise _ProblemError(place, "a tool_result's content is text or text blocks")
        content = "".join(part for part in parts if part is not None)
    if not isinstance(content, str):
        raise _ProblemError(place, "a tool_result's content is text or text blocks")
    if block.get("is_error") is True:
        content = f"[error] {content}"  # OpenAI's tool message has no error flag: the text says it
    return Message(role="tool", content=content, tool_call_id=call_id)


def _list(item: dict[str, Any], name: str, index: int) -> list[Any]:
    value = item.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _ProblemError((index, name), "must be a list")
    return value


def _optional_text(item: dict[str, Any], name: str, index: int) -> str | None:
    value = item.get(name)
    if value is not None and not isinstance(value, str):
        raise _ProblemError((index, name), "must be text")
    return value
