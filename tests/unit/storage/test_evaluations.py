"""Result inserts are idempotent: one row per (evaluation, case, repeat) whatever is written twice."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from assay.storage.database import create_db_engine, migrate
from assay.storage.evaluations import EvaluationRow, NewResult, ResultRow, count_results, write_results
from assay.storage.suites import SuiteRow
from assay.storage.types import utc_now


def row(case_id: int, repeat: int = 0) -> NewResult:
    return NewResult(
        case_id=case_id,
        repeat=repeat,
        position=case_id,
        case_key=None,
        input="q\x00",
        expected_output="true",
        agent_response="yes",
        passed=True,
        score=1.0,
        match_status="match",
        reason_code=None,
        details={"reason": "ok"},
        error=None,
        error_detail=None,
        latency_ms=1.0,
        judge_usage={"calls": [["judge-model", 3, 1]], "unknown_calls": 0} if repeat else None,
    )


def test_writing_a_batch_twice_stores_it_once(tmp_path: Path) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'a.db'}")
    migrate(engine)
    with Session(engine) as session:
        suite = SuiteRow(name="s", description="", created_at=utc_now(), updated_at=utc_now())
        session.add(suite)
        session.flush()
        evaluation = EvaluationRow(
            name="e",
            suite_id=suite.id,
            grader_id="true-false",
            grader_config={},
            grader_version="1",
            target={"type": "recorded"},
            concurrency=1,
            status="running",
            total=6,
            done=0,
            created_at=utc_now(),
        )
        session.add(evaluation)
        session.commit()
        evaluation_id = evaluation.id
    batches = ([row(1), row(2)], [row(2), row(3), row(2, 1)], [row(1), row(2, 1), row(3), row(1, 1)])
    inserted = []
    for batch in batches:
        with engine.begin() as connection:
            inserted.append(write_results(connection, evaluation_id, batch))
    assert inserted == [2, 2, 1]  # a (case, repeat) stored already is neither inserted nor counted
    with Session(engine) as session:
        assert count_results(session, evaluation_id) == 5
        stored = session.get(EvaluationRow, evaluation_id)
        assert stored is not None
        assert stored.done == 5
        again = session.query(ResultRow).filter_by(evaluation_id=evaluation_id, case_id=2, repeat=1).one()
        assert again.judge_usage == {"calls": [["judge-model", 3, 1]], "unknown_calls": 0}
        read = session.query(ResultRow).filter_by(evaluation_id=evaluation_id, case_id=2, repeat=0).one()
        # as the typed columns store and read them: NUL kept, details whole, defaults filled
        assert (read.input, read.details, read.passed, read.attempts, read.cached, read.judge_usage) == (
            "q\x00",
            {"reason": "ok"},
            True,
            1,
            False,
            None,
        )
    engine.dispose()


def test_a_new_result_names_every_column_of_the_table_in_order() -> None:
    """``write_results`` sends a :class:`NewResult` to the driver as it is: a column added to the table
    must be added to it, in place."""
    columns = [column.name for column in ResultRow.__table__.columns]
    assert ["id", "evaluation_id", *NewResult._fields] == columns
