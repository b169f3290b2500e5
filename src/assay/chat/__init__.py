"""Chat messages: the typed record and the reader of the OpenAI and Anthropic dialects.

See docs/conversations.md.
"""

from assay.chat.messages import Message, Role, ToolCall, transcript
from assay.chat.reading import MAX_MESSAGE_CHARS, MAX_MESSAGES, MessagesError, read_messages

__all__ = [
    "MAX_MESSAGES",
    "MAX_MESSAGE_CHARS",
    "Message",
    "MessagesError",
    "Role",
    "ToolCall",
    "read_messages",
    "transcript",
]
