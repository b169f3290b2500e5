"""The screenshot of the evaluation screen in docs/web-ui.md, taken from a real run.

Written to ``docs/screenshots/evaluation.png`` when ``ASSAY_UPDATE_SCREENSHOTS=1`` (to refresh that
page), else to a temporary file, so that a test run leaves the working tree as it was.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import XSS_RESPONSE, AssayServer
from tests.support.agent_server import AgentServer

pytestmark = pytest.mark.browser

README_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "evaluation.png"
PRIMES = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47}


def _showcase_cases() -> list[tuple[str, str, str]]:
    """Questions about primes with an agent that is mostly right, sometimes wrong, now and then vague."""
    cases = []
    for n in range(2, 50):
        expected = "true" if n in PRIMES else "false"
        answer = "yes" if n in PRIMES else "no"
        if n % 11 == 0:
            answer = "yes" if answer == "no" else "no"  # wrong
        if n in (9, 27):
            answer = "I think so"  # not a boolean
        if n == 33:
            answer = XSS_RESPONSE
        cases.append((f"Is {n} a prime number?", expected, answer))
    return cases


def test_screenshot_of_the_evaluation_screen(
    page: Page, assay: AssayServer, agent: AgentServer, tmp_path: Path
) -> None:
    cases = _showcase_cases()
    agent.behaviour.answers.update({text: answer for text, _, answer in cases})
    suite_id = assay.create_suite(cases, name="Prime numbers", unique=False)  # the only suite of this name
    evaluation_id = assay.run_evaluation(suite_id, agent.url, "Prime numbers, default aliases")

    page.goto(f"/evaluations/{evaluation_id}?outcome=failed")
    expect(page.get_by_test_id("evaluation-status")).to_have_text("completed")
    page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]').first.click()
    expect(page.get_by_test_id("case-panel")).to_be_visible()
    page.wait_for_timeout(200)  # let the chart settle

    target = (
        README_SCREENSHOT
        if os.environ.get("ASSAY_UPDATE_SCREENSHOTS") == "1"
        else tmp_path / "evaluation.png"
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 10_000
