"""Scheduling: evaluations running at once take turns (none waits for another to end), a process keeps
to its cap of calls in flight, and a cancel stops an evaluation's calls; on SQLite and PostgreSQL alike."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.config import Settings
from assay.services.evaluations import shard_plan, shards
from tests.factories import evaluation, make_suite, recorded, start, wait_until_done, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer

pytestmark = pytest.mark.slow

CAP = 16
"""The process's calls in flight: one lane of 16 at a time on PostgreSQL."""


@pytest.fixture
def capped(database_url: str) -> Any:
    settings = Settings(database_url=database_url, api_key=None, worker_max_in_flight=CAP)
    with TestClient(create_app(settings)) as client:
        yield client


SMALL_SHARD_CASES = 100
"""Shards a fifth of the served size for the test of turns, with a turn to match: the same rule of turns
over a fifth of the calls (each a request to the agent, a grade and a stored result)."""
SMALL_JOB_BUDGET_S = 0.4
"""A lane's turn for those shards: at 16 calls in flight and 0.04 s an answer a shard takes at least
100 / 16 × 0.04 = 0.25 s, so a turn ends after one or two shards, as the served sizes (500 cases, 2 s)
end after one or two; on a slow machine a shard only takes longer, and the turn ends sooner."""


def test_evaluations_running_at_once_progress_side_by_side(
    capped: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three shards each, at a delay that makes a shard a good part of a lane's turn (JOB_BUDGET_S): without
    # turns the first would run all three before the second's first. The agent's delay is a floor under a
    # shard's time, so the first cannot run its three shards in one turn however fast the machine.
    monkeypatch.setattr(shard_plan, "SHARD_CASES", SMALL_SHARD_CASES)
    monkeypatch.setattr(shards, "JOB_BUDGET_S", SMALL_JOB_BUDGET_S)
    cases = 3 * SMALL_SHARD_CASES
    with AgentServer(AgentBehaviour(default="yes", delay=0.04)) as agent:
        target = {"type": "http", "url": agent.url + "/answer", "timeout": 10}
        # Both suites written before either evaluation starts: the second starts one request after the
        # first, however long writing a suite takes on a loaded machine.
        suites = [
            make_suite(capped, [(f"{name} {n}", "true") for n in range(cases)], name=name)
            for name in ("first", "second")
        ]
        ids = [start(capped, suite_id=suite["id"], target=target, concurrency=CAP)["id"] for suite in suites]
        first = wait_until_finished(capped, ids[0], timeout=60)
        second = evaluation(capped, ids[1])  # when the first one ends, the second is well on its way
        assert first["status"] == "completed"
        assert second["progress"]["done"] >= cases // 4, second["progress"]
        assert wait_until_finished(capped, ids[1], timeout=60)["status"] == "completed"
        assert agent.max_in_flight <= CAP


def test_a_cancel_stops_the_calls_and_keeps_the_summary_a_recount(capped: TestClient) -> None:
    with AgentServer(AgentBehaviour(default="yes", delay=0.05)) as agent:
        suite = make_suite(capped, [(f"q {n}", "true") for n in range(2000)])
        target = {"type": "http", "url": agent.url + "/answer", "timeout": 10}
        evaluation_id = start(capped, suite_id=suite["id"], target=target, concurrency=CAP)["id"]
        wait_until_done(capped, evaluation_id, 100, timeout=60)
        cancelled = capped.post(f"/api/evaluations/{evaluation_id}/cancel").json()["data"]
        asked = len(agent.requests)
        time.sleep(1.5)
        assert len(agent.requests) - asked <= CAP  # only calls already on their way when it was cancelled
    assert cancelled["status"] == "cancelled"
    later = evaluation(capped, evaluation_id)
    assert later["progress"]["done"] == cancelled["progress"]["done"]  # nothing stored after the cancel
    assert later["summary"]["finished"] == later["progress"]["done"]


def test_a_case_added_after_an_evaluation_was_created_is_not_run_by_it(database_url: str) -> None:
    held = Settings(database_url=database_url, api_key=None, run_evaluations=False)
    with TestClient(create_app(held)) as client:  # creates the evaluation, runs nothing
        suite = make_suite(client, [("q1", "true"), ("q2", "false"), ("q3", "true")])
        evaluation_id = start(client, suite_id=suite["id"], target=recorded(["yes", "no", "yes"]))["id"]
        added = client.post(
            f"/api/suites/{suite['id']}/cases", json={"cases": [{"input": "q4", "expected_output": "false"}]}
        )
        assert added.status_code == 201, added.text
    running = Settings(database_url=database_url, api_key=None)
    with TestClient(create_app(running)) as client:  # picks the pending evaluation up
        final = wait_until_finished(client, evaluation_id)
        results = client.get(f"/api/evaluations/{evaluation_id}/results").json()["data"]
    assert final["status"] == "completed"
    assert final["progress"] == {**final["progress"], "done": 3, "total": 3}
    assert final["summary"]["finished"] == final["summary"]["passed"] == 3
    assert [result["input"] for result in results["results"]] == ["q1", "q2", "q3"]


def test_an_evaluation_created_but_not_queued_is_kept_and_runs(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreachable_queue(evaluation_id: int, concurrency: int) -> None:
        raise TimeoutError("the queue did not answer")

    # The keeper looks every few heartbeats: a short one, so that the wait is a fraction of a second.
    settings = Settings(database_url=database_url, api_key=None, worker_heartbeat_s=0.1)
    with TestClient(create_app(settings)) as client:
        monkeypatch.setattr(client.app.state.scheduler, "submit", unreachable_queue)  # type: ignore[attr-defined]
        suite = make_suite(client, [("q1", "true"), ("q2", "false")])
        evaluation = start(client, suite_id=suite["id"], target=recorded(["yes", "no"]))  # 201, not a 500
        assert evaluation["status"] == "pending"
        final = wait_until_finished(client, evaluation["id"])  # the keeper finds it unfinished and runs it
        assert (final["status"], final["summary"]["passed"]) == ("completed", 2)
        assert client.get("/api/evaluations").json()["data"]["total"] == 1
