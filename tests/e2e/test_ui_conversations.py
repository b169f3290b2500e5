"""Conversations seen in the web UI (issue 26): a case whose input is chat messages shows them as a
conversation (roles, text, the assistant's tool calls with their arguments as JSON, the tool results), a
multi-turn case keeps showing its turns, and a text case its text; run against the real chat agent
(tests/support/chat_agent.py) on loopback, through a real ``assay serve`` and Chromium."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import AssayServer
from tests.support.chat_agent import ChatAgent
from tests.support.navigation import open_in_app

pytestmark = pytest.mark.browser

# Anthropic blocks, stored and shown as OpenAI messages: the tool_use a call, the tool_result a tool message.
TOOL_CONVERSATION = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "Where is order 7?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "lookup_order",
                "input": {"order": 7, "fields": ["status"]},
            },
        ],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "shipped"}]},
]


@pytest.fixture(scope="module")
def chat_agent() -> Iterator[ChatAgent]:
    with ChatAgent() as served:
        yield served


def test_the_case_panel_shows_a_conversation_input_its_turns_and_a_text_input(
    page: Page, assay: AssayServer, chat_agent: ChatAgent
) -> None:
    cases = [
        {"key": "tool", "input": TOOL_CONVERSATION, "expected_output": "The tool lookup_order says: shipped"},
        {
            "key": "turns",
            "turns": [
                "My name is Bob.",
                {
                    "content": "What is my name?",
                    "assert": [{"grader_id": "contains", "expected_output": "Bob"}],
                },
            ],
        },
        {"key": "text", "input": "How many questions?", "expected_output": "You asked 1 questions."},
    ]
    suite = {"name": f"chats {uuid.uuid4().hex[:8]}", "cases": cases}
    suite_id = int(assay.data(assay.client.post("/api/suites", json=suite))["id"])
    target = {"type": "openai", "base_url": chat_agent.url + "/v1", "model": "m", "api_key_env": None}
    body = {"suite_id": suite_id, "grader_id": "string-match", "target": target, "name": "chats"}
    evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
    assert assay.wait_for(evaluation_id)["status"] == "completed"
    rows = assay.data(assay.client.get(f"/api/evaluations/{evaluation_id}/results"))["results"]
    case_ids = {row["key"]: row["case_id"] for row in rows}

    page.goto(f"/evaluations/{evaluation_id}?case={case_ids['tool']}")
    conversation = page.get_by_test_id("case-panel").get_by_test_id("input-conversation")
    messages = conversation.get_by_test_id("input-message")
    expect(messages).to_have_count(4)
    assert [messages.nth(i).get_attribute("data-role") for i in range(4)] == [
        "system",
        "user",
        "assistant",
        "tool",
    ]
    expect(messages.nth(1).get_by_test_id("message-text")).to_have_text("Where is order 7?")
    assistant = messages.nth(2)
    expect(assistant.get_by_test_id("message-text")).to_have_text("Let me look.")
    call = assistant.get_by_test_id("message-tool-call")
    expect(call).to_contain_text("lookup_order")
    expect(call).to_contain_text("id toolu_1")
    expect(call.get_by_test_id("call-arguments")).to_have_text(
        '{\n  "order": 7,\n  "fields": [\n    "status"\n  ]\n}'
    )
    expect(messages.nth(3)).to_contain_text("answers toolu_1")
    expect(messages.nth(3).get_by_test_id("message-text")).to_have_text("shipped")

    # A multi-turn case: its turns as they went (no input messages of its own).
    open_in_app(page, f"/evaluations/{evaluation_id}?case={case_ids['turns']}")
    panel = page.get_by_test_id("case-panel")
    turns = panel.get_by_test_id("conversation-turn")
    expect(turns).to_have_count(2)
    expect(turns.nth(1)).to_contain_text("What is my name?")
    expect(turns.nth(1)).to_contain_text("Your name is Bob.")
    expect(panel.get_by_test_id("input-conversation")).to_have_count(0)

    # A text input is its text, as before.
    open_in_app(page, f"/evaluations/{evaluation_id}?case={case_ids['text']}")
    panel = page.get_by_test_id("case-panel")
    expect(panel.get_by_label("input", exact=True)).to_have_text("How many questions?")
    expect(panel.get_by_test_id("input-conversation")).to_have_count(0)
