"""The pytest plugin on the example agent (docs/ci.md#the-pytest-plugin): each case of ../capitals.jsonl is a
test item, and the gate decides the session. Run from the repository's root:

    pytest examples/pytest -p assay.pytest_plugin    # (the plugin loads by itself once Assay is installed)

The first test grades with true-false as it is: the agent's "oui" and "sí" are not read (2 of 6 cases fail),
which the gate of 60 % tolerates, so those two are reported xfailed and the session passes. The second
teaches the grader those words and asks for every case. The third runs ../assay.yaml (what `assay eval` runs
in examples/): both suites, the arithmetic picked out for the numeric grader by a rule on its metadata, and
the file's gates (70 % overall, every English case, every number) judging the aggregate.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # the toy agent of examples/

from agent import answer

ALIASES = {"aliases": {"true": ["yes", "oui", "sí", "true"], "false": ["no", "non", "false"]}}


@pytest.mark.assay(suite="../capitals.jsonl", grader="true-false", min_pass_rate=0.6)
def test_capitals(question: str) -> str:
    return answer(question)


@pytest.mark.assay(suite="../capitals.jsonl", grader="true-false", config=ALIASES)
def test_capitals_in_every_language(question: str) -> str:
    return answer(question)


@pytest.mark.assay(eval_file="../assay.yaml")
def test_the_examples_eval(question: str) -> str:
    return answer(question)
