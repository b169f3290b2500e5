"""A new evaluation holds its first summary (nothing counted yet): reading it before the first live recount
costs one row, as at any other time, rather than a recount of every row stored so far."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from assay.services.evaluations import service
from tests.factories import BOOLEAN_CASES, evaluation, make_suite, recorded, start, wait_until_finished


def test_a_new_evaluation_is_read_without_a_recount(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_recount(*args: object) -> None:
        raise AssertionError("a read recounted the results")

    monkeypatch.setattr(service, "recount", no_recount)
    suite = make_suite(client)
    created = start(client, suite_id=suite["id"], target=recorded(["true"] * len(BOOLEAN_CASES)))
    first = created["summary"]  # as stored with it, before anything ran
    assert (first["total_cases"], first["finished"], first["passed"]) == (len(BOOLEAN_CASES), 0, 0)
    assert first["binary"]["total"] == 0  # the report its grader declares, empty
    assert evaluation(client, created["id"])["summary"] is not None
    finished = wait_until_finished(client, created["id"])
    assert finished["summary"]["finished"] == len(BOOLEAN_CASES)  # the final recount replaced it
