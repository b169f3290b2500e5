"""Pages of a stored trajectory's steps: the case panel reads a long trajectory a page at a time."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from assay.errors import NotFoundError
from assay.services.execution.trajectories import TrajectoryFacts
from assay.storage import evaluations as store
from assay.storage import results as result_store
from assay.storage.trajectories import StepsPage, read_steps

MAX_PAGE_STEPS = 500


@dataclass(frozen=True, slots=True)
class TrajectoryPage:
    """A page of steps of one result's trajectory, with the trajectory's facts."""

    facts: TrajectoryFacts
    page: StepsPage


def trajectory_page(
    session: Session, evaluation_id: int, case_id: int, offset: int, limit: int, max_bytes: int
) -> TrajectoryPage:
    """Steps ``offset`` to ``offset + limit`` of the result's trajectory (fewer past ``max_bytes``);
    ``NotFoundError`` when the evaluation, its result for the case, or the result's trajectory is missing."""
    if store.find_evaluation(session, evaluation_id) is None:
        raise NotFoundError(f"Evaluation {evaluation_id} not found")
    row = result_store.results_of_cases(session, evaluation_id, [case_id]).get(case_id)
    if row is None:
        raise NotFoundError(f"Evaluation {evaluation_id} has no result for case {case_id}")
    facts = TrajectoryFacts.stored(row.trajectory_summary)
    if facts is None:
        raise NotFoundError(f"The result of case {case_id} has no stored trajectory")
    limit = min(limit, MAX_PAGE_STEPS)
    return TrajectoryPage(facts, read_steps(session, evaluation_id, case_id, offset, limit, max_bytes))
