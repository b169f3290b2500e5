"""Result inserts are idempotent: one row per (evaluation, case, repeat) whatever is written twice; a shard
reads the cases (and repeats) that have no result yet."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from assay.storage.database import create_db_engine, migrate
from assay.storage.evaluations import EvaluationRow, PendingCase, ResultRow, cases_without_result
from assay.storage.result_batches import NewResult, write_results
from assay.storage.results import count_results
from assay.storage.suites import CaseRow, SuiteRow
from assay.storage.types import utc_now

CONVERSATION = {"messages": [{"role": "user", "content": "hi"}]}


def row(case_id: int, repeat: int = 0) -> NewResult:
    return NewResult(
        case_id=case_id,
        repeat=repeat,
        position=case_id - 1,
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


def _evaluation(engine: Engine, total: int) -> tuple[int, int]:
    """A running evaluation of a new suite of cases 1, 2 and 3 (ids 1-3 at positions 0-2; case 2 has
    assertions, case 3 a conversation): its id and its suite's."""
    with Session(engine) as session:
        suite = SuiteRow(name="s", description="", created_at=utc_now(), updated_at=utc_now())
        session.add(suite)
        session.flush()
        for case_id in (1, 2, 3):
            session.add(
                CaseRow(
                    id=case_id,
                    suite_id=suite.id,
                    position=case_id - 1,
                    input=f"q{case_id}",
                    expected_output="true",
                    case_metadata={"n": case_id},
                    case_key=f"k{case_id}",
                    assertions={"threshold": 1.0} if case_id == 2 else None,
                    conversation=CONVERSATION if case_id == 3 else None,
                )
            )
        evaluation = EvaluationRow(
            name="e",
            suite_id=suite.id,
            grader_id="true-false",
            grader_config={},
            grader_version="1",
            target={"type": "recorded"},
            concurrency=1,
            status="running",
            total=total,
            done=0,
            created_at=utc_now(),
        )
        session.add(evaluation)
        session.commit()
        return evaluation.id, suite.id


def test_writing_a_batch_twice_stores_it_once(tmp_path: Path) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'a.db'}")
    migrate(engine)
    evaluation_id, _ = _evaluation(engine, total=6)
    batches = (
        [row(1), row(2)],
        [row(2), row(3), row(2, 1)],
        [row(1), row(2, 1), row(3), row(1, 1), row(1, 1)],
    )
    inserted = []
    for batch in batches:
        with engine.begin() as connection:
            written = write_results(connection, evaluation_id, batch)
            assert written is not None
            inserted.append([(row.case_id, row.repeat) for row in written])
    # a (case, repeat) stored already is neither inserted nor counted
    assert inserted == [[(1, 0), (2, 0)], [(3, 0), (2, 1)], [(1, 1)]]
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


def test_pending_cases_carry_what_a_run_reads_and_the_repeats_they_lack(tmp_path: Path) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'a.db'}")
    migrate(engine)
    evaluation_id, suite_id = _evaluation(engine, total=6)
    with engine.begin() as connection:
        write_results(connection, evaluation_id, [row(1), row(3)])
    with Session(engine) as session:
        once = cases_without_result(session, evaluation_id, suite_id)
        assert once == [PendingCase(2, 2, "q2", "true", {"n": 2}, "k2", {"threshold": 1.0}, None, (0,))]
    with engine.begin() as connection:
        write_results(connection, evaluation_id, [row(2, 1), row(3, 1)])
    with Session(engine) as session:
        twice = cases_without_result(session, evaluation_id, suite_id, repeats=2)
        assert [(case.id, case.number, case.repeats) for case in twice] == [(1, 1, (1,)), (2, 2, (0,))]
        assert cases_without_result(session, evaluation_id, suite_id, (1, 3), repeats=3) == [
            PendingCase(2, 2, "q2", "true", {"n": 2}, "k2", {"threshold": 1.0}, None, (0, 2)),
            PendingCase(3, 3, "q3", "true", {"n": 3}, "k3", None, CONVERSATION, (2,)),
        ]
    engine.dispose()


def test_a_new_result_names_every_column_of_the_table_in_order() -> None:
    """``write_results`` sends a :class:`NewResult` to the driver as it is: a column added to the table
    must be added to it, in place."""
    columns = [column.name for column in ResultRow.__table__.columns]
    assert ["id", "evaluation_id", *NewResult._fields] == columns
