"""Per-case assertions in the UI: each assertion's verdict in the case panel, the summary by assertion, and a
case added with its own assertions on the suite page (docs/assertions.md)."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import AssayServer

pytestmark = pytest.mark.browser

RULES = [
    {"when": {"kind": "bool"}, "assert": [{"grader_id": "true-false"}]},
    {"when": {"kind": "number"}, "assert": [{"grader_id": "numeric", "name": "amount"}]},
]


def test_a_mixed_suite_shows_each_assertion_and_takes_a_case_with_its_own(
    page: Page, assay: AssayServer
) -> None:
    cases = [
        {"input": "Open on Sunday?", "expected_output": "no", "metadata": {"kind": "bool"}},
        {"input": "Shipping?", "expected_output": "4.99", "metadata": {"kind": "number"}},
        {"input": "Capital?", "expected_output": "Paris"},
    ]
    body = {"name": f"assertions {uuid.uuid4().hex[:8]}", "rules": RULES, "cases": cases}
    suite_id = int(assay.data(assay.client.post("/api/suites", json=body))["id"])
    target = {"type": "recorded", "responses": {"1": "yes", "2": "$4.99", "3": "Paris"}}
    created = assay.client.post(
        "/api/evaluations", json={"suite_id": suite_id, "grader_id": "string-match", "target": target}
    )
    evaluation_id = int(assay.data(created)["id"])
    assay.wait_for(evaluation_id)

    page.goto(f"/evaluations/{evaluation_id}")
    summary = page.get_by_test_id("assertion-summary")
    expect(summary).to_contain_text("amount")
    expect(summary).to_contain_text("true-false")
    expect(page.get_by_test_id("assertion-failures")).to_contain_text("true-false: mismatch")
    page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]').nth(1).click()
    verdicts = page.get_by_test_id("case-panel").get_by_test_id("assertion-verdict")
    expect(verdicts).to_have_count(1)
    expect(verdicts.first).to_contain_text("amount")
    expect(verdicts.first).to_contain_text("PASS")

    page.goto(f"/suites/{suite_id}")
    form = page.get_by_role("form", name="Add a case")
    form.get_by_label("input", exact=True).fill("How many items?")
    form.get_by_label("expected_output", exact=True).fill("3")
    form.get_by_label("assert (optional JSON list)").fill('[{"grader_id": "numeric", "name": "count"}]')
    form.get_by_role("button", name="Add case").click()
    expect(page.get_by_test_id("case-list")).to_contain_text('"count"')
    stored = assay.data(assay.client.get(f"/api/suites/{suite_id}/cases"))["cases"][-1]
    assert stored["assert"] == [
        {"grader_id": "numeric", "config": {}, "expected_output": None, "weight": 1.0, "name": "count"}
    ]
