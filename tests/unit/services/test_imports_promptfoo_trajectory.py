"""promptfoo's trajectory:* assertions become Assay's trajectory graders deciding as promptfoo's do, or are
refused saying why (docs/imports.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assay.errors import ValidationError
from tests.unit.services.test_imports_promptfoo import grade, one_assertion, promptfoo

CONFIG = """\
description: Support agent with tools
prompts:
  - "You are a support agent. {{question}}"
providers:
  - id: http
    config: {url: "http://localhost:8080/agent"}
tracing: {enabled: true}
defaultTest:
  assert:
    - type: trajectory:step-count
      value: {type: tool, max: 6}
tests:
  - description: refund after a look-up
    vars: {question: Please refund order 7}
    assert:
      - type: trajectory:tool-used
        value: [lookup_order, refund]
      - type: trajectory:tool-sequence
        value:
          mode: exact
          steps: [search_orders, {name: lookup_order}, refund]
      - type: trajectory:tool-args-match
        value: {name: refund, args: {order_id: 7}, mode: partial}
        metric: refund args
      - type: not-trajectory:tool-used
        value: delete_account
  - description: at most one refund
    vars: {question: Refund it twice}
    assert:
      - type: trajectory:tool-used
        value: {name: refund, min: 1, max: 1}
      - type: trajectory:step-count
        value: {type: tool, name: lookup_order, min: 1, max: 2}
"""


def _chat(*calls: tuple[str, dict[str, Any]]) -> str:
    """A reply in OpenAI's chat format whose assistant makes ``calls`` in order (what the graders read)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Please refund order 7"}]
    for number, (name, arguments) in enumerate(calls):
        call = {
            "id": f"c{number}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{number}", "content": "ok"})
    messages.append({"role": "assistant", "content": "Refunded."})
    return json.dumps({"messages": messages})


RIGHT = _chat(
    ("search_orders", {"q": "7"}),
    ("lookup_order", {"order_id": 7}),
    ("refund", {"order_id": 7, "amount": 20}),
)
SKIPPED = _chat(("search_orders", {"q": "7"}), ("refund", {"order_id": 7, "amount": 10}))
TWICE = _chat(("lookup_order", {"order_id": 7}), ("refund", {"order_id": 7}), ("refund", {"order_id": 7}))


def test_a_support_agent_config_maps_every_trajectory_assertion() -> None:
    report = promptfoo(CONFIG)
    first, second = (row.to_json() for row in report.rows)
    assert first["input"] == "You are a support agent. Please refund order 7"
    assert first["assert"] == [
        {"grader_id": "trajectory-budget", "config": {"max_tool_calls": 6}},
        {
            "grader_id": "all",
            "config": {
                "graders": [
                    {
                        "grader_id": "tool-called",
                        "config": {"tool": "lookup_order", "at_least": 1, "at_most": None},
                    },
                    {
                        "grader_id": "tool-called",
                        "config": {"tool": "refund", "at_least": 1, "at_most": None},
                    },
                ]
            },
        },
        {
            "grader_id": "tool-sequence",
            "config": {"tools": ["search_orders", "lookup_order", "refund"], "mode": "exact"},
        },
        {
            "grader_id": "tool-args",
            "config": {"tool": "refund", "arguments": {"order_id": 7}, "mode": "contains", "call": "any"},
            "name": "refund args",
        },
        {"grader_id": "tool-called", "config": {"tool": "delete_account", "at_least": 0, "at_most": 0}},
    ]
    assert [a["grader_id"] for a in second["assert"]] == ["trajectory-budget", "tool-called", "tool-called"]
    assert second["assert"][2]["config"] == {"tool": "lookup_order", "at_least": 1, "at_most": 2}
    (line, *_) = report.lines
    assert any("tool names are compared exactly" in note for note in line.notes)


