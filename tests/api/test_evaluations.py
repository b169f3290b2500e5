"""Evaluation routes end to end in process: create, run (real agent on loopback), results, cancel, compare."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.api.evaluations import ResultOrder
from assay.config import Settings
from assay.domain import ResultSort
from assay.services.suites.demo import DEMO_SUITE_NAME, RECORDED_KEY
from tests.factories import (
    BOOLEAN_CASES,
    case_ids,
    make_suite,
    recorded,
    results,
    start,
    wait_until_done,
    wait_until_finished,
)
from tests.support.agent_server import AgentBehaviour, AgentServer, Fault


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with AgentServer(AgentBehaviour(default="yes")) as server:
        yield server


def test_recorded_evaluation_runs_to_a_summary(client: TestClient) -> None:
    suite = make_suite(client)
    ids = case_ids(client, suite["id"])
    created = start(
        client, suite_id=suite["id"], target=recorded(["yes", "yes", "maybe", "no"]), name="first"
    )
    assert created["status"] == "pending"
    assert created["grader"]["grader_id"] == "true-false"
    assert created["grader"]["version"]
    assert created["target"] == {**created["target"], "type": "recorded", "responses_count": 4}
    assert "responses" not in created["target"]
    evaluation = wait_until_finished(client, created["id"])
    assert evaluation["status"] == "completed"
    assert evaluation["progress"] == {"done": 4, "total": 4}
    assert evaluation["started_at"] is not None
    assert evaluation["finished_at"] is not None
    summary = evaluation["summary"]
    assert (summary["passed"], summary["failed"], summary["pass_rate"]) == (2, 2, 0.5)
    assert summary["by_match_status"] == {"invalid_response": 1, "match": 2, "mismatch": 1}
    low, high = summary["pass_rate_ci95"]
    assert 0 < low < 0.5 < high < 1
    binary = summary["binary"]
    assert binary["confusion_matrix"]["true"] == {"true": 1, "false": 0, "invalid": 1}
    assert binary["confusion_matrix"]["false"] == {"true": 1, "false": 1, "invalid": 0}
    assert binary["accuracy"] == 0.5

    rows = results(client, created["id"])
    assert [(row["case_id"], row["number"], row["key"]) for row in rows] == [
        (case_id, number, None) for number, case_id in enumerate(ids, 1)
    ]
    first = rows[0]
    assert first["input"] == "Is water wet?"
    assert first["expected_output"] == "true"
    assert first["agent_response"] == "yes"
    assert first["passed"] is True
    assert first["score"] == 1.0
    assert first["details"]["match_status"] == "match"
    assert first["error"] is None
    assert [r["case_id"] for r in results(client, created["id"], outcome="passed")] == [ids[0], ids[3]]
    assert [r["case_id"] for r in results(client, created["id"], outcome="failed")] == ids[1:3]
    assert [r["case_id"] for r in results(client, created["id"], outcome="invalid")] == [ids[2]]
    assert [r["case_id"] for r in results(client, created["id"], match_status="mismatch")] == [ids[1]]
    assert [r["case_id"] for r in results(client, created["id"], q="fire")] == [ids[1]]
    assert [r["case_id"] for r in results(client, created["id"], sort="-number", limit=2)] == ids[:1:-1]


def test_refused_before_anything_runs(client: TestClient) -> None:
    suite = make_suite(client)
    target = {"type": "recorded", "responses": {}}
    cases = [
        ({"suite_id": 99999, "grader_id": "true-false", "target": target}, 404, "NOT_FOUND"),
        ({"suite_id": suite["id"], "grader_id": "nope", "target": target}, 404, "NOT_FOUND"),
        (
            {
                "suite_id": suite["id"],
                "grader_id": "true-false",
                "grader_config": {"case_sensitve": True},
                "target": target,
            },
            422,
            "VALIDATION_ERROR",
        ),
        (
            {
                "suite_id": suite["id"],
                "grader_id": "true-false",
                "target": {"type": "command", "command": "ls"},
            },
            422,
            "VALIDATION_ERROR",
        ),
        (
            {
                "suite_id": suite["id"],
                "grader_id": "true-false",
                "target": {"type": "http", "url": "file:///etc"},
            },
            422,
            "VALIDATION_ERROR",
        ),
        (
            {"suite_id": suite["id"], "grader_id": "true-false", "target": target, "concurrency": 0},
            422,
            "VALIDATION_ERROR",
        ),
    ]
    for body, status, code in cases:
        response = client.post("/api/evaluations", json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), body
    assert client.get("/api/evaluations").json()["data"]["total"] == 0


def test_http_target_with_errors_as_data_and_secret_headers(client: TestClient, agent: AgentServer) -> None:
    agent.behaviour.answers.update({"Is fire cold?": "no"})
    agent.behaviour.faults["Is 2 even?"] = Fault("status", 400)
    agent.behaviour.faults["=HYPERLINK(1)"] = Fault("bad_json")
    suite = make_suite(client)
    target = {"type": "http", "url": agent.url + "/agent", "headers": {"Authorization": "Bearer top-secret"}}
    created = start(client, suite_id=suite["id"], target=target, concurrency=2)
    evaluation = wait_until_finished(client, created["id"])
    assert evaluation["summary"]["errors_by_reason"] == {"bad_response": 1, "http_400": 1}
    assert evaluation["summary"]["passed"] == 2
    assert agent.requests[0].headers["authorization"] == "Bearer top-secret"
    for text in (
        json.dumps(created),
        client.get(f"/api/evaluations/{created['id']}").text,
        client.get("/api/evaluations").text,
    ):
        assert "top-secret" not in text
    assert evaluation["target"]["headers"] == {"Authorization": "[redacted]"}
    errored = results(client, created["id"], outcome="error")
    assert [(r["error"], r["passed"], r["score"], r["agent_response"]) for r in errored] == [
        ("http_400", False, None, None),
        ("bad_response", False, None, None),
    ]
    assert results(client, created["id"], error="http_400")[0]["input"] == "Is 2 even?"


def test_list_filters_and_pagination(client: TestClient) -> None:
    one = make_suite(client, name="one")
    two = make_suite(client, name="two")
    for suite in (one, one, two):
        wait_until_finished(client, start(client, suite_id=suite["id"], target={"type": "recorded"})["id"])
    page = client.get("/api/evaluations", params={"suite_id": one["id"], "limit": 1}).json()["data"]
    assert (page["count"], page["total"]) == (1, 2)
    completed = client.get("/api/evaluations", params={"status": "completed"}).json()["data"]
    assert completed["total"] == 3
    assert client.get("/api/evaluations", params={"status": "bogus"}).status_code == 422


def test_cancel_keeps_results_so_far_and_is_idempotent(client: TestClient, agent: AgentServer) -> None:
    agent.behaviour.delay = 0.05
    suite = make_suite(client, [(f"q{i}", "true") for i in range(200)])
    created = start(client, suite_id=suite["id"], target={"type": "http", "url": agent.url}, concurrency=2)
    wait_until_done(client, created["id"], 4)
    cancelled = client.post(f"/api/evaluations/{created['id']}/cancel").json()["data"]
    assert cancelled["status"] == "cancelled"
    done = cancelled["progress"]["done"]
    assert 4 <= done < 200
    assert cancelled["summary"]["finished"] == done
    again = client.post(f"/api/evaluations/{created['id']}/cancel").json()["data"]
    assert (again["status"], again["progress"]["done"]) == ("cancelled", done)
    time.sleep(0.2)
    assert client.get(f"/api/evaluations/{created['id']}").json()["data"]["progress"]["done"] == done


def test_delete(client: TestClient) -> None:
    suite = make_suite(client)
    evaluation = wait_until_finished(
        client, start(client, suite_id=suite["id"], target={"type": "recorded"})["id"]
    )
    assert client.delete(f"/api/evaluations/{evaluation['id']}").json()["data"] == {
        "id": evaluation["id"],
        "deleted": True,
    }
    for path in ("", "/results"):
        response = client.get(f"/api/evaluations/{evaluation['id']}{path}")
        assert (response.status_code, response.json()["error"]["code"]) == (404, "NOT_FOUND")


def test_compare_counts_flips_and_tests_them(client: TestClient) -> None:
    suite = make_suite(client, [(f"q{i}", "true") for i in range(30)])
    ids = case_ids(client, suite["id"])
    a = start(client, suite_id=suite["id"], target=recorded(["yes"] * 30))
    b = start(client, suite_id=suite["id"], target=recorded(["no"] * 10 + ["yes"] * 20))
    for evaluation in (a, b):
        wait_until_finished(client, evaluation["id"])
    response = client.get(f"/api/evaluations/{a['id']}/compare/{b['id']}", params={"limit": 3})
    comparison = response.json()["data"]
    assert (comparison["pass_to_fail"], comparison["fail_to_pass"], comparison["both_passed"]) == (10, 0, 20)
    assert comparison["common_cases"] == 30
    assert comparison["p_value"] == pytest.approx(2 / 1024)
    assert comparison["verdict"] == "b_worse"
    assert comparison["flips_total"] == 10
    assert [(flip["case_id"], flip["number"]) for flip in comparison["flips"]] == [
        (ids[0], 1),
        (ids[1], 2),
        (ids[2], 3),
    ]
    assert comparison["flips"][0]["a"]["agent_response"] == "yes"
    assert comparison["flips"][0]["flip"] == "pass_to_fail"
    reverse = client.get(f"/api/evaluations/{b['id']}/compare/{a['id']}").json()["data"]
    assert reverse["verdict"] == "b_better"
    other = make_suite(client, name="other")
    c = start(client, suite_id=other["id"], target={"type": "recorded"})
    response = client.get(f"/api/evaluations/{a['id']}/compare/{c['id']}")
    assert (response.status_code, response.json()["error"]["code"]) == (422, "VALIDATION_ERROR")


def test_compare_pages_cover_every_flip_once(client: TestClient) -> None:
    answers_a = ["yes", "no", "yes", "no", "yes", "yes", "no", "yes", "no", "yes"] * 3
    answers_b = ["no", "yes", "yes", "no", "no", "yes", "yes", "yes", "no", "no"] * 3
    suite = make_suite(client, [(f"q{i}", "true") for i in range(30)])
    ids = case_ids(client, suite["id"])
    a = start(client, suite_id=suite["id"], target=recorded(answers_a))
    b = start(client, suite_id=suite["id"], target=recorded(answers_b))
    for evaluation in (a, b):
        wait_until_finished(client, evaluation["id"])
    expected = {
        case_id: ("pass_to_fail" if left == "yes" else "fail_to_pass")
        for case_id, left, right in zip(ids, answers_a, answers_b, strict=True)
        if left != right
    }
    seen: dict[int, str] = {}
    for skip in range(0, 20, 4):
        page = client.get(
            f"/api/evaluations/{a['id']}/compare/{b['id']}", params={"skip": skip, "limit": 4}
        ).json()["data"]
        assert page["flips_total"] == len(expected) == 15
        assert (page["pass_to_fail"], page["fail_to_pass"]) == (9, 6)
        assert not seen.keys() & {flip["case_id"] for flip in page["flips"]}
        seen.update({flip["case_id"]: flip["flip"] for flip in page["flips"]})
    assert seen == expected
    regressions = client.get(
        f"/api/evaluations/{a['id']}/compare/{b['id']}",
        params={"flip": "pass_to_fail", "skip": 8, "limit": 5},
    ).json()["data"]["flips"]
    assert [flip["case_id"] for flip in regressions] == [
        c for c, kind in expected.items() if kind == "pass_to_fail"
    ][8:]


def test_an_export_covers_what_the_filters_show(client: TestClient) -> None:
    suite = make_suite(client)
    evaluation = start(client, suite_id=suite["id"], target=recorded(["yes", "no", "maybe", "no"]))
    wait_until_finished(client, evaluation["id"])
    path = f"/api/evaluations/{evaluation['id']}/export"
    listed = {
        outcome: [r["number"] for r in results(client, evaluation["id"], outcome=outcome)]
        for outcome in ("passed", "failed", "invalid")
    }
    assert listed == {"passed": [1, 2, 4], "failed": [3], "invalid": [3]}
    for outcome, expected in listed.items():
        lines = client.get(path, params={"format": "jsonl", "outcome": outcome}).text.splitlines()
        assert [json.loads(line)["number"] for line in lines] == expected
        rows = list(
            csv.DictReader(io.StringIO(client.get(path, params={"format": "csv", "outcome": outcome}).text))
        )
        assert [int(row["number"]) for row in rows] == expected
    assert len(client.get(path, params={"format": "jsonl"}).text.splitlines()) == 4
    searched = client.get(path, params={"format": "jsonl", "q": "maybe"}).text.splitlines()
    assert [json.loads(line)["agent_response"] for line in searched] == ["maybe"]


def test_the_summary_reports_as_the_configured_grader(client: TestClient) -> None:
    # extract over fuzzy reports scores, as fuzzy does; its default (over true-false) reports a matrix.
    suite = make_suite(client, [("Capital of France?", "Paris"), ("Capital of Italy?", "Rome")])
    config = {"grader": {"grader_id": "fuzzy"}}
    answers = ["The answer is: Paris", "Final answer: Milan"]
    evaluation = start(
        client, suite_id=suite["id"], grader_id="extract", grader_config=config, target=recorded(answers)
    )
    summary = wait_until_finished(client, evaluation["id"])["summary"]
    assert summary["passed"] == 1
    assert summary["binary"] is None
    assert sum(bin_["count"] for bin_ in summary["score_distribution"]["bins"]) == 2


def test_verdicts_are_counted_and_filtered_by_their_reason_code(client: TestClient) -> None:
    suite = make_suite(client)
    ids = case_ids(client, suite["id"])
    answers = ["The answer is: yes", "Maybe false, I think.", "It is not true.", "Final answer: no"]
    evaluation = start(client, suite_id=suite["id"], grader_id="extract", target=recorded(answers))
    summary = wait_until_finished(client, evaluation["id"])["summary"]
    assert summary["by_reason_code"] == {"hedged": 1, "negated": 1}
    assert summary["by_match_status"] == {"invalid_response": 2, "match": 2}
    assert summary["binary"]["confusion_matrix"]["false"]["invalid"] == 1  # the hedged reply, expected false
    hedged = results(client, evaluation["id"], reason_code="hedged")
    assert [row["case_id"] for row in hedged] == [ids[1]]
    assert hedged[0]["details"]["extraction"] == {
        "span": None,
        "rule": "hedged",
        "reason": "The reply hedges ('Maybe'), so it gives no clear answer",
    }
    # The verdict's shared fields come typed beside the details they were read from.
    assert (hedged[0]["reason_code"], hedged[0]["answer"], hedged[0]["explanation"]) == ("hedged", None, None)
    assert hedged[0]["reason"] == hedged[0]["details"]["reason"] != ""
    passed = results(client, evaluation["id"], outcome="passed")[0]
    read = passed["details"]
    assert (read["extraction"]["span"], read["extraction"]["rule"]) == ("yes", "labelled")
    assert (passed["answer"], passed["reason_code"]) == ("yes", None)
    assert results(client, evaluation["id"], reason_code="question") == []
    lines = client.get(
        f"/api/evaluations/{evaluation['id']}/export", params={"format": "jsonl", "reason_code": "negated"}
    ).text.splitlines()
    assert [json.loads(line)["number"] for line in lines] == [3]
    too_long = client.get(f"/api/evaluations/{evaluation['id']}/results", params={"reason_code": "x" * 41})
    assert too_long.status_code == 422
    assert too_long.json()["error"]["code"] == "VALIDATION_ERROR"


def test_exports_jsonl_and_formula_safe_csv(client: TestClient) -> None:
    suite = make_suite(client)
    evaluation = start(client, suite_id=suite["id"], target=recorded(["yes", "no", "-1+1", "no"]))
    wait_until_finished(client, evaluation["id"])
    jsonl = client.get(f"/api/evaluations/{evaluation['id']}/export", params={"format": "jsonl"})
    assert jsonl.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in jsonl.text.splitlines()]
    assert [(line["number"], line["key"]) for line in lines] == [(1, None), (2, None), (3, None), (4, None)]
    assert "case_id" not in lines[0]  # the database's id is no name of a case
    csv_response = client.get(f"/api/evaluations/{evaluation['id']}/export", params={"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(csv_response.text)))
    assert list(rows[0])[:2] == ["number", "key"]
    assert rows[3]["input"] == "'=HYPERLINK(1)"
    assert rows[2]["agent_response"] == "'-1+1"
    assert rows[0]["passed"] == "true"


def test_exports_carry_each_cases_metadata(client: TestClient) -> None:
    """JSON lines carry the metadata object; CSV a column per key (empty where a case lacks it)."""
    cases = [
        {"input": "Is water wet?", "expected_output": "true", "metadata": {"lang": "en", "tier": 1}},
        {"input": "L'eau est-elle mouillée ?", "expected_output": "true", "metadata": {"lang": "fr"}},
        {"input": "=cmd", "expected_output": "false", "metadata": {"lang": "=1+1", "tags": ["a", "b"]}},
    ]
    response = client.post("/api/suites", json={"name": "with metadata", "cases": cases})
    suite_id = response.json()["data"]["id"]
    evaluation = start(client, suite_id=suite_id, target=recorded(["yes", "yes", "no"]))
    wait_until_finished(client, evaluation["id"])
    path = f"/api/evaluations/{evaluation['id']}/export"
    lines = [json.loads(line) for line in client.get(path, params={"format": "jsonl"}).text.splitlines()]
    assert [line["metadata"] for line in lines] == [case["metadata"] for case in cases]
    rows = list(csv.DictReader(io.StringIO(client.get(path, params={"format": "csv"}).text)))
    assert list(rows[0])[-3:] == ["metadata.lang", "metadata.tags", "metadata.tier"]  # most common first
    assert [row["metadata.lang"] for row in rows] == ["en", "fr", "'=1+1"]  # formulas neutralised here too
    assert [row["metadata.tier"] for row in rows] == ["1", "", ""]
    assert rows[2]["metadata.tags"] == '["a", "b"]'


def test_shutdown_mid_run_then_restart_resumes_without_duplicates(
    settings: Settings, agent: AgentServer
) -> None:
    agent.behaviour.delay = 0.02
    total = 120
    with TestClient(create_app(settings)) as client:
        suite = make_suite(client, [(f"r{i}", "true") for i in range(total)])
        created = start(
            client, suite_id=suite["id"], target={"type": "http", "url": agent.url}, concurrency=2
        )
        wait_until_done(client, created["id"], 10)
    with TestClient(create_app(settings)) as client:
        evaluation = wait_until_finished(client, created["id"])
        assert evaluation["status"] == "completed"
        assert evaluation["progress"] == {"done": total, "total": total}
        rows = results(client, created["id"], limit=500)
        assert sorted(row["input"] for row in rows) == sorted(f"r{i}" for i in range(total))
    assert len(agent.requests) < total + 10  # only the few calls in flight at shutdown ran twice


def test_demo_suite_is_seeded_once_and_runs(database_url: str) -> None:
    settings = Settings(database_url=database_url, api_key=None, seed_demo=True)
    with TestClient(create_app(settings)) as client:
        suites = client.get("/api/suites").json()["data"]["suites"]
        assert [suite["name"] for suite in suites] == [DEMO_SUITE_NAME]
        target = {"type": "recorded", "metadata_key": RECORDED_KEY}
        evaluation = wait_until_finished(client, start(client, suite_id=suites[0]["id"], target=target)["id"])
        assert evaluation["summary"]["error_count"] == 0
        assert evaluation["summary"]["binary"]["invalid"] == 1
    with TestClient(create_app(settings)) as client:
        assert client.get("/api/suites").json()["data"]["total"] == 1


def test_an_agent_that_cannot_be_reached_fails_the_evaluation_naming_url_and_cause(
    client: TestClient,
) -> None:
    suite = make_suite(client, [(f"q{i}", "true") for i in range(40)])
    target = {"type": "http", "url": "http://127.0.0.1:9/", "timeout": 2, "max_attempts": 1}
    created = start(client, suite_id=suite["id"], target=target, concurrency=2)
    evaluation = wait_until_finished(client, created["id"])
    assert evaluation["status"] == "failed"
    assert "could not be reached: connection refused to http://127.0.0.1:9/" in evaluation["error"]
    assert "the first 5 cases all failed to connect" in evaluation["error"]
    done = evaluation["progress"]["done"]
    assert 5 <= done < 40  # stopped early: the other cases were never tried
    assert evaluation["summary"]["errors_by_reason"] == {"connection_error_after_retries": done}
    failed = results(client, created["id"], outcome="failed", limit=100)
    assert len(failed) == done  # the "failed" filter counts target errors, as the summary's failed does
    assert failed[0]["error_detail"] == "connection refused to http://127.0.0.1:9/"


def test_a_small_suite_whose_every_case_cannot_connect_fails_too(client: TestClient) -> None:
    suite = make_suite(client, BOOLEAN_CASES[:2])
    target = {"type": "http", "url": "http://127.0.0.1:9/answer", "timeout": 2, "max_attempts": 1}
    evaluation = wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
    assert evaluation["status"] == "failed"
    assert "all 2 cases failed to connect" in evaluation["error"]
    assert evaluation["progress"]["done"] == 2


def test_an_agent_that_answers_only_errors_was_reached(client: TestClient, agent: AgentServer) -> None:
    agent.behaviour.faults.update({text: Fault("status", 400) for text, _ in BOOLEAN_CASES[1:]})
    suite = make_suite(client)
    target = {"type": "http", "url": agent.url, "max_attempts": 1}
    evaluation = wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
    assert (evaluation["status"], evaluation["error"]) == ("completed", None)
    assert evaluation["summary"]["failed"] == 3
    assert len(results(client, evaluation["id"], outcome="failed")) == 3
    assert len(results(client, evaluation["id"], outcome="error")) == 3


def test_recorded_answers_name_cases_by_key_and_one_naming_no_case_is_refused(client: TestClient) -> None:
    body = {
        "name": "keyed",
        "cases": [
            {"key": f"q-{n}", "input": i, "expected_output": e} for n, (i, e) in enumerate(BOOLEAN_CASES)
        ],
    }
    suite = client.post("/api/suites", json=body).json()["data"]
    answers = {"q-3": "no", "q-0": "yes", "q-1": "yes"}  # any order; q-2 not answered
    evaluation = wait_until_finished(
        client, start(client, suite_id=suite["id"], target={"type": "recorded", "responses": answers})["id"]
    )
    rows = results(client, evaluation["id"])
    assert [(r["number"], r["key"], r["passed"], r["error"]) for r in rows] == [
        (1, "q-0", True, None),
        (2, "q-1", False, None),
        (3, "q-2", False, "no_recorded_response"),
        (4, "q-3", True, None),
    ]
    exported = client.get(f"/api/evaluations/{evaluation['id']}/export", params={"format": "jsonl"}).text
    assert [json.loads(line)["key"] for line in exported.splitlines()] == ["q-0", "q-1", "q-2", "q-3"]
    wrong = {**answers, "q-9": "yes", "1": "yes", "nul\x00": "no"}
    response = client.post(
        "/api/evaluations",
        json={
            "suite_id": suite["id"],
            "grader_id": "true-false",
            "target": {"type": "recorded", "responses": wrong},
        },
    )
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["message"].startswith("3 recorded answer(s) name no case of the suite")
    assert error["problems"] == [
        {
            "loc": ["target", "recorded", "responses"],
            "message": "'q-9' names no case (no case of the suite has this key)",
        },
        {
            "loc": ["target", "recorded", "responses"],
            "message": "'1' names no case (no case of the suite has this key)",
        },
        {
            "loc": ["target", "recorded", "responses"],
            "message": "'nul\\x00' names no case (no case of the suite has this key)",
        },
    ]


def test_answers_numbered_from_0_are_refused_not_shifted(client: TestClient) -> None:
    # The newcomer's trap: answers keyed 0..3 for cases numbered 1..4 used to lose one and shift none.
    suite = make_suite(client)
    target = {"type": "recorded", "responses": {str(n): "yes" for n in range(4)}}
    response = client.post(
        "/api/evaluations", json={"suite_id": suite["id"], "grader_id": "true-false", "target": target}
    )
    assert response.status_code == 422, response.text
    rule = "the suite's cases have no keys: they are numbered 1 to 4"
    problems = response.json()["error"]["problems"]
    assert problems == [
        {"loc": ["target", "recorded", "responses"], "message": f"'0' names no case ({rule})"}
    ]


@pytest.mark.parametrize(
    "query",
    ["q=a%00b", "error=x%00", "reason_code=%00", "outcome=passed&q=%00"],
)
def test_a_nul_in_a_query_parameter_is_a_422_envelope(client: TestClient, query: str) -> None:
    suite = make_suite(client)
    evaluation = start(client, suite_id=suite["id"], target=recorded(["yes", "no", "yes", "no"]))
    wait_until_finished(client, evaluation["id"])
    for path in (
        f"/api/evaluations/{evaluation['id']}/results",
        f"/api/evaluations/{evaluation['id']}/export",
    ):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["code"] == "VALIDATION_ERROR"
        assert error["problems"] == [
            {"loc": ["query"], "message": "a query parameter holds a NUL character (%00)"}
        ]
    breakdown = client.get(f"/api/evaluations/{evaluation['id']}/breakdown?key=la%00ng")
    assert breakdown.status_code == 422, breakdown.text


def test_search_finds_like_wildcards_and_backslashes_literally(client: TestClient) -> None:
    inputs = ["50% off", "5000 off", "snake_case", "snakeXcase", "C:\\temp", "C:temp", 'say "hi"', "plain"]
    suite = make_suite(client, [(text_, "true") for text_ in inputs], name="wildcards")
    target = {"type": "recorded", "responses": {str(n): "yes" for n in range(1, len(inputs) + 1)}}
    evaluation_id = start(client, suite_id=suite["id"], target=target)["id"]
    wait_until_finished(client, evaluation_id)
    found = {
        q: [row["input"] for row in results(client, evaluation_id, q=q)]
        for q in ("%", "0% o", "_", "e_c", "\\", ":\\t", '"hi"', "PLAIN")
    }
    assert found == {
        "%": ["50% off"],
        "0% o": ["50% off"],
        "_": ["snake_case"],
        "e_c": ["snake_case"],
        "\\": ["C:\\temp"],
        ":\\t": ["C:\\temp"],
        '"hi"': ['say "hi"'],
        "PLAIN": ["plain"],
    }


def test_ids_and_numbers_are_json_integers_not_booleans_or_strings(client: TestClient) -> None:
    suite = make_suite(client)
    source_id = start(client, suite_id=suite["id"], target={"type": "recorded"})["id"]
    wait_until_finished(client, source_id)
    regrade = {"type": "evaluation", "evaluation_id": source_id}
    refused = [
        ("/api/evaluations", {"suite_id": suite["id"], "target": {**regrade, "evaluation_id": True}}),
        ("/api/evaluations", {"suite_id": str(suite["id"]), "target": regrade}),
        ("/api/evaluations", {"suite_id": suite["id"], "target": regrade, "concurrency": True}),
        ("/api/evaluations/test-target", {"suite_id": suite["id"], "target": regrade, "case_number": "2"}),
        ("/api/evaluations/test-target", {"suite_id": True, "target": regrade}),
    ]
    for path, body in refused:
        response = client.post(path, json={"grader_id": "true-false", **body})
        assert response.status_code == 422, (body, response.text)
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    whole = {"suite_id": float(suite["id"]), "target": {**regrade, "evaluation_id": float(source_id)}}
    assert client.post("/api/evaluations", json={"grader_id": "true-false", **whole}).status_code == 201


def test_every_result_ordering_is_a_sort_value_both_ways() -> None:
    """The API's ``sort`` enum (what the UI offers) covers each ordering, ascending and descending."""
    orders = {(order.sort, order.is_descending) for order in ResultOrder}
    assert orders == {(sort, descending) for sort in ResultSort for descending in (False, True)}
