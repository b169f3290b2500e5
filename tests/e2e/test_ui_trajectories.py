"""Trajectories seen in the web UI (issue 26): a case's steps paged in the case panel, a tool call's
arguments, the step where a check failed, pass rate per tool used, and compare's changed tool calls; against
the real tool agent (tests/support/tool_agent.py) on loopback, through a real ``assay serve`` and Chromium."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import AssayServer
from tests.support.navigation import open_in_app
from tests.support.tool_agent import THOROUGH_LOOKUPS, ToolAgent, support_suite, target

pytestmark = pytest.mark.browser

MODES = ("correct", "skip", "twice", "thorough")
"""One case per mode of the agent, in this order (case #1 is correct, #4 looks its order up 30 times)."""


@pytest.fixture(scope="module")
def tool_agent() -> Iterator[ToolAgent]:
    with ToolAgent() as served:
        yield served


def _suite(assay: AssayServer) -> int:
    suite = support_suite(f"support {uuid.uuid4().hex[:8]}")
    suite["cases"] = [
        {"input": "Please refund my blue kettle", "expected_output": "Refunded", "metadata": {"mode": mode}}
        for mode in MODES
    ]
    return int(assay.data(assay.client.post("/api/suites", json=suite))["id"])


def _run(assay: AssayServer, suite_id: int, spec: dict[str, Any], name: str) -> int:
    body = {"suite_id": suite_id, "grader_id": "true-false", "target": spec, "name": name}
    evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
    assert assay.wait_for(evaluation_id)["status"] == "completed"
    return evaluation_id


def _results(assay: AssayServer, evaluation_id: int) -> dict[int, dict[str, Any]]:
    rows = assay.data(assay.client.get(f"/api/evaluations/{evaluation_id}/results"))["results"]
    return {row["number"]: row for row in rows}


def test_a_case_s_trajectory_is_paged_with_its_arguments_and_the_failing_step(
    page: Page, assay: AssayServer, tool_agent: ToolAgent
) -> None:
    suite_id = _suite(assay)
    evaluation_id = _run(assay, suite_id, target(tool_agent.url, "openai-chat"), "tools")
    cases = _results(assay, evaluation_id)

    # The thorough case: 1 search, 30 look-ups, 1 refund, their results and the messages: over a page.
    total_steps = cases[4]["trajectory"]["steps"]
    assert total_steps > 2 * THOROUGH_LOOKUPS
    page.goto(f"/evaluations/{evaluation_id}?case={cases[4]['case_id']}")
    panel = page.get_by_test_id("case-panel")
    trajectory = panel.get_by_test_id("trajectory")
    expect(trajectory.get_by_test_id("trajectory-summary")).to_contain_text(
        f"{THOROUGH_LOOKUPS + 2} tool calls"
    )
    steps = trajectory.get_by_test_id("trajectory-step")
    expect(steps).to_have_count(50)  # the first page only
    more = trajectory.get_by_test_id("trajectory-more")
    expect(more).to_contain_text("50 of")
    more.click()
    expect(steps).to_have_count(total_steps)
    expect(more).to_have_count(0)
    # The exact sequence check departs at call 3 (a second look-up where the refund was expected).
    expect(trajectory.get_by_test_id("trajectory-failures")).to_contain_text("sequence failed at call #3")
    failed = trajectory.locator("[data-failed]")
    expect(failed).to_have_count(1)
    expect(failed).to_contain_text("call #3 lookup_order")
    expect(failed.get_by_test_id("step-failure")).to_contain_text("sequence")

    # The skipping case: the refund's arguments as pretty JSON, and the step the checks point at.
    open_in_app(page, f"/evaluations/{evaluation_id}?case={cases[2]['case_id']}")
    trajectory = page.get_by_test_id("case-panel").get_by_test_id("trajectory")
    refund = trajectory.locator('[data-kind="tool_call"]', has_text="refund")
    expect(refund.get_by_test_id("step-text")).to_contain_text('"amount": 10')
    expect(refund).to_have_attribute("data-failed", "true")
    expect(refund.get_by_test_id("step-failure").first).to_contain_text("sequence")
    expect(trajectory.locator('[data-kind="tool_result"]')).to_have_count(2)

    # Pass rate per tool used: only the correct case passes, every case used refund.
    tools = page.get_by_test_id("tool-breakdown")
    expect(tools).to_contain_text("tool used: refund")
    refund_row = tools.get_by_test_id("tool-breakdown-row").filter(has_text="tool used: refund")
    expect(refund_row.locator("td").nth(1)).to_have_text("3")  # failed
    expect(refund_row.locator("td").nth(2)).to_have_text("4")  # cases


def test_compare_lists_the_cases_whose_tool_calls_changed_first(
    page: Page, assay: AssayServer, tool_agent: ToolAgent
) -> None:
    suite_id = _suite(assay)
    a_id = _run(assay, suite_id, target(tool_agent.url, "openai-chat"), "as written")
    fixed = target(tool_agent.url, "anthropic")
    fixed["body_template"] = {**fixed["body_template"], "mode": "correct"}  # B does each case right
    b_id = _run(assay, suite_id, fixed, "fixed")

    page.goto(f"/compare?a={a_id}&b={b_id}")
    changes = page.get_by_test_id("tool-changes")
    expect(changes).to_contain_text("3 cases changed", timeout=20_000)
    rows = changes.get_by_test_id("tool-case")
    expect(rows).to_have_count(4)
    # Changed first, in case order: #2 (skip), #3 (twice), #4 (thorough); then #1, unchanged.
    expect(rows.nth(0)).to_have_attribute("data-changed", "true")
    # Each run's calls in the order made, the first call where they differ marked and named.
    expect(rows.nth(0).get_by_test_id("tools-a")).to_have_text("A: search_orders → refund")
    expect(rows.nth(0).get_by_test_id("tools-b")).to_have_text("B: search_orders → lookup_order → refund")
    expect(rows.nth(0).get_by_test_id("tools-a").get_by_test_id("first-difference")).to_have_text("refund")
    expect(rows.nth(0).get_by_test_id("tools-b").get_by_test_id("first-difference")).to_have_text(
        "lookup_order"
    )
    expect(rows.nth(0).get_by_test_id("order-difference")).to_have_text(
        "First differs at call #2: A refund, B lookup_order"
    )
    expect(rows.nth(0).get_by_test_id("tool-diff")).to_have_text("lookup_order: added")
    expect(rows.nth(1).get_by_test_id("tools-a")).to_have_text(
        "A: search_orders → lookup_order → refund → refund"
    )
    expect(rows.nth(1).get_by_test_id("order-difference")).to_have_text(
        "First differs at call #4: A refund, B makes no more calls"
    )
    expect(rows.nth(1).get_by_test_id("tool-diff")).to_have_text("refund: 2 → 1 calls")
    expect(rows.nth(2).get_by_test_id("order-difference")).to_have_text(
        "First differs at call #3: A lookup_order, B refund"
    )
    expect(rows.nth(2).get_by_test_id("tool-diff")).to_have_text(
        f"lookup_order: {THOROUGH_LOOKUPS} → 1 calls"
    )
    expect(rows.nth(3)).to_have_attribute("data-changed", "false")
    expect(rows.nth(3)).to_contain_text("same calls")
    expect(rows.nth(3).get_by_test_id("order-difference")).to_have_count(0)
