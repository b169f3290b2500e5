"""An evaluation's summary, always the recount of its stored results.

A running evaluation's summary is recounted now and then by whichever of its shards wins the turn
(:class:`SummaryRefresher`), so that reading an evaluation costs one row whatever its size; at the end it
is recounted once more and stored with the final status (:func:`finish_evaluation`). A process that stored
every row itself has counted them as they were written (:class:`RunningTally`): then the rows are not read
back, since that count is the recount, figure for figure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from assay.domain import UNFINISHED, EvaluationStatus
from assay.errors import AssayError
from assay.graders import GraderInterface
from assay.services.evaluations.graders import EvaluationGraders
from assay.services.evaluations.records import count_new_rows, count_rows
from assay.services.figures.cost import Prices, read_prices
from assay.services.figures.summary import ReportShape, SummaryTally
from assay.services.figures.summary_records import Summary
from assay.storage import evaluations as store
from assay.storage import results as result_store
from assay.storage.database import retry_when_busy
from assay.storage.evaluations import EvaluationRow
from assay.storage.result_batches import NewResult
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
    count_rows(result_store.summary_columns(session, row.id), tally)
    return tally.summary(row.total)


def first_summary(
    grader: GraderInterface, total_cases: int, *, repeats: int = 1, prices: Prices | None = None
) -> Summary:
    """The recount of a new evaluation, which has no result yet: stored with it when it is created, so that
    reading it before its first live recount costs one row, as at any other time."""
    return SummaryTally(ReportShape.of(grader), repeats=repeats, prices=prices).summary(total_cases)


class RunningTally:
    """The summary of the rows one process stores for an evaluation, counted as each batch commits.

    It stands for the recount only when it counted exactly the stored rows (:meth:`summary_of`: as many as
    the evaluation's ``done``, which every insert adds to in its transaction) and its figures cannot depend
    on the order rows came in: every score a whole number (a fractional one makes the score sum's rounding
    depend on the order; the recount's reads have none). Its rows are counted as stored (details without the
    texts the row holds), the recount's own input before the database's round trip.
    """

    def __init__(self, shape: ReportShape, prices: Prices | None, created_at: datetime) -> None:
        self._tally = SummaryTally(shape, prices=prices)
        self._created_at = created_at  # an id names another evaluation once this one is deleted
        self._exact = True
        self._lock = threading.Lock()  # a worker's lanes of one evaluation write from several threads

    @classmethod
    def of(cls, row: EvaluationRow, grader: GraderInterface) -> RunningTally | None:
        """A tally for an evaluation about to run here; none when it already has results (they were counted
        elsewhere) or asks each case more than once (pass@k's sums follow the order cases come in)."""
        if row.done or row.repeats != 1:
            return None
        return cls(ReportShape.of(grader), read_prices(row.prices), row.created_at)

    def add(self, rows: Sequence[NewResult]) -> None:
        """Count rows just stored (after their transaction committed)."""
        with self._lock:
            if not self._exact:
                return
            if any(row.score is not None and row.score % 1 for row in rows):  # NaN and infinities too
                self._exact = False
                return
            count_new_rows(rows, self._tally)

    def summary_of(self, row: EvaluationRow) -> Summary | None:
        """The recount of the evaluation ``row`` (read in the caller's transaction) if this tally holds
        exactly its stored rows, else ``None``."""
        with self._lock:
            if not self._exact or self._tally.finished != row.done or row.created_at != self._created_at:
                return None
            return self._tally.summary(row.total)


class SummaryRefresher:
    """Recounts running evaluations' summaries in turn, each no more often than its last recount allows."""

    def __init__(self, engine: Engine, graders: EvaluationGraders) -> None:
        self._engine = engine
        self._graders = graders
        self._pause_s: dict[int, float] = {}

    def refresh(self, evaluation_id: int, tally: RunningTally | None = None) -> None:
        """Recount and store the summary if this caller wins the turn (runs in a worker thread); from
        ``tally`` when it holds every stored row."""
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
            summary = counted(session, row, self._graders, tally)
            # Only while it runs: the final summary of an ended evaluation is never overwritten.
            store.store_live_summary(session, evaluation_id, summary.as_dict())
            session.commit()
        self._pause_s[evaluation_id] = (time.perf_counter() - started) / REFRESH_COST_SHARE


def counted(
    session: Session, row: EvaluationRow, graders: EvaluationGraders, tally: RunningTally | None
) -> Summary:
    """The recount of the evaluation: ``tally``'s when it holds every stored row, else read now."""
    summary = tally.summary_of(row) if tally is not None else None
    return summary if summary is not None else recount(session, row, graders)


def finish_evaluation(
    engine: Engine,
    graders: EvaluationGraders,
    evaluation_id: int,
    status: EvaluationStatus,
    *,
    error: str | None = None,
    tally: RunningTally | None = None,
) -> bool:
    """End an unfinished evaluation with ``status`` and a recount of its results (``tally``'s, when it holds
    them all); whether this call ended it (an evaluation already ended, by a cancel or another shard, keeps
    its status and summary)."""

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
                row.summary = counted(session, row, graders, tally).as_dict()
            session.commit()
            return ended

    return retry_when_busy(write, what=f"evaluation {evaluation_id}: writing its final status")