@pytest.mark.parametrize(
    ("assertion", "reply", "passes"),
    [
        ("{type: trajectory:tool-used, value: lookup_order}", RIGHT, True),
        ("{type: trajectory:tool-used, value: lookup_order}", SKIPPED, False),
        ("{type: trajectory:tool-used, value: [search_orders, refund]}", SKIPPED, True),
        # promptfoo's negated list passes only when none of the tools is used
        ("{type: not-trajectory:tool-used, value: [lookup_order, delete_account]}", RIGHT, False),
        ("{type: not-trajectory:tool-used, value: [lookup_order, delete_account]}", SKIPPED, True),
        ("{type: trajectory:tool-used, value: {name: refund, max: 1}}", TWICE, False),
        ("{type: trajectory:tool-used, value: {pattern: refund, min: 2}}", TWICE, True),
        ("{type: not-trajectory:tool-used, value: {name: refund, min: 2}}", RIGHT, True),
        (
            "{type: trajectory:tool-sequence, value: [search_orders, refund]}",
            RIGHT,
            True,
        ),  # in order, gaps allowed
        ("{type: trajectory:tool-sequence, value: [refund, search_orders]}", RIGHT, False),
        (
            "{type: trajectory:tool-sequence, value: {mode: exact, steps: [search_orders, refund]}}",
            RIGHT,
            False,
        ),
        (
            "{type: trajectory:tool-sequence, value: {mode: exact, steps: [search_orders, refund]}}",
            SKIPPED,
            True,
        ),
        ("{type: not-trajectory:tool-sequence, value: [lookup_order, refund]}", SKIPPED, True),
        ("{type: trajectory:tool-args-match, value: {name: refund, args: {amount: 20}}}", RIGHT, True),
        ("{type: trajectory:tool-args-match, value: {name: refund, args: {amount: 20}}}", SKIPPED, False),
        (
            "{type: trajectory:tool-args-match, value: {name: refund, arguments: {order_id: 7},"
            " mode: exact}}",
            TWICE,
            True,
        ),
        (
            "{type: trajectory:tool-args-match, value: {name: refund, args: {order_id: 7}, mode: exact}}",
            RIGHT,
            False,
        ),
        ("{type: trajectory:step-count, value: {type: tool, max: 2}}", SKIPPED, True),
        ("{type: trajectory:step-count, value: {type: tool, max: 2}}", RIGHT, False),
        ("{type: trajectory:step-count, value: {type: tool, name: refund, min: 2}}", TWICE, True),
        ("{type: trajectory:step-count, value: {type: tool, name: refund, max: 0}}", SKIPPED, False),
    ],
)
def test_each_trajectory_assertion_decides_as_promptfoo_does(
    assertion: str, reply: str, passes: bool
) -> None:
    assert grade(one_assertion(assertion), reply) is passes


def test_a_reply_without_a_trajectory_passes_no_trajectory_check_not_even_a_negated_one() -> None:
    for assertion in (
        "{type: not-trajectory:tool-used, value: delete_account}",
        "{type: not-trajectory:tool-sequence, value: [refund]}",
        "{type: trajectory:step-count, value: {type: tool, max: 3}}",
    ):
        assert grade(one_assertion(assertion), "Refunded.") is False, assertion


@pytest.mark.parametrize(
    ("assertion", "why"),
    [
        ("{type: trajectory:tool-used, value: 'lookup_*'}", "glob pattern"),
        ("{type: trajectory:tool-used, value: {pattern: 'refund?'}}", "glob pattern"),
        ("{type: trajectory:tool-used, value: []}", "names no tool"),
        ("{type: trajectory:tool-used, value: {name: refund, min: 0}}", "tool-called"),
        ("{type: trajectory:tool-used, value: {type: command, name: ls}}", "type 'command'"),
        ("{type: trajectory:tool-used, value: {name: refund, count: 2}}", "count"),
        ("{type: trajectory:tool-sequence, value: {mode: any_order, steps: [a]}}", "exact or in_order"),
        ("{type: trajectory:tool-sequence, value: {steps: []}}", "non-empty list"),
        (
            "{type: trajectory:tool-args-match, value: {name: refund, args: {a: 1}, ignore: request_id}}",
            "'ignore'",
        ),
        (
            "{type: trajectory:tool-args-match, value: {name: refund, args: {a: 1}, defaults: {b: 2}}}",
            "'defaults'",
        ),
        ("{type: trajectory:tool-args-match, value: {name: refund}}", "expected arguments"),
        (
            "{type: trajectory:tool-args-match, value: {name: refund, args: {a: 1}, mode: fuzzy}}",
            "partial or exact",
        ),
        ("{type: trajectory:step-count, value: {min: 2}}", "every kind"),
        ("{type: trajectory:step-count, value: {type: tool}}", "min or a max"),
        ("{type: trajectory:step-count, value: {type: tool, min: 2}}", "lower bound"),
        ("{type: trajectory:step-count, value: {type: tool, max: 1.5}}", "whole number"),
        ("{type: trajectory:tool-used, value: refund, threshold: 0.5}", "threshold"),
        ("{type: trajectory:goal-success, value: refunded}", "trajectory:goal-success"),
    ],
)
def test_what_assay_cannot_decide_the_same_way_is_refused(assertion: str, why: str) -> None:
    with pytest.raises(ValidationError, match="cannot be represented") as caught:
        one_assertion(assertion)
    assert why in caught.value.message
