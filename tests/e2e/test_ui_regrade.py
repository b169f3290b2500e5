"""Re-grade a finished evaluation from its screen, then compare; the preflight warning before a run."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import BOOLEAN_CASES, CUSTOM_ALIASES, AssayServer
from tests.support.agent_server import AgentServer
from tests.support.navigation import open_in_app

pytestmark = pytest.mark.browser


def test_regrade_with_another_config_lands_on_the_new_evaluation_and_compares(
    page: Page, assay: AssayServer, agent: AgentServer
) -> None:
    suite_id = assay.create_suite(BOOLEAN_CASES)
    source_id = assay.run_evaluation(suite_id, agent.url, "custom aliases", {"aliases": CUSTOM_ALIASES})
    calls_before = len(agent.requests)

    page.goto(f"/evaluations/{source_id}")
    regrade = page.get_by_test_id("regrade")
    regrade.get_by_text("Re-grade…").click()
    regrade.get_by_role("button", name="Reset to defaults").click()
    expect(regrade.get_by_test_id("config-status")).to_have_text("✓ valid")
    regrade.get_by_role("button", name="Start re-grading").click()

    expect(page.get_by_test_id("compare-with-source")).to_have_text(f"Compare with #{source_id}")
    expect(page.get_by_test_id("progress-text")).to_have_text(re.compile(r"cases done$"))
    assert len(agent.requests) == calls_before  # the agent was not called again
    page.get_by_test_id("compare-with-source").click()
    expect(page.get_by_test_id("comparison")).to_contain_text("2 pass→fail")
    expect(page.get_by_test_id("flips-pass-to-fail").locator("[data-case-id]")).to_have_count(2)


def test_new_evaluation_form_warns_of_cases_the_grader_can_never_pass(page: Page, assay: AssayServer) -> None:
    suite_id = assay.create_suite([("q1", "true", ""), ("q2", "maybe", ""), ("q3", "", "")])
    page.goto(f"/evaluations/new?suite={suite_id}")
    page.get_by_label("Grader", exact=True).select_option("true-false")
    warning = page.get_by_test_id("preflight-warning")
    expect(warning).to_contain_text("2 of 3 cases")
    expect(warning).to_contain_text("Expected value 'maybe' is not a valid boolean")
    expect(warning.get_by_test_id("allow-invalid-expected")).not_to_be_checked()
    page.get_by_label("Grader", exact=True).select_option("string-match")
    expect(page.get_by_test_id("preflight-warning")).to_contain_text("1 of 3 cases")
    open_in_app(page, f"/suites/{suite_id}")
    page.get_by_label("Check the expected outputs for grader").select_option("true-false")
    expect(page.get_by_test_id("preflight-warning")).to_contain_text("2 of 3 cases")
