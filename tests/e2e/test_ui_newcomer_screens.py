"""Screens as a newcomer meets them: an empty suite, counts that agree with the rows shown, the case panel
beside readable columns, a missing answer."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from tests.e2e.conftest import BOOLEAN_CASES, AssayServer

pytestmark = pytest.mark.browser


def recorded_evaluation(assay: AssayServer, suite_id: int, answers: dict[int, str | None]) -> int:
    """A finished true-false evaluation whose answers are recorded, by case number (from 1)."""
    cases = assay.data(assay.client.get(f"/api/suites/{suite_id}/cases", params={"limit": 500}))["cases"]
    responses = {str(case["number"]): answers.get(case["number"], "yes") for case in cases}
    body = {
        "suite_id": suite_id,
        "grader_id": "true-false",
        "target": {"type": "recorded", "responses": responses},
    }
    evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
    assay.wait_for(evaluation_id)
    return evaluation_id


def test_an_empty_suite_says_so_and_how_to_fill_it(page: Page, assay: AssayServer) -> None:
    suite_id = assay.create_suite([])
    page.goto(f"/suites/{suite_id}")
    expect(page.get_by_test_id("empty-suite")).to_contain_text("This suite has no cases yet.")
    expect(page.get_by_test_id("case-list")).to_have_count(0)
    expect(page.get_by_role("button", name="Next →")).to_have_count(0)
    page.get_by_label("input").fill("Is ice cold?")
    page.get_by_label("expected_output").fill("true")
    page.get_by_role("button", name="Add case").click()
    expect(page.get_by_test_id("case-list")).to_contain_text("Is ice cold?")
    expect(page.get_by_test_id("empty-suite")).to_have_count(0)


def test_counts_catch_up_with_the_rows_when_the_evaluation_was_read_first(
    page: Page, assay: AssayServer
) -> None:
    """The evaluation read before its results were stored says 0 done; the table lists every row. The page
    reads the evaluation again rather than show "0 / 6 cases done" and "All 0" above six graded rows."""
    suite_id = assay.create_suite(BOOLEAN_CASES)
    evaluation_id = recorded_evaluation(assay, suite_id, {})
    reads = 0

    def stale_first(route: Route) -> None:
        nonlocal reads
        reads += 1
        response = route.fetch()
        body: dict[str, Any] = response.json()
        if reads == 1:  # as read a moment after the start: nothing done yet (and no polling: it ended)
            body["data"]["progress"]["done"] = 0
            body["data"]["summary"] = None
        route.fulfill(response=response, body=json.dumps(body))

    page.route(f"**/api/evaluations/{evaluation_id}", stale_first)
    page.goto(f"/evaluations/{evaluation_id}")
    expect(page.get_by_test_id("progress-text")).to_have_text("6 / 6 cases done")
    expect(page.get_by_role("button", name="All 6")).to_be_visible()
    assert reads == 2


def test_with_the_panel_open_the_texts_keep_their_room(page: Page, assay: AssayServer) -> None:
    long_input = "How long can a question be before nobody reads it to the end? " * 3
    suite_id = assay.create_suite([(long_input, "true", "yes"), *BOOLEAN_CASES])
    evaluation_id = recorded_evaluation(assay, suite_id, {1: None})
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"/evaluations/{evaluation_id}")
    rows = page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]')
    first = rows.first
    # A missing answer reads as a dash in the table and as "(no answer)" in the panel, never "null".
    expect(first.locator(".cell-agent_response")).to_have_text("—")
    first.click()
    panel = page.get_by_test_id("case-panel")
    expect(panel.get_by_label("agent_response")).to_have_text("(no answer)")
    for detail in ("actual_original", "actual_bool"):  # null in the verdict's details reads as a dash too
        expect(panel.locator(f'[data-detail="{detail}"] td')).to_have_text("—")
    box = first.locator(".cell-input").bounding_box()
    assert box is not None
    assert box["width"] >= 250, box  # about 30 characters of the input, not 12
    expect(first.locator(".cell-latency_ms")).to_be_hidden()  # the panel says it


def test_a_cases_number_is_never_cut_in_the_results_table(sized_page: Page, assay: AssayServer) -> None:
    """In the narrow # column a long key is cut, never the number ("1…" would name cases 1, 10 and 12)."""
    page = sized_page
    cases = [
        {"key": f"question-{n:02d}", "input": f"Is {n} a number?", "expected_output": "true"}
        for n in range(1, 13)
    ]
    suite_id = assay.data(
        assay.client.post("/api/suites", json={"name": f"long keys {uuid.uuid4().hex[:8]}", "cases": cases})
    )["id"]
    target = {"type": "recorded", "responses": {case["key"]: "yes" for case in cases}}
    body = {"suite_id": suite_id, "grader_id": "true-false", "target": target}
    evaluation_id = assay.data(assay.client.post("/api/evaluations", json=body))["id"]
    assay.wait_for(evaluation_id)
    page.goto(f"/evaluations/{evaluation_id}")
    rows = page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]')
    expect(rows).to_have_count(12)
    for n in range(12):
        cell = rows.nth(n).locator(".cell-number")
        number = cell.locator(".case-number-n")
        expect(number).to_have_text(str(n + 1))
        # Only the key's own box may cut its text: the cell cuts nothing, so the number shows whole.
        assert cell.evaluate("cell => cell.scrollWidth <= cell.clientWidth"), f"case {n + 1}'s cell is cut"
        expect(cell.locator(".case-key")).to_have_text(f"question-{n + 1:02d}")  # whole, though cut on screen


def test_the_cases_done_agree_with_the_summary_beside_them(page: Page, assay: AssayServer) -> None:
    """While a run goes on, its counter of cases done runs ahead of its summary (recounted now and then): the
    screen shows the summary's own count, never "5 / 6 cases done" beside "passed / finished 2 / 4"."""
    suite_id = assay.create_suite(BOOLEAN_CASES)
    evaluation_id = recorded_evaluation(assay, suite_id, {})

    def counter_ahead(route: Route) -> None:
        response = route.fetch()
        body: dict[str, Any] = response.json()
        body["data"]["status"] = "running"
        body["data"]["progress"]["done"] = 5
        body["data"]["summary"]["finished"] = 4
        route.fulfill(response=response, body=json.dumps(body))

    page.route(f"**/api/evaluations/{evaluation_id}", counter_ahead)
    page.goto(f"/evaluations/{evaluation_id}")
    expect(page.get_by_test_id("progress-text")).to_have_text("4 / 6 cases done so far")
    expect(page.get_by_test_id("passed-finished")).to_have_text(re.compile(r"/ 4$"))
