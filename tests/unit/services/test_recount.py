"""The running tally stands for the recount only when it holds exactly the stored rows and its figures do
not depend on the order they came in (the recount against the database: tests/api/test_final_summary.py)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from assay.graders import TrueFalseGrader
from assay.services.evaluations.recount import RunningTally
from assay.storage.evaluations import EvaluationRow
from assay.storage.result_batches import NewResult

CREATED = datetime(2026, 11, 27, tzinfo=UTC)


def _row(*, done: int = 0, total: int = 3, repeats: int = 1, created_at: datetime = CREATED) -> EvaluationRow:
    return EvaluationRow(done=done, total=total, repeats=repeats, prices=None, created_at=created_at)


def _result(case_id: int, score: float | None = 1.0) -> NewResult:
    return NewResult(
        case_id=case_id,
        repeat=0,
        position=case_id - 1,
        case_key=None,
        input=f"q{case_id}",
        expected_output="true",
        agent_response="yes",
        passed=score == 1.0,
        score=score,
        match_status="match",
        reason_code=None,
        details={"expected_bool": "true", "actual_bool": "true"},
        error=None,
        error_detail=None,
        latency_ms=None,
    )


def test_a_tally_holding_every_stored_row_is_their_summary() -> None:
    tally = RunningTally.of(_row(), TrueFalseGrader())
    assert tally is not None
    tally.add([_result(1), _result(2, 0.0)])
    summary = tally.summary_of(_row(done=2))
    assert summary is not None
    assert (summary.finished, summary.passed, summary.total_cases) == (2, 1, 3)
    assert summary.binary is not None
    assert summary.binary.total == 2


def test_rows_another_process_stored_make_it_stand_down() -> None:
    tally = RunningTally.of(_row(), TrueFalseGrader())
    assert tally is not None
    tally.add([_result(1)])
    assert tally.summary_of(_row(done=2)) is None  # case 2 was stored, and counted, elsewhere


def test_another_evaluation_under_the_same_id_is_recounted() -> None:
    tally = RunningTally.of(_row(), TrueFalseGrader())
    assert tally is not None
    tally.add([_result(1)])
    assert tally.summary_of(_row(done=1)) is not None
    assert tally.summary_of(_row(done=1, created_at=CREATED + timedelta(seconds=1))) is None


@pytest.mark.parametrize("score", [0.5, math.nan, math.inf])
def test_a_score_that_is_no_whole_number_makes_it_stand_down(score: float) -> None:
    tally = RunningTally.of(_row(), TrueFalseGrader())
    assert tally is not None
    tally.add([_result(1), _result(2, score)])
    tally.add([_result(3)])
    assert tally.summary_of(_row(done=3)) is None


def test_no_tally_for_a_resumed_run_or_repeats() -> None:
    grader = TrueFalseGrader()
    assert RunningTally.of(_row(done=1), grader) is None  # its first rows were counted elsewhere
    assert RunningTally.of(_row(repeats=2), grader) is None  # pass@k's sums follow the cases' order
