"""Large JSON bodies are decoded and validated on a worker thread (assay.api.bodies), answered as before."""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import APIRouter, Body, FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel, field_validator

from assay.api.bodies import OFF_LOOP_BODY_BYTES, ThreadedBodyRoute
from assay.api.envelope import install_error_handlers
from tests.api.test_envelope import assert_error

PADDING = "x" * OFF_LOOP_BODY_BYTES  # a string that makes a body large


class Probe(BaseModel):
    """A body that records the thread each validation ran on."""

    text: str

    @field_validator("text")
    @classmethod
    def _record(cls, value: str) -> str:
        VALIDATED_ON.append(threading.get_ident())
        return value


VALIDATED_ON: list[int] = []


def probe_app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)
    router = APIRouter(route_class=ThreadedBodyRoute)

    @router.post("/probe")
    async def probe(body: Probe) -> dict[str, object]:
        return {"length": len(body.text), "loop": threading.get_ident()}

    @router.post("/two")
    async def two(first: Annotated[Probe, Body()], second: Annotated[Probe, Body()]) -> dict[str, int]:
        return {"first": len(first.text), "second": len(second.text)}

    app.include_router(router)
    return app


def test_a_large_body_is_validated_once_on_a_worker_thread_a_small_one_on_the_loop() -> None:
    with TestClient(probe_app()) as client:
        VALIDATED_ON.clear()
        large = client.post("/probe", json={"text": PADDING}).json()
        assert large["length"] == len(PADDING)
        assert len(VALIDATED_ON) == 1  # FastAPI passes the validated model through
        assert VALIDATED_ON[0] != large["loop"]

        VALIDATED_ON.clear()
        small = client.post("/probe", json={"text": "short"}).json()
        assert small["length"] == 5
        assert [small["loop"]] == VALIDATED_ON


def test_a_route_with_several_body_parameters_is_served_as_fastapi_serves_it() -> None:
    with TestClient(probe_app()) as client:
        response = client.post("/two", json={"first": {"text": PADDING}, "second": {"text": "b"}})
        assert response.json() == {"first": len(PADDING), "second": 1}
        error = assert_error(client.post("/two", json={"first": {"text": PADDING}}), 422, "VALIDATION_ERROR")
        assert [problem["loc"] for problem in error["problems"]] == [["second"]]  # type: ignore[attr-defined]


def test_a_large_invalid_body_gets_the_same_envelope_as_a_small_one(client: TestClient) -> None:
    bad_items = [{"agent_response": "a", "expected_output": "b", "extra": 1}, {"agent_response": 3}]
    small = client.post("/api/graders/string-match/grade-batch", json={"items": bad_items})
    large = client.post(
        "/api/graders/string-match/grade-batch", json={"items": bad_items, "config": {"pad": PADDING}}
    )
    assert int(large.request.headers["content-length"]) >= OFF_LOOP_BODY_BYTES
    assert_error(large, 422, "VALIDATION_ERROR")
    assert large.json() == small.json()
    locs = [tuple(problem["loc"]) for problem in large.json()["error"]["problems"]]
    assert locs == [("items", 0, "extra"), ("items", 1, "agent_response"), ("items", 1, "expected_output")]


def test_large_malformed_json_gets_the_same_envelope_as_small(client: TestClient) -> None:
    headers = {"content-type": "application/json"}
    small = client.post("/api/suites", content=b'{"name": ', headers=headers)
    large = client.post("/api/suites", content=b'{"name": ' + b" " * OFF_LOOP_BODY_BYTES, headers=headers)
    assert "Malformed JSON" in str(assert_error(large, 422, "VALIDATION_ERROR")["message"])
    assert large.json() == small.json()


def test_a_large_valid_body_is_served(client: TestClient) -> None:
    items = [{"agent_response": "Paris", "expected_output": "paris"}] * 3_000
    response = client.post("/api/graders/string-match/grade-batch", json={"items": items})
    assert int(response.request.headers["content-length"]) >= OFF_LOOP_BODY_BYTES
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert (data["count"], data["passed"]) == (3_000, 3_000)
    cases = [{"input": f"q{n}", "expected_output": PADDING[:100]} for n in range(1_000)]
    created = client.post("/api/suites", json={"name": "large", "cases": cases})
    assert created.status_code == 201, created.text
    assert created.json()["data"]["case_count"] == 1_000
