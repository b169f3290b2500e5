"""Chat JSONL (``{"messages": [...]}`` per line, as fine-tuning files hold): the last assistant turn is the
expected output, the messages before it the input (a conversation: docs/conversations.md)."""

from __future__ import annotations

from typing import Any

from assay.services.suites.imports.conversation import conversation_input, message_text
from assay.services.suites.imports.reading import jsonl_records, text_of
from assay.services.suites.imports.records import ImportedRow, LineReport, UnsupportedError, put
from assay.services.suites.imports.session import Session

__all__ = ["import_chat_jsonl"]


def import_chat_jsonl(content: bytes, source: str, session: Session) -> None:
    """Rows of a chat JSONL file into ``session``."""
    for number, record in jsonl_records(text_of(content, source), source):
        report = session.line(("line", number))
        try:
            session.add_row(_row(record, report), report)
        except UnsupportedError as problem:
            session.unsupported(report, problem, whole_line=True)


def _row(record: dict[str, Any], report: LineReport) -> ImportedRow:
    messages = record.get("messages")
    if not isinstance(messages, list) or len(messages) < 2:
        raise UnsupportedError("the line", "needs 'messages' with at least one turn before the assistant's")
    last = messages[-1]
    if not isinstance(last, dict) or last.get("role") != "assistant":
        raise UnsupportedError(
            "the line", "its last message is not the assistant's, so there is no expected output"
        )
    _, expected = message_text(last, len(messages))
    before = conversation_input(messages[:-1])
    metadata: dict[str, Any] = {}
    # its other fields, and its content when not plain text (the parts joined make the expected text)
    extra = {
        name: value
        for name, value in last.items()
        if name != "role" and (name != "content" or not isinstance(value, str))
    }
    if extra:
        put(metadata, "expected_message", extra)
        report.metadata.append("the last assistant turn's other fields (as expected_message)")
    for name, value in record.items():
        if name != "messages":
            put(metadata, name, value)
            report.metadata.append(name)
    return ImportedRow(input=before, expected_output=expected, metadata=metadata)
