"""Testing a target before a run: one case sent once to a real agent on loopback, raw reply beside answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.services.execution import target_trial
from tests.factories import BOOLEAN_CASES, make_suite
from tests.support.agent_server import AgentBehaviour, AgentServer, Fault
from tests.support.judge_server import JudgeReply, JudgeServer
from tests.support.waiting import wait_for

PATH = "/api/evaluations/test-target"


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    answers = {"Is water wet?": {"verdict": "yes", "why": "it is"}, "Is fire cold?": "no"}
    with AgentServer(AgentBehaviour(answers=answers)) as server:
        yield server


def trial(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post(PATH, json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def test_the_first_case_once_with_the_raw_reply_the_answer_and_the_verdict(
    client: TestClient, agent: AgentServer
) -> None:
    suite = make_suite(client)
    url = f"{agent.url}/answer"
    target = {"type": "http", "url": url, "response_path": "output.verdict"}
    found = trial(client, suite_id=suite["id"], target=target, grader_id="true-false")
    assert (found["number"], found["key"], found["input"], found["expected_output"]) == (
        1,
        None,
        "Is water wet?",
        "true",
    )
    assert found["reached"] is True
    raw = found["raw"]
    assert (raw["source"], raw["status"], raw["content_type"], raw["truncated"]) == (
        f"HTTP 200 from {url}",
        200,
        "application/json",
        False,
    )
    assert json.loads(raw["text"]) == {"output": {"verdict": "yes", "why": "it is"}}
    assert (found["answer"], found["error"]) == ("yes", None)
    assert found["verdict"]["passed"] is True
    assert found["verdict"]["details"]["match_status"] == "match"
    assert agent.count("Is water wet?") == 1  # sent once
    assert client.get("/api/evaluations").json()["data"]["total"] == 0  # nothing stored

    # The answer read from the wrong place: the reply is still shown, with the reason nothing was read.
    wrong = trial(client, suite_id=suite["id"], target={**target, "response_path": "answer"}, case_number=2)
    assert (wrong["number"], wrong["input"], wrong["reached"]) == (2, "Is fire cold?", True)
    assert json.loads(wrong["raw"]["text"]) == {"output": "no"}
    assert (wrong["answer"], wrong["error"], wrong["error_detail"]) == (
        None,
        "bad_response",
        "reply has no 'answer'",
    )
    assert wrong["verdict"] is None


def test_an_agent_that_is_down_or_failing_is_a_result_that_says_so(
    client: TestClient, agent: AgentServer
) -> None:
    suite = make_suite(client)
    down = trial(client, suite_id=suite["id"], target={"type": "http", "url": "http://127.0.0.1:9/"})
    assert (down["reached"], down["raw"], down["answer"]) == (False, None, None)
    assert (down["error"], down["error_detail"]) == (
        "connection_error_after_retries",  # as an evaluation would record it
        "connection refused to http://127.0.0.1:9/",
    )
    agent.behaviour.faults["Is water wet?"] = Fault("status", 503)
    failing = trial(client, suite_id=suite["id"], target={"type": "http", "url": agent.url})
    assert (failing["reached"], failing["raw"]["status"]) == (True, 503)
    assert failing["error"] == "http_503_after_retries"
    assert agent.count("Is water wet?") == 1  # no retries: a test shows what happened


def test_recorded_answers_by_key_show_where_they_were_read(client: TestClient) -> None:
    cases = [{"key": f"q-{n}", "input": i, "expected_output": e} for n, (i, e) in enumerate(BOOLEAN_CASES)]
    suite = client.post("/api/suites", json={"name": "keyed", "cases": cases}).json()["data"]
    target = {"type": "recorded", "responses": {"q-0": "Yes", "q-1": None}}
    found = trial(client, suite_id=suite["id"], target=target)
    assert (found["number"], found["key"], found["answer"]) == (1, "q-0", "Yes")
    assert (found["raw"]["source"], found["raw"]["text"], found["raw"]["status"]) == (
        "responses['q-0']",
        "Yes",
        None,
    )
    missing = trial(client, suite_id=suite["id"], target=target, case_number=3)
    assert (missing["key"], missing["raw"], missing["error"]) == ("q-2", None, "no_recorded_response")


@pytest.mark.parametrize(
    ("body", "status", "code", "problem"),
    [
        ({"suite_id": 999999, "target": {"type": "recorded"}}, 404, "NOT_FOUND", None),
        (
            {"target": {"type": "recorded"}, "case_number": 5},
            422,
            "VALIDATION_ERROR",
            "case_number must be between 1 and 4",
        ),
        ({"target": {"type": "recorded"}, "grader_id": "nope"}, 404, "NOT_FOUND", None),
        ({"target": {"type": "evaluation", "evaluation_id": 1}}, 422, "VALIDATION_ERROR", None),
        ({"target": {"type": "http", "url": "http://169.254.169.254/"}}, 422, "VALIDATION_ERROR", None),
        (
            {"target": {"type": "recorded", "responses": {"0": "yes"}}},
            422,
            "VALIDATION_ERROR",
            "'0' names no case",
        ),
    ],
)
def test_refused_before_anything_is_sent(
    client: TestClient, body: dict[str, Any], status: int, code: str, problem: str | None
) -> None:
    suite = make_suite(client)
    response = client.post(PATH, json={"suite_id": suite["id"], **body})
    assert (response.status_code, response.json()["error"]["code"]) == (status, code), response.text
    if problem is not None:
        assert problem in response.json()["error"]["problems"][0]["message"]


def test_the_route_is_not_taken_for_an_evaluation_id(client: TestClient) -> None:
    wrong_method = client.put(PATH, json={})
    assert (wrong_method.status_code, wrong_method.headers["allow"]) == (405, "POST")
    assert client.get(PATH).status_code == 405  # not "evaluation 'test-target'"
    assert client.get("/api/evaluations/abc").status_code == 404


def test_tests_of_a_hanging_agent_leave_the_api_its_threads(client: TestClient) -> None:
    hanging = 6  # more than the server's threads for requests (4), and for slow work (4)
    suite = make_suite(client, [("hang", "true")], name="hanging agent")
    with AgentServer(AgentBehaviour(faults={"hang": Fault("hold")})) as agent:
        target = {"type": "http", "url": agent.url + "/answer", "timeout": 120}
        body = {"suite_id": suite["id"], "target": target, "grader_id": "true-false"}
        with ThreadPoolExecutor(hanging + 2) as pool:
            trials = [
                pool.submit(client.post, "/api/evaluations/test-target", json=body) for _ in range(hanging)
            ]
            wait_for(lambda: agent.app.in_flight >= 4, 30, what="the agent to hold 4 tests")
            listing = pool.submit(client.get, "/api/evaluations")
            graded = pool.submit(
                client.post,
                "/api/graders/string-match/grade",
                json={"agent_response": "a", "expected_output": "a"},
            )
            wait_for(lambda: listing.done() and graded.done(), 60, what="the listing and the grading")
            assert not any(trial.done() for trial in trials), "they answered only once the tests ended"
            agent.release()
            statuses = [trial.result().status_code for trial in trials]
        assert listing.result().status_code == 200, listing.result().text
        assert graded.result().json()["data"]["passed"] is True
    assert statuses == [200] * hanging


def test_a_hanging_judge_is_cut_at_the_end_of_the_trial(
    client: TestClient, agent: AgentServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(target_trial, "TRIAL_TIMEOUT_S", 1.5)  # the cap, shortened for the test
    with JudgeServer(
        {}, JudgeReply(json.dumps({"explanation": "late", "pass": True, "score": 1}), hang_s=60)
    ) as judge:
        suite = make_suite(client, BOOLEAN_CASES)
        config = {
            "base_url": judge.base_url,
            "model": "m",
            "api_key_env": None,
            "timeout": 1,
            "max_attempts": 3,
        }
        body = {
            "suite_id": suite["id"],
            "target": {"type": "http", "url": agent.url + "/answer"},
            "grader_id": "llm-judge",
            "grader_config": config,
        }
        data = trial(client, **body)
        # Without the cap the judge is asked three times (3 attempts of 1 s); cut at 1.5 s, twice at most.
        assert len(judge.judged) < 3
    assert data["answer"] is not None
    assert data["verdict"]["passed"] is False
