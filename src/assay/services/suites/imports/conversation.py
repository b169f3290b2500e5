"""Chat messages as one input text: an Assay input is a string (chat inputs are a later issue), so a
conversation is rendered into the text by one fixed rule, and the messages themselves are kept in metadata."""

from __future__ import annotations

from typing import Any

from assay.services.suites.imports.records import UnsupportedError

__all__ = ["message_text", "render_conversation"]


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
