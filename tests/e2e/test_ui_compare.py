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

    # "Compare…" from the newer run makes it the candidate against the run before it.
    page.goto(f"/evaluations/{b_id}")
    page.get_by_role("link", name="Compare…").click()
    expect(page.get_by_label("A (base)")).to_have_value(str(a_id))
    expect(page.get_by_label("B (candidate)")).to_have_value(str(b_id))

    comparison = page.get_by_test_id("comparison")
    # the first comparison of a session waits on a busy shared machine more than the 5 s default
    expect(comparison).to_contain_text("2 pass→fail", timeout=20_000)
    expect(comparison).to_contain_text("0 fail→pass")
    expect(page.get_by_test_id("mcnemar-verdict")).to_have_text("No significant difference")

    regressions = page.get_by_test_id("flips-pass-to-fail")
    fixes = page.get_by_test_id("flips-fail-to-pass")
    expect(regressions.locator("[data-case-id]")).to_have_count(2)
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
    expect(page.get_by_test_id("flips-pass-to-fail").locator("[data-case-id]")).to_have_count(2)


def test_many_flips_are_paged_and_virtualised(page: Page, assay: AssayServer) -> None:
    # 1,000 cases; B answers the opposite of A on 900 of them: 600 regressions, 300 fixes.
    count, regressions_total, fixes_total = 1000, 600, 300
    suite_id = assay.create_suite([(f"Is {n} odd?", "true", "") for n in range(count)], "many flips")
    ids = [
        case["id"]
        for skip in range(0, count, 500)
        for case in assay.data(
            assay.client.get(f"/api/suites/{suite_id}/cases", params={"limit": 500, "skip": skip})
        )["cases"]
    ]
    answers_a = ["yes"] * regressions_total + ["no"] * (count - regressions_total)
    answers_b = (
        ["no"] * regressions_total
        + ["yes"] * fixes_total
        + ["no"] * (count - regressions_total - fixes_total)
    )
    evaluation_ids = []
    for name, answers in (("A", answers_a), ("B", answers_b)):
        body = {
            "suite_id": suite_id,
            "grader_id": "true-false",
            "target": {"type": "recorded", "responses": {str(n): a for n, a in enumerate(answers, 1)}},
            "name": name,
        }
        evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
        assay.wait_for(evaluation_id)
        evaluation_ids.append(evaluation_id)

    page.goto(f"/compare?a={evaluation_ids[0]}&b={evaluation_ids[1]}")
    expect(page.get_by_test_id("comparison")).to_contain_text("600 pass→fail")
    regressions = page.get_by_test_id("flips-pass-to-fail")
    expect(regressions.locator(f'[data-case-id="{ids[0]}"]')).to_be_visible()
    # Only the rows in view are in the DOM, not 600.
    assert regressions.locator("[data-case-id]").count() < 60
    # Scrolling to the end fetches the pages under it: the last regression appears.
    regressions.locator(".flip-body").evaluate("element => element.scrollTo(0, element.scrollHeight)")
    expect(regressions.locator(f'[data-case-id="{ids[regressions_total - 1]}"]')).to_be_visible()
    assert regressions.locator("[data-case-id]").count() < 60
    fixes = page.get_by_test_id("flips-fail-to-pass")
    expect(fixes.locator(f'[data-case-id="{ids[regressions_total]}"]')).to_be_visible()
