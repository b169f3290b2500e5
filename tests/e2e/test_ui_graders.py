"""The Graders screen and the GraderSelector list what the API registers; the playground grades one answer."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import AssayServer

pytestmark = pytest.mark.browser


def test_graders_screen_lists_every_grader_from_the_api(page: Page, assay: AssayServer) -> None:
    graders = assay.data(assay.client.get("/api/graders"))["graders"]
    page.goto("/graders")
    listing = page.get_by_test_id("grader-list")
    for grader in graders:  # by address: a name can occur in another grader's description ("Any")
        link = listing.locator(f'a[href="/graders/{grader["id"]}"]')
        expect(link).to_be_visible()
        expect(link).to_contain_text(grader["name"])
    expect(listing.get_by_role("listitem")).to_have_count(len(graders))


def test_grader_selector_offers_true_false_from_the_api(page: Page, assay: AssayServer) -> None:
    graders = assay.data(assay.client.get("/api/graders"))["graders"]
    ids = [grader["id"] for grader in graders if grader["available"]]  # the others are listed, not offered
    assert "true-false" in ids
    page.goto("/evaluations/new")
    selector = page.get_by_label("Grader", exact=True)
    options = selector.locator("option:not([disabled])")
    expect(options).to_have_count(len(ids))
    assert [options.nth(i).get_attribute("value") for i in range(len(ids))] == ids
    selector.select_option("true-false")
    expect(page.get_by_text("Boolean value matching with support for multiple formats").first).to_be_visible()
    # The config form comes from the grader's schema: aliases as editable lists, case_sensitive as a switch.
    expect(page.get_by_role("switch", name="case_sensitive")).not_to_be_checked()
    true_aliases = page.locator('[data-field="aliases.true"]').get_by_role("textbox")
    expect(true_aliases.first).to_have_value("true")


def test_graders_screen_shows_description_schema_and_scoring_guide(page: Page) -> None:
    page.goto("/graders/true-false")
    expect(page.get_by_role("heading", name="True/False")).to_be_visible()
    expect(page.get_by_text("Response represents the same boolean as the expected output")).to_be_visible()
    page.get_by_text("Config schema (JSON Schema)").click()
    expect(page.get_by_text('"additionalProperties": false').first).to_be_visible()


def test_playground_grades_with_custom_aliases_and_shows_every_detail(page: Page) -> None:
    page.goto("/graders/true-false")
    page.get_by_label("agent_response").fill("yep")
    page.get_by_label("expected_output").fill("true")
    true_list = page.locator('[data-field="aliases.true"]')
    true_list.get_by_label("New true").fill("yep")
    true_list.get_by_role("button", name="Add").click()
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    page.get_by_role("button", name="Grade").click()
    result = page.get_by_test_id("grade-result")
    expect(result.get_by_text("PASS")).to_be_visible()
    details = result.get_by_test_id("details-table")
    for key in (
        "expected_bool",
        "actual_bool",
        "match_status",
        "reason",
        "expected_original",
        "actual_original",
        "normalized_expected",
        "normalized_actual",
    ):
        expect(details.locator(f'[data-detail="{key}"]')).to_be_visible()
    expect(details.locator('[data-detail="actual_original"]')).to_contain_text("yep")
    expect(details.locator('[data-detail="match_status"]')).to_contain_text("match")


def test_config_problems_from_the_api_show_beside_the_field(page: Page) -> None:
    page.goto("/graders/true-false")
    false_list = page.locator('[data-field="aliases.false"]')
    # Listing "yes" as false too makes an alias both true and false, which is refused: the API says so.
    false_list.get_by_label("New false").fill("yes")
    false_list.get_by_role("button", name="Add").click()
    expect(page.get_by_test_id("config-status")).to_contain_text("problem")
    expect(page.get_by_test_id("config-form").get_by_role("alert").first).to_contain_text("yes")


def _alias_values(page: Page, label: str) -> list[str]:
    boxes = page.get_by_role("list", name=label, exact=True).get_by_role("textbox")
    return [boxes.nth(i).input_value() for i in range(boxes.count())]


def test_a_preset_fills_the_whole_config_and_the_playground_grades_with_it(
    page: Page, assay: AssayServer
) -> None:
    french = assay.data(assay.client.get("/api/graders/true-false"))["presets"]["french"]["config"]
    page.goto("/graders/true-false")
    page.get_by_label("agent_response").fill("oui")
    page.get_by_label("expected_output").fill("true")
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    page.get_by_role("button", name="Grade").click()
    result = page.get_by_test_id("grade-result")
    # With the default (English) aliases, "oui" is no boolean at all.
    expect(result.locator('[data-detail="match_status"]')).to_contain_text("invalid_response")

    preset = page.get_by_label("Preset")
    expect(page.get_by_text("A preset replaces the whole configuration")).to_be_visible()
    preset.select_option("french")
    true_list = page.get_by_role("list", name="true", exact=True).get_by_role("textbox")
    expect(true_list).to_have_count(len(french["aliases"]["true"]))
    assert _alias_values(page, "true") == french["aliases"]["true"]
    assert _alias_values(page, "false") == french["aliases"]["false"]
    expect(page.get_by_role("switch", name="case_sensitive")).not_to_be_checked()
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    page.get_by_role("button", name="Grade").click()
    expect(result.get_by_text("PASS")).to_be_visible()
    expect(result.locator('[data-detail="actual_original"]')).to_contain_text("oui")

    # An edit leaves the preset: the picker says the config is now one of the person's own.
    page.get_by_text("case_sensitive", exact=True).click()
    expect(page.get_by_role("switch", name="case_sensitive")).to_be_checked()
    expect(preset).to_have_value("")


def test_the_new_evaluation_form_offers_the_graders_presets(page: Page) -> None:
    page.goto("/evaluations/new")
    page.get_by_label("Grader", exact=True).select_option("true-false")
    page.get_by_label("Preset").select_option("yes-no-only")
    assert _alias_values(page, "true") == ["yes"]
    assert _alias_values(page, "false") == ["no"]
