"""A server without the semantic extra: the UI lists the grader as unavailable, with its install command."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import AssayServer, PageWatch, SharedTab, serve_assay
from tests.support.semantic import shadow_model_package

pytestmark = pytest.mark.browser

INSTALL = "pip install 'assay[semantic]'"


@pytest.fixture(scope="module")
def bare_assay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AssayServer]:
    """An Assay server whose Python finds the semantic model's package but not the model in it."""
    shadow = shadow_model_package(tmp_path_factory.mktemp("shadow"))
    path = os.pathsep.join(filter(None, [str(shadow), os.environ.get("PYTHONPATH")]))
    env = {"PYTHONPATH": path, "ASSAY_SEMANTIC_MODEL_DIR": ""}  # no folder either: the default lookup
    with serve_assay(tmp_path_factory.mktemp("assay-bare"), env=env) as server:
        yield server


@pytest.fixture(scope="module")
def bare_tab(browser: Browser, bare_assay: AssayServer) -> Iterator[SharedTab]:
    """One tab on the bare server for the module's tests (a new page per test costs Chromium more)."""
    tab = SharedTab(browser, bare_assay.url)
    yield tab
    tab.close()


@pytest.fixture
def bare_page(bare_tab: SharedTab, watch: PageWatch) -> Iterator[Page]:
    """A page on the bare server; fails the test on any script or console error."""
    with bare_tab.lend(watch, 1400, 1000) as tab:
        yield tab


def test_the_graders_screen_marks_it_and_its_playground_cannot_grade(
    bare_page: Page, bare_assay: AssayServer
) -> None:
    listed = {g["id"]: g for g in bare_assay.data(bare_assay.client.get("/api/graders"))["graders"]}
    assert listed["semantic"]["available"] is False
    bare_page.goto("/graders")
    link = bare_page.get_by_test_id("grader-list").get_by_role("link", name="Semantic Similarity")
    expect(link.get_by_text("unavailable", exact=True)).to_be_visible()
    link.click()
    expect(bare_page.get_by_role("note")).to_contain_text(INSTALL)
    expect(bare_page.get_by_role("button", name="Grade")).to_be_disabled()


def test_the_grader_selector_shows_it_disabled_with_the_install_command(bare_page: Page) -> None:
    bare_page.goto("/evaluations/new")
    selector = bare_page.get_by_label("Grader", exact=True)
    option = selector.locator('option[value="semantic"]')
    expect(option).to_be_disabled()
    expect(option).to_have_text("Semantic Similarity (semantic) — unavailable")
    expect(bare_page.get_by_test_id("unavailable-grader")).to_contain_text(INSTALL)
