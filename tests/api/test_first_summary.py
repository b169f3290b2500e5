"""A new evaluation holds its first summary (nothing counted yet): reading it before the first live recount
costs one row, as at any other time, rather than a recount of every row stored so far."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from assay.services.evaluations import service
from tests.factories import BOOLEAN_CASES, evaluation, make_suite, recorded, start, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer

QUESTIONS = [(f"Is {n} even?", "true" if n % 2 == 0 else "false") for n in range(4)]
ANSWERS = {question: "yes" if expected == "true" else "no" for question, expected in QUESTIONS}


def test_a_new_evaluation_is_read_without_a_recount(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_recount(*args: object) -> None:
        raise AssertionError("a read recounted the results")

    monkeypatch.setattr(service, "recount", no_recount)
    suite = make_suite(client)
    created = start(client, suite_id=suite["id"], target=recorded(["true"] * len(BOOLEAN_CASES)))
    first = created["summary"]  # as stored with it, before anything ran
    assert (first["total_cases"], first["finished"], first["passed"]) == (len(BOOLEAN_CASES), 0, 0)
    assert first["binary"]["total"] == 0  # the report its grader declares, empty
    assert evaluation(client, created["id"])["summary"] is not None
    finished = wait_until_finished(client, created["id"])
    assert finished["summary"]["finished"] == len(BOOLEAN_CASES)  # the final recount replaced it


def test_a_new_evaluation_with_repeats_and_prices_holds_the_recount_of_no_result(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first summary counts cases x repeats and reports what a recount of nothing stored would: the
    repeats' figures and the cost by the evaluation's own prices (every report the final one has)."""
    monkeypatch.setattr(service, "recount", lambda *args: pytest.fail("a read recounted the results"))
    suite = make_suite(client, QUESTIONS)
    prices = {"m": {"input_per_million": 1, "output_per_million": 2}}
    with AgentServer(AgentBehaviour(answers=ANSWERS)) as agent:
        target = {"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1}
        created = start(client, suite_id=suite["id"], target=target, repeats=3, prices=prices)
        first = created["summary"]
        assert (first["total_cases"], first["finished"]) == (3 * len(QUESTIONS), 0)
        assert first["repeats"] is not None  # counted by case, as the recounts to come
        assert first["cost"] is not None  # priced by the table fixed at creation
        finished = wait_until_finished(client, created["id"])["summary"]
    assert finished["finished"] == 3 * len(QUESTIONS)
    reports = ("binary", "score_distribution", "repeats", "cost", "usage", "judge_usage")
    assert [first[name] is None for name in reports] == [finished[name] is None for name in reports]
