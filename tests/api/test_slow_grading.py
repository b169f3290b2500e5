"""Slow grade batches of a CPU-heavy grader (the semantic grader's kind) never stall the other routes: they
run on the threads kept for slow work, and listings, evaluation reads and quick grading answer meanwhile
(issue 28, item 8).

The batches are made slow for real and provably in flight: the grader holds each batch's first answer until
the test lets it go, so every other route must answer while all four are still grading. It is marked
``cpu_bound`` as the semantic grader is, so it takes the same path (checked below); holding it rather than
grading thousands of answers with the model keeps the test free of timing and of minutes of CPU.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import ClassVar

import pytest
from fastapi.testclient import TestClient

from assay.api.app import SLOW_WORK_THREADS, WORKER_THREADS
from assay.graders.semantic.grader import SemanticGrader
from tests.factories import make_suite, recorded, start, wait_until_finished
from tests.support.runner_parts import ThreadWatchingGrader
from tests.support.waiting import wait_for

BATCHES = SLOW_WORK_THREADS + 2
"""More slow batches than the threads kept for them, and than the threads serving everything else."""
HOLD_CEILING_S = 120.0
"""A held answer goes on after this even if never let go (a failing test must not hang the run)."""
ANSWER_WITHIN_S = 60.0
"""A ceiling for the other routes' answers, far above what they take; the test's condition is that they
answer while the batches are still held, not how fast."""


class HeldCpuBoundGrader(ThreadWatchingGrader):
    """A ``cpu_bound`` grader whose ``grade()`` waits until :attr:`released` is set: a batch in flight."""

    default_id: ClassVar[str] = "held-cpu-bound"
    cpu_bound: ClassVar[bool] = True
    released: ClassVar[threading.Event] = threading.Event()
    holding: ClassVar[int] = 0
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def wait(self) -> None:
        cls = type(self)
        with cls._lock:
            cls.holding += 1
        try:
            cls.released.wait(HOLD_CEILING_S)
        finally:
            with cls._lock:
                cls.holding -= 1


@pytest.fixture
def held(client: TestClient) -> Iterator[type[HeldCpuBoundGrader]]:
    client.app.state.grader_service.register(HeldCpuBoundGrader)  # type: ignore[attr-defined]
    HeldCpuBoundGrader.released.clear()
    yield HeldCpuBoundGrader
    HeldCpuBoundGrader.released.set()  # whatever happened, nothing stays held past the test


def test_the_stand_in_takes_the_semantic_graders_path() -> None:
    assert SemanticGrader.cpu_bound is HeldCpuBoundGrader.cpu_bound is True


def test_slow_cpu_bound_grade_batches_leave_the_other_routes_their_threads(
    client: TestClient, held: type[HeldCpuBoundGrader]
) -> None:
    assert BATCHES > WORKER_THREADS
    suite = make_suite(client, [("a", "true"), ("b", "false")], name="read while grading")
    evaluation_id = start(client, suite_id=suite["id"], target=recorded(["yes", "no"]))["id"]
    wait_until_finished(client, evaluation_id)
    batch = {"items": [{"agent_response": "yes", "expected_output": "x"}] * 3}
    quick = {"agent_response": "same", "expected_output": "same"}
    with ThreadPoolExecutor(BATCHES + 6) as pool:
        batches = [
            pool.submit(client.post, "/api/graders/held-cpu-bound/grade-batch", json=batch)
            for _ in range(BATCHES)
        ]
        try:
            wait_for(lambda: held.holding >= SLOW_WORK_THREADS, ANSWER_WITHIN_S, what="4 batches held")
            others = {
                "suites": pool.submit(client.get, "/api/suites"),
                "evaluations": pool.submit(client.get, "/api/evaluations"),
                "evaluation": pool.submit(client.get, f"/api/evaluations/{evaluation_id}"),
                "results": pool.submit(client.get, f"/api/evaluations/{evaluation_id}/results"),
                "string-match": pool.submit(client.post, "/api/graders/string-match/grade", json=quick),
                "string-match batch": pool.submit(
                    client.post, "/api/graders/string-match/grade-batch", json={"items": [quick] * 50}
                ),
            }
            wait_for(
                lambda: all(answer.done() for answer in others.values()),
                ANSWER_WITHIN_S,
                what="the other routes to answer while the batches are held",
            )
            # The condition, not a timing: every batch is still grading (none answered, four held).
            assert not any(answer.done() for answer in batches)
            assert held.holding == SLOW_WORK_THREADS  # the rest wait for a slow-work thread, not for others'
        finally:
            held.released.set()  # before the pool waits for the batches, pass or fail
        statuses = [answer.result().status_code for answer in batches]
    for name, answer in others.items():
        assert answer.result().status_code == 200, (name, answer.result().text)
    assert others["string-match"].result().json()["data"]["passed"] is True
    assert others["string-match batch"].result().json()["data"]["passed"] == 50
    assert others["evaluation"].result().json()["data"]["status"] == "completed"
    assert statuses == [200] * BATCHES
