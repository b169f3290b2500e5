"""A case's conversation as files and the API give it: ``input`` as a list of chat messages and/or
``turns`` (scripted user messages with their own assertions), with ``stop_at_first_failure`` and
``max_seconds``; read into one record or refused with what is wrong (docs/conversations.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.chat import Message, MessagesError, read_messages
from assay.domain import (
    DEFAULT_CONVERSATION_SECONDS,
    MAX_CONVERSATION_SECONDS,
    MAX_TURNS,
    Assertions,
    Conversation,
    Turn,
)

__all__ = ["CONVERSATION_FIELDS", "MAX_TURN_CHARS", "is_conversation", "read_conversation"]

MAX_TURN_CHARS = 100_000
"""Characters of one scripted user turn."""
CONVERSATION_FIELDS = ("turns", "stop_at_first_failure", "max_seconds")
"""A case's fields beside ``input`` that belong to its conversation (never kept in its metadata)."""
_TURN_FIELDS = frozenset({"content", "assert", "threshold"})


def is_conversation(record: Mapping[str, Any]) -> bool:
    """Whether a case record holds a conversation: a list ``input`` or any of :data:`CONVERSATION_FIELDS`."""
    return isinstance(record.get("input"), list) or any(name in record for name in CONVERSATION_FIELDS)


def read_conversation(record: Mapping[str, Any]) -> Conversation | str:
    """The conversation a case record gives (see :func:`is_conversation`), or what is wrong with it.

    With ``turns``, ``input`` is the history before them (a list of messages) or absent;
    ``stop_at_first_failure`` and ``max_seconds`` are for cases with turns only.
    """
    input_value, turns = record.get("input"), record.get("turns")
    messages: tuple[Message, ...] = ()
    if isinstance(input_value, list):
        try:
            messages = read_messages(input_value)
        except MessagesError as exc:
            return f"'input': {exc}"
    elif input_value is not None:
        return "with 'turns', 'input' is the conversation before them (a list of messages) or left out"
    if turns is None:
        if "stop_at_first_failure" in record or "max_seconds" in record:
            return "'stop_at_first_failure' and 'max_seconds' are for cases with 'turns'"
        return Conversation(messages)
    read_turns = _turns(turns)
    if isinstance(read_turns, str):
        return read_turns
    stop = record.get("stop_at_first_failure", False)
    if not isinstance(stop, bool):
        return "'stop_at_first_failure' is true or false"
    seconds = record.get("max_seconds", DEFAULT_CONVERSATION_SECONDS)
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not 0 < seconds <= MAX_CONVERSATION_SECONDS
    ):
        return f"'max_seconds' is a number of seconds above 0 and at most {MAX_CONVERSATION_SECONDS:g}"
    return Conversation(messages, read_turns, stop, float(seconds))


def _turns(raw: object) -> tuple[Turn, ...] | str:
    if not isinstance(raw, list) or not raw:
        return "'turns' is a non-empty list of user messages"
    if len(raw) > MAX_TURNS:
        return f"'turns' holds at most {MAX_TURNS} turns, not {len(raw)}"
    turns: list[Turn] = []
    for number, item in enumerate(raw, 1):
        turn = _turn(item)
        if isinstance(turn, str):
            return f"turn {number}: {turn}"
        turns.append(turn)
    return tuple(turns)


def _turn(item: object) -> Turn | str:
    if isinstance(item, str):
        item = {"content": item}
    if not isinstance(item, dict):
        return "a turn is a user message's text, or {content, assert?, threshold?}"
    unknown = set(item) - _TURN_FIELDS
    if unknown:
        return f"unknown field(s) {', '.join(sorted(unknown))} (a turn holds content, assert, threshold)"
    content = item.get("content")
    if not isinstance(content, str) or not content.strip():
        return "'content' is the user message's text"
    if len(content) > MAX_TURN_CHARS:
        return f"'content' holds at most {MAX_TURN_CHARS:,} characters"
    assertions = _assertions(item)
    if isinstance(assertions, str):
        return assertions
    return Turn(content, assertions)


def _assertions(item: dict[str, Any]) -> Assertions | str | None:
    from assay.graders.composite.assertions import InvalidAssertionsError, read_assertions

    if "assert" not in item and "threshold" not in item:
        return None
    try:
        return read_assertions(item.get("assert"), item.get("threshold"))
    except InvalidAssertionsError as exc:
        return "; ".join(problem.message for problem in exc.problems[:5])
