"""The web UI of issues 24 and 27: an evaluation's settings as ``assay.yaml``, an ``assay.yaml`` run from the
New evaluation form, the reply cache's marks, the agent's tokens and latency, the history's one statistical
rule ("within noise"), and "Compare…" putting a run as the candidate against the run before it.

One suite and two runs of a real HTTP agent that reports its usage, seeded once for the module: the first
records its replies in the reply cache, the second replays them (every case cached, the same answers).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import PHONE_WIDTH, AssayServer, PageWatch
from tests.support.agent_server import USAGE_MODEL, AgentBehaviour, AgentServer
from tests.support.layout import layout_problems
from tests.support.navigation import open_in_app

# The two runs seeded once: the module's tests on one worker, not on each given one.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("ui-eval-file")]

# input, expected_output, the agent's answer: four pass, one fails.
CASES: list[tuple[str, str, str]] = [
    ("Is water wet?", "true", "yes"),
    ("Is fire cold?", "false", "no"),
    ("Is 2 even?", "true", "yes"),
    ("Is 3 even?", "false", "yes"),
    ("Is the sky green?", "false", "no"),
]


@dataclass(frozen=True)
class Runs:
    """The seeded suite and its two runs: ``recorded`` called the agent, ``replayed`` read the cache."""

    suite_id: int
    recorded: int
    replayed: int
    agent_url: str


@pytest.fixture(scope="module")
def runs(assay: AssayServer) -> Iterator[Runs]:
    behaviour = AgentBehaviour(answers={text: answer for text, _, answer in CASES}, usage=True)
    with AgentServer(behaviour) as agent:
        suite_id = assay.create_suite(CASES, "reply cache")
        ids = []
        for mode in ("record", "replay"):
            body = {
                "suite_id": suite_id,
                "grader_id": "true-false",
                "target": {"type": "http", "url": f"{agent.url}/answer"},
                "name": f"support agent, reply cache {mode}",
                "reply_cache": mode,
            }
            evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
            assert assay.wait_for(evaluation_id)["status"] == "completed"
            ids.append(evaluation_id)
        assert agent.count("Is water wet?") == 1  # the replay did not call the agent
        yield Runs(suite_id, ids[0], ids[1], agent.url)


def test_an_evaluations_settings_show_as_assay_yaml_folded_and_copyable(
    page: Page, assay: AssayServer, runs: Runs
) -> None:
    config = assay.data(assay.client.get(f"/api/evaluations/{runs.recorded}/config"))["config"]
    assert f"server_suite: {runs.suite_id}" in config
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"/evaluations/{runs.recorded}")
    disclosure = page.get_by_test_id("eval-file")
    text = disclosure.get_by_test_id("eval-file-text")
    expect(text).to_have_count(0)  # folded: nothing asked for until opened
    disclosure.get_by_text("Settings as assay.yaml").click()
    expect(text).to_have_text(config)  # whole, as the API gives it
    disclosure.get_by_role("button", name="Copy assay.yaml").click()
    expect(disclosure.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == config


def test_a_pasted_assay_yaml_shows_its_problems_then_starts_and_opens(
    page: Page, watch: PageWatch, runs: Runs
) -> None:
    watch.expect_console_error("status of 422")  # the refused file
    page.goto("/evaluations/new")
    expect(page.get_by_test_id("eval-file-form")).to_have_count(0)  # the form is the usual way
    page.get_by_role("button", name="An assay.yaml").click()
    form = page.get_by_test_id("eval-file-form")
    responses = {str(n): answer for n, (_, _, answer) in enumerate(CASES, 1)}
    good = (
        f"suites: [{{server_suite: {runs.suite_id}}}]\n"
        f"target: {{type: recorded, responses: {responses}}}\n"
        "grader: {id: true-false}\n"
        "concurrency: 2\n"
    )
    # A misspelt key: refused with the API's message, which names the line and the key meant.
    form.get_by_role("textbox", name="assay.yaml").fill(good.replace("concurrency", "concurency"))
    form.get_by_role("button", name="Start from assay.yaml").click()
    problem = form.get_by_test_id("problem-list")
    expect(problem).to_contain_text("line 4")
    expect(problem).to_contain_text("concurrency")
    expect(page).to_have_url(re.compile(r"/evaluations/new$"))

    form.get_by_role("textbox", name="assay.yaml").fill(good)
    form.get_by_role("button", name="Start from assay.yaml").click()
    expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
    created = int(page.url.rsplit("/", 1)[1])
    assert created > runs.replayed
    expect(page.get_by_test_id("passed-finished")).to_have_text("4 / 5")
    # Recorded answers say nothing of tokens: unknown, never 0.
    expect(page.get_by_test_id("usage")).to_contain_text("unknown")
    expect(page.get_by_test_id("reply-cache")).to_have_text("off")


def test_the_reply_cache_is_chosen_in_the_form_and_sent(page: Page, runs: Runs) -> None:
    page.goto(
        f"/evaluations/new?suite={runs.suite_id}&grader=true-false&target=http&url={runs.agent_url}/answer"
    )
    choice = page.get_by_label("Reply cache")
    expect(choice).to_have_value("off")
    choice.select_option("replay")
    expect(page.get_by_text("a case it does not hold fails as cache_miss")).to_be_visible()
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/evaluations")) as sent:
        page.get_by_role("button", name="Start evaluation").click()
    assert sent.value.post_data_json["reply_cache"] == "replay"
    expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
    expect(page.get_by_test_id("reply-cache")).to_have_text("replay")


def test_a_replayed_run_marks_its_cases_cached_and_shows_tokens_and_latency(
    page: Page, assay: AssayServer, runs: Runs
) -> None:
    summary = assay.data(assay.client.get(f"/api/evaluations/{runs.recorded}"))["summary"]
    usage = summary["usage"]
    assert usage["cases"] == len(CASES)
    page.goto(f"/evaluations/{runs.recorded}")
    tokens = f"{usage['input_tokens']} / {usage['output_tokens']}"
    expect(page.get_by_test_id("usage")).to_contain_text(tokens)
    expect(page.get_by_test_id("latency")).to_have_text(re.compile(r"^\d+ ms / \d+ ms / \d+ ms$"))
    expect(page.get_by_test_id("reply-cache")).to_have_text("record")
    rows = page.locator('[data-testid="results-scroll"] [role="row"][data-case-id]')
    expect(rows).to_have_count(len(CASES))
    expect(page.get_by_test_id("cached-mark")).to_have_count(0)  # the first run called the agent

    open_in_app(page, f"/evaluations/{runs.replayed}")
    expect(page.get_by_test_id("reply-cache")).to_have_text("replay")
    expect(rows).to_have_count(len(CASES))
    expect(rows.get_by_test_id("cached-mark")).to_have_count(len(CASES))
    rows.filter(has_text="Is 3 even?").click()
    panel = page.get_by_test_id("case-panel")
    expect(panel.get_by_test_id("cached-mark")).to_be_visible()
    result = assay.data(
        assay.client.get(f"/api/evaluations/{runs.recorded}/results", params={"q": "Is 3 even?"})
    )["results"][0]
    open_in_app(page, f"/evaluations/{runs.recorded}?case={result['case_id']}")
    tokens_of_case = f"{len('Is 3 even?')} / {len('yes')} {USAGE_MODEL}"
    expect(page.get_by_test_id("case-usage")).to_have_text(tokens_of_case)


def test_the_summary_shows_the_cost_agent_and_judge_apart_and_unknown_without_prices(
    page: Page, assay: AssayServer, runs: Runs
) -> None:
    behaviour = AgentBehaviour(answers={text: answer for text, _, answer in CASES}, usage=True)
    with AgentServer(behaviour) as agent:
        body = {
            "suite_id": assay.create_suite(CASES, "priced"),  # its own suite: the history keeps two runs
            "grader_id": "true-false",
            "target": {"type": "http", "url": f"{agent.url}/answer"},
            "prices": {USAGE_MODEL: {"input_per_million": 2, "output_per_million": 8}},
        }
        evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
        assert assay.wait_for(evaluation_id)["status"] == "completed"
    expected = sum(len(text) * 2 + len(answer) * 8 for text, _, answer in CASES) / 1_000_000
    page.goto(f"/evaluations/{evaluation_id}")
    expect(page.get_by_test_id("cost-total")).to_have_text(f"${expected:.6f}")
    expect(page.get_by_test_id("cost-agent")).to_have_text(f"agent ${expected:.6f}")
    expect(page.get_by_test_id("cost-judge")).to_have_text("judge $0.000000")  # no judge was called
    open_in_app(page, f"/evaluations/{runs.recorded}")  # no price table: unknown, never $0
    expect(page.get_by_test_id("cost-total")).to_have_text("unknown")


def test_the_history_says_within_noise_with_the_tests_figures(page: Page, runs: Runs) -> None:
    page.goto(f"/suites/{runs.suite_id}")
    item = page.get_by_test_id("history-list").locator(f'[data-evaluation-id="{runs.replayed}"]')
    shift = item.get_by_test_id("shift")
    # The same answers twice: no case flipped, so the change is within noise (not a blank).
    expect(shift).to_have_text(f"within noise vs #{runs.recorded} · compare")
    expect(shift).to_have_attribute("title", f"McNemar p = 1.00 · {len(CASES)} cases in common")


def test_compare_puts_the_run_as_candidate_against_the_run_before_it(page: Page, runs: Runs) -> None:
    page.goto(f"/evaluations/{runs.replayed}")
    page.get_by_role("link", name="Compare…").click()
    expect(page.get_by_label("A (base)")).to_have_value(str(runs.recorded))
    expect(page.get_by_label("B (candidate)")).to_have_value(str(runs.replayed))
    expect(page.get_by_test_id("mcnemar-verdict")).to_have_text("No significant difference")

    # The suite's first run has none before it: it is B, and A is to choose among the suite's other runs.
    open_in_app(page, f"/evaluations/{runs.recorded}")
    page.get_by_role("link", name="Compare…").click()
    base = page.get_by_label("A (base)")
    expect(page.get_by_label("B (candidate)")).to_have_value(str(runs.recorded))
    expect(base).to_have_value("")
    expect(base.locator(f'option[value="{runs.replayed}"]')).to_have_count(1)
    expect(base.locator(f'option[value="{runs.recorded}"]')).to_have_count(0)
    base.select_option(str(runs.replayed))
    expect(base).to_have_value(str(runs.replayed))
    expect(page.get_by_label("B (candidate)")).to_have_value(str(runs.recorded))  # kept: the same suite
    expect(page.get_by_test_id("comparison")).to_contain_text("0 pass→fail")


def test_the_new_marks_and_figures_read_at_both_widths(page: Page, runs: Runs) -> None:
    problems: list[str] = []
    for width in (PHONE_WIDTH, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"/evaluations/{runs.replayed}")
        page.get_by_test_id("eval-file").get_by_text("Settings as assay.yaml").click()
        expect(page.get_by_test_id("eval-file-text")).to_be_visible()
        page.locator('[data-testid="results-scroll"] [role="row"][data-case-id]').first.click()
        expect(page.get_by_test_id("case-panel").get_by_test_id("case-usage")).to_be_visible()
        page.wait_for_load_state("networkidle")
        problems += [f"{width}px: {problem}" for problem in layout_problems(page)]
    assert problems == [], "\n".join(problems)
