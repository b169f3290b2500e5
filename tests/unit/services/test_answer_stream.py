"""Recorded answers handed out in case order: held in memory from the check, or read again past the budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.services.local_run import answer_stream
from assay.services.local_run.answer_stream import AnswerFile
from assay.services.local_run.suite_stream import SuiteFile


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _answers_by_case(
    tmp_path: Path, cases: list[dict[str, object]], answers: list[dict[str, object]]
) -> dict:
    suite = SuiteFile(_write(tmp_path / "suite.jsonl", cases))
    facts, _ = suite.scan(preflight=None)
    recorded = AnswerFile(_write(tmp_path / "answers.jsonl", answers), facts)
    recorded.check()
    try:
        pending = recorded.in_case_order()
        answer = next(pending, None)
        seen: dict[int, str | None] = {}
        for case in suite.cases():
            if answer is not None and answer.answers(case.target_case):
                seen[case.target_case.place] = answer.text
                answer = next(pending, None)
        return seen
    finally:
        recorded.close()
        if facts.keys is not None:
            facts.keys.close()


CASES = [{"id": f"c{n}", "input": f"q{n}", "expected_output": "true"} for n in range(1, 6)]
KEYED_SHUFFLED = [{"key": f"c{n}", "agent_response": f"a{n}"} for n in (3, 1, 5, 2)]  # c4 unanswered
BY_ROW = [{"agent_response": f"a{n}"} for n in range(1, 6)]
NUMBERED = [{"number": 2, "agent_response": None}, {"number": 1, "agent_response": 7}]


@pytest.mark.parametrize(
    ("cases", "answers", "expected"),
    [
        (CASES, KEYED_SHUFFLED, {1: "a1", 2: "a2", 3: "a3", 5: "a5"}),
        ([{"input": "q", "expected_output": "true"}] * 5, BY_ROW, {n: f"a{n}" for n in range(1, 6)}),
        ([{"input": "q", "expected_output": "true"}] * 3, NUMBERED, {1: "7", 2: None}),
    ],
    ids=["keyed, out of order, one case unanswered", "by row", "by number, null and number answers"],
)
@pytest.mark.parametrize("budget", [answer_stream.HELD_ANSWER_CHARS, 0], ids=["held", "read again"])
def test_each_case_gets_its_answer_whether_held_or_read_again(
    cases: list[dict[str, object]],
    answers: list[dict[str, object]],
    expected: dict[int, str | None],
    budget: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(answer_stream, "HELD_ANSWER_CHARS", budget)
    assert _answers_by_case(tmp_path, cases, answers) == expected
