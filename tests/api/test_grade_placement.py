"""Where the grade route works (on the event loop or a worker thread), decided before any hop; a small valid
grade request answered without FastAPI's parameter solving, any other as before; and the grader listing
rebuilt when the registry changes (issue 30)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import fastapi.routing
import pytest
from fastapi import Request, Response
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.api.bodies import GRADE_ON_LOOP_MAX_BYTES, DirectBodyRoute
from assay.api.query_defaults import QueryDefaultsRoute
from assay.api.schemas.graders import GradeRequest
from assay.config import Settings
from tests.support.runner_parts import ThreadWatchingGrader

pytestmark = pytest.mark.no_database  # the grader routes read no table: once, on SQLite
JSON = {"content-type": "application/json"}


class CpuBoundWatchingGrader(ThreadWatchingGrader):
    """The thread-watching grader marked ``cpu_bound`` (as an embedding model is)."""

    default_id: ClassVar[str] = "cpu-bound-watching"
    cpu_bound: ClassVar[bool] = True


@pytest.fixture(scope="module")
def client(module_sqlite_url: str) -> Iterator[TestClient]:
    """An app whose registry holds the two watching graders, registered once it serves."""
    with TestClient(create_app(Settings(database_url=module_sqlite_url, api_key=None))) as shared:
        yield shared


def _registered(client: TestClient, grader_class: type[ThreadWatchingGrader]) -> ThreadWatchingGrader:
    graders = client.app.state.grader_service  # type: ignore[attr-defined]
    if grader_class.default_id not in graders.graders:
        graders.register(grader_class)
    grader = graders.get(grader_class.default_id)
    assert isinstance(grader, ThreadWatchingGrader)
    grader.threads.clear()
    return grader


def _loop_thread(client: TestClient) -> int:
    assert client.portal is not None
    return client.portal.call(threading.get_ident)


def _grade(client: TestClient, grader_id: str, answer: str) -> dict[str, object]:
    response = client.post(
        f"/api/graders/{grader_id}/grade", json={"agent_response": answer, "expected_output": "x"}
    )
    assert response.status_code == 200, response.text
    data: dict[str, object] = response.json()["data"]
    return data


def test_a_small_request_is_graded_on_the_event_loop(client: TestClient) -> None:
    grader = _registered(client, ThreadWatchingGrader)
    assert _grade(client, "thread-watching", "yes")["passed"] is True
    assert grader.threads == [_loop_thread(client)]


def test_a_large_body_is_graded_on_a_worker_thread(client: TestClient) -> None:
    grader = _registered(client, ThreadWatchingGrader)
    answer = "no " * (GRADE_ON_LOOP_MAX_BYTES // 3)
    assert _grade(client, "thread-watching", answer)["passed"] is False
    assert len(grader.threads) == 1
    assert grader.threads[0] != _loop_thread(client)


def test_a_cpu_bound_grader_grades_on_a_worker_thread_however_small_the_body(client: TestClient) -> None:
    grader = _registered(client, CpuBoundWatchingGrader)
    assert _grade(client, "cpu-bound-watching", "yes")["passed"] is True
    assert len(grader.threads) == 1
    assert grader.threads[0] != _loop_thread(client)


def test_the_listing_is_rebuilt_when_a_grader_is_registered(module_sqlite_url: str) -> None:
    with TestClient(create_app(Settings(database_url=module_sqlite_url, api_key=None))) as fresh:

        def listed() -> list[str]:
            body = fresh.get("/api/graders", params={"limit": 500}).json()["data"]
            assert body["count"] == body["total"] == len(body["graders"])
            return [grader["id"] for grader in body["graders"]]

        before = listed()
        assert "thread-watching" not in before
        assert listed() == before  # answered again from the same listing
        fresh.app.state.grader_service.register(ThreadWatchingGrader)  # type: ignore[attr-defined]
        assert listed() == [*before, "thread-watching"]
        assert fresh.get("/api/graders/thread-watching").status_code == 200


def test_a_default_built_in_replies_as_the_same_grader_configured(client: TestClient) -> None:
    body = {"agent_response": "Yes", "expected_output": "true"}
    default = client.post("/api/graders/true-false/grade", json=body).json()["data"]
    # The same effective config given explicitly builds a new instance: the reply's general path.
    configured = client.post(
        "/api/graders/true-false/grade", json={**body, "config": {"case_sensitive": False}}
    ).json()["data"]
    assert default == configured
    assert default["passed"] is True
    assert default["score"] == 1.0
    assert default["grader"]["grader_id"] == "true-false"


def test_a_listing_with_a_query_is_still_checked_and_paged(client: TestClient) -> None:
    assert client.get("/api/graders", params={"limit": 0}).status_code == 422
    page = client.get("/api/graders", params={"limit": 1, "skip": 1}).json()["data"]
    assert [grader["id"] for grader in page["graders"]] == ["true-false"]
    assert page["count"] == 1


def test_the_defaults_route_refuses_an_endpoint_it_could_not_call_with_defaults() -> None:
    async def needs_a_limit(request: Request, limit: int) -> Response:
        return Response()

    with pytest.raises(TypeError, match="query parameters with defaults"):
        QueryDefaultsRoute("/x", needs_a_limit, methods=["GET"])


@pytest.fixture
def solved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the requests whose parameters FastAPI solved, from now on."""
    paths: list[str] = []
    solve = fastapi.routing.solve_dependencies

    async def counted(*, request: Request, **kwargs: Any) -> Any:
        paths.append(request.url.path)
        return await solve(request=request, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    return paths


def test_a_small_valid_grade_request_skips_parameter_solving(client: TestClient, solved: list[str]) -> None:
    body = {"agent_response": "Yes", "expected_output": "true"}
    reply = client.post("/api/graders/true-false/grade", json=body)
    assert reply.status_code == 200
    assert reply.json()["data"]["passed"] is True
    assert solved == []


GRADE = "/api/graders/true-false/grade"
ANSWER = {"agent_response": "a", "expected_output": "b"}


@pytest.mark.parametrize(
    ("path", "send", "status", "by_fastapi"),
    [
        (GRADE, {"json": {"agent_response": "Yes"}}, 422, True),  # a field missing
        (GRADE, {"content": json.dumps(ANSWER).encode()}, 422, True),  # no content type: not JSON
        (GRADE + "?x=1", {"json": ANSWER}, 200, True),
        ("/api/graders/" + "g" * 201 + "/grade", {"json": ANSWER}, 422, True),  # an id past its length
        (GRADE, {"content": b"{not json", "headers": JSON}, 422, False),  # refused before any solving
        ("/api/graders/no-such/grade", {"json": ANSWER}, 404, False),  # valid: the endpoint says 404
    ],
)
def test_any_other_grade_request_is_served_by_fastapi_as_before(
    client: TestClient,
    solved: list[str],
    path: str,
    send: dict[str, Any],
    status: int,
    by_fastapi: bool,
) -> None:
    reply = client.post(path, **send)
    assert reply.status_code == status, reply.text
    if status != 200:
        assert reply.json()["error"]["code"] in {"VALIDATION_ERROR", "NOT_FOUND"}
    assert solved == ([path.partition("?")[0]] if by_fastapi else [])


def test_a_route_of_another_shape_is_refused_as_direct() -> None:
    async def queried(grader_id: str, body: GradeRequest, request: Request, limit: int = 1) -> Response:
        return Response()

    async def not_a_response(grader_id: str, body: GradeRequest, request: Request) -> dict[str, str]:
        return {}

    for endpoint in (queried, not_a_response):
        with pytest.raises(TypeError, match="DirectBodyRoute needs"):
            DirectBodyRoute("/x/{grader_id}", endpoint, methods=["POST"])
