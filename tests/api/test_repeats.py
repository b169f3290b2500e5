"""Evaluations that ask each case several times (``repeats``), on a server with a real, seeded flaky agent on
loopback (both databases): one result per (case, repeat), resumed and cached per (case, repeat)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.config import Settings
from tests.factories import make_suite, results, start, wait_until_done, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer

QUESTIONS = [(f"Is {n} even?", "true" if n % 2 == 0 else "false") for n in range(6)]
ANSWERS = {question: "yes" if expected == "true" else "no" for question, expected in QUESTIONS}
CHANCES = {question: (0.0, 0.5, 1.0)[n % 3] for n, (question, _) in enumerate(QUESTIONS)}


def flaky_agent() -> AgentServer:
    return AgentServer(AgentBehaviour(answers=ANSWERS, pass_chance=CHANCES, wrong="maybe", seed=3))


def finished(client: TestClient, **body: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    created = start(client, **body)
    shown = wait_until_finished(client, created["id"])
    assert shown["status"] == "completed", shown
    return shown, results(client, created["id"], limit=500)


def test_each_case_is_asked_repeats_times_and_kept_per_repeat(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS)
    with flaky_agent() as agent:
        target = {"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1}
        shown, rows = finished(client, suite_id=suite["id"], target=target, repeats=4)
        assert shown["repeats"] == 4
        assert shown["progress"] == {"done": 24, "total": 24}
        assert Counter(request.input for request in agent.requests) == {q: 4 for q, _ in QUESTIONS}
    # In case order, then repeat order, each (case, repeat) once.
    assert [(row["number"], row["repeat"]) for row in rows] == [(n, r) for n in range(1, 7) for r in range(4)]
    by_case = {n: [row["passed"] for row in rows if row["number"] == n] for n in range(1, 7)}
    assert by_case[1] == by_case[4] == [False] * 4  # chance 0: never right
    assert by_case[3] == by_case[6] == [True] * 4  # chance 1: always
    assert shown["summary"]["passed"] == sum(row["passed"] for row in rows)
    config = client.get(f"/api/evaluations/{shown['id']}/config").json()["data"]["config"]
    assert "repeats: 4" in config


def test_the_reply_cache_keeps_each_repeats_own_reply(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS)
    with flaky_agent() as agent:
        target = {"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1}
        _, first = finished(client, suite_id=suite["id"], target=target, repeats=3, reply_cache="record")
        assert len(agent.requests) == 18
        _, again = finished(client, suite_id=suite["id"], target=target, repeats=3, reply_cache="replay")
        assert len(agent.requests) == 18  # every (case, repeat) answered from the cache
        assert all(row["cached"] for row in again)
        # Repeat r's reply, not repeat 0's: a flaky case keeps its mix of answers.
        replies = [(row["number"], row["repeat"], row["agent_response"]) for row in first]
        assert [(row["number"], row["repeat"], row["agent_response"]) for row in again] == replies
        assert len({reply for number, _, reply in replies if number == 2}) == 2  # seed 3 mixes them
        _, more = finished(client, suite_id=suite["id"], target=target, repeats=4, reply_cache="record")
        assert len(agent.requests) == 24  # only repeat 3 of each case is new
        assert [row["cached"] for row in more if row["number"] == 1] == [True, True, True, False]


def test_repeats_are_checked(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS)
    http = {"type": "http", "url": "http://127.0.0.1:9/answer"}
    for repeats in (0, 101, "two"):
        body = {"suite_id": suite["id"], "grader_id": "true-false", "target": http, "repeats": repeats}
        response = client.post("/api/evaluations", json=body)
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    recorded = {"type": "recorded", "responses": {str(n): "yes" for n in range(1, 7)}}
    body = {"suite_id": suite["id"], "grader_id": "true-false", "target": recorded, "repeats": 2}
    response = client.post("/api/evaluations", json=body)
    assert response.status_code == 422
    assert "repeats need an agent" in response.json()["error"]["message"]


def test_shutdown_mid_run_then_restart_resumes_each_repeat_once(settings: Settings) -> None:
    cases = [(f"r{i}", "true") for i in range(40)]
    with AgentServer(AgentBehaviour(default="yes", delay=0.02)) as agent:
        with TestClient(create_app(settings)) as client:
            suite = make_suite(client, cases)
            target = {"type": "http", "url": agent.url}
            created = start(client, suite_id=suite["id"], target=target, concurrency=2, repeats=3)
            assert created["progress"]["total"] == 120
            wait_until_done(client, created["id"], 10)
        with TestClient(create_app(settings)) as client:
            shown = wait_until_finished(client, created["id"])
            assert shown["status"] == "completed"
            assert shown["progress"] == {"done": 120, "total": 120}
            rows = results(client, created["id"], limit=500)
        slots = Counter((row["input"], row["repeat"]) for row in rows)
        assert slots == {(f"r{i}", r): 1 for i in range(40) for r in range(3)}
        assert len(agent.requests) < 120 + 10  # only the few calls in flight at shutdown ran twice
