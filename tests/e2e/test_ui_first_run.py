"""A newcomer's first ``assay serve``: the UI opens at ``/`` and runs the seeded demo suite end to end."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.assay_process import AssayProcess

pytestmark = pytest.mark.browser


@pytest.fixture
def first_run_page(browser: Browser, tmp_path: Path) -> Iterator[Page]:
    """A page on a server started as a user would start it the first time (demo seeding left as default)."""
    with AssayProcess(tmp_path, seed_demo=None) as assay:
        context = browser.new_context(base_url=assay.url, viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(15_000)
        yield context.new_page()
        context.close()


def test_a_newcomer_runs_the_demo_from_the_ui(first_run_page: Page) -> None:
    page = first_run_page
    page.goto("/")
    expect(page.get_by_role("heading", name="Evaluations")).to_be_visible()
    page.get_by_role("link", name="Suites", exact=True).click()
    page.get_by_test_id("suite-list").get_by_role("link").first.click()
    page.get_by_role("link", name="Evaluate").click()
    page.get_by_label("Grader", exact=True).select_option("true-false")
    page.get_by_label("Recorded responses").check()
    key_field = page.get_by_label("Metadata key")
    # The demo's cases carry their recorded answers in metadata; the form offers the key it finds.
    options = page.locator(f'datalist[id="{key_field.get_attribute("list")}"] option')
    suggestions = [options.nth(i).get_attribute("value") for i in range(options.count())]
    assert "recorded_response" in suggestions
    key_field.fill("recorded_response")
    page.get_by_role("button", name="Start evaluation").click()
    expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
    expect(page.get_by_test_id("evaluation-status")).to_have_text("completed", timeout=30_000)
    expect(page.get_by_test_id("pass-rate")).to_have_text(re.compile(r"\d+\.\d%"))
    expect(page.get_by_test_id("confusion-matrix")).to_be_visible()
