"""The API docs render in a browser from the package alone: no CDN, no CSP violation (the page fixture
fails on any console error), every request to this server."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import AssayServer

pytestmark = pytest.mark.browser

RENDER_TIMEOUT_MS = 60_000


@pytest.mark.parametrize(("path", "operation"), [("/docs", ".opblock"), ("/redoc", "[data-section-id]")])
def test_docs_render_offline(page: Page, assay: AssayServer, path: str, operation: str) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(path)
    summary = page.get_by_role("heading", name="Grade one answer") if path == "/redoc" else None
    if summary is None:
        summary = page.locator(".opblock-summary-description", has_text="Grade one answer")
    # ReDoc and Swagger UI render the whole API in the page: seconds of a core, many more while other tests
    # share the two (two runs on a loaded machine saw ReDoc still "Loading ..." at 15 s). A ceiling only.
    expect(summary.first).to_be_visible(timeout=RENDER_TIMEOUT_MS)
    assert page.locator(operation).count() > 10  # every operation of the API is documented
    assert requested
    foreign = [url for url in requested if not url.startswith((assay.url, "blob:", "data:"))]
    # Nothing is asked from outside (ReDoc's CDN logo is served from here): no CSP error in the console.
    assert foreign == [], foreign
