"""Conversations from ``assay eval`` as a real process against a real chat agent on loopback that keeps no
state of its own (tests/support/chat_agent.py): chat messages as input (OpenAI and Anthropic), multi-turn
cases through the OpenAI-compatible target, the HTTP target's ``{{messages}}`` and a Python callable, with
the agent's own tool calls carried in the history, stop-at-first-failure and the time bound
(docs/conversations.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.chat_agent import ChatAgent
from tests.support.results import read_results

ASSAY = [sys.executable, "-m", "assay.cli"]


@pytest.fixture
def agent() -> Iterator[ChatAgent]:
    with ChatAgent(slow_s=3.0) as server:
        yield server


def _eval(folder: Path, target: dict[str, Any], cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    (folder / "suite.jsonl").write_text("".join(json.dumps(case) + "\n" for case in cases))
    config = {
        "suites": ["suite.jsonl"],
        "target": target,
        "grader": {"id": "string-match"},
        "outputs": {"results": "results.jsonl"},
    }
    (folder / "assay.yaml").write_text(json.dumps(config))  # JSON is YAML
    ran = subprocess.run(
        [*ASSAY, "eval"], capture_output=True, text=True, timeout=120, check=False, cwd=folder
    )
    assert ran.returncode in (0, 1), ran.stderr
    return {result["key"]: result for result in read_results(folder / "results.jsonl")}


def _contains(text: str) -> dict[str, Any]:
    return {"grader_id": "contains", "expected_output": text}


def test_openai_target_sends_conversations_and_turns_with_the_agents_own_replies(
    tmp_path: Path, agent: ChatAgent
) -> None:
    target = {"type": "openai", "base_url": agent.url + "/v1", "model": "m", "api_key_env": None}
    cases = [
        {"key": "plain", "input": "hello", "expected_output": "ok"},
        {
            "key": "history",
            "input": [
                {"role": "user", "content": "My name is Ada."},
                {"role": "assistant", "content": "Nice to meet you, Ada."},
                {"role": "user", "content": "What is my name?"},
            ],
            "expected_output": "Your name is Ada.",
        },
        {
            "key": "anthropic",
            "input": [
                {"role": "user", "content": "Where is order 7?"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "lookup_order", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "shipped"}],
                },
            ],
            "expected_output": "The tool lookup_order says: shipped",
        },
        {
            "key": "remembers",
            "turns": [
                "My name is Bob.",
                {"content": "What is my name?", "assert": [_contains("Bob")]},
                {"content": "How many questions?", "assert": [_contains("3 questions")]},
            ],
        },
        {
            "key": "forgets-ends-early",
            "turns": [{"content": "What is my name?", "assert": [_contains("Zed")]}, "My name is Zed."],
            "stop_at_first_failure": True,
        },
        {
            "key": "forgets-goes-on",
            "turns": [{"content": "What is my name?", "assert": [_contains("Zed")]}, "My name is Zed."],
            "expected_output": "Nice to meet you, Zed.",
        },
    ]
    by_key = _eval(tmp_path, target, cases)
    assert {key: result["passed"] for key, result in by_key.items()} == {
        "plain": True,
        "history": True,
        "anthropic": True,
        "remembers": True,
        "forgets-ends-early": False,
        "forgets-goes-on": False,
    }
    remembers = by_key["remembers"]["details"]["turns"]
    assert [turn["agent_response"] for turn in remembers] == [
        "Nice to meet you, Bob.",
        "Your name is Bob.",
        "You asked 3 questions.",
    ]
    assert [turn["passed"] for turn in remembers] == [True, True, True]
    assert len(by_key["forgets-ends-early"]["details"]["turns"]) == 1
    goes_on = by_key["forgets-goes-on"]
    assert [turn["passed"] for turn in goes_on["details"]["turns"]] == [False, True]
    assert goes_on["agent_response"] == "Nice to meet you, Zed."  # its own check held; a turn's did not
    assert goes_on["reason"].startswith("turn 1 failed")
    # The agent was sent every message as it is: the Anthropic tool call as an OpenAI one.
    sent = next(request for request in agent.requests if request[-1]["role"] == "tool")
    assert sent[1]["tool_calls"][0]["function"] == {"name": "lookup_order", "arguments": "{}"}
    assert len(agent.requests) == 3 + 3 + 1 + 2


def test_http_target_carries_the_tool_calls_its_replies_made_into_the_next_turn(
    tmp_path: Path, agent: ChatAgent
) -> None:
    target = {
        "type": "http",
        "url": agent.url + "/chat",
        "body_template": {"messages": "{{messages}}"},
        "response_path": "output",
    }
    cases = [
        {
            "key": "tools",
            "turns": [
                {"content": "Where is order 12?", "assert": [_contains("Order 12 is shipped")]},
                {"content": "Which tool did you use?", "assert": [_contains("lookup_order")]},
            ],
            # the whole conversation's trajectory: the agent looked the order up once
            "assert": [
                {"grader_id": "tool-called", "config": {"tool": "lookup_order", "at_least": 1, "at_most": 1}}
            ],
        },
        {
            "key": "no-tools",
            "turns": [{"content": "Which tool did you use?", "assert": [_contains("no tool")]}],
        },
    ]
    by_key = _eval(tmp_path, target, cases)
    tools = by_key["tools"]
    assert tools["passed"], tools
    assert [turn["passed"] for turn in tools["details"]["turns"]] == [True, True]
    assert by_key["no-tools"]["passed"], by_key["no-tools"]
    second = next(
        request
        for request in agent.requests
        if request[-1]["content"] == "Which tool did you use?" and len(request) > 1
    )
    assert [message["role"] for message in second] == ["user", "assistant", "tool", "assistant", "user"]
    assert second[1]["tool_calls"][0]["function"]["name"] == "lookup_order"


def test_a_python_callable_is_given_the_messages_as_a_list(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "def reply(asked):\n"
        "    if isinstance(asked, str):\n"
        "        return 'text'\n"
        "    return ' | '.join(m['role'] + ':' + (m['content'] or '') for m in asked)\n"
    )
    cases = [
        {"key": "text", "input": "hi", "expected_output": "text"},
        {
            "key": "messages",
            "input": [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": "b"},
                {"role": "user", "content": "c"},
            ],
            "expected_output": "user:a | assistant:b | user:c",
        },
        {
            "key": "turns",
            "turns": ["x", {"content": "y", "assert": [_contains("user:x | assistant:user:x | user:y")]}],
        },
    ]
    by_key = _eval(tmp_path, {"type": "python", "callable": "agent:reply"}, cases)
    assert {key: result["passed"] for key, result in by_key.items()} == {
        "text": True,
        "messages": True,
        "turns": True,
    }


def test_a_case_past_its_time_bound_ends_as_a_conversation_timeout(tmp_path: Path, agent: ChatAgent) -> None:
    target = {
        "type": "openai",
        "base_url": agent.url + "/v1",
        "model": "m",
        "api_key_env": None,
        "timeout": 30,
    }
    cases = [
        {"key": "slow", "turns": ["My name is Al.", "be slow", "What is my name?"], "max_seconds": 1},
        {
            "key": "quick",
            "turns": ["My name is Al.", {"content": "What is my name?", "assert": [_contains("Al")]}],
        },
    ]
    by_key = _eval(tmp_path, target, cases)
    slow = by_key["slow"]
    assert (slow["passed"], slow["error"]) == (False, "conversation_timeout")
    assert "1 of 3 answered" in slow["error_detail"]
    assert by_key["quick"]["passed"], by_key["quick"]
    assert not any(
        request[-1]["content"] == "What is my name?" and len(request) == 5 for request in agent.requests
    )


def test_a_file_of_answers_cannot_answer_turns_and_says_so(tmp_path: Path) -> None:
    answers = [{"key": "one", "agent_response": "ok"}, {"key": "turns", "agent_response": "ok"}]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(answer) + "\n" for answer in answers))
    cases = [
        {"key": "one", "input": [{"role": "user", "content": "hi"}], "expected_output": "ok"},
        {"key": "turns", "turns": [{"content": "hi", "assert": [_contains("ok")]}]},
    ]
    by_key = _eval(tmp_path, {"type": "responses", "path": "answers.jsonl"}, cases)
    assert by_key["one"]["passed"]
    turns = by_key["turns"]
    assert (turns["passed"], turns["error"]) == (False, "target_error")
    assert "needs an agent to answer its turns" in turns["error_detail"]
