"""Replayed (cached) replies keep their trajectory: a reply stored by ``reply_cache: record`` keeps a copy of
the trajectory it carried, so ``replay`` grades the trajectory checks as the recorded run did; a reply whose
trajectory did not read is not stored. On SQLite and PostgreSQL, against the real tool agent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.factories import results, start, wait_until_finished
from tests.support.tool_agent import VERDICTS, ToolAgent, support_suite, target


@pytest.fixture(scope="module")
def agent() -> Iterator[ToolAgent]:
    with ToolAgent() as served:
        yield served


def _suite(client: TestClient, name: str) -> int:
    suite = support_suite(name)
    # The cache knows a case by what it asks: each mode its own question (the body's mode is metadata).
    for number, case in enumerate(suite["cases"], 1):
        case["input"] = f"Please refund my blue kettle (request {number})"
    response = client.post("/api/suites", json=suite)
    assert response.status_code == 201, response.text
    suite_id: int = response.json()["data"]["id"]
    return suite_id


def _run(
    client: TestClient, suite_id: int, spec: dict[str, Any], cache: str
) -> tuple[int, list[dict[str, Any]]]:
    created = start(client, suite_id=suite_id, target=spec, reply_cache=cache)
    finished = wait_until_finished(client, created["id"])
    assert finished["status"] == "completed", finished
    return created["id"], results(client, created["id"])


def test_a_replayed_reply_is_graded_with_the_trajectory_it_was_stored_with(
    client: TestClient, agent: ToolAgent
) -> None:
    suite_id = _suite(client, "support cached")
    spec = target(agent.url, "openai-responses")
    _, recorded = _run(client, suite_id, spec, "record")
    asked = len(agent.requests)
    replay_id, replayed = _run(client, suite_id, spec, "replay")
    assert len(agent.requests) == asked  # nothing was asked again
    assert all(row["cached"] for row in replayed)
    verdicts = [{check["name"]: check["passed"] for check in row["assertions"]} for row in replayed]
    assert verdicts == list(VERDICTS.values())  # the trajectory checks decide as on the recorded run
    for old, new in zip(recorded, replayed, strict=True):
        assert new["trajectory"] == old["trajectory"]
    # The replay stores the trajectory as its own: its steps are served.
    page = client.get(f"/api/evaluations/{replay_id}/results/{replayed[0]['case_id']}/trajectory").json()[
        "data"
    ]
    assert [step["tool_call"]["name"] for step in page["steps"] if step["kind"] == "tool_call"] == [
        "search_orders",
        "lookup_order",
        "refund",
    ]


def test_a_reply_whose_trajectory_did_not_read_is_not_stored(client: TestClient, agent: ToolAgent) -> None:
    suite_id = _suite(client, "support unread")
    spec = target(agent.url, "openai-chat")
    spec["trajectory"] = {**spec["trajectory"], "path": "nowhere"}  # the reply holds no trajectory there
    _, recorded = _run(client, suite_id, spec, "record")
    assert all(row["trajectory"] is None for row in recorded)
    _, replayed = _run(client, suite_id, spec, "replay")
    # Not stored: a replay misses it rather than grade the answer without its trajectory.
    assert [row["error"] for row in replayed] == ["cache_miss"] * len(VERDICTS)
