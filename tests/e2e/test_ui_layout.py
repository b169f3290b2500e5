"""Every screen reads at a phone's width (390 px) and a laptop's (1280 px), with long realistic values in
every field: no word broken inside itself, nothing overflowing its box or the viewport, no value cut with
no way to read it whole, no console error.

One seeded database (``tests/support/showcase.py``) and one tab at each width, loaded once, visit every route,
so that the check stays cheap; a failure lists every problem of every route at once.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import AssayServer
from tests.support.layout import layout_problems
from tests.support.navigation import QuietNetwork, open_in_app
from tests.support.showcase import Showcase, seed_showcase

# The showcase (five evaluations) seeded once: the module's tests on one worker, not on each given one.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("ui-layout")]


@pytest.fixture(scope="module")
def showcase(assay: AssayServer) -> Showcase:
    """The layout's data, seeded once for both widths."""
    return seed_showcase(assay.client)


def test_every_screen_reads_at_both_widths(sized_page: Page, showcase: Showcase) -> None:
    page = sized_page
    problems: list[str] = []
    # One load per width; every other screen is a route change inside the app, as its links make (a load
    # costs Chromium over twice as much). Deep links' loads are other tests' subject (test_ui_evaluation).
    # After a click the network is watched too: networkidle, reached once per load, would return at once.
    with QuietNetwork(page) as network:
        for n, route in enumerate(showcase.routes):
            if n == 0:
                page.goto(route.path)
            else:
                open_in_app(page, route.path)
            network.wait()
            expect(page.locator("main")).not_to_contain_text("Loading…")
            if route.click:
                page.locator(route.click).first.click()
                network.wait()
            problems += [f"{route.name}: {problem}" for problem in layout_problems(page)]
    assert problems == [], "\n".join(problems)


def test_a_chosen_graders_details_show_where_the_click_was(sized_page: Page) -> None:
    """On a phone the details follow the list of graders: choosing one brings them into view."""
    page = sized_page
    page.goto("/graders")
    page.get_by_test_id("grader-list").get_by_role("link").last.click()
    heading = page.locator(".grader-detail h2")
    expect(heading).to_be_in_viewport()


# The New evaluation form for extract measured 3,671 px before its options were folded (issue 29).
MAX_EXTRACT_FORM_PX = 1800


def test_the_extract_form_folds_its_fine_tuning_and_keeps_start_in_reach(
    page: Page, showcase: Showcase
) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"/evaluations/new?suite={showcase.suite_id}&grader=extract")
    start = page.get_by_role("button", name="Start evaluation")
    expect(start).to_be_in_viewport()  # before the config renders...
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    expect(start).to_be_in_viewport()  # ...and after
    box = page.locator("section.new-evaluation").bounding_box()
    assert box is not None
    assert box["height"] <= MAX_EXTRACT_FORM_PX, f"the form is {box['height']:.0f} px tall"

    # Enum lists are choices, not free text; the fine-tuning is folded until asked for.
    rules = page.get_by_role("group", name="rules")
    expect(rules.get_by_role("checkbox", name="labelled")).to_be_checked()
    expect(page.get_by_role("group", name="languages").get_by_role("checkbox").first).to_be_visible()
    expect(page.locator('.field[data-field="tags"]')).to_be_hidden()
    page.get_by_text("More options", exact=False).first.click()
    expect(page.locator('.field[data-field="tags"]')).to_be_visible()
    start.scroll_into_view_if_needed()
    page.mouse.wheel(0, 400)
    expect(start).to_be_in_viewport()
