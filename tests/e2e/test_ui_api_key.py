"""A server started with ASSAY_API_KEY: the UI asks for the key once, then sends it with every call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import AssayServer, serve_assay

pytestmark = pytest.mark.browser

API_KEY = "e2e-secret-key"


@pytest.fixture(scope="module")
def keyed_assay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AssayServer]:
    """A second Assay server that wants the API key."""
    with serve_assay(tmp_path_factory.mktemp("assay-keyed"), env={"ASSAY_API_KEY": API_KEY}) as server:
        yield server


@pytest.fixture
def keyed_page(browser: Browser, keyed_assay: AssayServer) -> Iterator[Page]:
    """A page on the keyed server."""
    context = browser.new_context(base_url=keyed_assay.url, viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def test_the_ui_asks_for_the_key_and_then_works(keyed_page: Page, keyed_assay: AssayServer) -> None:
    suite = keyed_assay.data(
        keyed_assay.client.post(
            "/api/suites", json={"name": "keyed", "cases": [{"input": "q", "expected_output": "true"}]}
        )
    )
    keyed_page.goto(f"/suites/{suite['id']}")
    keyed_page.get_by_label("API key").fill(API_KEY)
    keyed_page.get_by_role("button", name="Use key").click()
    expect(keyed_page.get_by_role("heading", name="keyed")).to_be_visible()
    expect(keyed_page.get_by_label("API key")).to_have_count(0)
    with keyed_page.expect_download() as download:
        keyed_page.get_by_role("button", name="Export JSONL").click()
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["input"] for line in lines] == ["q"]
