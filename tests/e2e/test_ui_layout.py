"""Every screen reads at a phone's width (390 px) and a laptop's (1280 px), with long realistic values in
every field: no word broken inside itself, nothing overflowing its box or the viewport, no value cut with
no way to read it whole, no console error.

One seeded database (``tests/support/showcase.py``) and one page per width visit every route, so that the
check stays cheap; a failure lists every problem of every route at once.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import PHONE_WIDTH, AssayServer, PageWatch, watched_page
from tests.support.layout import layout_problems
from tests.support.showcase import Showcase, seed_showcase

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def showcase(assay: AssayServer) -> Showcase:
    """The layout's data, seeded once for both widths."""
    return seed_showcase(assay.client)


@pytest.fixture(params=[PHONE_WIDTH, 1280], ids=["390px", "1280px"])
def layout_page(
    request: pytest.FixtureRequest, browser: Browser, assay: AssayServer, watch: PageWatch
) -> Iterator[Page]:
    """A page at one width, failing on any console error."""
    with watched_page(browser, assay.url, watch, request.param, 900) as tab:
        yield tab


def test_every_screen_reads_at_both_widths(layout_page: Page, showcase: Showcase) -> None:
    page = layout_page
    problems: list[str] = []
    for route in showcase.routes:
        page.goto(route.path)
        page.wait_for_load_state("networkidle")
        expect(page.locator("main")).not_to_contain_text("Loading…")
        if route.click:
            page.locator(route.click).first.click()
            page.wait_for_load_state("networkidle")
        problems += [f"{route.name}: {problem}" for problem in layout_problems(page)]
    assert problems == [], "\n".join(problems)


def test_a_chosen_graders_details_show_where_the_click_was(layout_page: Page) -> None:
    """On a phone the details follow the list of graders: choosing one brings them into view."""
    page = layout_page
    page.goto("/graders")
    page.get_by_test_id("grader-list").get_by_role("link").last.click()
    heading = page.locator(".grader-detail h2")
    expect(heading).to_be_in_viewport()
