"""An ``assay.yaml`` through the API: ``GET /api/evaluations/{id}/config`` writes a stored evaluation's
settings as one, and ``POST /api/evals`` runs one, creating its evaluations as the evaluation form does."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.services.eval_file.loading import parse_eval_file
from assay.services.eval_file.model import ServerSuite
from tests.factories import case_ids, make_suite, recorded, start, wait_until_finished


def config_of(client: TestClient, evaluation_id: int) -> str:
    response = client.get(f"/api/evaluations/{evaluation_id}/config")
    assert response.status_code == 200, response.text
    text: str = response.json()["data"]["config"]
    return text


def post_eval(client: TestClient, config: str) -> Any:
    return client.post("/api/evals", json={"config": config})


def settings(evaluation: dict[str, Any]) -> tuple[Any, ...]:
    """What an evaluation was asked to do (not its name, status or results)."""
    grader = evaluation["grader"]
    return (
        evaluation["suite_id"],
        grader["grader_id"],
        grader["config"],
        evaluation["target"],
        evaluation["concurrency"],
    )


def test_an_evaluations_config_fed_back_reproduces_its_settings(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_SECRET_AGENT_TOKEN", "a token the config never shows")
    suite = make_suite(client)
    http = {
        "type": "http",
        "url": "http://127.0.0.1:9/agent",
        "headers": {"Authorization": "Bearer {{secret.ASSAY_SECRET_AGENT_TOKEN}}"},
        "response_path": "answer",
        "timeout": 5,
    }
    created = start(
        client,
        suite_id=suite["id"],
        target=http,
        grader_id="true-false",
        grader_config={"aliases": {"true": ["ja"], "false": ["nein"]}},
        concurrency=3,
        allow_invalid_expected=True,
    )
    text = config_of(client, created["id"])
    file, _ = parse_eval_file(text, "assay.yaml")  # a valid assay.yaml
    assert file.suites == [ServerSuite(server_suite=suite["id"])]
    again = post_eval(client, text)
    assert again.status_code == 201, again.text
    (rerun,) = again.json()["data"]["evaluations"]
    assert rerun["id"] != created["id"]
    assert settings(rerun) == settings(created)
    assert again.json()["data"]["not_used"] == []


def test_the_reply_cache_of_an_eval_file_is_the_evaluations_and_reads_back(client: TestClient) -> None:
    suite = make_suite(client)
    config = f"""\
suites: [{{server_suite: {suite["id"]}}}]
target: {{type: http, url: "http://127.0.0.1:9/agent"}}
grader: {{id: true-false}}
cache: replay
"""
    response = post_eval(client, config)
    assert response.status_code == 201, response.text
    (created,) = response.json()["data"]["evaluations"]
    assert created["reply_cache"] == "replay"
    text = config_of(client, created["id"])
    assert "cache: replay" in text
    file, _ = parse_eval_file(text, "assay.yaml")
    assert file.cache == "replay"


def test_literal_header_values_and_recorded_answers_are_left_out_and_said(client: TestClient) -> None:
    suite = make_suite(client)
    http = {"type": "http", "url": "http://127.0.0.1:9/agent", "headers": {"X-Key": "s3cr3t-value"}}
    with_header = start(client, suite_id=suite["id"], target=http, allow_invalid_expected=True)
    text = config_of(client, with_header["id"])
    assert "s3cr3t-value" not in text
    assert "# Left out (header values are write-only): headers X-Key." in text
    answers = start(client, suite_id=suite["id"], target=recorded(["yes", "no", "yes", "no"]))
    text = config_of(client, answers["id"])
    assert "# Left out: the 4 recorded answers." in text
    assert "yes" not in text.split("target:", 1)[1].split("grader:", 1)[0]


def test_an_eval_file_runs_one_evaluation_per_server_suite_to_the_end(client: TestClient) -> None:
    first, second = make_suite(client, name="first"), make_suite(client, name="second")
    config = f"""\
