"""Run an evaluation from the UI and read it: progress, summary, filters, search, the case panel, safety."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import BOOLEAN_CASES, CUSTOM_ALIASES, XSS_RESPONSE, AssayServer, PageWatch
from tests.support.agent_server import AgentBehaviour, AgentServer

pytestmark = pytest.mark.browser


# Tests that only read one run of the boolean suite with the custom aliases: it is seeded once, for them
# together on one worker.
READS_THE_ALIASED_RUN = pytest.mark.xdist_group("ui-evaluation-aliased-run")


@pytest.fixture(scope="module")
def aliased_run(assay: AssayServer, agent: AgentServer) -> int:
    """The id of a run of the boolean suite graded with the custom aliases (a real agent's answers)."""
    suite_id = assay.create_suite(BOOLEAN_CASES)
    return assay.run_evaluation(suite_id, agent.url, "custom aliases", {"aliases": CUSTOM_ALIASES})


def _rows(page: Page) -> Locator:
    return page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]')


def start_from_the_form(page: Page, suite_id: int, agent: AgentServer) -> None:
    """Fill the New evaluation form: the suite, True/False with custom aliases, the agent's URL."""
    page.goto(f"/evaluations/new?suite={suite_id}")
    page.get_by_label("Grader", exact=True).select_option("true-false")
    for label, alias in (("true", "yep"), ("false", "nope")):
        field = page.locator(f'[data-field="aliases.{label}"]')
        field.get_by_label(f"New {label}").fill(alias)
        field.get_by_role("button", name="Add").click()
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    page.get_by_label("URL").fill(f"{agent.url}/answer")
    page.get_by_label("Name (optional)").fill("from the form")
    page.get_by_role("button", name="Start evaluation").click()


def test_run_an_evaluation_from_the_form_and_read_the_results(
    page: Page, assay: AssayServer, agent: AgentServer
) -> None:
    suite_id = assay.create_suite(BOOLEAN_CASES)
    start_from_the_form(page, suite_id, agent)

    expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
    evaluation_id = int(page.url.rsplit("/", 1)[1])
    expect(page.get_by_test_id("evaluation-status")).to_have_text("completed", timeout=30_000)
    stored = assay.wait_for(evaluation_id)
    aliases = stored["grader"]["config"]["aliases"]
    assert "yep" in aliases["true"]
    assert "nope" in aliases["false"]

    # yep, nope, yes and NO pass; "true" for false is a mismatch; the HTML is not a boolean.
    expect(page.get_by_test_id("pass-rate")).to_have_text("66.7%")
    expect(page.get_by_test_id("pass-rate-interval")).to_contain_text("95% CI")
    counts = page.get_by_test_id("status-counts")
    expect(counts.locator('[data-status="match"]')).to_contain_text("4")
    expect(counts.locator('[data-status="mismatch"]')).to_contain_text("1")
    expect(counts.locator('[data-status="invalid_response"]')).to_contain_text("1")
    matrix = page.get_by_test_id("confusion-matrix")
    expect(matrix.locator('[data-cell="true-true"]')).to_have_text("2")
    expect(matrix.locator('[data-cell="false-true"]')).to_have_text("1")
    expect(matrix.locator('[data-cell="true-invalid"]')).to_have_text("1")
    expect(_rows(page)).to_have_count(len(BOOLEAN_CASES))

    # Filter: failed = graded and not passed (the mismatch and the invalid response).
    page.get_by_role("button", name=re.compile("^Failed")).click()
    expect(page).to_have_url(re.compile(r"outcome=failed"))
    expect(_rows(page)).to_have_count(2)
    page.get_by_role("button", name=re.compile("^Invalid")).click()
    expect(_rows(page)).to_have_count(1)
    page.get_by_role("button", name=re.compile("^Passed")).click()
    expect(_rows(page)).to_have_count(4)
    page.get_by_role("button", name=re.compile("^All")).click()
    expect(_rows(page)).to_have_count(len(BOOLEAN_CASES))

    # Search by text of the input.
    page.get_by_label("Search results").fill("even")
    expect(_rows(page)).to_have_count(2)
    page.get_by_label("Search results").fill("")
    expect(_rows(page)).to_have_count(len(BOOLEAN_CASES))

    # Sort by score, lowest first: the two failures lead.
    page.get_by_role("button", name="Score").click()
    expect(_rows(page).first.locator(".verdict")).not_to_have_text("PASS")

    # Open the failed case: input, expected_output, agent_response and every details field.
    page.get_by_role("button", name=re.compile("^Failed")).click()
    _rows(page).filter(has_text="Is 3 even?").click()
    panel = page.get_by_test_id("case-panel")
    expect(panel.get_by_label("input", exact=True)).to_have_text("Is 3 even?")
    expect(panel.get_by_label("expected_output", exact=True)).to_have_text("false")
    expect(panel.get_by_label("agent_response", exact=True)).to_have_text("true")
    for key in (
        "expected_bool",
        "actual_bool",
        "match_status",
        "reason",
        "expected_original",
        "actual_original",
    ):
        expect(panel.locator(f'[data-detail="{key}"]')).to_be_visible()
    expect(panel.locator('[data-detail="reason"]')).to_contain_text("Expected false but got true")


