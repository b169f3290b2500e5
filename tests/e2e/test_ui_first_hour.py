"""A newcomer's first hour, walked through the UI at a phone's width and a laptop's: import a suite file whose
cases carry keys and a language, test the target on a real agent, run it, read the breakdown by language,
run again after the agent changed, see the change in the suite's history (within noise), the two runs side
by side, a failure group's cases, and a link to one case opened in a fresh page. At 390 px no screen scrolls
sideways.

Everything is clicked or typed as a user would; the agent's change is the one step outside Assay."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import PageWatch, assert_fits, watch_page
from tests.support.agent_server import AgentBehaviour, AgentServer

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class Row:
    """One case of the suite file, and what the agent answers it before and after its change."""

    key: str
    lang: str
    input: str
    expected: str
    first: str
    second: str


# true-false with its default aliases reads yes/no; "maybe" is no answer (invalid_response).
# First run: 10/12 (en 5/6, fr 3/4, de 2/2). Second: 6/12 (en 4/6, fr 0/4, de 2/2), failing q-04, q-06,
# q-07, q-10 (mismatch) and q-08, q-09 (invalid_response); q-04, q-07, q-09 and q-10 flipped.
ROWS = [
    Row("q-01", "en", "Is water wet?", "true", "yes", "yes"),
    Row("q-02", "en", "Is fire cold?", "false", "no", "no"),
    Row("q-03", "en", "Is 2 even?", "true", "yes", "yes"),
    Row("q-04", "en", "Is 3 even?", "false", "no", "yes"),
    Row("q-05", "en", "Is ice cold?", "true", "yes", "yes"),
    Row("q-06", "en", "Is the sky green?", "false", "yes", "yes"),
    Row("q-07", "fr", "L'eau est-elle mouillée ?", "true", "yes", "no"),
    Row("q-08", "fr", "Le feu est-il froid ?", "false", "maybe", "maybe"),
    Row("q-09", "fr", "2 est-il pair ?", "true", "yes", "maybe"),
    Row("q-10", "fr", "3 est-il pair ?", "false", "no", "yes"),
    Row("q-11", "de", "Ist Eis kalt?", "true", "yes", "yes"),
    Row("q-12", "de", "Ist Feuer kalt?", "false", "no", "no"),
]


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    """This walk's own agent on loopback (its answers change halfway), answering as before its change."""
    answers = {row.input: row.first for row in ROWS}
    with AgentServer(AgentBehaviour(answers=answers, delay=0.01)) as server:
        yield server


def suite_file(directory: Path) -> Path:
    """The newcomer's suite: JSONL whose lines carry an ``id`` (the case's key) and a ``lang`` column."""
    path = directory / "facts.jsonl"
    lines = [
        json.dumps({"id": r.key, "input": r.input, "expected_output": r.expected, "lang": r.lang})
        for r in ROWS
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def result_rows(page: Page) -> Locator:
    return page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]')


def evaluation_id_of(page: Page) -> int:
    expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def expect_finished(page: Page, pass_rate: str, interval: str) -> None:
    """The evaluation screen once the run is over: every case done, the pass rate and its interval."""
    expect(page.get_by_test_id("evaluation-status")).to_have_text("completed", timeout=30_000)
    expect(page.get_by_test_id("progress-text")).to_have_text("12 / 12 cases done")
    expect(page.get_by_test_id("pass-rate")).to_have_text(pass_rate)
    expect(page.get_by_test_id("pass-rate-interval")).to_have_text(f"95% CI {interval} (Wilson)")
    expect(result_rows(page)).to_have_count(12)
    expect(page.get_by_test_id("results-count")).to_have_text("12 results")


def expect_breakdown(page: Page, rows: list[tuple[str, str, str]]) -> None:
    """The breakdown by ``lang``: one row per value, worst first, each with its rate, interval and count."""
    breakdown = page.get_by_test_id("breakdown")
    expect(breakdown.get_by_label("Metadata key")).to_have_value("lang")
    shown = breakdown.get_by_test_id("breakdown-row")
    expect(shown).to_have_count(len(rows))
    for n, (value, rate, cases) in enumerate(rows):
        expect(shown.nth(n).locator("th")).to_have_text(value)
        expect(shown.nth(n).locator(".rate-text")).to_have_text(rate)
        expect(shown.nth(n).locator("td.numeric")).to_have_text(cases)


