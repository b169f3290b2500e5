"""The API docs render in a browser from the package alone: no CDN, no CSP violation (the page fixture
fails on any console error), every request to this server."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Request, expect

from tests.e2e.conftest import AssayServer, PageWatch

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("path", "operation"), [("/docs", ".opblock"), ("/redoc", "[data-section-id]")])
def test_docs_render_offline(
    page: Page, assay: AssayServer, watch: PageWatch, path: str, operation: str
) -> None:
    requested: list[str] = []
    failed: dict[str, str] = {}

    def record_failure(request: Request) -> None:
        failed[request.url] = request.failure or ""

    page.on("request", lambda request: requested.append(request.url))
    page.on("requestfailed", record_failure)
    # ReDoc's menu shows a logo from its CDN, hard-coded: the CSP blocks it (so nothing leaves) and says so.
    watch.expect_console_error("cdn.redoc.ly")
    page.goto(path)
    summary = page.get_by_role("heading", name="Grade one answer") if path == "/redoc" else None
    if summary is None:
        summary = page.locator(".opblock-summary-description", has_text="Grade one answer")
    expect(summary.first).to_be_visible()
    assert page.locator(operation).count() > 10  # every operation of the API is documented
    assert requested
    foreign = [url for url in requested if not url.startswith((assay.url, "blob:", "data:"))]
    assert all(failed.get(url) == "csp" for url in foreign), (foreign, failed)  # blocked, never sent
