"""Chat messages read from OpenAI's format and Anthropic's content blocks into one record; what cannot be kept
is refused with its place (docs/conversations.md)."""

from __future__ import annotations

import pytest

from assay.chat import MAX_MESSAGES, Message, MessagesError, ToolCall, read_messages, transcript


def test_openai_messages_are_kept_as_they_are() -> None:
    given = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Where is order 7?", "name": "ada"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"id": 7}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
    ]
    read = read_messages(given)
    assert read[2].tool_calls == (ToolCall(id="c1", name="lookup", arguments='{"id": 7}'),)
    assert [message.as_openai() for message in read] == given


def test_anthropic_blocks_become_tool_calls_and_tool_messages_in_order() -> None:
    read = read_messages(
        [
            {"role": "user", "content": [{"type": "text", "text": "Refund order 7"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"id": 7}},
                    {"type": "tool_use", "id": "t2", "name": "refund", "input": {"id": 7}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "paid"}],
                    },
                    {"type": "tool_result", "tool_use_id": "t2", "content": "no", "is_error": True},
                    {"type": "text", "text": "Well?"},
                ],
            },
        ]
    )
    assert read == (
        Message(role="user", content="Refund order 7"),
        Message(
            role="assistant",
            content="Checking.",
            tool_calls=(
                ToolCall(id="t1", name="lookup", arguments='{"id":7}'),
                ToolCall(id="t2", name="refund", arguments='{"id":7}'),
            ),
        ),
        Message(role="tool", content="paid", tool_call_id="t1"),
        Message(role="tool", content="[error] no", tool_call_id="t2"),
        Message(role="user", content="Well?"),
    )
    assert transcript(read).startswith("[user]\nRefund order 7\n\n[assistant]\nChecking.\n→ lookup(")
    assert transcript(read[:1]) == "Refund order 7"


@pytest.mark.parametrize(
    ("given", "place", "says"),
    [
        ([], "", "non-empty list"),
        ("hello", "", "non-empty list"),
        ([{"role": "robot", "content": "x"}], "message 0.role", "must be one of"),
        (
            [{"role": "user", "content": [{"type": "image", "source": {}}]}],
            "message 0.content.0",
            "'image' block",
        ),
        (
            [{"role": "user", "content": "x"}, {"role": "tool", "content": "x"}],
            "message 1.tool_call_id",
            "names the call",
        ),
        (
            [{"role": "user", "content": [{"type": "tool_use", "id": "a", "name": "b"}]}],
            "message 0.content.0",
            "tool_use",
        ),
        (
            [{"role": "user", "tool_calls": [{"id": "a", "function": {"name": "b"}}]}],
            "message 0",
            "only an assistant",
        ),
        ([{"role": "assistant"}], "message 0.content", "is missing"),
        ([{"role": "user", "content": "x", "extra": 1}], "message 0", "unknown field(s) extra"),
        ([{"role": "user", "content": 3}], "message 0.content", "text or a list"),
    ],
)
def test_what_cannot_be_kept_is_refused_with_its_place(given: object, place: str, says: str) -> None:
    with pytest.raises(MessagesError) as caught:
        read_messages(given)
    assert str(caught.value).startswith(place)
    assert says in str(caught.value)


def test_every_bad_message_is_listed_and_sizes_are_capped() -> None:
    with pytest.raises(MessagesError) as caught:
        read_messages([{"role": "x"}, {"role": "user", "content": "fine"}, {"role": "user", "content": 1}])
    assert [place for place, _ in caught.value.problems] == [(0, "role"), (2, "content")]
    with pytest.raises(MessagesError, match=f"at most {MAX_MESSAGES} messages"):
        read_messages([{"role": "user", "content": "x"}] * (MAX_MESSAGES + 1))
    with pytest.raises(MessagesError, match="at most 1,000,000 characters"):
        read_messages(
            [{"role": "user", "content": "x" * 600_000}, {"role": "user", "content": "y" * 400_001}]
        )
