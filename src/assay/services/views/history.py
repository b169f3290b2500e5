"""A suite's history: the pass rate of each of its completed evaluations over time, with its Wilson 95 %
interval, and whether it changed from the run before.

A change is judged by the comparison's own rule (:func:`~assay.services.views.comparison.pair_tally`: the
paired test of the cases both runs finished: McNemar, or with repeats the sign-flip test on pass rates), so
the history and the compare page it links to never disagree: a drop within noise is ``steady`` on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from assay.domain import EvaluationStatus
from assay.errors import NotFoundError
from assay.services.evaluations.records import stored_summary
from assay.services.figures.statistics import PassRate, Shift, pass_rate
from assay.services.views.comparison import pair_tally
from assay.storage import evaluations as store
from assay.storage import result_groups
from assay.storage import suites as suite_store
from assay.storage.evaluations import EvaluationRow

__all__ = ["History", "HistoryPoint", "suite_history"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryPoint:
    """One completed evaluation of the suite."""

    evaluation_id: int
    name: str
    grader_id: str
    created_at: datetime
    finished_at: datetime | None
    pass_rate: PassRate
    previous_id: int | None
    """The completed evaluation before this one (of the same grader when the history is filtered)."""
    shift: Shift | None
    """Against the previous one by the paired test; ``None`` for the first, or when they share no case."""
    common_cases: int | None
    """Cases both this run and the previous one finished (what the paired test reads)."""
    p_value: float | None
    """The paired test's two-sided p-value."""


@dataclass(frozen=True, slots=True, kw_only=True)
class History:
    """A page of a suite's completed evaluations, oldest first, and how many there are in all."""

    suite_id: int
    points: list[HistoryPoint]
    total: int


def _pass_rates(session: Session, rows: list[EvaluationRow]) -> dict[int, PassRate]:
    """Each evaluation's pass rate: from its stored summary (the counts the run ended with), else counted
    by the database."""
    rates: dict[int, PassRate] = {}
    for row in rows:
        summary = stored_summary(row.summary)
        if summary is not None:
            rates[row.id] = pass_rate(summary.passed, summary.finished)
    missing = [row.id for row in rows if row.id not in rates]
    for evaluation_id, (passed, total) in result_groups.pass_counts(session, missing).items():
        rates[evaluation_id] = pass_rate(passed, total)
    return rates


def suite_history(
    session: Session, suite_id: int, *, skip: int, limit: int, grader_id: str | None = None
) -> History:
    """The suite's completed evaluations, ``limit`` of them from the ``skip``-th newest, oldest first.

    Each is marked against the completed evaluation before it (one more is read for the oldest).
    """
    if suite_store.find_suite(session, suite_id) is None:
        raise NotFoundError("Suite not found")
    rows, total = store.page_of_evaluations(
        session,
        skip=skip,
        limit=limit + 1,
        suite_id=suite_id,
        status=EvaluationStatus.COMPLETED.value,
        grader_id=grader_id,
    )
    chronological = list(reversed(rows))
    rates = _pass_rates(session, chronological)
    no_results = pass_rate(0, 0)
    points: list[HistoryPoint] = []
    for index, row in enumerate(chronological):
        previous = chronological[index - 1] if index else None
        if index == 0 and len(rows) > limit:
            continue  # the one before the page: read only to mark the page's oldest
        tally = pair_tally(session, previous, row) if previous is not None else None
        shared = tally is not None and tally.counts.common > 0
        points.append(
            HistoryPoint(
                evaluation_id=row.id,
                name=row.name,
                grader_id=row.grader_id,
                created_at=row.created_at,
                finished_at=row.finished_at,
                pass_rate=rates.get(row.id, no_results),
                previous_id=previous.id if previous is not None else None,
                shift=tally.figures.shift if tally is not None and shared else None,
                common_cases=tally.counts.common if tally is not None else None,
                p_value=tally.figures.p_value if tally is not None and shared else None,
            )
        )
    return History(suite_id=suite_id, points=points, total=total)
