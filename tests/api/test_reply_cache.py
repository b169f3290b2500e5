"""Evaluations that use the reply cache, on a server with a real agent on loopback (both databases)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.factories import make_suite, recorded, results, start, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer, Fault

QUESTIONS = [(f"Is {n} even?", "true" if n % 2 == 0 else "false") for n in range(12)]
ANSWERS = {question: "yes" if expected == "true" else "no" for question, expected in QUESTIONS}


def finished(client: TestClient, **body: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    created = start(client, **body)
    shown = wait_until_finished(client, created["id"])
    assert shown["status"] == "completed", shown
    return shown, sorted(results(client, created["id"], limit=100), key=lambda row: row["number"])


def test_a_rerun_with_the_cache_asks_the_agent_only_what_it_has_not_answered(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS)
    behaviour = AgentBehaviour(answers=ANSWERS, faults={"Is 3 even?": Fault(status=500, times=1)})
    with AgentServer(behaviour) as agent:
        target = {"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1}
        first, rows = finished(client, suite_id=suite["id"], target=target, reply_cache="record")
        assert first["reply_cache"] == "record"
        assert len(agent.requests) == 12
        assert not any(row["cached"] for row in rows)
        assert rows[3]["error"].startswith("http_500")

        again, rows = finished(client, suite_id=suite["id"], target=target, reply_cache="record")
        assert len(agent.requests) == 13  # only the case that errored: errors are never cached
        assert [row["cached"] for row in rows] == [number != 3 for number in range(12)]
        assert again["summary"]["passed"] == 12
        assert rows[0]["latency_ms"] is not None

        # Another target (its URL differs) shares nothing; nor does a run without the cache.
        other = {**target, "url": f"{agent.url}/other"}
        _, rows = finished(client, suite_id=suite["id"], target=other, reply_cache="record")
        assert len(agent.requests) == 25
        _, rows = finished(client, suite_id=suite["id"], target=target)
        assert len(agent.requests) == 37
        assert not any(row["cached"] for row in rows)

        replayed, rows = finished(client, suite_id=suite["id"], target=target, reply_cache="replay")
        assert len(agent.requests) == 37  # replay never calls the agent
        assert all(row["cached"] for row in rows)
        assert replayed["summary"]["passed"] == 12


def test_replay_fails_closed_on_a_miss_and_recorded_targets_take_no_cache(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS)
    with AgentServer(AgentBehaviour(answers=ANSWERS)) as agent:
        target = {"type": "http", "url": f"{agent.url}/fresh", "max_attempts": 1}
        created = start(client, suite_id=suite["id"], target=target, reply_cache="replay")
        shown = wait_until_finished(client, created["id"])
        assert agent.requests == []
    rows = results(client, created["id"], limit=100)
    assert {row["error"] for row in rows} <= {"cache_miss"}
    assert shown["summary"]["passed"] == 0
    response = client.post(
        "/api/evaluations",
        json={
            "suite_id": suite["id"],
            "grader_id": "true-false",
            "target": recorded(["yes"] * 12),
            "reply_cache": "record",
        },
    )
    assert response.status_code == 422
    assert "reply_cache" in response.text
