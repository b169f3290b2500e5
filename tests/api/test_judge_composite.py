"""Composites holding model judges (a case's assertions among them): every judge's call planned by the tree,
sent through the one transport and read by its own child; fail closed. The judges are real servers on
loopback (tests/support/judge_server.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.domain import Assertions
from assay.errors import ValidationError
from assay.graders import AllGrader, AnyGrader, CallingGrader, calls_out
from assay.graders.composite.assertions import AssertionsGrader, read_assertions
from assay.graders.contract.calls import CaseContext
from assay.services.grading.answers import check_calls, check_endpoints, grade_answer, needs_calls
from assay.targets import EgressPolicy, SecretPolicy, TargetPolicy
from assay.targets.grader_calls import GraderCalls
from tests.factories import recorded, results, start, wait_until_finished
from tests.support.agent_server import free_port
from tests.support.judge_server import JudgeReply, JudgeServer, verdict

SCRIPT: dict[str, JudgeReply | list[JudgeReply]] = {
    "Paris is the capital": verdict(True, 0.9, "Right."),
    "Paris, but rudely": verdict(False, 0.1, "Rude."),
    "Paris garbled": JudgeReply("PASS, definitely"),
}


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer(SCRIPT) as server:
        yield server


def judge_spec(base_url: str, **extra: Any) -> dict[str, Any]:
    config = {"base_url": base_url, "api_key_env": None, "model": "judge-1", "timeout": 5, "max_attempts": 1}
    return {"grader_id": "llm-judge", "config": {**config, **extra}}


def contains_and_judge(base_url: str) -> AllGrader:
    contains = {"grader_id": "contains", "expected_output": "Paris"}
    return AllGrader(config={"graders": [contains, judge_spec(base_url)]})


async def graded(grader: Any, answer: str, *, question: str | None = None) -> dict[str, Any]:
    async with GraderCalls() as calls:
        return await grade_answer(grader, answer, "Paris", calls, CaseContext(input=question))


def test_a_composite_calls_out_only_when_a_judge_is_among_its_descendants() -> None:
    plain = AllGrader(config={"graders": [{"grader_id": "contains"}]})
    nested = AnyGrader(
        config={"graders": [{"grader_id": "all", "config": {"graders": [judge_spec("http://j")]}}]}
    )
    assert isinstance(plain, CallingGrader)
    assert not calls_out(plain)
    assert not needs_calls(plain)
    assert calls_out(nested)
    assert needs_calls(nested)
    assert [e.url_field for e in nested.endpoints] == ["graders[0].config.graders[0].config.base_url"]


async def test_the_judge_and_the_cheap_check_both_decide(judge: JudgeServer) -> None:
    grader = contains_and_judge(judge.base_url)
    passed = await graded(grader, "Paris is the capital", question="Capital of France?")
    assert passed["passed"] is True
    assert passed["details"]["children"][1]["details"]["explanation"] == "Right."
    assert judge.judged[-1].input == "Capital of France?"  # the judge is told the case's question
    failed = await graded(grader, "Paris, but rudely")
    assert failed["passed"] is False
    assert failed["details"]["decided_by"] == "graders[1]"
    assert failed["details"]["match_status"] == "mismatch"


async def test_a_failed_cheap_check_spares_the_judges_call(judge: JudgeServer) -> None:
    result = await graded(contains_and_judge(judge.base_url), "Lyon")
    assert result["passed"] is False
    assert result["details"]["decided_by"] == "graders[0]"
    skipped = result["details"]["children"][1]
    assert skipped["details"]["skipped"] is True
    assert skipped["passed"] is False
    assert judge.judged == []


async def test_a_judge_down_leaves_the_case_unjudged_never_passed() -> None:
    result = await graded(contains_and_judge(f"http://127.0.0.1:{free_port()}/v1"), "Paris is the capital")
    assert result["passed"] is False
    assert result["details"]["match_status"] == "invalid_response"
    judge_entry = result["details"]["children"][1]
    assert judge_entry["details"]["error"].startswith("judge_")
    assert result["details"]["reason"].startswith("graders[1] (llm-judge) could not judge the response")


async def test_a_garbled_judgement_leaves_the_case_unjudged(judge: JudgeServer) -> None:
    result = await graded(contains_and_judge(judge.base_url), "Paris garbled")
    assert result["passed"] is False
    assert result["details"]["match_status"] == "invalid_response"
    assert result["details"]["children"][1]["details"]["error"] == "invalid_judgement"


async def test_each_judge_reads_its_own_reply_from_its_own_endpoint() -> None:
    answer = "Paris is the capital"
    with (
        JudgeServer({answer: verdict(True, 1.0, "one")}) as one,
        JudgeServer({answer: verdict(False, 0.0, "two")}) as two,
    ):
        grader = AllGrader(config={"graders": [judge_spec(one.base_url), judge_spec(two.base_url)]})
        result = await graded(grader, answer)
        assert [len(one.judged), len(two.judged)] == [1, 1]
    explanations = [child["details"]["explanation"] for child in result["details"]["children"]]
    assert explanations == ["one", "two"]
    assert result["passed"] is False
    assert result["details"]["decided_by"] == "graders[1]"


def test_without_a_transport_the_judge_is_unjudged() -> None:
    result = contains_and_judge("http://127.0.0.1:9/v1").grade("Paris is the capital", "Paris")
    assert result["passed"] is False
    assert result["details"]["children"][1]["details"]["error"] == "judge_unavailable"


def test_every_endpoint_in_the_tree_is_checked_before_anything_runs() -> None:
    policy = TargetPolicy(egress=EgressPolicy(local_default=False), secrets=SecretPolicy(environ={}))
    grader = contains_and_judge("http://10.0.0.1/v1")
    with pytest.raises(ValidationError, match=r"grader.config.graders\[1\].config.base_url: 10.0.0.1"):
        check_calls(grader, policy)
    keyed = AllGrader(config={"graders": [judge_spec("http://judge.example/v1", api_key_env="UNSET_KEY")]})
    with pytest.raises(ValidationError, match=r"graders\[0\].config.api_key_env"):
        check_calls(keyed, policy)


async def test_assertions_name_each_verdict_and_their_judges_fields(judge: JudgeServer) -> None:
    listed: Assertions = read_assertions(
        [{"grader_id": "contains", "name": "mentions"}, {**judge_spec(judge.base_url), "name": "rubric"}]
    )
    grader = AssertionsGrader(listed)
    assert grader.makes_calls
    assert [e.url_field for e in grader.endpoints] == ["assert[1].config.base_url"]
    async with GraderCalls() as calls:
        result = await grader.grade_calling("Paris is the capital", "Paris", calls, CaseContext())
    assert [entry["name"] for entry in result["details"]["children"]] == ["mentions", "rubric"]
    assert result["passed"] is True
    policy = TargetPolicy(egress=EgressPolicy(local_default=False), secrets=SecretPolicy(environ={}))
    with pytest.raises(ValidationError, match=r"assert\[1\].config.base_url"):
        check_endpoints(grader.endpoints, policy, where=("assert",))


# --- on the server: a suite whose cases carry [contains, llm-judge] ----------------------------------------

ANSWERS = ["Paris is the capital", "Paris, but rudely", "Lyon", "Paris garbled"]


def judged_suite(client: TestClient, base_url: str, count: int, **judge: Any) -> dict[str, Any]:
    checks = [
        {"grader_id": "contains", "expected_output": "Paris", "name": "mentions Paris"},
        {**judge_spec(base_url, **judge), "name": "rubric"},
    ]
    cases = [{"input": "Capital of France?", "expected_output": "Paris", "assert": checks}] * count
    response = client.post("/api/suites", json={"name": "judged", "cases": cases})
    assert response.status_code == 201, response.text
    suite: dict[str, Any] = response.json()["data"]
    return suite


def test_an_evaluation_grades_each_case_with_its_judge_and_its_cheap_check(
    client: TestClient, judge: JudgeServer
) -> None:
    suite = judged_suite(client, judge.base_url, len(ANSWERS))
    evaluation = start(client, suite_id=suite["id"], grader_id="string-match", target=recorded(ANSWERS))
    finished = wait_until_finished(client, evaluation["id"])
    assert finished["status"] == "completed", finished
    rows = {row["agent_response"]: row for row in results(client, evaluation["id"])}
    assert {answer: rows[answer]["passed"] for answer in ANSWERS} == {
        "Paris is the capital": True,
        "Paris, but rudely": False,
        "Lyon": False,
        "Paris garbled": False,
    }
    assert rows["Paris garbled"]["match_status"] == "invalid_response"  # unjudged, not failed nor passed
    assert rows["Lyon"]["details"]["decided_by"] == "assert[0]"
    rubric = rows["Paris, but rudely"]["details"]["children"][1]
    assert (rubric["name"], rubric["details"]["explanation"]) == ("rubric", "Rude.")
    # "Lyon" failed its cheap check: the judge was asked about the three others only, told the question
    assert sorted(request.agent_response or "" for request in judge.judged) == sorted(
        ["Paris is the capital", "Paris, but rudely", "Paris garbled"]
    )
    assert {request.input for request in judge.judged} == {"Capital of France?"}

    again = start(
        client,
        suite_id=suite["id"],
        grader_id="string-match",
        target={"type": "evaluation", "evaluation_id": evaluation["id"]},
    )
    regraded = {
        row["agent_response"]: row["passed"]
        for row in results(client, wait_until_finished(client, again["id"])["id"])
    }
    assert regraded["Paris is the capital"] is True
    assert regraded["Lyon"] is False


def test_a_judge_down_leaves_the_evaluations_case_unjudged(client: TestClient) -> None:
    suite = judged_suite(client, f"http://127.0.0.1:{free_port()}/v1", 1)
    evaluation = start(
        client, suite_id=suite["id"], grader_id="string-match", target=recorded(["Paris is the capital"])
    )
    assert wait_until_finished(client, evaluation["id"])["status"] == "completed"
    [row] = results(client, evaluation["id"])
    assert row["passed"] is False
    assert row["match_status"] == "invalid_response"
    assert row["details"]["children"][1]["details"]["error"].startswith("judge_")


def test_a_judge_url_refused_in_an_assertion_is_refused_as_a_lone_judges(client: TestClient) -> None:
    metadata_url = "http://169.254.169.254/v1"
    suite = judged_suite(client, metadata_url, 1)
    lone = client.post(
        "/api/evaluations",
        json={
            "suite_id": suite["id"],
            "grader_id": "llm-judge",
            "grader_config": judge_spec(metadata_url)["config"],
            "target": recorded(["Paris"]),
        },
    )
    asserted = client.post(
        "/api/evaluations",
        json={"suite_id": suite["id"], "grader_id": "string-match", "target": recorded(["Paris"])},
    )
    assert lone.status_code == asserted.status_code == 422
    assert lone.json()["error"]["code"] == asserted.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "link-local" in lone.json()["error"]["message"]
    assert "assert[1].config.base_url" in asserted.json()["error"]["message"]
    assert "link-local" in asserted.json()["error"]["message"]
    anyway = client.post(
        "/api/evaluations",
        json={
            "suite_id": suite["id"],
            "grader_id": "string-match",
            "target": recorded(["Paris"]),
            "allow_invalid_expected": True,  # no preflight: the judges are checked all the same
        },
    )
    assert anyway.status_code == 422
    assert "assert[1].config.base_url" in anyway.json()["error"]["message"]
    assert client.get("/api/evaluations").json()["data"]["total"] == 0


def test_testing_the_target_grades_with_the_cases_assertions_and_asks_their_judge(
    client: TestClient, judge: JudgeServer
) -> None:
    suite = judged_suite(client, judge.base_url, 1)
    body = {"suite_id": suite["id"], "target": recorded(["Paris, but rudely"]), "grader_id": "string-match"}
    response = client.post("/api/evaluations/test-target", json=body)
    assert response.status_code == 200, response.text
    verdict_ = response.json()["data"]["verdict"]
    assert verdict_["passed"] is False  # not the evaluation's string-match: the case's judge failed it
    assert [child["name"] for child in verdict_["details"]["children"]] == ["mentions Paris", "rubric"]
    assert verdict_["details"]["children"][1]["details"]["explanation"] == "Rude."
    assert [request.input for request in judge.judged] == ["Capital of France?"]


def test_the_playground_grades_a_composite_asking_its_judge(client: TestClient, judge: JudgeServer) -> None:
    config = {"graders": [{"grader_id": "contains"}, judge_spec(judge.base_url)]}
    body = {"agent_response": "Paris is the capital", "expected_output": "Paris", "config": config}
    response = client.post("/api/graders/all/grade", json=body)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["passed"] is True
    assert data["details"]["children"][1]["details"]["explanation"] == "Right."
    refused = {**body, "config": {"graders": [judge_spec("http://169.254.169.254/v1")]}}
    response = client.post("/api/graders/all/grade", json=refused)
    assert response.status_code == 422
    assert "graders[0].config.base_url" in response.json()["error"]["message"]


def test_the_python_api_asks_the_judge_of_a_suite_files_assertions(
    judge: JudgeServer, tmp_path: Path
) -> None:
    from assay import evaluate

    checks = [{"grader_id": "contains", "expected_output": "Paris"}, judge_spec(judge.base_url)]
    suite = tmp_path / "suite.jsonl"
    suite.write_text(
        json.dumps({"input": "Capital of France?", "expected_output": "Paris", "assert": checks})
    )
    outcome = evaluate(suite, lambda question: "Paris is the capital", grader="string-match")
    [result] = outcome.results
    assert result.passed is True
    assert result.details is not None
    assert result.details["children"][1]["details"]["explanation"] == "Right."
    assert len(judge.judged) == 1
