"""An evaluation run by one process ends with the summary it counted as its rows were written, and that
summary is the recount of the stored rows, figure for figure; on SQLite and PostgreSQL. A fractional score
makes the running count stand down (its sum's rounding would follow the order rows came in): the rows are
recounted."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from assay.services.evaluations.recount import RunningTally, recount
from assay.services.figures.summary_records import Summary
from assay.storage import evaluations as store
from assay.storage.database import create_db_engine
from assay.storage.evaluations import EvaluationRow
from tests.factories import make_suite, recorded, start, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer

LONG = "yes, " + "and the reasons at length " * 10
"""An answer long enough to be stored as a marker in its details (the row holds it already)."""
CASES = [(f"Is {n} odd?", "true" if n % 2 else "false") for n in range(12)]


def _tally_answers(monkeypatch: pytest.MonkeyPatch) -> list[Summary | None]:
    """What :meth:`RunningTally.summary_of` answers, in order (``None``: the rows were recounted)."""
    answers: list[Summary | None] = []
    real = RunningTally.summary_of

    def summary_of(self: RunningTally, row: EvaluationRow) -> Summary | None:
        answers.append(real(self, row))
        return answers[-1]

    monkeypatch.setattr(RunningTally, "summary_of", summary_of)
    return answers


def _stored_and_recounted(client: TestClient, database_url: str, evaluation_id: int) -> tuple[Any, Any]:
    """The summary stored with the evaluation, and a recount of its rows made now."""
    engine = create_db_engine(database_url)
    try:
        with Session(engine) as session:
            row = store.find_evaluation(session, evaluation_id)
            assert row is not None
            return row.summary, recount(session, row, client.app.state.scheduler.graders).as_dict()  # type: ignore[attr-defined]
    finally:
        engine.dispose()


def test_a_recorded_evaluation_ends_with_its_running_count_which_is_the_recount(
    client: TestClient, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = _tally_answers(monkeypatch)
    suite = make_suite(client, CASES)
    # right, wrong, unreadable, long (a details marker), and the last two cases without an answer (errors)
    given = ["no", "yes", "yes", "maybe", LONG, "no", "true", "false", "no", "nope"]
    evaluation_id = start(client, suite_id=suite["id"], target=recorded(given))["id"]
    final = wait_until_finished(client, evaluation_id)
    assert final["status"] == "completed"
    assert answers
    assert answers[-1] is not None
    stored, recounted = _stored_and_recounted(client, database_url, evaluation_id)
    assert stored == recounted
    assert (stored["finished"], stored["error_count"], stored["binary"]["total"]) == (12, 2, 10)


def test_an_agent_evaluation_with_usage_and_prices_ends_with_the_recount(
    client: TestClient, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = _tally_answers(monkeypatch)
    suite = make_suite(client, CASES)
    replies = {question: "yes" if n % 3 else "no" for n, (question, _) in enumerate(CASES)}
    prices = {"m": {"input_per_million": 1.25, "output_per_million": 3}}
    with AgentServer(AgentBehaviour(answers=replies, usage=True)) as agent:
        target = {"type": "http", "url": f"{agent.url}/answer", "max_attempts": 1}
        evaluation_id = start(client, suite_id=suite["id"], target=target, prices=prices)["id"]
        final = wait_until_finished(client, evaluation_id)
    assert final["status"] == "completed"
    assert answers
    assert answers[-1] is not None
    stored, recounted = _stored_and_recounted(client, database_url, evaluation_id)
    assert stored == recounted
    assert stored["usage"]["cases"] == 12
    assert stored["cost"] is not None
    assert stored["latency_ms"]["p50"] is not None


def test_fractional_scores_are_recounted(
    client: TestClient, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = _tally_answers(monkeypatch)
    suite = make_suite(client, [("q1", "the cat sat"), ("q2", "a dog ran"), ("q3", "sun")])
    given = ["the cat sat down", "a dog", "sun"]
    evaluation_id = start(client, suite_id=suite["id"], target=recorded(given), grader_id="fuzzy")["id"]
    assert wait_until_finished(client, evaluation_id)["status"] == "completed"
    assert answers
    assert answers[-1] is None
    stored, recounted = _stored_and_recounted(client, database_url, evaluation_id)
    assert stored == recounted
    assert 0 < stored["mean_score"] < 1
