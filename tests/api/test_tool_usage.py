"""What tool calls say about evaluations of a real tool-using agent: the tools changed between two runs
(``.../compare/{other}/tools``) and the call a failing trajectory check points at;
on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.factories import results, start, wait_until_finished
from tests.support.tool_agent import ToolAgent, support_suite, target


@pytest.fixture(scope="module")
def agent() -> Iterator[ToolAgent]:
    with ToolAgent() as served:
        yield served


def _run(client: TestClient, suite_id: int, spec: dict[str, Any]) -> int:
    created = start(client, suite_id=suite_id, target=spec, concurrency=2)
    assert wait_until_finished(client, created["id"])["status"] == "completed"
    evaluation_id: int = created["id"]
    return evaluation_id


def _suite(client: TestClient, name: str = "support") -> int:
    response = client.post("/api/suites", json=support_suite(name))
    assert response.status_code == 201, response.text
    suite_id: int = response.json()["data"]["id"]
    return suite_id


def test_a_failing_sequence_check_points_at_its_call(client: TestClient, agent: ToolAgent) -> None:
    # Cases: correct (passes), skip (no lookup_order: fails), twice (refund twice: fails).
    evaluation_id = _run(client, _suite(client), target(agent.url, "openai-chat"))
    sequence = [
        next(child for child in row["details"]["children"] if child.get("name") == "sequence")
        for row in results(client, evaluation_id)
    ]
    at_calls = sorted(child["details"].get("at_call") or 0 for child in sequence)
    assert at_calls == [0, 2, 4]  # passed: none; skip departs at call 2; twice's fourth call is extra


def test_the_tools_changed_between_two_runs_come_first(client: TestClient, agent: ToolAgent) -> None:
    suite_id = _suite(client)
    a_id = _run(client, suite_id, target(agent.url, "openai-chat"))
    fixed = target(agent.url, "anthropic")
    fixed["body_template"] = {**fixed["body_template"], "mode": "correct"}  # B never skips nor repeats
    b_id = _run(client, suite_id, fixed)
    response = client.get(f"/api/evaluations/{a_id}/compare/{b_id}/tools", params={"limit": 2})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert (data["shared"], data["changed"], data["next_skip"]) == (3, 2, 2)
    assert [(case["number"], case["changed"]) for case in data["cases"]] == [(2, True), (3, True)]
    skip, twice = data["cases"]
    assert [tool["name"] for tool in skip["a"]] == ["search_orders", "refund"]
    assert [tool["name"] for tool in skip["b"]] == ["search_orders", "lookup_order", "refund"]
    assert {tool["name"]: tool["calls"] for tool in twice["a"]}["refund"] == 2
    assert (twice["a_passed"], twice["b_passed"]) == (False, True)
    rest = client.get(f"/api/evaluations/{a_id}/compare/{b_id}/tools", params={"skip": 2}).json()["data"]
    assert [(case["number"], case["changed"]) for case in rest["cases"]] == [(1, False)]
    assert rest["next_skip"] is None


def test_compare_gives_each_run_s_calls_in_order_and_where_they_first_differ(
    client: TestClient, agent: ToolAgent
) -> None:
    suite = support_suite("order")
    modes = ("correct", "skip", "twice", "late")
    suite["cases"] = [{**suite["cases"][0], "metadata": {"mode": mode}} for mode in modes]
    response = client.post("/api/suites", json=suite)
    assert response.status_code == 201, response.text
    suite_id = response.json()["data"]["id"]
    a_id = _run(client, suite_id, target(agent.url, "openai-chat"))
    fixed = target(agent.url, "openai-responses")
    fixed["body_template"] = {**fixed["body_template"], "mode": "correct"}
    b_id = _run(client, suite_id, fixed)
    data = client.get(f"/api/evaluations/{a_id}/compare/{b_id}/tools").json()["data"]
    # 'late' makes the same calls as B, each as often, in another order: changed by its order alone.
    assert (data["shared"], data["changed"]) == (4, 3)
    by_number = {case["number"]: case for case in data["cases"]}
    right = ["search_orders", "lookup_order", "refund"]
    assert [(n, by_number[n]["a_sequence"], by_number[n]["first_difference"]) for n in (1, 2, 3, 4)] == [
        (1, right, None),
        (2, ["search_orders", "refund"], 2),  # a refund where B looked the order up
        (3, [*right, "refund"], 4),  # B's calls end where A refunds again
        (4, ["search_orders", "refund", "lookup_order"], 2),
    ]
    assert all(case["b_sequence"] == right for case in data["cases"])
    late = by_number[4]
    assert late["changed"]
    assert {tool["name"]: tool["calls"] for tool in late["a"]} == {
        tool["name"]: tool["calls"] for tool in late["b"]
    }
    assert [case["number"] for case in data["cases"]] == [2, 3, 4, 1]  # changed first, by case
    assert not by_number[1]["changed"]


def test_tool_views_refuse_unknown_evaluations_and_other_suites(client: TestClient, agent: ToolAgent) -> None:
    a_id = _run(client, _suite(client), target(agent.url, "openai-chat"))
    b_id = _run(client, _suite(client, "another"), target(agent.url, "openai-chat"))
    other = client.get(f"/api/evaluations/{a_id}/compare/{b_id}/tools")
    assert other.status_code == 422
    assert "different suites" in other.json()["error"]["message"]
    missing = client.get(f"/api/evaluations/{a_id}/compare/999999/tools")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "NOT_FOUND"
    assert client.get(f"/api/evaluations/{a_id}/compare/{b_id}/tools", params={"limit": 0}).status_code == 422
