"""The llm-judge grader through the API: the playground, batches, evaluations, re-grading, and secrets.

The judge is a real server on loopback speaking the OpenAI protocol (tests/support/judge_server.py).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.factories import make_suite, recorded, results, start, wait_until_finished
from tests.support.judge_server import JudgeReply, JudgeServer, verdict

KEY = "sk-api-test-9f8e7d6c5b4aSECRET"
SCRIPT: dict[str, JudgeReply | list[JudgeReply]] = {
    "Paris": verdict(True, 0.95, "It names Paris, as expected."),
    "Lyon": verdict(False, 0.05, "Lyon is not the capital."),
    "Paris, I think": verdict(True, 0.3, "Hedged."),  # pass with a score below the threshold
    "PARIS!!": JudgeReply("PASS"),
    "Paris echo": JudgeReply('{"explanation": "key {{authorization}}", "pass": true, "score": 1}'),
}
CASES = [("Capital of France?", "Paris")] * 5
ANSWERS = ["Paris", "Lyon", "Paris, I think", "PARIS!!", "Paris echo"]


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[JudgeServer]:
    monkeypatch.setenv("ASSAY_SECRET_JUDGE_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-refused-on-a-server")
    with JudgeServer(SCRIPT) as server:
        yield server


def config(judge: JudgeServer, **extra: Any) -> dict[str, Any]:
    return {
        "base_url": judge.base_url,
        "model": "judge-1",
        "api_key_env": "ASSAY_SECRET_JUDGE_KEY",
        "timeout": 5,
        "max_attempts": 2,
        **extra,
    }


def grade(client: TestClient, answer: str, cfg: dict[str, Any]) -> Any:
    return client.post(
        "/api/graders/llm-judge/grade",
        json={"agent_response": answer, "expected_output": "Paris", "config": cfg},
    )


def test_playground_shows_the_judges_reasoning(client: TestClient, judge: JudgeServer) -> None:
    response = grade(client, "Paris", config(judge))
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert (data["passed"], data["score"]) == (True, 0.95)
    details = data["details"]
    assert details["explanation"] == "It names Paris, as expected."
    assert details["judge"]["model"] == "judge-1"
    assert details["tokens"]["total"] == 120
    assert data["grader"]["grader_id"] == "llm-judge"
    assert judge.judged[-1].headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("Paris, I think", "contradicts itself"), ("PARIS!!", "not one JSON object")],
)
def test_playground_reports_an_invalid_judgement(
    client: TestClient, judge: JudgeServer, answer: str, reason: str
) -> None:
    data = grade(client, answer, config(judge)).json()["data"]
    assert data["passed"] is False
    assert data["details"]["error"] == "invalid_judgement"
    assert reason in data["details"]["reason"]


@pytest.mark.parametrize("variable", ["OPENAI_API_KEY", "ASSAY_SECRET_NOT_SET"])
def test_a_server_refuses_a_key_it_may_not_read_the_same_way_as_an_unset_one(
    client: TestClient, judge: JudgeServer, variable: str
) -> None:
    response = grade(client, "Paris", config(judge, api_key_env=variable))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["message"] == (
        f"grader.config.api_key_env: secret '{variable}' is not available to targets (set it in the "
        "server's environment, named ASSAY_SECRET_… or listed in ASSAY_TARGET_SECRETS)"
    )
    assert not judge.judged  # nothing was sent


def test_batch_with_a_judge_is_bounded(client: TestClient, judge: JudgeServer) -> None:
    items = [
        {"agent_response": answer, "expected_output": "Paris"} for answer in ["Paris", "Lyon", "PARIS!!"]
    ]
    response = client.post(
        "/api/graders/llm-judge/grade-batch", json={"items": items, "config": config(judge)}
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert [r["passed"] for r in data["results"]] == [True, False, False]
    assert data["results"][2]["details"]["error"] == "invalid_judgement"
    many = [{"agent_response": "Paris", "expected_output": "Paris"}] * 101
    refused = client.post("/api/graders/llm-judge/grade-batch", json={"items": many, "config": config(judge)})
    assert refused.status_code == 422
    assert "at most 100 answers per batch" in refused.json()["error"]["message"]


def test_a_composite_holds_at_most_eight_judges(client: TestClient) -> None:
    body = {"config": {"graders": [{"grader_id": "llm-judge"}] * 8}}
    assert client.post("/api/graders/all/validate", json=body).json()["data"]["problems"] == []
    body = {"config": {"graders": [{"grader_id": "llm-judge"}] * 9}}
    problems = client.post("/api/graders/all/validate", json=body).json()["data"]["problems"]
    assert problems[0]["loc"] == ["config"]
    assert "more than 8 graders that call out" in problems[0]["message"]


def test_evaluation_stores_judge_errors_by_reason_and_regrades_them(
    client: TestClient, judge: JudgeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    suite = make_suite(client, CASES, name="capitals")
    evaluation = start(
        client,
        suite_id=suite["id"],
        grader_id="llm-judge",
        grader_config=config(judge),
        target=recorded(ANSWERS),
    )
    finished = wait_until_finished(client, evaluation["id"])
    assert finished["status"] == "completed", finished
    summary = finished["summary"]
    assert (summary["passed"], summary["error_count"]) == (2, 2)
    assert summary["errors_by_reason"] == {"invalid_judgement": 2}
    assert summary["by_match_status"] == {"match": 2, "mismatch": 1}
    invalid = results(client, evaluation["id"], error="invalid_judgement")
    assert [row["agent_response"] for row in invalid] == ["Paris, I think", "PARIS!!"]
    for row in invalid:
        assert row["passed"] is False
        assert row["match_status"] is None
        assert row["details"]["error"] == "invalid_judgement"
        assert row["details"]["prompt"]["user"]  # what the judge was asked is kept
    assert "contradicts itself" in invalid[0]["error_detail"]
    echoed = results(client, evaluation["id"], q="Paris echo")[0]
    assert echoed["details"]["explanation"] == echoed["explanation"] == "key Bearer [redacted]"
    everything = client.get(f"/api/evaluations/{evaluation['id']}/results").text
    exported = client.get(f"/api/evaluations/{evaluation['id']}/export").text
    shown = client.get(f"/api/evaluations/{evaluation['id']}").text
    for text in (everything, exported, shown, caplog.text):
        assert KEY not in text

    # The judge is fixed: re-grading the stored answers judges the two again (they were the judge's
    # errors, not the agent's).
    judge.judge.script["Paris, I think"] = verdict(False, 0.3, "Hedged.")
    judge.judge.script["PARIS!!"] = verdict(True, 0.8, "Shouted, but Paris.")
    again = start(
        client,
        suite_id=suite["id"],
        grader_id="llm-judge",
        grader_config=config(judge),
        target={"type": "evaluation", "evaluation_id": evaluation["id"]},
    )
    regraded = wait_until_finished(client, again["id"])["summary"]
    assert (regraded["passed"], regraded["error_count"], regraded["graded"]) == (3, 0, 5)


def test_an_evaluation_with_a_refused_key_is_refused_before_it_runs(
    client: TestClient, judge: JudgeServer
) -> None:
    suite = make_suite(client, CASES[:1], name="one")
    response = client.post(
        "/api/evaluations",
        json={
            "suite_id": suite["id"],
            "grader_id": "llm-judge",
            "grader_config": config(judge, api_key_env="OPENAI_API_KEY"),
            "target": recorded(["Paris"]),
        },
    )
    assert response.status_code == 422
    assert response.json()["error"]["message"].startswith(
        "grader.config.api_key_env: secret 'OPENAI_API_KEY'"
    )
    assert client.get("/api/evaluations").json()["data"]["total"] == 0


def test_stored_grader_config_holds_no_secret(client: TestClient, judge: JudgeServer) -> None:
    suite = make_suite(client, CASES[:1], name="one")
    evaluation = start(
        client,
        suite_id=suite["id"],
        grader_id="llm-judge",
        grader_config=config(judge),
        target=recorded(["Paris"]),
    )
    wait_until_finished(client, evaluation["id"])
    shown = client.get(f"/api/evaluations/{evaluation['id']}").json()["data"]
    assert shown["grader"]["config"]["api_key_env"] == "ASSAY_SECRET_JUDGE_KEY"
    assert KEY not in json.dumps(shown)


def test_testing_the_target_asks_the_judge(client: TestClient, judge: JudgeServer) -> None:
    suite = make_suite(client, CASES, name="capitals")
    body = {
        "suite_id": suite["id"],
        "target": recorded(["Paris"]),
        "grader_id": "llm-judge",
        "grader_config": config(judge),
    }
    response = client.post("/api/evaluations/test-target", json=body)
    assert response.status_code == 200, response.text
    verdict_ = response.json()["data"]["verdict"]
    assert (verdict_["passed"], verdict_["score"]) == (True, 0.95)  # the judge's, not "judge unavailable"
    assert verdict_["details"]["explanation"] == "It names Paris, as expected."
    assert len(judge.judged) == 1
    assert judge.judged[0].input == "Capital of France?"  # the judge is told the question, as in a run
