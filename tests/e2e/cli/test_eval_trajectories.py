"""Trajectory checks as per-case assertions of ``assay eval`` (a real process) on recorded answers: each
answer is the agent's JSON in one dialect, graded by ``tool-called`` beside ``contains``; an answer holding
no trajectory is unjudged, never passed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support import trajectories as run
from tests.support.results import read_results

ASSAY = [sys.executable, "-m", "assay.cli"]

EVAL = """\
description: Support agent with tools, recorded answers
suites: [suite.jsonl]
target: {type: responses, path: answers.jsonl}
assert:
  - {grader_id: tool-called, name: looked up, config: {tool: lookup_order}}
  - {grader_id: tool-called, name: one refund, config: {tool: refund, at_most: 1}}
  - {grader_id: contains, name: says refunded, expected_output: Refunded}
outputs: {results: results.jsonl}
gates:
  by_assertion:
    - {assertion: says refunded, min_pass_rate: 1.0}
    - {assertion: one refund, min_pass_rate: 1.0}
"""


def _skipping_lookup() -> str:
    return json.dumps([message for message in run.ANTHROPIC if "lookup" not in json.dumps(message)])


def _refunding_twice() -> str:
    document = json.loads(json.dumps(run.OPENAI_RESPONSES))
    document["output"][3:3] = document["output"][3:5]
    return json.dumps(document)


def test_tool_called_and_contains_grade_recorded_trajectories_case_by_case(tmp_path: Path) -> None:
    answers = {
        "chat": json.dumps(run.OPENAI_CHAT),
        "atif": json.dumps(run.ATIF),
        "otlp": json.dumps(run.OTLP),
        "skips-lookup": _skipping_lookup(),
        "refunds-twice": _refunding_twice(),
        "text-only": "Refunded 20.0 for order 7.",
        "sequence": json.dumps(run.OPENAI_CHAT),
    }
    rows = [{"key": key, "input": run.USER, "expected_output": ""} for key in answers]
    rows[-1]["assert"] = [  # a case's own list replaces the file's
        {
            "grader_id": "tool-sequence",
            "config": {"mode": "exact"},
            "expected_output": "lookup_order, refund",
        },
        {"grader_id": "trajectory-budget", "config": {"max_tool_calls": 1}},
    ]
    (tmp_path / "suite.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (tmp_path / "answers.jsonl").write_text(
        "".join(json.dumps({"agent_response": a}) + "\n" for a in answers.values())
    )
    (tmp_path / "assay.yaml").write_text(EVAL)
    ran = subprocess.run(
        [*ASSAY, "eval"], capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path
    )
    assert ran.returncode == 1, ran.stderr  # the gate on one refund is missed
    assert "Traceback" not in ran.stderr
    results = {result["key"]: result for result in read_results(tmp_path / "results.jsonl")}

    def verdicts(key: str) -> dict[str, str]:
        return {
            child["name"]: child["details"]["match_status"] for child in results[key]["details"]["children"]
        }

    for key in ("chat", "atif", "otlp"):
        assert results[key]["passed"], (key, results[key]["details"]["reason"])
    assert verdicts("skips-lookup") == {
        "looked up": "mismatch",
        "one refund": "match",
        "says refunded": "match",
    }
    assert verdicts("refunds-twice") == {
        "looked up": "match",
        "one refund": "mismatch",
        "says refunded": "match",
    }
    text_only = verdicts("text-only")
    assert text_only == {
        "looked up": "invalid_response",
        "one refund": "invalid_response",
        "says refunded": "match",
    }
    assert results["text-only"]["passed"] is False
    assert verdicts("sequence") == {"tool-sequence": "match", "trajectory-budget": "mismatch"}
    reason = results["sequence"]["details"]["children"][1]["details"]["reason"]
    assert reason == "Over budget: 2 tool calls, at most 1"
    assert (
        "gate assertion says refunded: 6/6 passed (100.00%), needs 100.00%: held" in ran.stderr.splitlines()
    )
