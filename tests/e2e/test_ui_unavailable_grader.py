"""A server without the semantic extra: the UI lists the grader as unavailable, with its install command."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import NEWCOMER_GROUP, AssayServer

# The newcomer's server has no semantic model; its modules share it, on one worker.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group(NEWCOMER_GROUP)]

INSTALL = "pip install 'assay[semantic]'"


def test_the_graders_screen_marks_it_and_its_playground_cannot_grade(
    newcomer_page: Page, newcomer_assay: AssayServer
) -> None:
    page = newcomer_page
    listed = {g["id"]: g for g in newcomer_assay.data(newcomer_assay.client.get("/api/graders"))["graders"]}
    assert listed["semantic"]["available"] is False
    page.goto("/graders")
    link = page.get_by_test_id("grader-list").get_by_role("link", name="Semantic Similarity")
    expect(link.get_by_text("unavailable", exact=True)).to_be_visible()
    link.click()
    expect(page.get_by_role("note")).to_contain_text(INSTALL)
    expect(page.get_by_role("button", name="Grade")).to_be_disabled()


def test_the_grader_selector_shows_it_disabled_with_the_install_command(newcomer_page: Page) -> None:
    page = newcomer_page
    page.goto("/evaluations/new")
    selector = page.get_by_label("Grader", exact=True)
    option = selector.locator('option[value="semantic"]')
    expect(option).to_be_disabled()
    expect(option).to_have_text("Semantic Similarity (semantic) — unavailable")
    expect(page.get_by_test_id("unavailable-grader")).to_contain_text(INSTALL)
