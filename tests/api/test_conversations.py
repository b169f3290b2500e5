"""Conversations through the API on SQLite and PostgreSQL: cases whose input is chat messages (OpenAI or
Anthropic) and multi-turn cases, stored without loss, exported, and run against a real chat agent on
loopback that knows only what the messages it is sent say (docs/conversations.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.factories import results, start, wait_until_finished
from tests.support.chat_agent import ChatAgent

OPENAI_HISTORY = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "My name is Ada."},
    {"role": "assistant", "content": "Nice to meet you, Ada."},
    {"role": "user", "content": "What is my name?"},
]
ANTHROPIC_TOOL = [
    {"role": "user", "content": "Where is order 7?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": {"order": 7}},
        ],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "shipped"}]},
]
TURNS_CASE: dict[str, Any] = {
    "key": "remembers",
    "turns": [
        "My name is Bob.",
        {"content": "What is my name?", "assert": [{"grader_id": "contains", "expected_output": "Bob"}]},
        {
            "content": "How many questions?",
            "assert": [{"grader_id": "contains", "expected_output": "3 questions"}],
        },
    ],
}
STOPS_CASE: dict[str, Any] = {
    "key": "stops",
    "turns": [
        {"content": "What is my name?", "assert": [{"grader_id": "contains", "expected_output": "Zed"}]},
        "My name is Zed.",
    ],
    "stop_at_first_failure": True,
}


@pytest.fixture
def agent() -> Iterator[ChatAgent]:
    with ChatAgent() as server:
        yield server


def _suite(client: TestClient, cases: list[dict[str, Any]]) -> int:
    response = client.post("/api/suites", json={"name": "chats", "cases": cases})
    assert response.status_code == 201, response.text
    suite_id: int = response.json()["data"]["id"]
    return suite_id


def _cases() -> list[dict[str, Any]]:
    return [
        {"key": "history", "input": OPENAI_HISTORY, "expected_output": "Your name is Ada."},
        {"key": "tool", "input": ANTHROPIC_TOOL, "expected_output": "The tool lookup_order says: shipped"},
        TURNS_CASE,
        STOPS_CASE,
    ]


def test_conversation_cases_are_stored_normalised_and_exported_as_messages(client: TestClient) -> None:
    suite_id = _suite(client, _cases())
    listed = client.get(f"/api/suites/{suite_id}/cases").json()["data"]["cases"]
    history, tool, turns, stops = listed
    assert history["messages"] == [{**message} for message in OPENAI_HISTORY]
    assert history["input"].startswith("[system]\nYou are a support agent.")
    assert tool["messages"][1] == {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {
                "id": "toolu_1",
                "type": "function",
                "function": {"name": "lookup_order", "arguments": '{"order":7}'},
            }
        ],
    }
    assert tool["messages"][2] == {"role": "tool", "content": "shipped", "tool_call_id": "toolu_1"}
    assert turns["messages"] is None
    assert [turn["content"] for turn in turns["turns"]] == [
        "My name is Bob.",
        "What is my name?",
        "How many questions?",
    ]
    assert [(a["grader_id"], a["expected_output"]) for a in turns["turns"][1]["assert"]] == [
        ("contains", "Bob")
    ]
    assert (stops["stop_at_first_failure"], stops["max_seconds"]) == (True, 300.0)
    exported = client.get(f"/api/suites/{suite_id}/export?format=jsonl")
    assert exported.status_code == 200, exported.text
    lines = [json.loads(line) for line in exported.text.splitlines()]
    assert lines[0]["input"] == OPENAI_HISTORY
    assert lines[2]["turns"][0] == {"content": "My name is Bob."}
    again = client.post(
        "/api/suites/import",
        data={"name": "again"},
        files={"file": ("chats.jsonl", exported.content, "application/x-ndjson")},
    )
    assert again.status_code == 201, again.text
    copied = client.get(f"/api/suites/{again.json()['data']['id']}/cases").json()["data"]["cases"]
    drop = ("id",)
    assert [{k: v for k, v in case.items() if k not in drop} for case in copied] == [
        {k: v for k, v in case.items() if k not in drop} for case in listed
    ]


@pytest.mark.parametrize(
    ("case", "says"),
    [
        (
            {
                "input": [{"role": "user", "content": [{"type": "image", "source": {}}]}],
                "expected_output": "x",
            },
            "image",
        ),
        ({"input": [{"role": "tool", "content": "x"}], "expected_output": "x"}, "tool_call_id"),
        ({"input": [], "expected_output": "x"}, "at least 1"),
        ({"turns": [{"content": "hi", "extra": 1}]}, "extra"),
        ({"input": "hello"}, "Field required"),
        ({"input": "hello", "expected_output": "x", "max_seconds": 5}, "are for cases with 'turns'"),
        ({"turns": ["hi"], "max_seconds": 99999}, "max_seconds"),
        ({"turns": ["hi"] * 51}, "51"),
    ],
)
def test_a_conversation_that_cannot_be_read_is_a_422_envelope(
    client: TestClient, case: dict[str, Any], says: str
) -> None:
    response = client.post("/api/suites", json={"name": "bad", "cases": [case]})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert says in json.dumps(response.json())


def test_an_evaluation_sends_the_messages_and_runs_the_turns_with_the_agents_own_history(
    client: TestClient, agent: ChatAgent
) -> None:
    suite_id = _suite(client, _cases())
    target = {"type": "openai", "base_url": agent.url + "/v1", "model": "m", "api_key_env": None}
    started = start(client, suite_id=suite_id, target=target, grader_id="string-match")
    finished = wait_until_finished(client, started["id"])
    assert finished["status"] == "completed", finished
    by_key = {result["key"]: result for result in results(client, started["id"])}
    assert by_key["history"]["passed"], by_key["history"]
    assert by_key["tool"]["passed"], by_key["tool"]
    remembers = by_key["remembers"]
    assert remembers["passed"], remembers
    assert [turn["agent_response"] for turn in remembers["details"]["turns"]] == [
        "Nice to meet you, Bob.",
        "Your name is Bob.",
        "You asked 3 questions.",
    ]
    stops = by_key["stops"]
    assert not stops["passed"]
    assert stops["reason"].startswith("turn 1 failed")
    assert len(stops["details"]["turns"]) == 1  # the second turn was never sent
    # The third turn of 'remembers' carried the whole history the agent produced, its replies included.
    third = next(r for r in agent.requests if r[-1]["content"] == "How many questions?")
    assert [m["content"] for m in third] == [
        "My name is Bob.",
        "Nice to meet you, Bob.",
        "What is my name?",
        "Your name is Bob.",
        "How many questions?",
    ]
    assert len(agent.requests) == 2 + 3 + 1


def test_one_result_carries_its_case_s_input_messages(client: TestClient, agent: ChatAgent) -> None:
    suite_id = _suite(client, _cases())
    target = {"type": "openai", "base_url": agent.url + "/v1", "model": "m", "api_key_env": None}
    started = start(client, suite_id=suite_id, target=target, grader_id="string-match")
    assert wait_until_finished(client, started["id"])["status"] == "completed"
    by_key = {result["key"]: result for result in results(client, started["id"])}
    assert "messages" not in by_key["tool"]  # lists stay lean: only the one-result route reads the case

    def one(key: str) -> dict[str, Any]:
        response = client.get(f"/api/evaluations/{started['id']}/results/{by_key[key]['case_id']}")
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()["data"]
        return data

    tool = one("tool")
    assert tool["input"].startswith("[user]\nWhere is order 7?")  # the transcript stays
    assert tool["messages"] == [
        {
            "role": "user",
            "content": "Where is order 7?",
            "tool_calls": [],
            "tool_call_id": None,
            "name": None,
        },
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [{"id": "toolu_1", "name": "lookup_order", "arguments": '{"order":7}'}],
            "tool_call_id": None,
            "name": None,
        },
        {"role": "tool", "content": "shipped", "tool_calls": [], "tool_call_id": "toolu_1", "name": None},
    ]
    assert [message["role"] for message in one("history")["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
    ]
    remembers = one("remembers")
    assert remembers["messages"] is None  # turns only: they are the result's details.turns
    assert len(remembers["details"]["turns"]) == 3


def test_a_target_trial_sends_a_conversations_first_call(client: TestClient, agent: ChatAgent) -> None:
    suite_id = _suite(client, _cases())
    target = {"type": "http", "url": agent.url + "/chat", "body_template": {"messages": "{{messages}}"}}
    body = {"suite_id": suite_id, "target": target, "grader_id": "string-match"}
    history = client.post("/api/evaluations/test-target", json={**body, "case_number": 1})
    assert history.status_code == 200, history.text
    assert history.json()["data"]["answer"] == "Your name is Ada."
    turns = client.post("/api/evaluations/test-target", json={**body, "case_number": 3})
    assert turns.status_code == 200, turns.text
    assert agent.requests[-1] == [{"role": "user", "content": "My name is Bob."}]  # its first turn, once
    assert turns.json()["data"]["answer"] == "Nice to meet you, Bob."
