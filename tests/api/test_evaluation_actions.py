"""Rename, re-run (same settings, stored target carried over) and one case's result by its id."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.factories import case_ids, make_suite, recorded, start, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer


def test_rename(client: TestClient) -> None:
    suite = make_suite(client)
    created = start(client, suite_id=suite["id"], target={"type": "recorded"}, name="old")
    renamed = client.patch(f"/api/evaluations/{created['id']}", json={"name": "new name"})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["data"]["name"] == "new name"
    assert client.get(f"/api/evaluations/{created['id']}").json()["data"]["name"] == "new name"
    for body in (
        {"name": ""},
        {"name": " "},
        {"name": "x" * 201},
        {"name": "a\nb"},
        {},
        {"name": "a", "id": 3},
    ):
        response = client.patch(f"/api/evaluations/{created['id']}", json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (422, "VALIDATION_ERROR"), body
    missing = client.patch("/api/evaluations/999", json={"name": "x"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "NOT_FOUND")


def test_rerun_keeps_the_settings_and_the_recorded_answers(client: TestClient) -> None:
    suite = make_suite(client)
    config = {"aliases": {"true": ["yes", "maybe"], "false": ["no"]}}
    source = start(
        client,
        suite_id=suite["id"],
        target=recorded(["yes", "yes", "maybe", "no"]),
        grader_config=config,
        concurrency=3,
        name="first",
    )
    done = wait_until_finished(client, source["id"])
    response = client.post(f"/api/evaluations/{source['id']}/rerun")
    assert response.status_code == 201, response.text
    rerun = response.json()["data"]
    assert rerun["id"] != source["id"]
    assert rerun["name"] == f"first · re-run of #{source['id']}"
    assert (rerun["suite_id"], rerun["concurrency"], rerun["grader"]) == (suite["id"], 3, done["grader"])
    assert rerun["target"] == done["target"]
    again = wait_until_finished(client, rerun["id"])
    assert again["summary"]["passed"] == done["summary"]["passed"] == 3

    # A re-run of a re-run does not pile suffixes; a name can be given.
    twice = client.post(f"/api/evaluations/{rerun['id']}/rerun", json={}).json()["data"]
    assert twice["name"] == f"first · re-run of #{rerun['id']}"
    named = client.post(f"/api/evaluations/{source['id']}/rerun", json={"name": "third"}).json()["data"]
    assert named["name"] == "third"


def test_rerun_carries_write_only_headers_and_secrets_by_name(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_SECRET_RERUN_TOKEN", "from-the-environment")
    suite = make_suite(client, [("Is water wet?", "true")])
    with AgentServer(AgentBehaviour(default="yes")) as agent:
        target = {
            "type": "http",
            "url": f"{agent.url}/answer",
            "headers": {"X-Literal": "literal-value", "X-Secret": "{{secret.ASSAY_SECRET_RERUN_TOKEN}}"},
        }
        source = wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
        assert source["target"]["headers"] == {"X-Literal": "[redacted]", "X-Secret": "[redacted]"}
        rerun = client.post(f"/api/evaluations/{source['id']}/rerun").json()["data"]
        assert wait_until_finished(client, rerun["id"])["summary"]["passed"] == 1
        assert len(agent.requests) == 2
        for request in agent.requests:
            assert request.headers["x-literal"] == "literal-value"
            assert request.headers["x-secret"] == "from-the-environment"


def test_rerun_is_checked_like_a_new_evaluation(client: TestClient) -> None:
    assert client.post("/api/evaluations/999/rerun").status_code == 404
    suite = make_suite(client, [("Is it?", "perhaps")])
    source = start(client, suite_id=suite["id"], target=recorded(["yes"]), allow_invalid_expected=True)
    wait_until_finished(client, source["id"])
    refused = client.post(f"/api/evaluations/{source['id']}/rerun")
    assert (refused.status_code, refused.json()["error"]["code"]) == (422, "VALIDATION_ERROR")
    allowed = client.post(f"/api/evaluations/{source['id']}/rerun", json={"allow_invalid_expected": True})
    assert allowed.status_code == 201, allowed.text


def test_one_result_by_case_id(client: TestClient) -> None:
    suite = make_suite(client)
    ids = case_ids(client, suite["id"])
    evaluation = start(client, suite_id=suite["id"], target=recorded(["yes", "no", "maybe", "no"]))
    wait_until_finished(client, evaluation["id"])
    result = client.get(f"/api/evaluations/{evaluation['id']}/results/{ids[2]}").json()["data"]
    assert (result["case_id"], result["number"], result["agent_response"]) == (ids[2], 3, "maybe")
    assert result["match_status"] == "invalid_response"
    assert result["details"]
    for path in (f"{evaluation['id']}/results/999999", f"999/results/{ids[0]}"):
        response = client.get(f"/api/evaluations/{path}")
        assert (response.status_code, response.json()["error"]["code"]) == (404, "NOT_FOUND")
    assert client.get(f"/api/evaluations/{evaluation['id']}/results/0").status_code == 422