def test_a_newcomers_first_hour(
    sized_page: Page, watch: PageWatch, agent: AgentServer, tmp_path: Path
) -> None:
    page = sized_page
    suite_name = f"first hour {tmp_path.name}"

    # 1. Import the suite file: twelve cases, named by number and key, the lang column kept as metadata.
    page.goto("/")
    page.get_by_role("link", name="Suites", exact=True).click()
    import_form = page.get_by_role("form", name="Import a suite")
    expect(import_form).to_contain_text(
        "A key (or id) names the case; other fields, such as lang, go into its metadata."
    )
    page.get_by_label("File (.jsonl, .csv or .json)").set_input_files(suite_file(tmp_path))
    page.get_by_label("Name (default: from the file)").fill(suite_name)
    page.get_by_role("button", name="Import").click()
    expect(page).to_have_url(re.compile(r"/suites/\d+$"))
    suite_id = int(page.url.rsplit("/", 1)[1])
    expect(page.get_by_role("heading", name=suite_name)).to_be_visible()
    expect(page.locator(".page-header").get_by_text("12 cases")).to_be_visible()
    cases = page.get_by_test_id("case-list").locator("tbody tr")
    expect(cases).to_have_count(12)
    expect(cases.nth(6).locator("td").first).to_have_text("7 q-07")
    expect(cases.nth(6)).to_contain_text("L'eau est-elle mouillée ?")
    expect(cases.nth(6).locator('[data-label="metadata"]')).to_contain_text('"lang": "fr"')
    assert_fits(page)

    # 2. Test the target: the first case sent once, the raw reply and the answer read from it; no run.
    page.get_by_role("link", name="Evaluate", exact=True).click()
    # The suite page, still drawn for a moment after the URL changed, has "Suite assertions" fields: the
    # form's Suite is named exactly, so that only the form's field is read, once it is there.
    expect(page).to_have_url(re.compile(r"/evaluations/new\?suite="))
    expect(page.get_by_label("Suite", exact=True)).to_have_value(str(suite_id))
    page.get_by_label("Grader", exact=True).select_option("true-false")
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    url = f"{agent.url}/answer"
    page.get_by_label("URL").fill(url)
    page.get_by_label("Name (optional)").fill("agent v1")
    page.get_by_role("button", name="Test the target").click()
    trial = page.get_by_test_id("target-trial")
    expect(trial.get_by_role("heading", level=4).first).to_have_text("case #1 (key q-01): Is water wet?")
    expect(trial.get_by_test_id("trial-source")).to_have_text(f"HTTP 200 from {url} · application/json")
    expect(trial.get_by_label("raw reply", exact=True)).to_have_text('{"output": "yes"}')
    expect(trial.get_by_label("answer", exact=True)).to_have_text("yes")
    expect(trial.get_by_test_id("trial-verdict")).to_contain_text("PASS")
    assert len(agent.requests) == 1  # one case, once
    assert_fits(page)

    # 3. Start the evaluation and see it finish: 10 of 12.
    page.get_by_role("button", name="Start evaluation").click()
    first = evaluation_id_of(page)
    expect(page.get_by_role("heading", level=2)).to_have_text("agent v1")
    expect_finished(page, "83.3%", "55.2% – 95.3%")
    assert len(agent.requests) == 13

    # 4. The breakdown by lang, worst first, each rate with its 95% interval.
    expect_breakdown(
        page,
        [
            ("fr", "75.0% (30.1%–95.4%)", "4"),
            ("en", "83.3% (43.6%–97.0%)", "6"),
            ("de", "100.0% (34.2%–100.0%)", "2"),
        ],
    )
    assert_fits(page)

    # 5. The agent changes (outside Assay); the newcomer re-runs the same evaluation.
    agent.behaviour.answers = {row.input: row.second for row in ROWS}
    page.get_by_role("button", name="Re-run").click()
    expect(page).not_to_have_url(re.compile(f"/evaluations/{first}$"))
    second = evaluation_id_of(page)
    expect(page.get_by_role("heading", level=2)).to_have_text(f"agent v1 · re-run of #{first}")
    expect_finished(page, "50.0%", "25.4% – 74.6%")
    expect_breakdown(
        page,
        [
            ("fr", "0.0% (0.0%–49.0%)", "4"),
            ("en", "66.7% (30.0%–90.3%)", "6"),
            ("de", "100.0% (34.2%–100.0%)", "2"),
        ],
    )
    assert_fits(page)

    # 6. The suite's history: two runs, the second worse by 4 of 12 cases, within noise by McNemar's test.
    page.get_by_role("link", name=suite_name).click()
    expect(page).to_have_url(re.compile(f"/suites/{suite_id}$"))
    history = page.get_by_test_id("history")
    expect(history).to_contain_text("Pass rate of 2 completed evaluations")
    expect(history.locator("canvas")).to_be_visible()
    points = history.get_by_test_id("history-list").locator("[data-evaluation-id]")
    expect(points).to_have_count(2)
    newest = points.nth(0)
    expect(newest).to_have_attribute("data-evaluation-id", str(second))
    expect(newest.locator(".rate-text")).to_have_text("50.0% (25.4%–74.6%)")
    expect(newest.get_by_test_id("shift")).to_have_text(f"within noise vs #{first} · compare")
    expect(points.nth(1).locator(".rate-text")).to_have_text("83.3% (55.2%–95.3%)")
    expect(points.nth(1).get_by_test_id("shift")).to_have_count(0)  # the first run has nothing before it
    assert_fits(page)

    # 7. Side by side: the regressed run beside the first, then only the four cases that flipped.
    page.get_by_role("link", name="Side by side", exact=True).click()
    expect(page).to_have_url(re.compile(f"/suites/{suite_id}/side-by-side$"))
    for evaluation_id in (first, second):
        choice = page.get_by_role("checkbox", name=re.compile(f"^#{evaluation_id} "))
        choice.click()  # the boxes are the URL's (a router transition): clicked, then awaited
        expect(choice).to_be_checked()
    expect(page.get_by_role("checkbox", name=re.compile(f"^#{first} agent v1 .* 83.3%$"))).to_be_visible()
    expect(page.get_by_role("checkbox", name=re.compile(f"^#{second} .* 50.0%$"))).to_be_visible()
    grid = page.get_by_test_id("grid")
    expect(grid.locator("[data-case-id]")).to_have_count(12)
    q09 = grid.locator("[data-case-id]").filter(has_text="2 est-il pair ?")
    expect(q09.locator(".grid-position")).to_have_text("9 q-09")  # as the suite and the case panel name it
    answers = q09.locator(".grid-answer")
    expect(answers).to_have_count(2)
    expect(answers.nth(0)).to_have_attribute("data-label", f"#{first} agent v1")
    expect(answers.nth(0)).to_have_text("PASS yes")
    expect(answers.nth(1)).to_have_text("INVALID maybe")
    disagree = page.get_by_role("checkbox", name=re.compile("Only cases where they disagree"))
    disagree.click()
    expect(disagree).to_be_checked()
    expect(grid.locator("[data-case-id]")).to_have_count(4)
    expect(page.get_by_test_id("grid-range")).to_have_text("cases 1–4 of 4")
    for row in ROWS:
        flipped = row.key in {"q-04", "q-07", "q-09", "q-10"}
        expect(grid.locator("[data-case-id]").filter(has_text=row.input)).to_have_count(1 if flipped else 0)
    assert_fits(page)

    # 8. A verdict in the grid opens its case; closed, the run's failure groups are a click from their cases.
    q09.locator(".grid-answer").nth(1).get_by_role("link", name="INVALID").click()
    expect(page).to_have_url(re.compile(f"/evaluations/{second}[?]case=\\d+$"))
    panel = page.get_by_test_id("case-panel")
    expect(panel.get_by_role("heading", level=3)).to_have_text("Case #9 key q-09")
    expect(panel.get_by_label("agent_response", exact=True)).to_have_text("maybe")
    panel.get_by_role("button", name="Close case").click()
    expect(panel).to_have_count(0)
    groups = page.get_by_test_id("failure-groups")
    expect(groups).to_contain_text("6 failed cases")
    mismatch = groups.get_by_role("link", name=re.compile("^mismatch"))
    expect(mismatch.locator(".failure-group-count")).to_have_text("4")
    expect(groups.get_by_role("link", name=re.compile("^invalid_response"))).to_contain_text("2")
    mismatch.click()
    expect(page).to_have_url(re.compile("match_status=mismatch"))
    expect(result_rows(page)).to_have_count(4)
    expect(page.get_by_test_id("results-count")).to_have_text("4 results")
    for row in ROWS:
        failed_by_mismatch = row.key in {"q-04", "q-06", "q-07", "q-10"}
        expect(result_rows(page).filter(has_text=row.input)).to_have_count(1 if failed_by_mismatch else 0)
    assert_fits(page)

    # 9. One case opened puts it in the URL; that link, followed in a fresh page, opens the same case.
    result_rows(page).filter(has_text="L'eau est-elle mouillée ?").click()
    expect(panel.get_by_role("heading", level=3)).to_have_text("Case #7 key q-07")
    expect(page).to_have_url(re.compile(r"[?&]case=\d+"))
    link = page.url
    fresh = watch_page(page.context.new_page(), watch)
    fresh.goto(link)
    opened = fresh.get_by_test_id("case-panel")
    expect(opened.get_by_role("heading", level=3)).to_have_text("Case #7 key q-07")
    expect(opened.get_by_label("input", exact=True)).to_have_text("L'eau est-elle mouillée ?")
    expect(opened.get_by_label("expected_output", exact=True)).to_have_text("true")
    expect(opened.get_by_label("agent_response", exact=True)).to_have_text("no")
    expect(opened.locator(".verdict").first).to_have_text("FAIL")
    expect(opened).to_be_in_viewport()
    expect(fresh.get_by_test_id("results-count")).to_have_text("4 results")  # the group's filter came too
    assert_fits(fresh)
