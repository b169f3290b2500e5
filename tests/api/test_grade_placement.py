"""Where the grade route works (on the event loop or a worker thread), decided before any hop, and the
grader listing rebuilt when the registry changes (issue 30)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest
from fastapi import Request, Response
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.api.bodies import GRADE_ON_LOOP_MAX_BYTES
from assay.api.query_defaults import QueryDefaultsRoute
from assay.config import Settings
from tests.support.runner_parts import ThreadWatchingGrader

pytestmark = pytest.mark.no_database  # the grader routes read no table: once, on SQLite


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
