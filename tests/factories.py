"""Builders of test data and actions shared by the test tiers: payloads, suites, evaluations, waits.

A test says what it needs (``make_suite(client)``, ``start(client, suite_id=..., target=recorded([...]))``,
``wait_until_finished(client, evaluation_id)``) and the builders fill in the rest. They take any HTTP client
(the API tier's in-process ``TestClient`` or the end-to-end tier's client of a real server) and
fail with the response's text when the API refuses.
"""

from __future__ import annotations

import itertools
from typing import Any, Protocol

from tests.support.waiting import POLL_S, wait_for

_names = itertools.count(1)


class Client(Protocol):
    """An HTTP client on an Assay server: the API tier's ``TestClient`` or a client of a real process."""

    def get(self, url: str, **kwargs: Any) -> Any: ...

    def post(self, url: str, **kwargs: Any) -> Any: ...


TERMINAL = frozenset({"completed", "failed", "cancelled"})
"""The statuses in which an evaluation has stopped running."""

FINISH_TIMEOUT_S = 20.0
"""How long an evaluation of a few cases may take to finish before a test gives up (a ceiling, not a
measurement: a loaded CI machine needs a fraction of it)."""

BOOLEAN_CASES: list[tuple[str, str]] = [
    ("Is water wet?", "true"),
    ("Is fire cold?", "false"),
    ("Is 2 even?", "true"),
    ("=HYPERLINK(1)", "false"),
]
"""A small true-false suite: input and expected output (the last a spreadsheet formula, for exports)."""


def case_payload(
    index: int = 0, *, input: str | None = None, expected_output: str | None = None, **metadata: Any
) -> dict[str, Any]:
    """A case as the API takes it."""
    return {
        "input": input if input is not None else f"What is {index} + {index}?",
        "expected_output": expected_output if expected_output is not None else str(index * 2),
        "metadata": metadata,
    }


def suite_payload(name: str | None = None, *, cases: int = 3, description: str = "") -> dict[str, Any]:
    """A suite as ``POST /api/suites`` takes it, with ``cases`` numbered cases; a fresh name by default."""
    return {
        "name": name if name is not None else f"suite-{next(_names)}",
        "description": description,
        "cases": [case_payload(i) for i in range(cases)],
    }


def make_suite(
    client: Client, cases: list[tuple[str, str]] = BOOLEAN_CASES, name: str = "bools"
) -> dict[str, Any]:
    """A new suite of ``(input, expected_output)`` cases, each with its position as ``metadata.n``."""
    body = {
        "name": name,
        "cases": [{"input": i, "expected_output": e, "metadata": {"n": n}} for n, (i, e) in enumerate(cases)],
    }
    response = client.post("/api/suites", json=body)
    assert response.status_code == 201, response.text
    suite: dict[str, Any] = response.json()["data"]
    return suite


def case_ids(client: Client, suite_id: int) -> list[int]:
    """The ids of a suite's cases, in order."""
    cases = client.get(f"/api/suites/{suite_id}/cases").json()["data"]["cases"]
    return [case["id"] for case in cases]


def start(client: Client, **body: Any) -> dict[str, Any]:
    """A new evaluation (``POST /api/evaluations`` with ``body``; true-false unless a grader is named)."""
    body.setdefault("grader_id", "true-false")
    response = client.post("/api/evaluations", json=body)
    assert response.status_code == 201, response.text
    evaluation: dict[str, Any] = response.json()["data"]
    return evaluation


def evaluation(client: Client, evaluation_id: int) -> dict[str, Any]:
    """An evaluation as ``GET /api/evaluations/{id}`` shows it now."""
    response = client.get(f"/api/evaluations/{evaluation_id}")
    assert response.status_code == 200, response.text
    shown: dict[str, Any] = response.json()["data"]
    return shown


def wait_until_finished(
    client: Client, evaluation_id: int, timeout: float = FINISH_TIMEOUT_S, *, every: float = POLL_S
) -> dict[str, Any]:
    """The evaluation once it has stopped running (completed, failed or cancelled), asked every ``every``
    seconds (a real server spends CPU on each answer)."""

    def finished() -> dict[str, Any] | None:
        shown = evaluation(client, evaluation_id)
        return shown if shown["status"] in TERMINAL else None

    return wait_for(finished, timeout, what=f"evaluation {evaluation_id} to finish", every=every)


def wait_until_done(
    client: Client, evaluation_id: int, done: int, timeout: float = FINISH_TIMEOUT_S
) -> dict[str, Any]:
    """The evaluation once at least ``done`` of its cases have a result (it may still be running)."""

    def far_enough() -> dict[str, Any] | None:
        shown = evaluation(client, evaluation_id)
        return shown if shown["progress"]["done"] >= done else None

    return wait_for(far_enough, timeout, what=f"{done} results of evaluation {evaluation_id}")


def recorded(answers: list[str]) -> dict[str, Any]:
    """A recorded target answering the cases of a suite without keys by number, from 1."""
    return {"type": "recorded", "responses": {str(number): a for number, a in enumerate(answers, 1)}}


def results(client: Client, evaluation_id: int, **params: Any) -> list[dict[str, Any]]:
    """One page of an evaluation's results (``params`` are the query's filters and paging)."""
    response = client.get(f"/api/evaluations/{evaluation_id}/results", params=params)
    assert response.status_code == 200, response.text
    rows: list[dict[str, Any]] = response.json()["data"]["results"]
    return rows
