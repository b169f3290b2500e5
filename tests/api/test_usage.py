"""What an agent's replies say they spent: read from HTTP and OpenAI-compatible replies, stored per result and
summed in the summary; a reply that says nothing leaves it unknown (never 0). Latency over every case."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.factories import make_suite, results, start, wait_until_finished
from tests.support.agent_server import USAGE_MODEL, AgentBehaviour, AgentServer, Fault

QUESTIONS = [
    ("Is 2 even?", "true"),
    ("Is 3 even?", "false"),
    ("Is 10 even?", "true"),
    ("Is 7 even?", "false"),
]
ANSWERS = {"Is 2 even?": "yes", "Is 3 even?": "no", "Is 10 even?": "yes", "Is 7 even?": "no"}


@pytest.mark.parametrize("kind", ["http", "openai"])
def test_tokens_are_read_stored_and_summed(client: TestClient, kind: str) -> None:
    suite = make_suite(client, QUESTIONS)
    behaviour = AgentBehaviour(answers=ANSWERS, usage=True, faults={"Is 7 even?": Fault(status=400)})
    with AgentServer(behaviour) as agent:
        target: dict[str, Any] = (
            {"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1}
            if kind == "http"
            else {
                "type": "openai",
                "model": "gpt-test",
                "base_url": f"{agent.url}/v1",
                "api_key_env": None,
                "max_attempts": 1,
            }
        )
        created = start(client, suite_id=suite["id"], target=target)
        shown = wait_until_finished(client, created["id"])
    rows = {row["input"]: row for row in results(client, created["id"], limit=10)}
    answered = [question for question, _ in QUESTIONS if question != "Is 7 even?"]
    for question in answered:
        assert rows[question]["usage"] == {
            "input_tokens": len(question),
            "output_tokens": len(ANSWERS[question]),
            "model": USAGE_MODEL,
        }
    assert rows["Is 7 even?"]["usage"] is None  # an error said nothing: unknown, not 0
    usage = shown["summary"]["usage"]
    expected_in = sum(len(question) for question in answered)
    expected_out = sum(len(ANSWERS[question]) for question in answered)
    assert usage == {
        "cases": 3,
        "input_tokens": expected_in,
        "output_tokens": expected_out,
        "by_model": [
            {"model": USAGE_MODEL, "cases": 3, "input_tokens": expected_in, "output_tokens": expected_out}
        ],
    }
    latency = shown["summary"]["latency_ms"]
    assert latency["max"] is not None
    assert latency["max"] >= latency["p95"] >= latency["p50"]


def test_replies_that_say_nothing_leave_the_usage_unknown(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS)
    with AgentServer(AgentBehaviour(answers=ANSWERS)) as agent:
        created = start(client, suite_id=suite["id"], target={"type": "http", "url": f"{agent.url}/answer"})
        shown = wait_until_finished(client, created["id"])
    assert shown["summary"]["usage"] is None
    assert all(row["usage"] is None for row in results(client, created["id"], limit=10))
