"""Compare two evaluations of one suite: the flips, regressions first, and McNemar's verdict."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import BOOLEAN_CASES, CUSTOM_ALIASES, AssayServer
from tests.support.agent_server import AgentServer

pytestmark = pytest.mark.browser


def test_compare_two_runs_shows_regressions_first_and_the_verdict(
    page: Page, assay: AssayServer, agent: AgentServer
) -> None:
    suite_id = assay.create_suite(BOOLEAN_CASES)
    # A reads "yep"/"nope" as booleans; B, with the default aliases, does not: two cases pass in A only.
    a_id = assay.run_evaluation(suite_id, agent.url, "custom aliases", {"aliases": CUSTOM_ALIASES})
    b_id = assay.run_evaluation(suite_id, agent.url, "default aliases")

    page.goto(f"/evaluations/{a_id}")
    page.get_by_role("link", name="Compare…").click()
    expect(page.get_by_label("A (base)")).to_have_value(str(a_id))
    page.get_by_label("B (candidate)").select_option(str(b_id))

    comparison = page.get_by_test_id("comparison")
    expect(comparison).to_contain_text("2 pass→fail")
    expect(comparison).to_contain_text("0 fail→pass")
    expect(page.get_by_test_id("mcnemar-verdict")).to_have_text("No significant difference")

    regressions = page.get_by_test_id("flips-pass-to-fail")
    fixes = page.get_by_test_id("flips-fail-to-pass")
    expect(regressions.locator("tbody tr")).to_have_count(2)
    expect(regressions).to_contain_text("Is water wet?")
    expect(regressions).to_contain_text("Is fire cold?")
    expect(fixes).to_contain_text("None.")
    # Regressions come first on the page.
    regressions_box, fixes_box = regressions.bounding_box(), fixes.bounding_box()
    assert regressions_box is not None
    assert fixes_box is not None
    assert regressions_box["y"] < fixes_box["y"]

    # The view is a link: a refresh shows the same comparison.
    page.reload()
    expect(page.get_by_test_id("flips-pass-to-fail").locator("tbody tr")).to_have_count(2)
