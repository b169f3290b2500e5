"""Every response is the envelope, errors the framework makes included; no trace reaches a client.

docs/decisions.md#the-envelope
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.config import Settings
from tests.factories import suite_payload


def assert_error(response: object, status: int, code: str) -> dict[str, object]:
    """The response is a failed envelope with this status and code; returns the error body."""
    from httpx2 import Response  # the client's response type

    assert isinstance(response, Response)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"success", "data", "error"}
    assert body["success"] is False
    assert body["data"] is None
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]
    assert "Traceback" not in response.text
    error: dict[str, object] = body["error"]
    return error


def test_success_is_an_envelope(client: TestClient) -> None:
    body = client.get("/api/health").json()
    assert body["success"] is True
    assert body["error"] is None
    assert body["data"]["status"] == "ok"


@pytest.mark.no_database
def test_unknown_api_route_is_404(client: TestClient) -> None:
    assert_error(client.get("/api/no/such/route"), 404, "NOT_FOUND")
    assert_error(client.post("/api/no/such/route", json={}), 404, "NOT_FOUND")
    assert_error(client.get("/api"), 404, "NOT_FOUND")


@pytest.mark.no_database
def test_wrong_method_is_405(client: TestClient) -> None:
    response = client.put("/api/graders")
    assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert "GET" in response.headers["allow"]


def test_malformed_json_is_422(client: TestClient) -> None:
    response = client.post(
        "/api/graders/string-match/grade",
        content=b'{"agent_response": ',
        headers={"content-type": "application/json"},
    )
    error = assert_error(response, 422, "VALIDATION_ERROR")
    assert "Malformed JSON" in str(error["message"])


def test_invalid_body_is_422_with_each_problem(client: TestClient) -> None:
    response = client.post("/api/suites", json={"name": "", "cases": [{"input": 1}], "id": 4})
    error = assert_error(response, 422, "VALIDATION_ERROR")
    problems = error["problems"]
    assert isinstance(problems, list)
    # empty name, input type, missing expected_output, forbidden id: each {loc, message}, loc in the body
    locs = [tuple(problem["loc"]) for problem in problems]
    assert {("name",), ("cases", 0, "input"), ("cases", 0, "expected_output"), ("id",)} <= set(locs)
    assert all(set(problem) == {"loc", "message"} and problem["message"] for problem in problems)


def test_a_query_problem_is_located_in_the_query(client: TestClient) -> None:
    error = assert_error(client.get("/api/suites", params={"limit": 0}), 422, "VALIDATION_ERROR")
    assert [problem["loc"] for problem in error["problems"]] == [["query", "limit"]]  # type: ignore[attr-defined]


@pytest.mark.no_database
def test_body_over_one_mib_is_413(client: TestClient) -> None:
    big = {"agent_response": "a" * (1024 * 1024), "expected_output": "a"}
    response = client.post("/api/graders/string-match/grade", json=big)
    assert_error(response, 413, "PAYLOAD_TOO_LARGE")


@pytest.mark.no_database
def test_streamed_body_over_the_limit_is_413(client: TestClient) -> None:
    payload = json.dumps({"agent_response": "a" * (1024 * 1024 + 10), "expected_output": "a"}).encode()

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is checked while reading
        for start in range(0, len(payload), 64 * 1024):
            yield payload[start : start + 64 * 1024]

    response = client.post(
        "/api/graders/string-match/grade", content=chunks(), headers={"content-type": "application/json"}
    )
    error = assert_error(response, 413, "PAYLOAD_TOO_LARGE")
    assert error["message"] == f"Request body too large (limit {1024 * 1024} bytes)"


@pytest.mark.no_database
def test_body_just_under_the_limit_is_read(client: TestClient) -> None:
    text = "a" * (1024 * 1024 - 100)
    response = client.post(
        "/api/graders/string-match/grade", json={"agent_response": text, "expected_output": ""}
    )
    assert response.status_code == 200


def test_domain_errors_keep_their_code(client: TestClient) -> None:
    assert_error(client.get("/api/suites/999"), 404, "NOT_FOUND")
    client.post("/api/suites", json=suite_payload("same"))
    assert_error(client.post("/api/suites", json=suite_payload("same")), 409, "CONFLICT")


@pytest.fixture
def failing_app(settings: Settings) -> FastAPI:
    """The app with one route that fails unexpectedly."""
    app = create_app(settings)

    @app.get("/api/boom")
    def boom() -> None:
        raise RuntimeError("secret internals /etc/passwd")

    return app


@pytest.mark.no_database
def test_unexpected_error_is_a_bare_500(failing_app: FastAPI, caplog: pytest.LogCaptureFixture) -> None:
    with TestClient(failing_app) as client, caplog.at_level(logging.ERROR):
        response = client.get("/api/boom")
    error = assert_error(response, 500, "INTERNAL_ERROR")
    assert error["message"] == "Internal server error"
    assert "secret" not in response.text
    assert "RuntimeError" not in response.text
    assert "content-security-policy" in response.headers
    assert any("secret internals" in str(record.exc_info) for record in caplog.records)


@pytest.mark.no_database
def test_missing_key_is_401(settings: Settings) -> None:
    keyed = Settings(database_url=settings.database_url, api_key="k")
    with TestClient(create_app(keyed)) as client:
        response = client.get("/api/graders")
    assert_error(response, 401, "UNAUTHORIZED")
    assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.no_database
def test_every_response_has_security_headers(client: TestClient) -> None:
    for response in (client.get("/api/graders"), client.get("/api/nope"), client.get("/")):
        assert response.headers["content-security-policy"].startswith("default-src 'self'")
        assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.no_database
def test_openapi_declares_the_error_envelope_for_every_operation(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert spec["components"]["schemas"]["ErrorEnvelope"]["required"] == ["error"]
    operations = [op for methods in spec["paths"].values() for op in methods.values()]
    assert len(operations) >= 12
    for operation in operations:
        for status in ("401", "404", "405", "413", "422", "500"):
            schema = operation["responses"][status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorEnvelope"}, (
                operation["operationId"],
                status,
            )


@pytest.mark.no_database
@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_docs_are_served_from_the_package(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert "<script>" not in response.text  # started from a file: the CSP allows no inline script
    sources = re.findall(r'(?:src|href)="([^"]+)"', response.text)
    assert sources, response.text
    for source in sources:
        assert source.startswith("/docs-assets/"), source  # nothing from another origin
        asset = client.get(source)
        assert asset.status_code == 200, source
        assert len(asset.content) > 100, source
        assert b"https://cdn." not in asset.content, source  # ReDoc's logo too is read from here
    csp = response.headers["content-security-policy"]
    assert "script-src 'self';" in csp
    assert "http" not in csp
