"""The web UI of repeats (issue 27): an evaluation started from the New evaluation form with Repeats 3
against a real seeded flaky agent, its summary's pass@k, pass^k and flaky cases, and a row per run."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import AssayServer
from tests.support.agent_server import AgentBehaviour, AgentServer

pytestmark = pytest.mark.browser

# input, expected_output, the right answer; each case answered right with its chance.
CASES: list[tuple[str, str, str]] = [
    ("Is water wet?", "true", "yes"),
    ("Is fire cold?", "false", "no"),
    ("Is 2 even?", "true", "yes"),
    ("Is 3 even?", "false", "no"),
]
CHANCES = {"Is water wet?": 0.0, "Is fire cold?": 0.5, "Is 2 even?": 1.0, "Is 3 even?": 0.5}


def test_a_repeats_3_evaluation_runs_from_the_form_and_shows_pass_at_k(
    page: Page, assay: AssayServer
) -> None:
    behaviour = AgentBehaviour(
        answers={text: answer for text, _, answer in CASES}, pass_chance=CHANCES, wrong="perhaps", seed=3
    )
    with AgentServer(behaviour) as agent:
        suite_id = assay.create_suite(CASES, "repeats")
        page.goto(f"/evaluations/new?suite={suite_id}&grader=true-false&target=http&url={agent.url}/answer")
        repeats = page.get_by_label("Repeats")
        expect(repeats).to_have_value("1")
        repeats.fill("3")
        with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/evaluations")) as sent:
            page.get_by_role("button", name="Start evaluation").click()
        assert sent.value.post_data_json["repeats"] == 3
        expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
        evaluation_id = int(page.url.rsplit("/", 1)[1])
        shown = assay.wait_for(evaluation_id)
        assert shown["status"] == "completed"
        assert len(agent.requests) == len(CASES) * 3
    figures = shown["summary"]["repeats"]
    page.reload()
    panel = page.get_by_test_id("repeats")
    expect(panel).to_contain_text("each of 4 cases asked 3 times")
    at_k = page.get_by_test_id("pass-at-k")
    expect(at_k.locator('[data-row="pass@k"] td')).to_have_count(3)
    expect(at_k.locator('[data-row="pass^k"] td')).to_have_count(3)
    # The figures the page shows are the summary's: pass@1 is the pass rate over every run.
    expect(at_k.locator('[data-row="pass@k"] td').first).to_have_text(f"{figures['pass_at_k'][0]:.1%}")
    assert figures["pass_at_k"][0] == pytest.approx(shown["summary"]["pass_rate"])
    flaky = figures["flaky"]
    assert 1 <= flaky <= 2  # the two cases answered right half the time (seed 3 mixes at least one)
    expect(page.get_by_test_id("flaky-cases").locator("li")).to_have_count(flaky)
    rows = page.locator('[data-testid="results-scroll"] [role="row"][data-case-id]')
    expect(rows).to_have_count(len(CASES) * 3)
    expect(rows.get_by_test_id("repeat")).to_have_count(len(CASES) * 2)  # repeats 1 and 2 of each case
