"""A model judge in the UI: its reasoning in the playground and the case panel, its errors filtered by reason.

The judge is a real server on loopback speaking the OpenAI protocol; ``assay serve`` calls it (loopback is
allowed on the local default: loopback, no key).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import AssayServer
from tests.support.judge_server import JudgeReply, JudgeServer, verdict

pytestmark = pytest.mark.browser

SCRIPT: dict[str, JudgeReply | list[JudgeReply]] = {
    "Paris": verdict(True, 0.95, "It names Paris, as expected."),
    "Lyon": verdict(False, 0.05, "Lyon is not the capital of France."),
    "PARIS!!": JudgeReply("PASS"),
    "Paris, I think": verdict(True, 0.2, "Hedged."),
}


@pytest.fixture(scope="module")
def judge() -> Iterator[JudgeServer]:
    with JudgeServer(SCRIPT) as server:
        yield server


def _rows(page: Page) -> Locator:
    return page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]')


def test_playground_shows_the_judges_reasoning_and_its_errors(page: Page, judge: JudgeServer) -> None:
    page.goto("/graders/llm-judge")
    page.get_by_label("base_url").fill(judge.base_url)
    page.get_by_label("api_key_env").fill("")  # null: the loopback judge needs no key
    page.get_by_label("model").fill("judge-1")
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    page.get_by_label("agent_response").fill("Lyon")
    page.get_by_label("expected_output").fill("Paris")
    page.get_by_role("button", name="Grade").click()
    result = page.get_by_test_id("grade-result")
    expect(result.get_by_text("FAIL", exact=True)).to_be_visible()
    expect(result.get_by_test_id("reasoning")).to_contain_text("Lyon is not the capital of France.")
    expect(result.get_by_test_id("details-table").locator('[data-detail="prompt"]')).to_contain_text("Lyon")

    page.get_by_label("agent_response").fill("PARIS!!")
    page.get_by_role("button", name="Grade").click()
    expect(result.get_by_text("ERROR", exact=True)).to_be_visible()
    expect(result.get_by_test_id("verdict-error")).to_contain_text("invalid_judgement")
    expect(result.get_by_test_id("verdict-error")).to_contain_text("not one JSON object")


def test_evaluation_filters_judge_errors_and_the_case_panel_shows_the_reasoning(
    page: Page, assay: AssayServer, judge: JudgeServer
) -> None:
    answers = ["Paris", "Lyon", "PARIS!!", "Paris, I think"]
    suite_id = assay.create_suite([("Capital of France?", "Paris", answer) for answer in answers], "capitals")
    body = {
        "suite_id": suite_id,
        "grader_id": "llm-judge",
        "grader_config": {"base_url": judge.base_url, "api_key_env": None, "model": "judge-1"},
        "target": {
            "type": "recorded",
            "responses": {str(number): answer for number, answer in enumerate(answers, 1)},
        },
        "name": "judged capitals",
    }
    evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
    assert assay.wait_for(evaluation_id)["summary"]["errors_by_reason"] == {"invalid_judgement": 2}

    page.goto(f"/evaluations/{evaluation_id}")
    expect(_rows(page)).to_have_count(4)
    page.get_by_label("Error reason").select_option("invalid_judgement")
    expect(page).to_have_url(re.compile(r"error=invalid_judgement"))
    expect(_rows(page)).to_have_count(2)
    _rows(page).filter(has_text="Paris, I think").click()
    panel = page.get_by_test_id("case-panel")
    expect(panel.get_by_test_id("verdict-error")).to_contain_text("contradicts itself")
    expect(panel.get_by_label("agent_response")).to_have_text("Paris, I think")

    page.get_by_role("button", name=re.compile("^Failed")).click()
    expect(page.get_by_label("Error reason")).to_have_value("")
    expect(_rows(page)).to_have_count(3)  # failed counts the judge's errors too, as the summary does
    _rows(page).filter(has_text="Lyon").click()
    expect(panel.get_by_test_id("reasoning")).to_contain_text("Lyon is not the capital of France.")
