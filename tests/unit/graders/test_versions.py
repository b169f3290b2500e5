"""A grader's version must change whenever one of its verdicts could: pinned by a digest of its verdicts.

When this fails, the grader now judges some input differently. Bump its ``version`` (stored results say
which version graded them) and put the new version and digest here.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any

import pytest

from assay.graders import (
    BUILTIN_GRADERS,
    CallReply,
    GraderInterface,
    LLMJudgeGrader,
    OutboundCall,
    catalog,
    why_unavailable,
)
from tests.support import trajectories
from tests.support.requirements import require

PINNED = {
    "string-match": ("1.3.0", "52808ac4cea26d5b"),
    "true-false": ("1.1.0", "8938d1a80c3ba560"),
    "contains": ("1.1.0", "a85dd47d7ddefb8f"),
    "regex": ("1.1.0", "70e040dba9e84a3b"),
    "choice": ("1.1.0", "12cbf85d9c27c068"),
    "numeric": ("1.1.0", "a6248d463b3f19c4"),
    "json": ("1.1.0", "daad6cd72ff7c0e4"),
    "fuzzy": ("1.1.0", "e7a02fd6933a09c2"),
    "overlap": ("1.1.0", "6743735fa3170aea"),
    "semantic": ("1.1.0", "e5064a51643fea09"),
    "tool-called": ("1.0.0", "a18b033efe560c48"),
    "tool-sequence": ("1.0.0", "c41bafcfef1dacc7"),
    "tool-args": ("1.0.0", "2d5fbd0e57145d33"),
    "trajectory-budget": ("1.0.0", "1640fba27d4ac55c"),
    # A composite's version is its class version + a digest of its children's ids and versions, so these
    # change when a child grader's version does (that is the point: its verdicts may have changed).
    # 1.1.0 changed the details tree's entries only; 1.2.0 (issue 23): an answer with no visible character
    # is empty, disjunctions that cannot fail are refused, extraction reads corrections and quotations.
    "not": ("1.2.0+8ba4f5282bf1", "c45d64ff4fceadca"),
    "extract": ("1.2.0+b6c11adfa18d", "9e79c9e9bef2d4db"),
    "all": ("1.2.0+8ba4f5282bf1", "e29c86e19815164f"),
    "any": ("1.2.0+8ba4f5282bf1", "520276faf84dca02"),
    "at-least": ("1.2.0+8ba4f5282bf1", "d08c6e0023485e72"),
    "weighted": ("1.2.0+8ba4f5282bf1", "ffd7a956d0be2348"),
    "llm-judge": ("1.3.0", "d3822362a818d53e"),
}
TF: dict[str, Any] = {"grader_id": "true-false"}
SM: dict[str, Any] = {"grader_id": "string-match"}
CONFIGURED: dict[str, tuple[dict[str, Any], str, str]] = {
    # Defaults use string-match only; these trees reach every rule (invalid children, own expected values).
    "not": ({"grader": TF}, "1.2.0+b6c11adfa18d", "a1569656ef6041fd"),
    "all": ({"graders": [TF, SM]}, "1.2.0+5ad4e4daa24a", "1d86b0e5f17292cc"),
    "any": ({"graders": [TF, {**SM, "expected_output": "paris"}]}, "1.2.0+5ad4e4daa24a", "df5ba21aee01a93a"),
    "at-least": (
        {
            "graders": [
                TF,
                SM,
                {"grader_id": "not", "config": {"grader": {**SM, "expected_output": "maybe"}}},
            ],
            "k": 2,
        },
        "1.2.0+4a0ba937df95",
        "a8a0dbfb931c7346",
    ),
    "extract": (
        {"grader": {"grader_id": "choice"}, "languages": ["english"]},
        "1.2.0+832e0ffe054f",
        "1785166f83429569",
    ),
    "weighted": (
        {"graders": [{**TF, "weight": 2}, {**SM, "weight": 1}], "threshold": 0.6},
        "1.2.0+5ad4e4daa24a",
        "ad227bbbcb3b4d62",
    ),
    # the trajectory graders' own rules: a budget that checks something, a schema, counts and modes
    "trajectory-budget": (
        {"max_tool_calls": 2, "max_tokens": 150, "max_seconds": 3},
        "1.0.0",
        "a35aa565ebda1d24",
    ),
    "tool-args": (
        {"mode": "schema", "schema": {"required": ["amount"]}, "call": "last"},
        "1.0.0",
        "adbdba2810fe86d0",
    ),
    "tool-called": ({"at_least": 0, "at_most": 1}, "1.0.0", "fdcc02f2fa0f6396"),
    "tool-sequence": ({"mode": "subset"}, "1.0.0", "6ebcd0d1a006a658"),
}
INPUTS: list[object] = [
    None, "", " ", "true", "True", "TRUE", "tRuE", "yes", " Yes ", "YES", "1", "0", "no", "No", "NO",
    "false", "False", "FALSE", "maybe", "on", "Paris", " paris\n", "new  york", "New York",
    True, False, 1, 0, 1.0, "straße", "STRASSE", "\x00", "\ud800",
]  # fmt: skip
TRAJECTORY_INPUTS: list[object] = [
    *(json.dumps(document) for document in trajectories.DIALECT_DOCUMENTS.values()),
    json.dumps(trajectories.openai_chat(tools=(("refund", {"amount": 5}), ("refund", {"order_id": 7})))),
    '{"messages": [{"content": "no role"}]}',
    "lookup_order",
    "refund",
    '["lookup_order", "refund"]',
    "refund, lookup_order",
    '{"order_id": 7}',
    '{"amount": 20}',
]
"""Documents in each dialect, one that is none, tool names and arguments: what the trajectory graders read."""
EXTRA_INPUTS: dict[str, list[object]] = {
    **dict.fromkeys(("tool-called", "tool-sequence", "tool-args", "trajectory-budget"), TRAJECTORY_INPUTS),
    "contains": ["yesterday", "I know", "Yes, it is.", "3.14", "3", "1,000", "北京", "首都是北京。"],
    "choice": [
        "A",
        "B",
        "(B)",
        "b.",
        "Answer: B",
        "The answer is C.",
        "A or B",
        "A cat",
        "B. Paris",
        "I think B",
    ],
    "extract": [
        "The answer is: yes",
        "**Answer:** True",
        "Final answer: B",
        "<answer>no</answer>",
        '{"answer": false}',
        "Let me check.\nNo",
        "That's correct.",
        "not true",
        "no, not yes",
        "yes and no",
        "I think maybe",
        "probably true",
        "true?",
        "Yes. Wait, no.",
        "Réponse : non",
        "答案是：是",
        "Ответ: да",
    ],
    "semantic": [
        "The capital of France is Paris.",
        "Paris is France's capital city.",
        "I like turtles.",
        "The answer is 42.",
        "The answer is 43.",
        "Water boils at 100 degrees Celsius at sea level.",
    ],
    "regex": [r"^P.*s$", r"(?i)\bparis\b", "[", "x*", r"\b", r"\d+", r"(?<=a)b", "The answer is 42.", "42"],
    "numeric": [
        "42", "The answer is 42.", "42.0", "1,234.5", "1234.5", "-3e2", "−300", "45%", "0.45", "$1,234",
        "3 or 4", "3.11.2", "2024-01-05", "1st", "3-5", "GPT-4", "3/4", "0.75", "1e999", 42, 7.5,
    ],
    "json": [
        '{"a": 1}', '{"a": 1.0}', '{"a": true}', '{"a": 1, "b": [1, 2]}', '[1, 2]', '"Paris"', "null", "42",
        '```json\n{"a": 1}\n```', 'Here:\n```json\n{"a": 2}\n```', '{"a": 1, "a": 2}', "{'a': 1}", "NaN",
        "[" * 101 + "]" * 101, "[" * 100 + "]" * 100,
    ],
}  # fmt: skip
"""Inputs a grader's own rules turn on, added to its product (the other graders' digests stay as they are)."""
COARSE = {"semantic"}
"""Graders whose score comes out of floating-point inference (onnxruntime): its last bits may differ on
another CPU, so their digest takes the score to 2 decimals and leaves out the reason, which prints it."""


def verdict_digest(grader: GraderInterface) -> str:
    digest = hashlib.sha256()
    inputs = INPUTS + EXTRA_INPUTS.get(grader.grader_id, [])
    for response, expected in itertools.product(inputs, repeat=2):
        result = grader.grade(response, expected)
        verdict = [
            result["passed"],
            result["score"],
            result["details"]["match_status"],
            result["details"]["reason"],
        ]
        if grader.grader_id in COARSE:
            verdict = [result["passed"], round(result["score"], 2), result["details"]["match_status"]]
        digest.update(json.dumps(verdict, ensure_ascii=True).encode())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("grader_class", BUILTIN_GRADERS, ids=lambda cls: cls.default_id)
def test_version_pins_verdicts(grader_class: type[GraderInterface]) -> None:
    grader = grader_class()
    require(why_unavailable(grader) is None, f"what the grader '{grader.grader_id}' needs")
    version, digest = PINNED[grader.grader_id]
    assert (grader.version, verdict_digest(grader)) == (version, digest), (
        f"{grader.grader_id}: verdicts or version changed; bump the version and update PINNED"
    )


@pytest.mark.parametrize("grader_id", CONFIGURED)
def test_version_pins_verdicts_of_configured_composites(grader_id: str) -> None:
    config, version, digest = CONFIGURED[grader_id]
    grader_class = catalog.lookup(grader_id)
    assert grader_class is not None
    grader = grader_class(grader_id, config)
    assert (grader.version, verdict_digest(grader)) == (version, digest), (
        f"{grader_id}: verdicts or version changed; bump the version and update CONFIGURED"
    )


JUDGE_REPLIES: list[object] = [
    {"explanation": "ok", "pass": True, "score": 0.9},
    {"explanation": "no", "pass": False, "score": 0.1},
    {"explanation": "edge", "pass": True, "score": 0.5},
    {"explanation": "edge", "pass": False, "score": 0.5},
    {"explanation": "x", "pass": True, "score": 0.2},
    {"explanation": "x", "pass": False, "score": 0.8},
    {"explanation": "x", "pass": "true", "score": 1},
    {"explanation": "x", "pass": True},
    {"pass": True, "score": 1},
    {"explanation": "x", "pass": True, "score": 1, "verdict": "fail"},
    {"explanation": "x", "label": "correct"},
    {"explanation": "x", "label": "incorrect"},
    {"explanation": "x", "label": "Correct"},
    '```json\n{"explanation": "ok", "pass": true, "score": 1}\n```',
    'Yes. {"explanation": "ok", "pass": true, "score": 1}',
    "PASS",
    "",
    None,
]
JUDGE_CONFIGS: list[dict[str, Any]] = [{}, {"mode": "classify"}, {"threshold": 0.9}]
JUDGE_READINGS = "7f533cbd6c13473d"
"""Digest of the llm-judge's readings of scripted replies: its verdicts come from these, not from grade()."""


def test_version_pins_judge_readings() -> None:
    digest = hashlib.sha256()
    for config in JUDGE_CONFIGS:
        grader = LLMJudgeGrader(config=config)
        call = grader.plan("Paris", "Paris")
        assert isinstance(call, OutboundCall)
        for content in JUDGE_REPLIES:
            text = content if content is None or isinstance(content, str) else json.dumps(content)
            body = json.dumps({"choices": [{"message": {"content": text}, "finish_reason": "stop"}]})
            result = grader.read("Paris", "Paris", call, CallReply(status=200, body=body.encode()))
            details = result["details"]
            verdict = [result["passed"], result["score"], details["match_status"], details["reason"]]
            digest.update(json.dumps([*verdict, details.get("error")], ensure_ascii=True).encode())
    assert (LLMJudgeGrader.version, digest.hexdigest()[:16]) == ("1.3.0", JUDGE_READINGS), (
        "llm-judge: its readings or version changed; bump the version and update JUDGE_READINGS"
    )
