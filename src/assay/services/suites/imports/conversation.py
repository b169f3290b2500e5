"""Chat messages in imported rows: kept as the row's input (read and normalised by :mod:`assay.chat`, as a
suite file's conversation input is: docs/conversations.md), or rendered into one text by one fixed rule
where a source's messages are a template rather than what the agent is sent (OpenAI Evals)."""

from __future__ import annotations

from typing import Any

from assay.chat import MessagesError, read_messages
from assay.services.suites.imports.records import UnsupportedError

__all__ = ["conversation_input", "message_text", "render_conversation"]


def conversation_input(messages: list[Any], first_number: int = 1) -> list[dict[str, Any]]:
    """The messages as a suite row's ``input`` (OpenAI's chat format); ``UnsupportedError`` naming the first
    message that cannot be kept (an image, a block of another kind)."""
    try:
        read = read_messages(messages)
    except MessagesError as exc:
        place, why = exc.problems[0]
        index = place[0] if place and isinstance(place[0], int) else 0
        raise UnsupportedError(f"message {first_number + index}", why) from None
    return [message.as_openai() for message in read]


def message_text(message: object, number: int) -> tuple[str, str]:
    """(role, text) of one chat message; ``UnsupportedError`` for content that is not text (an image)."""
    what = f"message {number}"
    if not isinstance(message, dict):
        raise UnsupportedError(what, f"expected an object, got {type(message).__name__}")
    role = message.get("role")
    if not isinstance(role, str) or not role.strip():
        raise UnsupportedError(what, "has no 'role'")
    content = message.get("content")
    if isinstance(content, str):
        return role, content
    if isinstance(content, list):
        texts = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            text = part.get("text") if isinstance(part, dict) else None
            if kind not in ("text", "input_text", "output_text") or not isinstance(text, str):
                raise UnsupportedError(what, f"has a '{kind}' content part; only text can be an Assay input")
            texts.append(text)
        return role, "".join(texts)
    if content is None and message.get("tool_calls"):
        raise UnsupportedError(what, "holds tool calls and no text; only text can be an Assay input")
    raise UnsupportedError(what, "has no text 'content'")


def render_conversation(messages: list[Any], first_number: int = 1) -> str:
    """The messages as one text: a lone user message is its text; otherwise ``[role]`` then the text, each
    message separated by a blank line (the rule docs/imports.md states)."""
    pairs = [message_text(message, first_number + index) for index, message in enumerate(messages)]
    if len(pairs) == 1 and pairs[0][0] == "user":
        return pairs[0][1]
    return "\n\n".join(f"[{role}]\n{text}" for role, text in pairs)
