"""The views around evaluations, walked in a browser at a phone's width and a laptop's: a suite's history
with each change marked by the compare page's rule, the breakdown by a metadata key, a failure group opening
its cases, a link to one case, evaluations side by side, and renaming, re-running and deleting one. At 390 px
no screen may scroll the page sideways."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import AssayServer, PageWatch, assert_fits, is_phone
from tests.support.navigation import open_in_app

# The three runs seeded once: the module's tests on one worker, not on each given one.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("ui-views")]

# 12 questions whose answer is "true", tagged by language; the runs answer from these lists.
LANGS = ["en"] * 6 + ["fr"] * 4 + ["de"] * 2
ALL_RIGHT = ["yes"] * 12
# The regression: fr fails 3 of 4 (2 mismatches, 1 unreadable answer), en 1 of 6 (a mismatch), de none.
WORSE = ["yes"] * 5 + ["no"] + ["no", "no", "maybe", "yes"] + ["yes", "yes"]


@dataclass(frozen=True)
class Runs:
    """A suite with three completed runs: all right, then worse (a regression), then all right again."""

    suite_id: int
    case_ids: list[int]
    first: int
    worse: int
    last: int


def create_suite(assay: AssayServer) -> tuple[int, list[int]]:
    """A new suite of the 12 questions tagged by language; its id and its cases' ids in order."""
    body = {
        "name": f"views {uuid.uuid4().hex[:8]}",
        "cases": [
            {"input": f"Is statement {n} true?", "expected_output": "true", "metadata": {"lang": lang}}
            for n, lang in enumerate(LANGS)
        ],
    }
    suite_id = int(assay.data(assay.client.post("/api/suites", json=body))["id"])
    cases = assay.data(assay.client.get(f"/api/suites/{suite_id}/cases"))["cases"]
    return suite_id, [case["id"] for case in cases]


@pytest.fixture(scope="module")
def runs(assay: AssayServer) -> Runs:
    suite_id, case_ids = create_suite(assay)
    ids = []
    for name, answers in (("first", ALL_RIGHT), ("worse", WORSE), ("fixed", ALL_RIGHT)):
        target = {"type": "recorded", "responses": {str(n): a for n, a in enumerate(answers, 1)}}
        created = assay.client.post(
            "/api/evaluations",
            json={"suite_id": suite_id, "grader_id": "true-false", "target": target, "name": name},
        )
        ids.append(int(assay.data(created)["id"]))
        assay.wait_for(ids[-1])
    return Runs(suite_id, case_ids, *ids)


def assert_covers_screen(page: Page, panel: Locator) -> None:
    """The case panel of a phone: the whole width of the screen, from its top."""
    box = panel.bounding_box()
    assert box is not None
    assert page.viewport_size is not None
    assert (box["x"], box["y"], box["width"]) == (0, 0, page.viewport_size["width"]), box


