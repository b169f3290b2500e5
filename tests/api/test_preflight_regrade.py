"""Preflight of expected outputs (create refuses, the preflight route reports) and re-grading."""

from __future__ import annotations

from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.config import Settings
from tests.factories import case_ids, make_suite, recorded, results, start, wait_until_finished

MIXED = [("a", "true"), ("b", "maybe"), ("c", "false"), ("d", ""), ("e", "perhaps")]


def test_create_refuses_cases_the_grader_can_never_pass_unless_opted_in(client: TestClient) -> None:
    suite = make_suite(client, MIXED)
    body = {"suite_id": suite["id"], "grader_id": "true-false", "target": recorded(["yes"] * 5)}
    response = client.post("/api/evaluations", json=body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "3 of 5 cases" in error["message"]
    assert error["problems"] == [
        {"loc": ["case", 2], "message": "Expected value 'maybe' is not a valid boolean"},  # numbered from 1
        {"loc": ["case", 4], "message": "Expected value '' is not a valid boolean"},
        {"loc": ["case", 5], "message": "Expected value 'perhaps' is not a valid boolean"},
    ]
    assert client.get("/api/evaluations", params={"suite_id": suite["id"]}).json()["data"]["total"] == 0
    evaluation = start(client, **body, allow_invalid_expected=True)
    finished = wait_until_finished(client, evaluation["id"])
    assert finished["summary"]["passed"] == 1
    statuses = [row["match_status"] for row in results(client, evaluation["id"])]
    assert statuses.count("invalid_expected") == 3


def test_preflight_route_counts_all_and_names_the_first(client: TestClient) -> None:
    suite = make_suite(client, [(f"q{i}", "" if i % 2 else "Paris") for i in range(25)])
    ids = case_ids(client, suite["id"])
    response = client.post(f"/api/suites/{suite['id']}/preflight", json={"grader_id": "string-match"})
    assert response.status_code == 200, response.text
    report = response.json()["data"]
    assert (report["grader_id"], report["checked"], report["invalid"]) == ("string-match", 25, 12)
    assert [problem["case_id"] for problem in report["problems"]] == ids[1:20:2]
    assert (report["problems"][0]["number"], report["problems"][0]["key"]) == (2, None)
    assert "empty" in report["problems"][0]["reason"]
    clean = client.post(f"/api/suites/{suite['id']}/preflight", json={"grader_id": "true-false"}).json()
    assert clean["data"]["invalid"] == 25  # neither "Paris" nor "" is a boolean
    missing = client.post("/api/suites/999999/preflight", json={"grader_id": "true-false"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "NOT_FOUND")
    bad = client.post(
        f"/api/suites/{suite['id']}/preflight", json={"grader_id": "true-false", "config": {"nope": 1}}
    )
    assert (bad.status_code, bad.json()["error"]["code"]) == (422, "VALIDATION_ERROR")
    unknown = client.post(f"/api/suites/{suite['id']}/preflight", json={"grader_id": "no-such-grader"})
    assert unknown.status_code == 404


def test_regrade_replays_stored_answers_and_errors_and_compares(client: TestClient) -> None:
    suite = make_suite(client, [("q0", "yes"), ("q1", "Yes"), ("q2", "oui"), ("q3", "no")])
    ids = case_ids(client, suite["id"])
    answers = {"1": "YES", "2": "yes", "3": "oui"}  # case #4: no answer → error
    source = start(
        client,
        suite_id=suite["id"],
        grader_id="string-match",
        target={"type": "recorded", "responses": answers},
    )
    source = wait_until_finished(client, source["id"])
    assert (source["summary"]["passed"], source["summary"]["error_count"]) == (3, 1)
    regrade = start(
        client,
        suite_id=suite["id"],
        grader_id="string-match",
        grader_config={"case_sensitive": True},
        target={"type": "evaluation", "evaluation_id": source["id"]},
    )
    regrade = wait_until_finished(client, regrade["id"])
    assert regrade["status"] == "completed"
    rows = {row["case_id"]: row for row in results(client, regrade["id"])}
    assert [rows[i]["agent_response"] for i in ids[:3]] == ["YES", "yes", "oui"]
    assert [rows[i]["passed"] for i in ids[:3]] == [False, False, True]
    assert rows[ids[3]]["error"] == "no_recorded_response"
    comparison = client.get(f"/api/evaluations/{source['id']}/compare/{regrade['id']}").json()["data"]
    assert (comparison["common_cases"], comparison["pass_to_fail"], comparison["fail_to_pass"]) == (4, 2, 0)
    assert sorted(flip["case_id"] for flip in comparison["flips"]) == ids[:2]


def test_regrade_refuses_a_missing_unfinished_or_foreign_source(client: TestClient) -> None:
    suite = make_suite(client, [("q", "true")])
    other = make_suite(client, [("q", "true")], name="other")
    done = wait_until_finished(
        client,
        start(client, suite_id=other["id"], target=recorded(["yes"]))["id"],
    )
    for evaluation_id, words in ((999999, "does not exist"), (done["id"], f"ran suite {other['id']}")):
        body = {
            "suite_id": suite["id"],
            "grader_id": "true-false",
            "target": {"type": "evaluation", "evaluation_id": evaluation_id},
        }
        response = client.post("/api/evaluations", json=body)
        assert response.status_code == 422, response.text
        assert words in response.json()["error"]["message"]


def test_a_regrade_whose_source_is_deleted_before_it_runs_fails_saying_so(settings: Settings) -> None:
    idle = Settings.model_validate({**settings.model_dump(), "run_evaluations": False})
    with TestClient(create_app(settings)) as client:
        suite = make_suite(client)
        target = {"type": "recorded", "responses": {str(n): "yes" for n in range(1, 5)}}
        source_id = start(client, suite_id=suite["id"], target=target)["id"]
        wait_until_finished(client, source_id)
    with TestClient(create_app(idle)) as client:  # created, not run: then its source goes
        regrade = start(
            client, suite_id=suite["id"], target={"type": "evaluation", "evaluation_id": source_id}
        )
        assert client.delete(f"/api/evaluations/{source_id}").status_code == 200
    with TestClient(create_app(settings)) as client:  # a server that runs it
        final = wait_until_finished(client, regrade["id"])
    assert final["status"] == "failed"
    assert f"evaluation {source_id}, whose answers this re-grades, was deleted" in final["error"]


def test_preflight_says_the_smallest_difference_the_suite_detects(client: TestClient) -> None:
    from assay.services.figures.power import detectable_difference

    suite = make_suite(client, [(f"q{i}", "true") for i in range(120)])
    route = f"/api/suites/{suite['id']}/preflight"
    once = client.post(route, json={"grader_id": "true-false"}).json()["data"]["detectable_difference"]
    assert once["cases"] == 120
    assert once["repeats"] == 1
    assert once["alpha"] == 0.05
    assert once["difference"] == detectable_difference(120).difference
    assert "120 cases × 1 repeat: a change of" in once["summary"]
    thrice = client.post(route, json={"grader_id": "true-false", "repeats": 3}).json()["data"]
    assert thrice["detectable_difference"]["difference"] < once["difference"]  # more pairs, smaller change
    refused = client.post(route, json={"grader_id": "true-false", "repeats": 0})
    assert (refused.status_code, refused.json()["error"]["code"]) == (422, "VALIDATION_ERROR")
    few = make_suite(client, [("q", "true")] * 5, name="few")
    small = client.post(f"/api/suites/{few['id']}/preflight", json={"grader_id": "true-false"}).json()
    assert small["data"]["detectable_difference"]["difference"] is None
