"""Data that tries a screen's layout, seeded through a running server's API, and the routes that show it.

Shared by the layout test (``tests/e2e/test_ui_layout.py``) and the screenshot script
(``scripts/screenshots.py``): long suite and evaluation names, long case keys, inputs and answers, metadata
with many values, enum-heavy grader configs, answers that pass, fail, are invalid or are missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2

from tests.factories import wait_until_finished
from tests.support.assay_process import FINISH_POLL_S
from tests.support.tool_agent import ToolAgent, support_suite, target

RUN_TIMEOUT_S = 60.0
SUITE_NAME = "Customer support triage: refund, cancellation and warranty questions (EU, Q4 2026)"
LANGUAGES = ("en", "de", "fr", "es")
_FIRST_ROW = '[data-testid="results-scroll"] [role="row"][data-case-id]'
_EVAL_FILE = '[data-testid="eval-file"] summary'
_FAILED_STEP = '[data-testid="trajectory-step"][data-failed]'
CHANNELS = ("email_with_attachment_and_long_thread", "chat_widget", "phone_transcript")


@dataclass(frozen=True)
class Route:
    """One screen to visit: a name (for a screenshot's file), its path, and what to click once it shows."""

    name: str
    path: str
    click: str | None = None
    """A CSS selector clicked once the page has loaded (e.g. a row, to open the case panel)."""


@dataclass(frozen=True)
class Showcase:
    """What was seeded, and every route of the app that shows it."""

    suite_id: int
    evaluation_ids: tuple[int, ...]
    routes: tuple[Route, ...]


def _data(response: httpx2.Response) -> Any:
    assert response.status_code < 400, response.text
    return response.json()["data"]


def _cases() -> list[dict[str, Any]]:
    cases = []
    for n in range(1, 13):
        expected = "true" if n % 3 else "false"
        cases.append(
            {
                "key": f"refund_request_after_thirty_days_without_original_receipt_{n:02d}",
                "input": (
                    f"Case {n}: I bought a dishwasher in September and it stopped draining after three "
                    "weeks. The shop says the warranty does not cover it: I have no original receipt, only "
                    "a bank statement. Am I entitled to a refund under EU consumer law?"
                ),
                "expected_output": expected,
                "metadata": {
                    "lang": LANGUAGES[n % len(LANGUAGES)],
                    "kind": "single_turn",  # one value: no use as a breakdown
                    "channel": CHANNELS[n % len(CHANNELS)],
                    "ticket_reference": f"EU-SUPPORT-2026-Q4-REFUNDS-{n * 7919:08d}",  # a value per case
                },
            }
        )
    return cases


def _answer(n: int, expected: str, flavour: int) -> str | None:
    """A recorded answer: mostly right, sometimes wrong, now and then invalid or missing."""
    if n % 7 == 0:
        return None
    if n % 5 == flavour:
        return (
            "Under the EU Consumer Sales Directive the seller is liable for defects that appear within two "
            "years, and a bank statement is a valid proof of purchase, so it depends on the shop's policy."
        )
    right = "yes" if expected == "true" else "no"
    wrong = "no" if expected == "true" else "yes"
    return wrong if n % 4 == flavour else right


def _run(client: httpx2.Client, body: dict[str, Any]) -> int:
    evaluation_id = int(_data(client.post("/api/evaluations", json=body))["id"])
    wait_until_finished(client, evaluation_id, timeout=RUN_TIMEOUT_S, every=FINISH_POLL_S)
    return evaluation_id


TOOL_MODES = ("correct", "skip", "twice", "thorough")
_SUPPORT_HISTORY: list[dict[str, Any]] = [
    {
        "role": "system",
        "content": "You are the support agent of a kitchen appliance shop. Look orders up first.",
    },
    {"role": "user", "content": "I ordered a blue kettle last week and it arrived with a cracked lid."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_search_orders_for_customer_with_a_long_identifier_0001",
                "type": "function",
                "function": {
                    "name": "search_orders_by_customer_and_product_description",
                    "arguments": '{"customer": "c-000184467", "query": "blue kettle", "since_days": 14}',
                },
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_search_orders_for_customer_with_a_long_identifier_0001",
        "content": '[{"order": 7, "item": "Blue kettle, 1.7 l, stainless steel", "status": "delivered"}]',
    },
    {"role": "assistant", "content": "I found order 7, delivered on Tuesday. Do you want a refund?"},
    {"role": "user", "content": "Please refund my blue kettle"},
]


def _tool_routes(client: httpx2.Client) -> tuple[Route, ...]:
    """Two runs of the real tool agent (tests/support/tool_agent.py) on a support suite: a case panel with a
    trajectory whose checks fail at a step, and Compare's changed tool calls. The agent is needed only while
    they run: the trajectories are stored."""
    suite = support_suite("Support agent with tools: order look-up, refunds and search (trajectory checks)")
    suite["cases"] = [
        {"input": "Please refund my blue kettle", "expected_output": "Refunded", "metadata": {"mode": mode}}
        for mode in TOOL_MODES
    ]
    suite["cases"][0]["input"] = _SUPPORT_HISTORY  # a conversation input: the case panel shows its messages
    suite_id = int(_data(client.post("/api/suites", json=suite))["id"])
    with ToolAgent() as agent:
        fixed = target(agent.url, "anthropic")
        fixed["body_template"] = {**fixed["body_template"], "mode": "correct"}
        ids = [
            _run(client, {"suite_id": suite_id, "grader_id": "true-false", "target": spec, "name": name})
            for spec, name in (
                (target(agent.url, "openai-chat"), "Support agent, production prompt (skips look-ups)"),
                (fixed, "Support agent, candidate prompt with the look-up rule"),
            )
        ]
    rows = _data(client.get(f"/api/evaluations/{ids[0]}/results"))["results"]
    skipped = next(row["case_id"] for row in rows if row["number"] == 2)
    conversation = next(row["case_id"] for row in rows if row["number"] == 1)
    return (
        Route("evaluation-conversation", f"/evaluations/{ids[0]}?case={conversation}"),
        # Clicking the failing step scrolls the case panel to it (the panel scrolls on its own).
        Route("evaluation-trajectory", f"/evaluations/{ids[0]}?case={skipped}", click=_FAILED_STEP),
        Route("compare-tools", f"/compare?a={ids[0]}&b={ids[1]}"),
    )


def seed_showcase(client: httpx2.Client) -> Showcase:
    """Seed the layout's data on the server ``client`` talks to; the routes to visit."""
    cases = _cases()
    suite_id = int(_data(client.post("/api/suites", json={"name": SUITE_NAME, "cases": cases}))["id"])
    _data(client.post("/api/suites", json={"name": "A suite with no cases yet", "cases": []}))
    evaluation_ids = []
    for flavour, name in enumerate(
        (
            "Refund triage with the production prompt and strict aliases, baseline for the Q4 release",
            "Refund triage with the candidate prompt (shorter system message, temperature 0.2)",
        )
    ):
        responses = {
            case["key"]: _answer(n, case["expected_output"], flavour) for n, case in enumerate(cases, 1)
        }
        body = {
            "suite_id": suite_id,
            "grader_id": "true-false",
            "target": {"type": "recorded", "responses": responses},
            "name": name,
        }
        evaluation_ids.append(_run(client, body))
    extract_body = {
        "suite_id": suite_id,
        "grader_id": "extract",
        "grader_config": {"rules": ["labelled", "last_short_line", "leading_word"]},
        "target": {
            "type": "recorded",
            "responses": {
                case["key"]: f"Let me think about it.\n\nThe answer is: {'yes' if n % 2 else 'no'}"
                for n, case in enumerate(cases, 1)
            },
        },
        "name": "Refund triage, answers extracted from the reasoning (labelled, last short line)",
    }
    evaluation_ids.append(_run(client, extract_body))
    first, second, third = evaluation_ids
    routes = (
        Route("evaluations", "/evaluations"),
        Route("new-evaluation", f"/evaluations/new?suite={suite_id}&grader=extract"),
        Route("new-evaluation-yaml", "/evaluations/new?from=yaml"),
        Route("evaluation", f"/evaluations/{first}"),
        Route("evaluation-case", f"/evaluations/{first}", click=_FIRST_ROW),
        Route("evaluation-extract", f"/evaluations/{third}"),
        Route("evaluation-yaml", f"/evaluations/{third}", click=_EVAL_FILE),
        Route("compare", f"/compare?a={first}&b={second}"),
        Route("suites", "/suites"),
        Route("suite", f"/suites/{suite_id}"),
        Route("side-by-side", f"/suites/{suite_id}/side-by-side"),
        Route("graders", "/graders"),
        Route("grader", "/graders/extract"),
        Route("not-found", "/no-such-screen"),
        *_tool_routes(client),
    )
    return Showcase(suite_id=suite_id, evaluation_ids=tuple(evaluation_ids), routes=routes)