def test_history_breakdown_failure_group_case_link_and_side_by_side(sized_page: Page, runs: Runs) -> None:
    page = sized_page

    # History: three points; 4 of 12 cases flipped to fail, then back: by the compare page's rule (McNemar,
    # 5 %) neither change is significant, so both read "within noise", with the test's figures in the title.
    page.goto(f"/suites/{runs.suite_id}")
    history = page.get_by_test_id("history")
    expect(history.locator("canvas")).to_be_visible()
    items = history.get_by_test_id("history-list").locator("[data-evaluation-id]")
    expect(items).to_have_count(3)
    worse = history.locator(f'[data-evaluation-id="{runs.worse}"]')
    expect(worse.get_by_test_id("shift")).to_contain_text(f"within noise vs #{runs.first}")
    expect(worse.get_by_test_id("shift")).to_have_attribute("title", "McNemar p = 0.125 · 12 cases in common")
    expect(worse).to_contain_text("66.7%")
    expect(history.locator(f'[data-evaluation-id="{runs.last}"]').get_by_test_id("shift")).to_contain_text(
        f"within noise vs #{runs.worse}"
    )
    assert_fits(page)

    # The regressed run: its breakdown by language, worst first.
    worse.get_by_role("link", name=re.compile("worse")).click()
    expect(page).to_have_url(re.compile(f"/evaluations/{runs.worse}$"))
    breakdown = page.get_by_test_id("breakdown")
    expect(breakdown.get_by_label("Metadata key")).to_have_value("lang")
    rows = breakdown.get_by_test_id("breakdown-row")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("fr")
    expect(rows.nth(0)).to_contain_text("25.0%")
    expect(rows.nth(1)).to_contain_text("en")
    expect(rows.nth(2)).to_contain_text("de")
    expect(rows.nth(2)).to_contain_text("100.0%")
    assert_fits(page)

    # A failure group is one click from its cases: the results list just those.
    groups = page.get_by_test_id("failure-groups")
    expect(groups).to_contain_text("4 failed cases")
    groups.get_by_role("link", name=re.compile("mismatch")).click()
    expect(page).to_have_url(re.compile(r"match_status=mismatch"))
    expect(page.get_by_test_id("group-filter")).to_contain_text("mismatch")
    results = page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]')
    expect(results).to_have_count(3)
    expect(page.get_by_test_id("results-count")).to_have_text("3 results")
    assert_fits(page)

    # Opening a case puts it in the URL and in sight: on a phone it covers the screen, on a laptop it sits
    # beside a table that still shows the inputs (not a dozen characters of them).
    results.first.click()
    panel = page.get_by_test_id("case-panel")
    expect(panel).to_contain_text("Is statement 5 true?")
    expect(panel).to_be_in_viewport()
    expect(page).to_have_url(re.compile(f"case={runs.case_ids[5]}"))
    if is_phone(page):
        assert_covers_screen(page, panel)
    else:
        input_cell = results.first.locator(".cell-input").bounding_box()
        assert input_cell is not None
        assert input_cell["width"] >= 240, input_cell
    # The link opens the case again on a fresh load, in sight although it comes after the table.
    link = page.url
    page.goto("about:blank")
    page.goto(link)
    expect(panel).to_contain_text("Is statement 5 true?")
    expect(panel).to_contain_text("mismatch")
    expect(panel).to_be_in_viewport()
    assert_fits(page)
    open_in_app(page, f"/evaluations/{runs.first}?case={runs.case_ids[8]}")  # the same, from inside the app
    expect(panel).to_contain_text("Is statement 8 true?")
    expect(panel).to_be_in_viewport()
    assert_fits(page)
    page.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    expect(page).not_to_have_url(re.compile("case="))
    expect(results.first).to_be_visible()

    # Side by side: the worse run beside the two others, then only the cases where they disagree.
    open_in_app(page, f"/evaluations/{runs.worse}")
    page.get_by_role("link", name="Side by side…").click()
    expect(page).to_have_url(re.compile(f"evaluations={runs.worse}"))
    # The boxes are the URL's (a router transition): clicked, then awaited, rather than check()ed.
    for other in (runs.first, runs.last):
        choice = page.get_by_role("checkbox", name=re.compile(f"#{other} "))
        choice.click()
        expect(choice).to_be_checked()
    grid = page.get_by_test_id("grid")
    expect(grid.locator("[data-case-id]")).to_have_count(12)
    ninth = grid.locator(f'[data-case-id="{runs.case_ids[8]}"]')
    expect(ninth).to_contain_text("maybe")
    expect(ninth.locator(".grid-position")).to_have_text("9")  # numbered from 1, as on every surface
    expect(ninth.locator(".verdict")).to_have_text(["INVALID", "PASS", "PASS"])
    assert_fits(page)
    disagree = page.get_by_role("checkbox", name=re.compile("Only cases where they disagree"))
    disagree.click()
    expect(disagree).to_be_checked()
    expect(grid.locator("[data-case-id]")).to_have_count(4)
    expect(page.get_by_test_id("grid-range")).to_have_text("cases 1–4 of 4")
    assert_fits(page)


def test_side_by_side_refuses_another_suite_s_evaluation(
    sized_page: Page, runs: Runs, assay: AssayServer, watch: PageWatch
) -> None:
    watch.expect_console_error("status of 422")  # the refused grid
    other = assay.data(
        assay.client.post("/api/suites", json={"name": f"other {uuid.uuid4().hex[:8]}", "cases": []})
    )
    sized_page.goto(f"/suites/{other['id']}/side-by-side?evaluations={runs.first}")
    expect(sized_page.get_by_role("alert")).to_contain_text(
        f"evaluation {runs.first} ran suite {runs.suite_id}"
    )
    assert_fits(sized_page)