@READS_THE_ALIASED_RUN
def test_a_refresh_on_a_deep_link_keeps_the_view(page: Page, assay: AssayServer, aliased_run: int) -> None:
    evaluation_id = aliased_run
    page.goto(f"/evaluations/{evaluation_id}?outcome=failed")
    expect(_rows(page)).to_have_count(2)
    page.reload()
    expect(page.get_by_role("button", name=re.compile("^Failed"))).to_have_attribute("aria-pressed", "true")
    expect(_rows(page)).to_have_count(2)
    response = page.goto(f"/evaluations/{evaluation_id}")
    assert response is not None
    assert response.headers["cache-control"] == "no-cache"
    assert "default-src 'self'" in response.headers["content-security-policy"]
    script = page.locator("script[src^='/assets/']").get_attribute("src")
    assert script is not None
    asset = assay.client.get(script)
    assert asset.status_code == 200
    assert "immutable" in asset.headers["cache-control"]
    with page.expect_download() as download:
        page.get_by_role("button", name="Export JSONL").click()
    exported = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["input"] for line in exported] == [text for text, _, _ in BOOLEAN_CASES]
    # The fallback to index.html is for UI routes only: an unknown API path is a JSON 404.
    missing = assay.client.get("/api/no-such-route")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "NOT_FOUND"


@READS_THE_ALIASED_RUN
def test_the_case_panel_closes_on_escape_and_when_a_search_hides_its_case(
    page: Page, aliased_run: int
) -> None:
    page.goto(f"/evaluations/{aliased_run}")
    panel = page.get_by_test_id("case-panel")
    _rows(page).filter(has_text="Is 3 even?").click()
    expect(panel).to_be_visible()
    page.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    _rows(page).filter(has_text="Is 3 even?").click()
    expect(panel).to_be_visible()
    page.get_by_label("Search results").fill("water")  # the open case is not among what the search finds
    expect(_rows(page)).to_have_count(1)
    expect(panel).to_have_count(0)


@READS_THE_ALIASED_RUN
def test_an_export_has_what_the_filter_shows(page: Page, aliased_run: int) -> None:
    page.goto(f"/evaluations/{aliased_run}?outcome=failed")
    expect(_rows(page)).to_have_count(2)
    with page.expect_download() as download:
        page.get_by_role("button", name="Export JSONL (filtered)").click()
    exported = [
        json.loads(line) for line in Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    ]
    assert len(exported) == 2
    assert all(row["passed"] is False and row["error"] is None for row in exported)


@READS_THE_ALIASED_RUN
def test_agent_html_is_shown_as_text_and_runs_no_script(
    page: Page, aliased_run: int, watch: PageWatch
) -> None:
    page.goto(f"/evaluations/{aliased_run}?outcome=invalid")
    row = _rows(page).filter(has_text="Does this render as HTML?")
    expect(row).to_contain_text(XSS_RESPONSE)
    row.click()
    panel = page.get_by_test_id("case-panel")
    expect(panel.get_by_label("agent_response", exact=True)).to_have_text(XSS_RESPONSE)
    expect(panel.locator('[data-detail="actual_original"]')).to_contain_text(XSS_RESPONSE)
    page.wait_for_timeout(300)  # give an injected onerror handler every chance to run
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.locator("img[src='x']").count() == 0
    assert watch.dialogs == []


def test_progress_is_live_and_a_running_evaluation_can_be_cancelled(page: Page, assay: AssayServer) -> None:
    cases = [(f"Is {n} odd?", "true" if n % 2 else "false", "yes") for n in range(40)]
    suite_id = assay.create_suite(cases)
    with AgentServer(AgentBehaviour(default="yes", delay=0.25)) as slow_agent:
        body = {
            "suite_id": suite_id,
            "grader_id": "true-false",
            "target": {"type": "http", "url": f"{slow_agent.url}/answer"},
            "name": "slow agent",
            "concurrency": 1,
        }
        evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
        page.goto(f"/evaluations/{evaluation_id}")
        expect(page.get_by_test_id("evaluation-status")).to_have_text("running")
        progress = page.get_by_test_id("progress-text")
        expect(progress).not_to_contain_text("0 / 40", timeout=10_000)  # it moves without a reload
        expect(progress).to_contain_text("/ 40 cases done so far")
        page.get_by_role("button", name="Cancel").click()
        expect(page.get_by_test_id("evaluation-status")).to_have_text("cancelled", timeout=15_000)
        expect(page.get_by_role("button", name="Cancel")).to_have_count(0)
        finished = assay.wait_for(evaluation_id)
    assert finished["status"] == "cancelled"
    assert finished["progress"]["done"] < 40


