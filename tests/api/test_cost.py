"""The judge's spend apart from the agent's, and cost from a price table: an agent and two model judges are
real servers on loopback that say what they spent (the agent: the input's and the answer's lengths; each
judge: 100 prompt and 20 completion tokens); an unknown price or unknown tokens give an unknown cost."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.config import ModelPrice, Settings
from tests.factories import make_suite, results, start, wait_until_finished
from tests.support.agent_server import USAGE_MODEL, AgentBehaviour, AgentServer, Fault
from tests.support.judge_server import JudgeServer

QUESTIONS = [("Is 2 even?", "yes"), ("Is 3 even?", "no"), ("Is 7 even?", "no")]
ANSWERS = {"Is 2 even?": "yes", "Is 3 even?": "no", "Is 7 even?": "no"}
SERVER_PRICES = {
    USAGE_MODEL: ModelPrice(input_per_million=Decimal("2"), output_per_million=Decimal("8")),
    "judge-a-scripted": ModelPrice(input_per_million=Decimal("999"), output_per_million=Decimal("999")),
}


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The server's price table: the agent's model, and a judge's price the evaluation overrides."""
    return Settings(database_url=database_url, api_key=None, prices=SERVER_PRICES)


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:  # every answer passes; replies name "<model>-scripted"
        yield server


def two_judges(base_url: str) -> dict[str, Any]:
    def one(model: str) -> dict[str, Any]:
        config = {"base_url": base_url, "api_key_env": None, "model": model, "timeout": 5, "max_attempts": 1}
        return {"grader_id": "llm-judge", "config": config}

    return {"graders": [one("judge-a"), one("judge-b")]}


def agent_cost(question: str) -> Decimal:
    return (len(question) * Decimal(2) + len(ANSWERS[question]) * Decimal(8)) / 1_000_000


