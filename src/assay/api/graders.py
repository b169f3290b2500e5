"""Grader routes: list and describe the registered graders, grade with them, check configs (003, D16, D17)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from assay.api.deps import GraderServiceDep, PaginationDep
from assay.api.envelope import ERROR_RESPONSES, Envelope, ok
from assay.api.schemas.graders import (
    ConfigProblemOut,
    GradeBatchRequest,
    GradeBatchResult,
    GradeOutcome,
    GraderDetail,
    GradeRequest,
    GradeResult,
    GraderList,
    GraderSpecOut,
    GraderSummary,
    ValidateRequest,
    ValidationResult,
)
from assay.graders import GraderInterface

router = APIRouter(prefix="/api/graders", tags=["graders"], responses=ERROR_RESPONSES)

GraderId = Annotated[str, Path(description="Grader id, e.g. string-match", max_length=200)]


def _summary(grader: GraderInterface) -> GraderSummary:
    return GraderSummary.model_validate({k: v for k, v in grader.metadata().items() if k != "scoring_guide"})


def _spec(grader: GraderInterface) -> GraderSpecOut:
    return GraderSpecOut(grader_id=grader.grader_id, config=grader.config, version=grader.version)


@router.get("", summary="List graders")
async def list_graders(graders: GraderServiceDep, page: PaginationDep) -> Envelope[GraderList]:
    """Every registered grader, a page at a time."""
    registered = graders.list()
    chosen = [_summary(grader) for grader in registered[page.skip : page.skip + page.limit]]
    return ok(GraderList(graders=chosen, count=len(chosen), total=len(registered)))


@router.get("/{grader_id}", summary="Describe a grader")
async def get_grader(grader_id: GraderId, graders: GraderServiceDep) -> Envelope[GraderDetail]:
    """One grader with its config schema and scoring guide; 404 ``NOT_FOUND`` for an unknown id."""
    return ok(GraderDetail.model_validate(graders.get(grader_id).metadata()))


def _outcome(result: dict[str, Any]) -> GradeOutcome:
    return GradeOutcome(passed=result["passed"], score=result["score"], details=result["details"])


@router.post("/{grader_id}/grade", summary="Grade one answer")
async def grade(grader_id: GraderId, body: GradeRequest, graders: GraderServiceDep) -> Envelope[GradeResult]:
    """Grade one answer (a playground); a bad config is ``VALIDATION_ERROR`` listing each problem."""
    grader = graders.build(grader_id, body.config)
    result = grader.grade(body.agent_response, body.expected_output)
    return ok(GradeResult(**_outcome(result).model_dump(), grader=_spec(grader)))


@router.post("/{grader_id}/grade-batch", summary="Grade many answers with one config")
def grade_batch(
    grader_id: GraderId, body: GradeBatchRequest, graders: GraderServiceDep
) -> Envelope[GradeBatchResult]:
    """Grade up to 10,000 answers in order (run in a worker thread: a big batch takes a while)."""
    grader = graders.build(grader_id, body.config)
    outcomes = [_outcome(grader.grade(item.agent_response, item.expected_output)) for item in body.items]
    passed = sum(outcome.passed for outcome in outcomes)
    return ok(
        GradeBatchResult(
            grader=_spec(grader),
            results=outcomes,
            count=len(outcomes),
            passed=passed,
            pass_rate=passed / len(outcomes),
        )
    )


@router.post("/{grader_id}/validate", summary="Check a grader config")
async def validate(
    grader_id: GraderId, body: ValidateRequest, graders: GraderServiceDep
) -> Envelope[ValidationResult]:
    """Every problem of a config, without grading; 200 whether or not it is valid."""
    grader = graders.get(grader_id)
    problems = [
        ConfigProblemOut(path=problem.path, message=problem.message)
        for problem in type(grader).config_problems(body.config)
    ]
    return ok(ValidationResult(valid=not problems, problems=problems))
