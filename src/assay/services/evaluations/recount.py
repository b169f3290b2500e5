"""An evaluation's summary, always a recount of its stored results (never facts added up in memory).

A running evaluation's summary is recounted now and then by whichever of its shards wins the turn
(:func:`refresh_summary`), so that reading an evaluation costs one row whatever its size; at the end it
is recounted once more and stored with the final status (:func:`finish_evaluation`).
"""

from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from assay.domain import UNFINISHED, EvaluationStatus
from assay.errors import AssayError
from assay.graders import GraderInterface
from assay.services.evaluations.graders import EvaluationGraders
from assay.services.evaluations.records import count_rows
from assay.services.figures.cost import Prices, read_prices
from assay.services.figures.summary import ReportShape, Summary, SummaryTally
from assay.storage import evaluations as store
from assay.storage.database import retry_when_busy
from assay.storage.evaluations import EvaluationRow
from assay.storage.types import utc_now

REFRESH_MIN_S = 2.0
"""Least time between two recounts of a running evaluation's summary."""
REFRESH_COST_SHARE = 0.02
"""At most this share of time goes to recounting: a recount that took 1 s waits 50 s for the next (the
progress count, exact at every batch, is what moves on screen meanwhile)."""


def report_shape(row: EvaluationRow, graders: EvaluationGraders) -> ReportShape:
    """What the evaluation's report holds, as its grader declares it (a binary matrix, scores...): the
    grader as the evaluation configured it (an ``extract`` reports as the grader it wraps); pass/fail only
    when it can no longer be built (unregistered, or its package gone)."""
    try:
        return ReportShape.of(graders.of(row))
    except AssayError:
        return ReportShape.of(None)


def recount(session: Session, row: EvaluationRow, graders: EvaluationGraders) -> Summary:
    """The summary of everything stored for the evaluation, counted now."""
    tally = SummaryTally(report_shape(row, graders), repeats=row.repeats, prices=read_prices(row.prices))
    count_rows(store.summary_columns(session, row.id), tally)
    return tally.summary(row.total)


def first_summary(
    grader: GraderInterface, total_cases: int, *, repeats: int = 1, prices: Prices | None = None
) -> Summary:
    """The recount of a new evaluation, which has no result yet: stored with it when it is created, so that
    reading it before its first live recount costs one row, as at any other time."""
    return SummaryTally(ReportShape.of(grader), repeats=repeats, prices=prices).summary(total_cases)


class SummaryRefresher:
    """Recounts running evaluations' summaries in turn, each no more often than its last recount allows."""

    def __init__(self, engine: Engine, graders: EvaluationGraders) -> None:
        self._engine = engine
        self._graders = graders
        self._pause_s: dict[int, float] = {}

    def refresh(self, evaluation_id: int) -> None:
        """Recount and store the summary if this caller wins the turn (runs in a worker thread)."""
        pause = max(REFRESH_MIN_S, self._pause_s.get(evaluation_id, 0.0))
        with self._engine.begin() as connection:
            claimed = store.claim_summary_recount(
                connection, evaluation_id, older_than=utc_now() - timedelta(seconds=pause)
            )
        if not claimed:
            return
        started = time.perf_counter()
        with Session(self._engine) as session:
            row = store.find_evaluation(session, evaluation_id)
            if row is None or EvaluationStatus(row.status).is_terminal:
                self._pause_s.pop(evaluation_id, None)
                return
            summary = recount(session, row, self._graders)
            # Only while it runs: the final summary of an ended evaluation is never overwritten.
            store.store_live_summary(session, evaluation_id, summary.as_dict())
            session.commit()
        self._pause_s[evaluation_id] = (time.perf_counter() - started) / REFRESH_COST_SHARE


def finish_evaluation(
    engine: Engine,
    graders: EvaluationGraders,
    evaluation_id: int,
    status: EvaluationStatus,
    *,
    error: str | None = None,
) -> bool:
    """End an unfinished evaluation with ``status`` and a recount of its results; whether this call ended
    it (an evaluation already ended, by a cancel or another shard, keeps its status and summary)."""

    def write() -> bool:
        with Session(engine) as session:
            row = store.find_evaluation(session, evaluation_id)
            if row is None or EvaluationStatus(row.status).is_terminal:
                return False
            # Status first: the row lock it takes waits for batches being written, and none follow it.
            ended = store.set_status(
                session, evaluation_id, status, only_from=UNFINISHED, finished_at=utc_now(), error=error
            )
            if ended:
                session.flush()
                session.refresh(row)
                row.summary = recount(session, row, graders).as_dict()
            session.commit()
            return ended

    return retry_when_busy(write, what=f"evaluation {evaluation_id}: writing its final status")