def test_the_judges_spend_and_the_cost_are_counted_apart_from_the_agents(
    client: TestClient, judge: JudgeServer
) -> None:
    suite = make_suite(client, QUESTIONS)
    behaviour = AgentBehaviour(answers=ANSWERS, usage=True, faults={"Is 7 even?": Fault(status=400)})
    # priced by the model the judge's reply names; the evaluation's price wins over the server's for
    # judge-a-scripted, judge-b-scripted's is given, the agent's comes from the server
    prices = {
        "judge-a-scripted": {"input_per_million": 0.15, "output_per_million": 0.6},
        "judge-b-scripted": {"input_per_million": "1.25", "output_per_million": 10},
    }
    with AgentServer(behaviour) as agent:
        created = start(
            client,
            suite_id=suite["id"],
            grader_id="all",
            grader_config=two_judges(judge.base_url),
            target={"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1},
            prices=prices,
        )
        shown = wait_until_finished(client, created["id"])
    assert len(judge.judged) == 4  # two answered cases, two judges each; the errored case is not judged
    judge_case = (100 * Decimal("0.15") + 20 * Decimal("0.6") + 100 * Decimal("1.25") + 20 * 10) / 1_000_000
    rows = {row["input"]: row for row in results(client, created["id"], limit=10)}
    for question in ("Is 2 even?", "Is 3 even?"):
        row = rows[question]
        spent = {"calls": 2, "unknown_calls": 0, "input_tokens": 200, "output_tokens": 40}
        assert row["judge_usage"] == spent
        assert row["usage"]["input_tokens"] == len(question)  # the agent's, apart
        cost = row["cost"]
        assert Decimal(cost["agent_usd"]) == agent_cost(question)
        assert Decimal(cost["judge_usd"]) == judge_case
        assert Decimal(cost["total_usd"]) == agent_cost(question) + judge_case
    failed = rows["Is 7 even?"]
    assert failed["judge_usage"] is None  # no call was made: the judge spent nothing on it
    assert failed["cost"] == {"agent_usd": None, "judge_usd": "0", "total_usd": None}  # unknown, never 0

    summary = shown["summary"]
    assert summary["judge_usage"] == {
        "cases": 2,
        "unknown_cases": 0,
        "calls": 4,
        "input_tokens": 400,
        "output_tokens": 80,
        "by_model": [
            {"model": "judge-a-scripted", "cases": 2, "input_tokens": 200, "output_tokens": 40},
            {"model": "judge-b-scripted", "cases": 2, "input_tokens": 200, "output_tokens": 40},
        ],
    }
    assert summary["usage"]["input_tokens"] == len("Is 2 even?") + len("Is 3 even?")
    cost = summary["cost"]
    agent_total = agent_cost("Is 2 even?") + agent_cost("Is 3 even?")
    assert Decimal(cost["agent"]["usd"]) == agent_total
    assert (cost["agent"]["known_cases"], cost["agent"]["unknown_cases"]) == (2, 1)
    assert Decimal(cost["judge"]["usd"]) == 2 * judge_case
    assert (cost["judge"]["known_cases"], cost["judge"]["unknown_cases"]) == (3, 0)
    assert Decimal(cost["total"]["usd"]) == agent_total + 2 * judge_case
    assert cost["total"]["unknown_cases"] == 1  # partial: the errored case's agent cost is unknown
    assert Decimal(cost["total"]["max_case_usd"]) == agent_cost("Is 2 even?") + judge_case


def test_a_model_without_a_price_has_an_unknown_cost_never_0(client: TestClient, judge: JudgeServer) -> None:
    suite = make_suite(client, QUESTIONS[:2])
    with AgentServer(AgentBehaviour(answers=ANSWERS, usage=True)) as agent:
        created = start(
            client,
            suite_id=suite["id"],
            grader_id="all",
            grader_config=two_judges(judge.base_url),  # judge-b-scripted has no price here
            target={"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1},
        )
        shown = wait_until_finished(client, created["id"])
    cost = shown["summary"]["cost"]
    assert cost["judge"] == {"usd": None, "known_cases": 0, "unknown_cases": 2, "max_case_usd": None}
    assert cost["total"]["usd"] is None
    assert Decimal(cost["agent"]["usd"]) == agent_cost("Is 2 even?") + agent_cost("Is 3 even?")
    for row in results(client, created["id"], limit=10):
        assert row["cost"]["judge_usd"] is None
        assert row["cost"]["total_usd"] is None


def test_a_judge_reply_that_says_nothing_leaves_the_judges_tokens_unknown(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS[:1])
    with (
        JudgeServer() as judge,
        AgentServer(AgentBehaviour(answers=ANSWERS, usage=True)) as agent,
    ):
        judge.judge.usage = None  # this judge's replies say nothing of what they spent
        created = start(
            client,
            suite_id=suite["id"],
            grader_id="llm-judge",
            grader_config=two_judges(judge.base_url)["graders"][0]["config"],
            target={"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1},
            prices={"judge-a-scripted": {"input_per_million": 1, "output_per_million": 1}},
        )
        shown = wait_until_finished(client, created["id"])
    (row,) = results(client, created["id"], limit=10)
    assert row["judge_usage"] == {"calls": 1, "unknown_calls": 1, "input_tokens": None, "output_tokens": None}
    assert row["cost"]["judge_usd"] is None
    assert shown["summary"]["judge_usage"]["unknown_cases"] == 1
    assert shown["summary"]["cost"]["judge"]["unknown_cases"] == 1


def test_prices_are_checked(client: TestClient) -> None:
    suite = make_suite(client, QUESTIONS[:1])
    body = {
        "suite_id": suite["id"],
        "grader_id": "string-match",
        "target": {"type": "recorded", "responses": {}},
        "prices": {"m": {"input_per_million": -1, "output_per_million": 1}},
    }
    refused = client.post("/api/evaluations", json=body)
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "VALIDATION_ERROR"
    body["prices"] = {"m": {"input_per_million": 1, "output_per_million": 1, "currency": "EUR"}}
    assert client.post("/api/evaluations", json=body).status_code == 422
