"""The files ``assay init`` writes: a commented ``assay.yaml``, a suite mixing kinds of answer, and a tiny
agent (a Python function, no network), so that ``assay init && assay eval`` runs on a fresh machine."""

from __future__ import annotations

import json

__all__ = ["STARTER_FILES"]

_EVAL_FILE = """\
# assay.yaml: one eval described in one file (docs/eval-file.md). `assay eval` runs it.
# Editors complete and check it with the JSON Schema that `assay schema config` prints.
description: Starter eval of a tiny support agent

# Suite files (JSONL, CSV or JSON), relative to this file; or {server_suite: ID} for a server's suite.
suites:
  - suite.jsonl

# What answers the cases: here the function `answer` of agent.py, beside this file. Other types:
# http (url), openai (model, key by the variable api_key_env names), command (a shell command),
# responses (path: a file of recorded answers).
target:
  type: python
  callable: agent:answer

# The grader of the cases that no assertion below reaches (`assay graders` lists them).
grader:
  id: string-match

# Assertions picked by a case's metadata, the first rule that matches (docs/assertions.md).
rules:
  - when: {kind: bool}
    assert: [{grader_id: true-false}]
  - when: {kind: number}
    assert: [{grader_id: numeric}]
  - when: {kind: choice}
    assert: [{grader_id: choice, config: {labels: [A, B, C, D]}}]
  - when: {kind: json}
    assert: [{grader_id: json}]
# The assertions of the cases no rule picks (here, the text answers).
assert:
  - grader_id: contains

# Cases in flight at once; a call's timeout (seconds) and tries per case.
concurrency: 4
timeout_s: 10
max_attempts: 2

# Written anew by each run, relative to this file.
outputs:
  results: results.jsonl
  junit: junit.xml

# Exit 1 when one is missed (without gates, every case must pass).
gates:
  min_pass_rate: 0.8
  by_metadata:
    - {key: kind, min_pass_rate: 0.5}
  by_assertion:
    - {assertion: numeric, min_pass_rate: 1.0}
"""

_CASES = (
    ("open-sunday", "Is the store open on Sunday?", "false", "bool"),
    ("free-returns", "Are returns free within 30 days?", "true", "bool"),
    ("shipping", "How much is standard shipping, in euros?", "4.99", "number"),
    ("warranty", "How many years of warranty come with a laptop?", "2", "number"),
    ("plan", "Which plan includes phone support? A) Free B) Basic C) Pro D) None", "C", "choice"),
    ("reset", "How do I reset my password?", "Settings", "text"),
    ("order", "Give the status of order 42 as JSON", '{"order": 42, "status": "shipped"}', "json"),
)

_SUITE = "".join(
    json.dumps(
        {"key": key, "input": text, "expected_output": expected, "metadata": {"kind": kind}},
        ensure_ascii=False,
    )
    + "\n"
    for key, text, expected, kind in _CASES
)

_AGENT = '''\
"""A tiny support agent for the starter eval: canned answers, no network. Replace it with your own."""

ANSWERS = {
    "Is the store open on Sunday?": "no",
    "Are returns free within 30 days?": "yes",
    "How much is standard shipping, in euros?": "4.99",
    "How many years of warranty come with a laptop?": "2",
    "Which plan includes phone support? A) Free B) Basic C) Pro D) None": "C",
    "How do I reset my password?": "Open Settings, choose Security, then Reset password.",
    "Give the status of order 42 as JSON": '{"order": 42, "status": "shipped"}',
}


def answer(question: str) -> str:
    """The agent's reply to one question."""
    return ANSWERS.get(question, "Sorry, I do not know.")
'''

STARTER_FILES = {"assay.yaml": _EVAL_FILE, "suite.jsonl": _SUITE, "agent.py": _AGENT}
"""Each starter file by name, with its text."""
