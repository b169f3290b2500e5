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


def test_history_and_compare_agree_through_the_rule_for_repeats(client: TestClient) -> None:
    """Runs with repeats (and one without) of one suite: every pair with repeats is judged by the sign-flip
    test on per-case pass rates, and the history's mark is the compare page's verdict."""
    suite = make_suite(client, QUESTIONS * 2, name="twelve")
    sure = dict.fromkeys(ANSWERS, 1.0)
    shaky = dict.fromkeys(ANSWERS, 0.1)
    with AgentServer(AgentBehaviour(answers=ANSWERS, wrong="maybe", seed=5)) as agent:
        target = {"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1}
        runs = []
        for chances, repeats in ((sure, 3), (sure, 3), (shaky, 3), (sure, 1)):
            agent.behaviour.pass_chance = chances
            shown, _ = finished(client, suite_id=suite["id"], target=target, repeats=repeats)
            runs.append(shown["id"])
    points = client.get(f"/api/suites/{suite['id']}/history").json()["data"]["points"]
    assert [point["evaluation_id"] for point in points] == runs
    expected = {"b_worse": "regression", "b_better": "improvement", "no_significant_difference": "steady"}
    for point in points[1:]:
        path = f"/api/evaluations/{point['previous_id']}/compare/{point['evaluation_id']}"
        comparison = client.get(path).json()["data"]
        assert comparison["method"] == "sign_flip"
        assert point["shift"] == expected[comparison["verdict"]]
        assert point["p_value"] == comparison["p_value"]
        assert point["common_cases"] == comparison["common_cases"] == 12
    assert [point["shift"] for point in points] == [None, "steady", "regression", "improvement"]
    fell = client.get(f"/api/evaluations/{runs[1]}/compare/{runs[2]}").json()["data"]
    assert fell["pass_to_fail"] == fell["flips_total"] == len(fell["flips"])
    assert all(flip["flip"] == "pass_to_fail" for flip in fell["flips"])


def test_a_regrade_of_a_run_with_repeats_grades_each_cases_first_run(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS)
    with flaky_agent() as agent:
        target = {"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1}
        source, rows = finished(client, suite_id=suite["id"], target=target, repeats=3)
    regraded, again = finished(
        client, suite_id=suite["id"], target={"type": "evaluation", "evaluation_id": source["id"]}
    )
    assert regraded["repeats"] == 1
    first_runs = {row["number"]: row["agent_response"] for row in rows if row["repeat"] == 0}
    assert {row["number"]: row["agent_response"] for row in again} == first_runs


def test_cancel_keeps_the_runs_so_far_and_counts_them(client: TestClient) -> None:
    suite = make_suite(client, [(f"c{i}", "true") for i in range(60)])
    with AgentServer(AgentBehaviour(default="yes", delay=0.05)) as agent:
        target = {"type": "http", "url": agent.url}
        created = start(client, suite_id=suite["id"], target=target, concurrency=2, repeats=4)
        wait_until_done(client, created["id"], 6)
        cancelled = client.post(f"/api/evaluations/{created['id']}/cancel").json()["data"]
    assert cancelled["status"] == "cancelled"
    done = cancelled["progress"]["done"]
    assert 6 <= done < 240
    assert cancelled["progress"]["total"] == 240
    rows = results(client, created["id"], limit=500)
    assert len(rows) == done == cancelled["summary"]["finished"]
    assert len({(row["number"], row["repeat"]) for row in rows}) == done  # each run once
    figures = cancelled["summary"]["repeats"]
    assert figures["cases"] == len({row["number"] for row in rows})
    assert figures["pass_at_k"][0] == 1.0  # every run so far passed
