"""What an API caller may make the server do through a target: secrets by name only, no refused address,
answers capped; and no secret in a response, a stored row or the log. Every test runs on SQLite and
PostgreSQL; nothing is sent off loopback (refused addresses are refused at creation, before any call).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from assay.api.app import create_app
from assay.config import Settings
from assay.storage.database import normalize_url
from tests.factories import make_suite, start, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer

SECRET = "s3cret-token-value-7d1e"


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with AgentServer(AgentBehaviour(default="yes")) as server:
        yield server


def app_client(settings: Settings, **changes: Any) -> TestClient:
    """A client of an app whose settings differ from the test's in ``changes`` (validated as from the env)."""
    return TestClient(create_app(Settings.model_validate({**settings.model_dump(), **changes})))


def error_of(response: Any) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    return error


def openai_target(key_env: str) -> dict[str, Any]:
    return {"type": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key_env": key_env}


def test_a_refused_and_an_unset_secret_get_the_same_answer(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_API_KEY", SECRET)
    monkeypatch.setenv("DATABASE_PASSWORD", SECRET)
    suite = make_suite(client)
    messages = {}
    for name in ("ASSAY_API_KEY", "DATABASE_PASSWORD", "ASSAY_SECRET_NOT_SET", "NOT_SET_AT_ALL"):
        body = {"suite_id": suite["id"], "grader_id": "true-false", "target": openai_target(name)}
        messages[name] = error_of(client.post("/api/evaluations", json=body))["message"].replace(name, "NAME")
    assert len(set(messages.values())) == 1, messages
    assert "ASSAY_SECRET_" in messages["ASSAY_API_KEY"]
    header_body = {
        "suite_id": suite["id"],
        "grader_id": "true-false",
        "target": {
            "type": "http",
            "url": "http://127.0.0.1:9/",
            "headers": {"X-Key": "{{secret.ASSAY_API_KEY}}"},
        },
    }
    assert (
        "secret 'ASSAY_API_KEY' is not available"
        in error_of(client.post("/api/evaluations", json=header_body))["message"]
    )


def test_a_secret_reaches_the_agent_and_nothing_else(
    client: TestClient,
    agent: AgentServer,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("ASSAY_SECRET_AGENT_TOKEN", SECRET)
    caplog.set_level(logging.DEBUG)
    suite = make_suite(client)
    target = {
        "type": "http",
        "url": agent.url + "/answer",
        "headers": {"Authorization": "Bearer {{secret.ASSAY_SECRET_AGENT_TOKEN}}"},
        "body_template": {"input": "{{input}} {{secret.ASSAY_SECRET_AGENT_TOKEN}}"},
    }
    evaluation = wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
    assert evaluation["status"] == "completed"
    assert agent.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert (agent.requests[0].input or "").endswith(f" {SECRET}")
    shown = [
        client.get(f"/api/evaluations/{evaluation['id']}").text,
        client.get("/api/evaluations").text,
        client.get(f"/api/evaluations/{evaluation['id']}/results").text,
        client.get(f"/api/evaluations/{evaluation['id']}/export", params={"format": "jsonl"}).text,
    ]
    assert all(SECRET not in text for text in shown)
    engine = create_engine(normalize_url(database_url))
    with engine.connect() as connection:
        for table in ("evaluations", "results"):
            rows = connection.execute(text(f"SELECT * FROM {table}")).all()
            assert rows
            assert SECRET not in repr(rows)
    engine.dispose()
    assert SECRET not in caplog.text


def test_target_secrets_lists_more_names(
    settings: Settings, agent: AgentServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    with app_client(settings, target_secrets="OTHER, AGENT_TOKEN") as client:
        suite = make_suite(client)
        target = {
            "type": "http",
            "url": agent.url + "/answer",
            "headers": {"X-Token": "{{secret.AGENT_TOKEN}}"},
        }
        wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
    assert agent.requests[0].headers["x-token"] == SECRET


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[fd00:ec2::254]/", "metadata"),
        ("http://metadata.google.internal/computeMetadata/v1/", "metadata"),
        ("http://[::ffff:127.0.0.1]:9000/", "loopback or private"),
        ("http://10.0.0.1/", "loopback or private"),
        ("http://0.0.0.0:9000/", "unspecified"),
        ("http://169.254.169.254@127.0.0.1/", "credentials"),
        ("http://2130706433/", "not a canonical IP address"),
    ],
)
def test_an_exposed_server_refuses_addresses_at_creation(settings: Settings, url: str, words: str) -> None:
    with app_client(settings, api_key="k" * 32, listen_host="0.0.0.0", listen_port=8000) as client:
        client.headers["Authorization"] = "Bearer " + "k" * 32
        suite = make_suite(client)
        body = {"suite_id": suite["id"], "grader_id": "true-false", "target": {"type": "http", "url": url}}
        error = error_of(client.post("/api/evaluations", json=body))
        assert error["message"].startswith("target.http.url: ")
        assert error["problems"][0]["loc"] == ["target", "http", "url"]
        assert words in error["message"]
        openai = {"type": "openai", "model": "m", "base_url": url, "api_key_env": None}
        body = {"suite_id": suite["id"], "grader_id": "true-false", "target": openai}
        assert words in error_of(client.post("/api/evaluations", json=body))["message"]


def test_an_exposed_server_reaches_loopback_only_when_allowed(settings: Settings, agent: AgentServer) -> None:
    key = "k" * 32
    for allow in ("", "127.0.0.1"):
        with app_client(
            settings, api_key=key, listen_host="0.0.0.0", listen_port=1, target_allow=allow
        ) as client:
            client.headers["Authorization"] = f"Bearer {key}"
            suite = make_suite(client, name=f"allow {allow or 'none'}")
            target = {"type": "http", "url": agent.url + "/answer"}
            body = {"suite_id": suite["id"], "grader_id": "true-false", "target": target}
            response = client.post("/api/evaluations", json=body)
            if not allow:
                assert "loopback or private" in error_of(response)["message"]
                assert agent.requests == []
                continue
            assert response.status_code == 201, response.text
            evaluation = wait_until_finished(client, response.json()["data"]["id"])
            assert evaluation["summary"]["error_count"] == 0
    assert agent.requests


def test_the_local_default_refuses_the_server_itself(settings: Settings) -> None:
    with app_client(settings, listen_host="127.0.0.1", listen_port=8765) as client:
        suite = make_suite(client)
        target = {"type": "http", "url": "http://127.0.0.1:8765/api/health"}
        body = {"suite_id": suite["id"], "grader_id": "true-false", "target": target}
        assert "own address" in error_of(client.post("/api/evaluations", json=body))["message"]


def test_a_long_answer_is_cut_and_fails(settings: Settings) -> None:
    long_answer = "é" * 5000  # 10,000 bytes of UTF-8
    with (
        AgentServer(AgentBehaviour(default=long_answer)) as agent,
        app_client(settings, max_answer_bytes=1001) as client,
    ):
        suite = make_suite(client, [("q1", "true"), ("q2", "true")])
        for target in (
            {"type": "http", "url": agent.url + "/answer"},
            {"type": "http", "url": agent.url + "/answer", "response_path": None},
            {"type": "recorded", "responses": {"1": long_answer, "2": "yes"}},
        ):
            evaluation = wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
            rows = client.get(f"/api/evaluations/{evaluation['id']}/results").json()["data"]["results"]
            first = rows[0]
            assert (first["passed"], first["error"]) == (False, "answer_too_large")
            assert 0 < len(first["agent_response"].encode()) <= 1001
            assert "ASSAY_MAX_ANSWER_BYTES" in first["error_detail"]


def test_an_agent_echoing_its_secrets_gets_them_back_redacted(
    client: TestClient, database_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("ASSAY_SECRET_AGENT_TOKEN", SECRET)
    monkeypatch.setenv("ASSAY_SECRET_OPENAI_KEY", SECRET + "-openai")
    caplog.set_level(logging.DEBUG)
    suite = make_suite(client)
    with AgentServer(AgentBehaviour(echo=True)) as agent:
        targets = [
            {
                "type": "http",
                "url": agent.url + "/answer",
                "headers": {"X-Token": "{{secret.ASSAY_SECRET_AGENT_TOKEN}}"},
                "body_template": {"input": "{{input}}", "token": "{{secret.ASSAY_SECRET_AGENT_TOKEN}}"},
            },
            {
                "type": "openai",
                "model": "m",
                "base_url": agent.url + "/v1",
                "api_key_env": "ASSAY_SECRET_OPENAI_KEY",
            },
        ]
        shown = []
        for target in targets:
            trial = client.post(
                "/api/evaluations/test-target", json={"suite_id": suite["id"], "target": target}
            )
            assert trial.status_code == 200, trial.text
            assert "[redacted]" in trial.json()["data"]["answer"]
            shown.append(trial.text)
            evaluation = wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
            assert evaluation["status"] == "completed"
            shown.append(client.get(f"/api/evaluations/{evaluation['id']}/results").text)
            for export in ("jsonl", "csv"):
                url = f"/api/evaluations/{evaluation['id']}/export"
                shown.append(client.get(url, params={"format": export}).text)
        # The agent did receive (and echo) every secret: what came back is what was redacted.
        assert any(SECRET in request.headers.get("x-token", "") for request in agent.requests)
        assert any(SECRET in request.headers.get("authorization", "") for request in agent.requests)
    assert all("[redacted]" in text and SECRET not in text for text in shown)
    engine = create_engine(normalize_url(database_url))
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT * FROM results")).all()
    engine.dispose()
    assert rows
    assert SECRET not in repr(rows)
    assert SECRET not in caplog.text


@pytest.mark.parametrize(
    "url", ["http://a\\b/", "http://127.0.0.1\\@evil.example/", "http://h:8\\0/", "http://]xn--[[@/p"]
)
def test_a_url_that_cannot_be_parsed_is_a_422(client: TestClient, url: str) -> None:
    suite = make_suite(client)
    for target, field in (
        ({"type": "http", "url": url}, "url"),
        ({"type": "openai", "model": "m", "base_url": url, "api_key_env": None}, "base_url"),
    ):
        for path in ("/api/evaluations", "/api/evaluations/test-target"):
            body = {"suite_id": suite["id"], "grader_id": "true-false", "target": target}
            error = error_of(client.post(path, json=body))
            assert error["problems"][0]["loc"] == ["target", target["type"], field], error
