"""One chat message as every part of Assay holds it, whatever dialect it was read from.

The shape is OpenAI's chat format (what the OpenAI-compatible target sends as it is): a role, text content,
an assistant's tool calls and a tool message's ``tool_call_id``. Anthropic's blocks are read into it by
:mod:`assay.chat.reading`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Role = Literal["system", "developer", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """A tool an assistant message calls: its id, name and arguments (JSON text, as OpenAI carries them)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    arguments: str = "{}"

    def as_openai(self) -> dict[str, Any]:
        """The call in an OpenAI assistant message's ``tool_calls``."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


class Message(BaseModel):
    """A chat message: ``content`` is ``None`` only for an assistant message that only calls tools."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    """The call a ``tool`` message answers."""
    name: str | None = None

    def as_openai(self) -> dict[str, Any]:
        """The message in OpenAI's chat format, fields it does not have left out (also the stored form)."""
        message: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.as_openai() for call in self.tool_calls]
        if self.tool_call_id is not None:
            message["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            message["name"] = self.name
        return message

    @property
    def text(self) -> str:
        """The content as one line of a transcript: the text, and the tools it calls."""
        calls = ", ".join(f"{call.name}({call.arguments})" for call in self.tool_calls)
        content = self.content or ""
        if calls:
            return f"{content}\n→ {calls}" if content else f"→ {calls}"
        return content


def transcript(messages: Iterable[Message]) -> str:
    """The messages as one text for people (lists, search, JUnit names): a lone user message is its text;
    otherwise ``[role]`` then the text, messages separated by a blank line (the imports' rule)."""
    listed = list(messages)
    if len(listed) == 1 and listed[0].role == "user" and not listed[0].tool_calls:
        return listed[0].content or ""
    return "\n\n".join(f"[{message.role}]\n{message.text}" for message in listed)
