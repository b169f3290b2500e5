"""Trajectories captured from a real tool-using agent's replies: summaries on results, pages of steps,
exports, deletion; the OTLP receiver's refusals (protobuf, malformed JSON, strangers' traces, no key)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.config import Settings
from tests.factories import results, start, wait_until_finished
from tests.support.tool_agent import TARGET_PATHS, VERDICTS, ToolAgent, support_suite, target

MODES = {"correct": ["search_orders", "lookup_order", "refund"], "skip": ["search_orders", "refund"]}
MODES["twice"] = [*MODES["correct"], "refund"]


@pytest.fixture(scope="module")
def agent() -> Iterator[ToolAgent]:
    with ToolAgent() as served:
        yield served


def _support_suite(client: TestClient) -> int:
    cases = [
        {"input": "Please refund my blue kettle", "expected_output": "Refunded", "metadata": {"mode": mode}}
        for mode in MODES
    ]
    response = client.post("/api/suites", json={"name": "support", "cases": cases})
    assert response.status_code == 201, response.text
    suite_id: int = response.json()["data"]["id"]
    return suite_id


def _tool_names(steps: list[dict[str, Any]]) -> list[str]:
    return [step["tool_call"]["name"] for step in steps if step["kind"] == "tool_call"]


@pytest.mark.parametrize("dialect", sorted(TARGET_PATHS))
def test_a_reply_dialect_is_stored_summarised_paged_exported_and_deleted(
    client: TestClient, agent: ToolAgent, dialect: str
) -> None:
    suite_id = _support_suite(client)
    created = start(
        client, suite_id=suite_id, target=target(agent.url, dialect), grader_id="contains", concurrency=2
    )
    evaluation = wait_until_finished(client, created["id"])
    assert evaluation["status"] == "completed"
    rows = results(client, created["id"])
    by_mode = {row["number"]: row for row in rows}
    for number, (mode, tools) in enumerate(MODES.items(), 1):
        row = by_mode[number]
        assert row["passed"], row  # the answer text is graded as before
        summary = row["trajectory"]
        assert summary["dialect"] == dialect
        assert list(summary["tool_names"]) == list(dict.fromkeys(tools)), mode
        assert summary["tool_calls"] == len(tools)
        assert summary["tool_names"]["refund"] == tools.count("refund")
        url = f"/api/evaluations/{created['id']}/results/{row['case_id']}/trajectory"
        first = client.get(url, params={"limit": 2}).json()["data"]
        assert first["summary"] == summary
        assert first["offset"] == 0
        assert len(first["steps"]) == 2
        assert first["next_offset"] == 2
        rest = client.get(url, params={"offset": 2, "limit": 500}).json()["data"]
        assert rest["next_offset"] is None
        steps = first["steps"] + rest["steps"]
        assert len(steps) == summary["steps"]
        assert _tool_names(steps) == tools
    exported = client.get(f"/api/evaluations/{created['id']}/export", params={"format": "jsonl"})
    lines = [json.loads(line) for line in exported.text.splitlines()]
    assert [line["trajectory"]["tool_calls"] for line in lines] == [3, 2, 4]
    assert all(line["trajectory"]["steps_url"].endswith("/trajectory") for line in lines)
    case_id = rows[0]["case_id"]
    assert client.delete(f"/api/evaluations/{created['id']}").status_code == 200
    gone = client.get(f"/api/evaluations/{created['id']}/results/{case_id}/trajectory")
    assert gone.status_code == 404
    assert gone.json()["error"]["code"] == "NOT_FOUND"


def test_a_trajectory_missing_from_the_reply_keeps_the_answer_and_stores_no_steps(
    client: TestClient, agent: ToolAgent
) -> None:
    suite_id = _support_suite(client)
    spec = target(agent.url, "openai-chat") | {"trajectory": {"from": "reply", "path": "nowhere"}}
    created = start(client, suite_id=suite_id, target=spec, grader_id="contains")
    wait_until_finished(client, created["id"])
    row = results(client, created["id"])[0]
    assert row["passed"]  # a text grader reads the text; trajectory checks would say invalid_response
    assert row["trajectory"] is None
    page = client.get(f"/api/evaluations/{created['id']}/results/{row['case_id']}/trajectory")
    assert page.status_code == 404
    assert "no stored trajectory" in page.json()["error"]["message"]


def test_a_page_of_a_result_that_does_not_exist_is_a_404_and_bad_paging_a_422(client: TestClient) -> None:
    missing = client.get("/api/evaluations/99/results/1/trajectory")
    assert missing.status_code == 404
    bad = client.get("/api/evaluations/1/results/1/trajectory", params={"limit": 0})
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.no_database
def test_the_otlp_receiver_reads_json_only_and_refuses_what_it_cannot_keep(client: TestClient) -> None:
    protobuf = client.post(
        "/v1/traces", content=b"\x0a\x00", headers={"content-type": "application/x-protobuf"}
    )
    assert protobuf.status_code == 415
    assert protobuf.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert "http/json" in protobuf.json()["error"]["message"]
    gzip = client.post(
        "/v1/traces", content=b"{}", headers={"content-type": "application/json", "content-encoding": "gzip"}
    )
    assert gzip.status_code == 415
    malformed = client.post("/v1/traces", content=b"{nope", headers={"content-type": "application/json"})
    assert malformed.status_code == 422
    assert "not an OTLP JSON export request" in malformed.json()["error"]["message"]
    stranger = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab" * 16, "spanId": "01"}]}]}]}
    refused = client.post(
        "/v1/traces", content=orjson.dumps(stranger), headers={"content-type": "application/json"}
    )
    assert refused.status_code == 200
    assert refused.json()["partialSuccess"]["rejectedSpans"] == 1
    assert client.app.state.span_store.size == 0  # type: ignore[attr-defined]
    empty = client.post("/v1/traces", json={"resourceSpans": []})
    assert empty.json() == {}


@pytest.mark.no_database
def test_the_otlp_receiver_caps_a_request_and_needs_the_key_when_one_is_set(database_url: str) -> None:
    settings = Settings(database_url=database_url, api_key="k" * 32, otlp_max_request_bytes=1_000)
    with TestClient(create_app(settings)) as keyed:
        body = orjson.dumps({"resourceSpans": []})
        unkeyed = keyed.post("/v1/traces", content=body, headers={"content-type": "application/json"})
        assert unkeyed.status_code == 401
        headers = {"content-type": "application/json", "authorization": "Bearer " + "k" * 32}
        assert keyed.post("/v1/traces", content=body, headers=headers).status_code == 200
        large = keyed.post("/v1/traces", content=b" " * 2_000 + body, headers=headers)
        assert large.status_code == 413
        assert large.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"


@pytest.mark.parametrize("dialect", sorted(TARGET_PATHS))
def test_trajectory_checks_give_each_mode_its_verdicts(
    client: TestClient, agent: ToolAgent, dialect: str
) -> None:
    response = client.post("/api/suites", json=support_suite(f"support {dialect}"))
    assert response.status_code == 201, response.text
    created = start(client, suite_id=response.json()["data"]["id"], target=target(agent.url, dialect))
    wait_until_finished(client, created["id"])
    for row, (mode, expected) in zip(results(client, created["id"]), VERDICTS.items(), strict=True):
        verdicts = {check["name"]: check["passed"] for check in row["assertions"]}
        assert verdicts == expected, (dialect, mode, row["assertions"])
        assert row["passed"] is all(expected.values())


def test_results_break_down_by_the_tools_their_agent_called(client: TestClient, agent: ToolAgent) -> None:
    response = client.post("/api/suites", json=support_suite("support by tool"))
    created = start(client, suite_id=response.json()["data"]["id"], target=target(agent.url, "openai-chat"))
    wait_until_finished(client, created["id"])
    shown = client.get(f"/api/evaluations/{created['id']}/breakdown/tools").json()["data"]
    groups = {group["tool"]: group for group in shown["groups"]}
    # correct passes every check; skip and twice fail: each tool's results are the modes that called it
    assert {
        tool: (g["pass_rate"]["passed"], g["pass_rate"]["total"], g["calls"]) for tool, g in groups.items()
    } == {
        "search_orders": (1, 3, 3),
        "lookup_order": (1, 2, 2),
        "refund": (1, 3, 4),
    }
    # worst first: the lowest rate, then the most results, then by name
    assert [group["tool"] for group in shown["groups"]] == ["refund", "search_orders", "lookup_order"]
    assert shown["with_trajectory"] == 3
    assert shown["no_tool"]["total"] == 0
    assert client.get("/api/evaluations/99/breakdown/tools").status_code == 404
