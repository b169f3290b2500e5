"""The README's walk-through works as written: the example suites of examples/ run with their toy agent,
fail and pass where the README says, and compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke

EXAMPLES = Path(__file__).parents[2] / "examples"
ALIASES = json.dumps({"aliases": {"true": ["yes", "oui", "sí", "true"], "false": ["no", "non", "false"]}})


@pytest.fixture(autouse=True)
def in_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)


def test_the_walk_through(tmp_path: Path) -> None:
    base, head = tmp_path / "base.jsonl", tmp_path / "head.jsonl"
    first = invoke(
        "run", "capitals.jsonl", "--grader", "true-false", "--python", "agent:answer", "-o", str(base)
    )
    assert first.code == 1
    assert "invalid_response      2" in first.stderr
    second = invoke("run", "capitals.jsonl", "-g", "true-false", "--python", "agent:answer", "-o", str(head),
                    "--config", ALIASES)  # fmt: skip
    assert second.code == 0, second.stderr
    compared = invoke("compare", str(base), str(head))
    assert compared.code == 0
    assert "6 cases in both: both passed 4, both failed 0, pass -> fail 0, fail -> pass 2" in compared.stdout


def test_the_csv_suite_and_the_recorded_answers(tmp_path: Path) -> None:
    numeric = invoke("run", "arithmetic.csv", "-g", "numeric", "--python", "agent:answer")
    assert numeric.code == 0, numeric.stderr
    assert numeric.stdout == "4/4 passed\n"
    recorded = invoke("run", "capitals.jsonl", "-g", "true-false", "--responses", "capitals-answers.jsonl",
                      "--config", ALIASES)  # fmt: skip
    assert recorded.code == 1  # "Yes." is no boolean, and Toronto is not Canada's capital
    assert recorded.stdout == "4/6 passed\n"


@pytest.mark.parametrize("suite", ["support.jsonl", "support.csv"])
def test_the_mixed_kinds_suites_grade_each_case_by_its_own_assertions(suite: str) -> None:
    ran = invoke("run", suite, "-g", "contains", "--python", "agent:answer")
    assert ran.code == 0, ran.stderr
    assert "price       1 / 1   100.00%" in ran.stderr  # the per-assertion table: a number, a boolean...


def test_the_agent_speaks_each_questions_language() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("example_agent", EXAMPLES / "agent.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    answer = module.answer
    assert answer("Rome est-elle la capitale de l'Italie ?") == "oui"
    assert answer("¿Es Tokio la capital de Japón?") == "sí"
    assert answer("What is 2 ** 10?") == "1024"
