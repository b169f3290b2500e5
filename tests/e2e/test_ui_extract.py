"""The extract grader in the UI: its trace (the span read, the rule) in the playground and the case panel,
and the evaluation screen's filter by the reason code of a verdict."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import AssayServer

pytestmark = pytest.mark.browser

REPLIES = [
    ("Is water wet?", "true", "Let me think about it.\n\nThe answer is: yes"),
    ("Is fire cold?", "false", "Maybe false, I think."),
    ("Is 2 even?", "true", "It is not true."),
    ("Is 3 even?", "false", "Final answer: no"),
]


def node(within: Locator | Page, grader_id: str) -> Locator:
    return within.locator(f'[data-testid="verdict-node"][data-grader="{grader_id}"]')


def test_the_playground_shows_the_span_read_and_the_rule(page: Page) -> None:
    page.goto("/graders/extract")
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    page.get_by_label("agent_response").fill("Let me think about it.\n\nThe answer is: yes")
    page.get_by_label("expected_output", exact=True).fill("true")
    page.get_by_role("button", name="Grade", exact=True).click()
    tree = page.get_by_test_id("grade-result").get_by_test_id("verdict-tree")
    root = node(tree, "extract")
    expect(root).to_have_attribute("data-outcome", "passed")
    trace = root.get_by_test_id("extraction-trace").first
    expect(trace).to_have_text("answer read: yes by the rule labelled")
    expect(node(root, "true-false")).to_have_attribute("data-outcome", "passed")

    page.get_by_label("agent_response").fill("Not true, I'd say.")
    page.get_by_role("button", name="Grade", exact=True).click()
    expect(root).to_have_attribute("data-outcome", "invalid")
    expect(root.get_by_test_id("extraction-trace")).to_have_text(
        re.compile(r"^no answer read: refused by the rule")
    )
    expect(node(root, "true-false")).to_have_count(0)  # the wrapped grader never saw the reply


def test_the_evaluation_screen_filters_by_reason_and_the_case_panel_shows_the_trace(
    page: Page, assay: AssayServer
) -> None:
    suite_id = assay.create_suite([(q, e, "") for q, e, _ in REPLIES], "extract")
    responses = {str(number): reply for number, (_, _, reply) in enumerate(REPLIES, 1)}
    body = {
        "suite_id": suite_id,
        "grader_id": "extract",
        "target": {"type": "recorded", "responses": responses},
        "name": "extract",
    }
    evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
    assert assay.wait_for(evaluation_id)["summary"]["by_reason_code"] == {"hedged": 1, "negated": 1}

    page.goto(f"/evaluations/{evaluation_id}")
    rows = page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]')
    expect(rows).to_have_count(len(REPLIES))
    reason = page.get_by_label("Reason filter")
    expect(reason.locator("option")).to_have_text(["Any reason", "hedged (1)", "negated (1)"])
    reason.select_option("hedged")
    expect(page).to_have_url(re.compile(r"reason=hedged"))
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Is fire cold?")
    rows.first.click()
    panel = page.get_by_test_id("case-panel")
    root = node(panel.get_by_test_id("verdict-tree"), "extract")
    expect(root.get_by_test_id("extraction-trace")).to_have_text("no answer read: refused by the rule hedged")
    expect(panel.locator('[data-detail="reason_code"]')).to_contain_text("hedged")

    reason.select_option("")
    expect(rows).to_have_count(len(REPLIES))
    rows.filter(has_text="Is water wet?").click()
    root = node(page.get_by_test_id("case-panel").get_by_test_id("verdict-tree"), "extract")
    expect(root.get_by_test_id("extraction-trace").first).to_have_text(
        "answer read: yes by the rule labelled"
    )
    # A shared link keeps the filter.
    page.goto(f"/evaluations/{evaluation_id}?reason=negated")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Is 2 even?")
