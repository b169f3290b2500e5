"""Re-grading: a new evaluation that grades the replies a finished one stored, without calling the agent."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from assay.domain import EvaluationStatus
from assay.errors import Problem, ValidationError
from assay.storage import evaluations as store
from assay.targets import EvaluationTargetSpec, TargetReply


def check_source(session: Session, spec: EvaluationTargetSpec, suite_id: int) -> None:
    """Refuse a source that does not exist, has not finished, or evaluated another suite."""
    source = store.find_evaluation(session, spec.evaluation_id)
    problem = None
    if source is None:
        problem = f"evaluation {spec.evaluation_id} does not exist"
    elif not EvaluationStatus(source.status).is_terminal:
        problem = f"evaluation {spec.evaluation_id} is {source.status}; wait until it ends"
    elif source.suite_id != suite_id:
        problem = f"evaluation {spec.evaluation_id} ran suite {source.suite_id}, not suite {suite_id}"
    if problem is not None:
        raise ValidationError.of(Problem(("target", "evaluation", "evaluation_id"), problem))


def stored_replies(
    session: Session, evaluation_id: int, case_ids: Sequence[int] | None = None
) -> dict[int, TargetReply]:
    """Each case's stored reply (of ``case_ids`` only, when given), by case id: the answer, or the target's
    error with its detail (it stays an error). An error its grader gave (a model judge that failed) is no
    error of the reply: the answer is graded again."""
    return {
        case_id: TargetReply(
            response,
            error=None if graded else error,
            error_detail=None if graded else detail,
            latency_ms=latency,
            attempts=attempts,
        )
        for case_id, response, error, detail, latency, attempts, graded in store.replies_by_case(
            session, evaluation_id, case_ids
        )
    }
