"""A newcomer's first ``assay serve``: the UI opens at ``/`` and runs the seeded demo suite end to end."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import NEWCOMER_GROUP

# The newcomer's server, started as a user first starts it (the demo seeded by default), is shared with the
# other module that needs a fresh server (test_ui_unavailable_grader), on one worker. Neither creates what
# the other reads: the only evaluation is the one the demo's test starts.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group(NEWCOMER_GROUP)]


def test_a_newcomer_runs_the_demo_from_the_ui(newcomer_page: Page) -> None:
    page = newcomer_page
    page.goto("/")
    expect(page.get_by_role("heading", name="Evaluations")).to_be_visible()
    # No evaluation yet, but a suite: the home page offers to evaluate it, not to create one.
    empty = page.get_by_test_id("no-evaluations")
    expect(empty).to_contain_text("Evaluate Demo: true or false?")
    empty.get_by_role("link", name="Demo: true or false?").click()
    # The demo's cases carry their recorded answers in metadata: the target reads them, preselected.
    expect(page.get_by_label("Recorded responses")).to_be_checked()
    expect(page.get_by_label("Metadata key")).to_have_value("recorded_response")
    page.get_by_label("Grader", exact=True).select_option("true-false")
    # The grader's configuration renders above the button once its schema is read: clicked before that, the
    # click could land where the button was (a CI dry run saw the page stay on the form).
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    page.get_by_role("button", name="Start evaluation").click()
    expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
    expect(page.get_by_test_id("evaluation-status")).to_have_text("completed", timeout=30_000)
    expect(page.get_by_test_id("pass-rate")).to_have_text(re.compile(r"\d+\.\d%"))
    expect(page.get_by_test_id("confusion-matrix")).to_be_visible()


def test_the_suite_pages_evaluate_link_preselects_the_recorded_target(newcomer_page: Page) -> None:
    page = newcomer_page
    page.goto("/suites")
    page.get_by_test_id("suite-list").get_by_role("link").first.click()
    page.get_by_role("link", name="Evaluate").click()
    expect(page.get_by_label("Recorded responses")).to_be_checked()
    key_field = page.get_by_label("Metadata key")
    expect(key_field).to_have_value("recorded_response")
    # Choosing another target is kept: the preselection is only where to start.
    page.get_by_label("HTTP endpoint").check()
    expect(page.get_by_label("URL")).to_be_visible()
    page.get_by_label("Name (optional)").fill("mine")
    expect(page.get_by_label("HTTP endpoint")).to_be_checked()
