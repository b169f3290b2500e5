"""Requests racing each other on one resource end in a clear 4xx, never a 500; deleting a suite that has
evaluations asks for the cascade. Both databases."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from tests.factories import make_suite, start, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer


def test_a_suite_with_evaluations_is_deleted_only_with_the_cascade(client: TestClient) -> None:
    suite = make_suite(client)
    evaluation = wait_until_finished(
        client, start(client, suite_id=suite["id"], target={"type": "recorded"})["id"]
    )
    refused = client.delete(f"/api/suites/{suite['id']}")
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "CONFLICT"
    assert "cascade=true" in error["message"]
    assert client.get(f"/api/evaluations/{evaluation['id']}").status_code == 200
    deleted = client.delete(f"/api/suites/{suite['id']}", params={"cascade": "true"})
    assert deleted.status_code == 200, deleted.text
    for path in (f"/api/suites/{suite['id']}", f"/api/evaluations/{evaluation['id']}"):
        assert client.get(path).status_code == 404


def test_the_cascade_stops_a_running_evaluation_first(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    with AgentServer(AgentBehaviour(default="yes", delay=0.2)) as agent:
        suite = make_suite(client, [(f"q{n}", "true") for n in range(50)])
        target = {"type": "http", "url": agent.url + "/answer"}
        evaluation = start(client, suite_id=suite["id"], target=target, concurrency=2)
        deleted = client.delete(f"/api/suites/{suite['id']}", params={"cascade": "true"})
        assert deleted.status_code == 200, deleted.text
        assert client.get(f"/api/evaluations/{evaluation['id']}").status_code == 404
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []


def test_patch_racing_delete_is_never_a_500(client: TestClient) -> None:
    for round_ in range(3):
        suite = make_suite(client, name=f"race {round_}")
        path = f"/api/suites/{suite['id']}"
        go = threading.Event()

        def patch(n: int, path: str = path, go: threading.Event = go) -> int:
            go.wait()
            return client.patch(path, json={"description": f"edit {n}"}).status_code

        def delete(path: str = path, go: threading.Event = go) -> int:
            go.wait()
            return client.delete(path).status_code

        with ThreadPoolExecutor(8) as pool:
            patches = [pool.submit(patch, n) for n in range(40)]
            deletion = pool.submit(delete)
            go.set()
            statuses = [future.result() for future in patches]
        assert deletion.result() in (200, 404)
        assert set(statuses) <= {200, 404}, statuses
        assert client.get(path).status_code == 404


def test_cancel_racing_delete_is_never_a_500(client: TestClient) -> None:
    with AgentServer(AgentBehaviour(default="yes", delay=0.05)) as agent:
        for round_ in range(3):
            suite = make_suite(client, [(f"q{n}", "true") for n in range(40)], name=f"cancel race {round_}")
            target = {"type": "http", "url": agent.url + "/answer"}
            evaluation = start(client, suite_id=suite["id"], target=target, concurrency=2)
            path = f"/api/evaluations/{evaluation['id']}"
            go = threading.Event()

            def cancel(path: str = path, go: threading.Event = go) -> int:
                go.wait()
                return client.post(f"{path}/cancel").status_code

            def delete(path: str = path, go: threading.Event = go) -> int:
                go.wait()
                return client.delete(path).status_code

            with ThreadPoolExecutor(4) as pool:
                futures = [pool.submit(cancel), pool.submit(delete), pool.submit(cancel)]
                go.set()
                statuses = [future.result() for future in futures]
            assert set(statuses) <= {200, 404}, statuses
            assert client.get(path).status_code == 404


def race(*requests: Callable[[], Response]) -> list[Response]:
    """The requests sent at once, from threads, each as soon as all are ready."""
    go = threading.Barrier(len(requests))

    def send(request: Callable[[], Response]) -> Response:
        go.wait()
        return request()

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(send, requests))


def finished_evaluation(client: TestClient, cases: int = 3) -> int:
    suite = make_suite(client, [(f"q{n}", "true") for n in range(cases)], name=f"race {uuid.uuid4().hex[:8]}")
    responses = {str(n): "yes" for n in range(1, cases + 1)}
    target = {"type": "recorded", "responses": responses}
    evaluation_id = int(start(client, suite_id=suite["id"], target=target)["id"])
    wait_until_finished(client, evaluation_id)
    return evaluation_id


def test_two_deletes_of_one_evaluation_answer_200_once(client: TestClient) -> None:
    for _ in range(5):
        path = f"/api/evaluations/{finished_evaluation(client)}"
        statuses = sorted(response.status_code for response in race(*[partial(client.delete, path)] * 2))
        assert statuses == [200, 404]


def test_rerun_racing_delete_is_never_a_500(client: TestClient) -> None:
    for _ in range(10):
        path = f"/api/evaluations/{finished_evaluation(client)}"
        rerun, deleted = race(partial(client.post, f"{path}/rerun"), partial(client.delete, path))
        assert deleted.status_code == 200, deleted.text
        assert rerun.status_code in (201, 404), rerun.text
        if rerun.status_code == 404:
            assert rerun.json()["error"]["code"] == "NOT_FOUND"


def test_an_export_racing_a_delete_is_whole_or_a_404(client: TestClient) -> None:
    cases = 20
    for _ in range(20):
        path = f"/api/evaluations/{finished_evaluation(client, cases)}"
        export, deleted = race(
            partial(client.get, f"{path}/export", params={"format": "jsonl"}), partial(client.delete, path)
        )
        assert deleted.status_code == 200, deleted.text
        if export.status_code == 200:
            assert len(export.text.splitlines()) == cases  # every row, not a body cut where the delete fell
        else:
            assert export.status_code == 404, export.text
            assert export.json()["error"]["code"] == "NOT_FOUND"


def test_ids_of_deleted_suites_and_evaluations_are_never_given_again(client: TestClient) -> None:
    first_evaluation = finished_evaluation(client)
    first_suite = client.get(f"/api/evaluations/{first_evaluation}").json()["data"]["suite_id"]
    assert client.delete(f"/api/suites/{first_suite}", params={"cascade": "true"}).status_code == 200
    second_evaluation = finished_evaluation(client)  # a new suite too
    second_suite = client.get(f"/api/evaluations/{second_evaluation}").json()["data"]["suite_id"]
    assert second_suite > first_suite
    assert second_evaluation > first_evaluation
    assert client.get(f"/api/evaluations/{first_evaluation}").status_code == 404  # an old link opens nothing
