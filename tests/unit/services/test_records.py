"""A result's row: every column from its own field (``result_columns`` builds it positionally, for speed),
and details stored without the long texts the row already holds, restored exactly."""

from __future__ import annotations

from assay.graders.trajectory.record import Trajectory
from assay.services.evaluations.records import SAME_AS, result_columns, stored_details
from assay.services.execution.case_results import CaseResult
from assay.targets.usage import JudgeSpend, Usage

LONG = "an answer long enough to be stored once, in its own column, " * 3


def _result(**fields: object) -> CaseResult:
    values: dict[str, object] = {
        "case_id": 7,
        "number": 3,
        "key": "k7",
        "input": "the input",
        "expected_output": "the expected",
        "agent_response": "the answer",
        "passed": True,
        "score": 0.75,
        "match_status": "match",
        "reason": "why",
        "reason_code": "the_code",
        "answer": None,
        "explanation": None,
        "details": {"reason": "why"},
        "error": "an_error",
        "error_detail": "its detail",
        "latency_ms": 12.5,
        "attempts": 2,
        "cached": True,
        "usage": Usage(11, 13, "m"),
        "repeat": 4,
        "judge": JudgeSpend((Usage(5, 6, "j"),), 1),
    }
    return CaseResult(**{**values, **fields})  # type: ignore[arg-type]


def test_every_column_comes_from_its_own_field() -> None:
    columns = result_columns(_result())._asdict()
    assert columns == {
        "case_id": 7,
        "repeat": 4,
        "position": 2,
        "case_key": "k7",
        "input": "the input",
        "expected_output": "the expected",
        "agent_response": "the answer",
        "passed": True,
        "score": 0.75,
        "match_status": "match",
        "reason_code": "the_code",
        "details": {"reason": "why"},
        "error": "an_error",
        "error_detail": "its detail",
        "latency_ms": 12.5,
        "attempts": 2,
        "cached": True,
        "input_tokens": 11,
        "output_tokens": 13,
        "usage_model": "m",
        "trajectory_summary": None,
        "judge_usage": JudgeSpend((Usage(5, 6, "j"),), 1).as_record(),
    }


def test_a_result_without_usage_judge_or_trajectory_stores_none_for_them() -> None:
    columns = result_columns(_result(usage=None, judge=None, trajectory=None))
    assert (columns.input_tokens, columns.output_tokens, columns.usage_model) == (None, None, None)
    assert (columns.trajectory_summary, columns.judge_usage) == (None, None)


def test_a_read_trajectory_stores_its_summary() -> None:
    columns = result_columns(_result(trajectory=Trajectory(steps=(), dialect="chat")))
    assert columns.trajectory_summary is not None


def test_long_texts_the_row_holds_are_markers_in_its_details() -> None:
    result = _result(agent_response=LONG, input=LONG + "?")
    details = {"actual": LONG, "short": "yes", "other": LONG + "!", "asked": LONG + "?"}
    assert stored_details(details, result) == {
        "actual": {SAME_AS: "agent_response"},
        "short": "yes",
        "other": LONG + "!",  # long, but no column holds it
        "asked": {SAME_AS: "input"},
    }
    short = {"actual": "yes"}
    assert stored_details(short, result) is short  # nothing long: stored as it is, no copy