def test_rename_rerun_and_delete_an_evaluation(
    sized_page: Page, assay: AssayServer, watch: PageWatch
) -> None:
    page = sized_page
    suite_id, _ = create_suite(assay)
    answers = {str(n): a for n, a in enumerate(WORSE, 1)}
    created = assay.client.post(
        "/api/evaluations",
        json={
            "suite_id": suite_id,
            "grader_id": "true-false",
            "grader_config": {"aliases": {"true": ["yes", "true"], "false": ["no", "false"]}},
            "target": {"type": "recorded", "responses": answers},
            "name": "to rename",
            "concurrency": 2,
        },
    )
    original = assay.data(created)
    assay.wait_for(original["id"])

    # Rename in place: Escape gives up, Enter saves.
    page.goto(f"/evaluations/{original['id']}")
    heading = page.get_by_role("heading", level=2)
    expect(heading).to_have_text("to rename")
    page.get_by_role("button", name="Rename").click()
    page.get_by_label("Evaluation name").fill("given up")
    page.get_by_label("Evaluation name").press("Escape")
    expect(heading).to_have_text("to rename")
    page.get_by_role("button", name="Rename").click()
    page.get_by_label("Evaluation name").fill("  nightly 42  ")
    page.get_by_label("Evaluation name").press("Enter")
    expect(heading).to_have_text("nightly 42")
    expect(page).to_have_title(re.compile("nightly 42"))
    assert assay.data(assay.client.get(f"/api/evaluations/{original['id']}"))["name"] == "nightly 42"
    assert_fits(page)

    # Re-run: a new evaluation with the same suite, grader, config and target, opened at once.
    page.get_by_role("button", name="Re-run").click()
    expect(page).not_to_have_url(re.compile(f"/evaluations/{original['id']}$"))
    rerun_id = int(page.url.rsplit("/", 1)[1])
    rerun = assay.wait_for(rerun_id)
    assert rerun["suite_id"] == suite_id
    assert rerun["grader"] == original["grader"]
    assert rerun["target"] == original["target"]
    assert rerun["concurrency"] == original["concurrency"]
    assert rerun["summary"]["passed"] == 8
    expect(page.get_by_test_id("evaluation-status")).to_have_text(re.compile("completed", re.IGNORECASE))
    expect(page.get_by_test_id("progress-text")).to_have_text("12 / 12 cases done")
    expect(page.get_by_test_id("failure-groups")).to_contain_text("4 failed cases")

    # Delete asks first: dismissed, nothing happens; accepted, the suite's page shows it gone.
    page.get_by_role("button", name="Delete").click()
    assert watch.dialogs[-1].startswith("confirm: Delete the evaluation")
    expect(heading).to_be_visible()
    assert assay.client.get(f"/api/evaluations/{rerun_id}").status_code == 200
    watch.accept_dialogs = True
    page.get_by_role("button", name="Delete").click()
    expect(page).to_have_url(re.compile(f"/suites/{suite_id}$"))
    assert assay.client.get(f"/api/evaluations/{rerun_id}").status_code == 404
    history = page.get_by_test_id("history-list")
    expect(history.locator(f'[data-evaluation-id="{original["id"]}"]')).to_contain_text("nightly 42")
    expect(history.locator(f'[data-evaluation-id="{rerun_id}"]')).to_have_count(0)
    assert_fits(page)


def test_every_screen_fits_a_phone_and_an_empty_suite_says_so(
    sized_page: Page, assay: AssayServer, runs: Runs
) -> None:
    page = sized_page
    empty = assay.data(
        assay.client.post("/api/suites", json={"name": f"empty {uuid.uuid4().hex[:8]}", "cases": []})
    )
    screens = [
        "/",
        "/evaluations",
        "/suites",
        f"/suites/{runs.suite_id}",
        f"/suites/{empty['id']}",
        "/graders",
        "/evaluations/new",
        f"/compare?a={runs.first}&b={runs.worse}",
        f"/suites/{runs.suite_id}/side-by-side?evaluations={runs.first},{runs.worse},{runs.last}",
    ]
    # One load; the other screens are route changes inside the app (a load costs Chromium twice as much).
    page.goto(screens[0])
    for n, path in enumerate(screens):
        if n:
            open_in_app(page, path)
        expect(page.locator("main")).not_to_contain_text("Loading…")
        expect(page.locator("main h2").first).to_be_visible()
        assert_fits(page)
    open_in_app(page, f"/suites/{empty['id']}")
    expect(page.get_by_test_id("empty-suite")).to_contain_text("This suite has no cases yet.")
    expect(page.get_by_test_id("case-list")).to_have_count(0)
    expect(page.get_by_text("0 cases")).to_be_visible()