@pytest.mark.parametrize("target", ["openai", "recorded"])
def test_other_targets_from_the_form(page: Page, assay: AssayServer, agent: AgentServer, target: str) -> None:
    suite_id = assay.create_suite(BOOLEAN_CASES)
    page.goto(f"/evaluations/new?suite={suite_id}")
    page.get_by_label("Grader", exact=True).select_option("true-false")
    if target == "openai":
        page.get_by_label("OpenAI-compatible").check()
        page.get_by_label("Model").fill("any-model")
        page.get_by_label("Base URL").fill(f"{agent.url}/v1")
        page.get_by_label("API key environment variable").fill("")
    else:
        page.get_by_label("Recorded responses").check()
        answers = {str(number): "yes" for number in range(1, len(BOOLEAN_CASES) + 1)}  # by number, from 1
        page.get_by_label("Responses (JSON object, case → agent_response)").fill(json.dumps(answers))
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")  # settled: the button stays put
    page.get_by_role("button", name="Start evaluation").click()
    expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
    expect(page.get_by_test_id("evaluation-status")).to_have_text("completed", timeout=30_000)
    expect(_rows(page)).to_have_count(len(BOOLEAN_CASES))
    # Default aliases: the agent passes "yes" and "NO" only; recorded: "yes" to all, right for three.
    expected_rate = "33.3%" if target == "openai" else "50.0%"
    expect(page.get_by_test_id("pass-rate")).to_have_text(expected_rate)


def test_the_apis_target_problems_show_beside_the_field(
    page: Page, assay: AssayServer, watch: PageWatch
) -> None:
    watch.expect_console_error("status of 422")  # the refused start
    suite_id = assay.create_suite(BOOLEAN_CASES)
    page.goto(f"/evaluations/new?suite={suite_id}")
    page.get_by_label("Grader", exact=True).select_option("true-false")
    page.get_by_label("URL").fill("ftp://127.0.0.1/answer")  # a URL to the browser, not an HTTP target
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")  # settled: the button stays put
    page.get_by_role("button", name="Start evaluation").click()
    url_field = page.locator(".target-form .field").filter(has=page.get_by_label("URL"))
    expect(url_field.get_by_role("alert")).to_have_text(
        "'ftp://' is not a web address: write http://127.0.0.1/answer"
    )
    expect(page).to_have_url(re.compile(r"/evaluations/new"))


def test_test_the_target_before_a_run_shows_the_raw_reply_and_the_answer(
    page: Page, assay: AssayServer, agent: AgentServer
) -> None:
    suite_id = assay.create_suite(BOOLEAN_CASES)
    before = assay.data(assay.client.get("/api/evaluations", params={"suite_id": suite_id}))["total"]
    page.goto(f"/evaluations/new?suite={suite_id}")
    page.get_by_label("Grader", exact=True).select_option("true-false")
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    url = f"{agent.url}/answer"
    page.get_by_label("URL").fill(url)
    page.get_by_role("button", name="Test the target").click()
    trial = page.get_by_test_id("target-trial")
    expect(trial).to_contain_text("case #1: Is water wet?")
    expect(trial.get_by_test_id("trial-source")).to_have_text(f"HTTP 200 from {url} · application/json")
    expect(trial.get_by_label("raw reply", exact=True)).to_have_text('{"output": "yep"}')
    expect(trial.get_by_label("answer", exact=True)).to_have_text("yep")
    # The default aliases do not read "yep": seen here, before a run, not as 25 % after one.
    expect(trial.get_by_test_id("trial-verdict")).to_contain_text("INVALID")
    expect(trial.get_by_test_id("trial-verdict")).to_contain_text("does not represent a boolean value")

    # A body template that is not JSON: said beside the button, nothing sent, the last trial gone.
    sent = len(agent.requests)
    page.get_by_label("Body template (JSON, optional)").fill('{"input": {{input}}')
    page.get_by_role("button", name="Test the target").click()
    expect(page.get_by_test_id("test-problem")).to_have_text("The body template is not valid JSON")
    expect(trial).to_have_count(0)
    assert len(agent.requests) == sent
    page.get_by_label("Body template (JSON, optional)").fill("")

    page.get_by_label("URL").fill("http://127.0.0.1:9/")
    page.get_by_role("button", name="Test the target").click()
    expect(page.get_by_test_id("test-problem")).to_have_count(0)
    expect(trial.get_by_test_id("trial-no-reply")).to_be_visible()
    expect(trial.get_by_test_id("trial-error")).to_contain_text("connection refused to http://127.0.0.1:9/")
    expect(page).to_have_url(re.compile(r"/evaluations/new"))
    after = assay.data(assay.client.get("/api/evaluations", params={"suite_id": suite_id}))["total"]
    assert after == before  # a test runs nothing