suites: [{{server_suite: {first["id"]}}}, {{server_suite: {second["id"]}}}]
target: {{type: recorded, responses: {{"1": "yes", "2": "no", "3": "yes", "4": "no"}}}}
grader: {{id: true-false}}
concurrency: 2
gates: {{min_pass_rate: 0.9}}
"""
    response = post_eval(client, config)
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert [evaluation["suite_id"] for evaluation in data["evaluations"]] == [first["id"], second["id"]]
    assert data["not_used"] == ["gates"]
    for evaluation in data["evaluations"]:
        finished = wait_until_finished(client, evaluation["id"])
        assert finished["status"] == "completed"
        assert finished["summary"]["total_cases"] == 4


def test_a_suite_file_path_is_refused_with_a_clear_422(client: TestClient) -> None:
    response = post_eval(client, "suites: [suite.jsonl]\ntarget: {type: recorded}\n")
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert (
        "'suite.jsonl' is a file path, which a server cannot read: give {server_suite: ID}"
        in error["message"]
    )


def test_a_cli_only_target_and_default_assertions_are_refused(client: TestClient) -> None:
    suite = make_suite(client)
    config = f"suites: [{{server_suite: {suite['id']}}}]\ntarget: {{type: python, callable: 'a:b'}}\n"
    config += "assert: [{grader_id: true-false}]\n"
    response = post_eval(client, config)
    assert response.status_code == 422
    messages = [problem["message"] for problem in response.json()["error"]["problems"]]
    assert messages == [
        "store default assertions and rules on the suite (PATCH /api/suites/{id})",
        "a 'python' target runs with assay eval only",
    ]


def test_an_unknown_key_is_a_422_naming_its_line_and_the_nearest_key(client: TestClient) -> None:
    response = post_eval(client, "suites: [{server_suite: 1}]\ntarget: {type: recorded}\nconcurency: 2\n")
    assert response.status_code == 422
    assert response.json()["error"]["message"] == (
        "assay.yaml line 3: unknown key 'concurency' (did you mean 'concurrency'?)"
    )


def test_the_evaluation_forms_checks_apply(client: TestClient) -> None:
    missing = post_eval(client, "suites: [{server_suite: 999}]\ntarget: {type: recorded}\n")
    assert missing.status_code == 404
    suite = make_suite(client)
    bad_grader = post_eval(
        client,
        f"suites: [{{server_suite: {suite['id']}}}]\ntarget: {{type: recorded}}\ngrader: {{id: nope}}\n",
    )
    assert bad_grader.status_code in (404, 422)
    assert bad_grader.json()["error"]["message"].startswith("Grader not found")


def test_a_file_whose_later_suite_is_refused_creates_no_evaluation(client: TestClient) -> None:
    """All or none: the first suite's evaluation is not left running when the second suite is refused."""
    good = make_suite(client, name="good")
    for later, status in ((999, 404), (make_suite(client, [("q", "maybe")], name="unjudgeable")["id"], 422)):
        config = f"""\
suites: [{{server_suite: {good["id"]}}}, {{server_suite: {later}}}]
target: {{type: recorded}}
grader: {{id: true-false}}
"""
        response = post_eval(client, config)
        assert response.status_code == status, response.text
        listed = client.get("/api/evaluations").json()["data"]
        assert listed["total"] == 0, listed


def test_the_config_of_a_missing_evaluation_is_404(client: TestClient) -> None:
    response = client.get("/api/evaluations/999/config")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_an_eval_files_prices_are_the_evaluations_and_an_unreached_agent_costs_unknown(
    client: TestClient,
) -> None:
    suite = make_suite(client)
    config = f"""\
suites: [{{server_suite: {suite["id"]}}}]
target: {{type: http, url: "http://127.0.0.1:9/agent", max_attempts: 1}}
grader: {{id: true-false}}
prices:
  agent-model: {{input_per_million: 0.15, output_per_million: 0.6}}
"""
    response = post_eval(client, config)
    assert response.status_code == 201, response.text
    (created,) = response.json()["data"]["evaluations"]
    file, _ = parse_eval_file(config_of(client, created["id"]), "assay.yaml")
    price = file.prices["agent-model"]
    assert (str(price.input_per_million), str(price.output_per_million)) == ("0.15", "0.6")  # exact
    cost = wait_until_finished(client, created["id"])["summary"]["cost"]
    cases = len(case_ids(client, suite["id"]))
    assert cost["total"] == {"usd": None, "known_cases": 0, "unknown_cases": cases, "max_case_usd": None}
    assert cost["judge"]["usd"] == "0"  # no judge: nothing spent grading
    refused = post_eval(client, config.replace("0.6}", "0.6, currency: EUR}"))
    assert refused.status_code == 422
