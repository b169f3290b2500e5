"""Grader routes: list and describe the registered graders, grade with them, check configs.

The settled rules they keep: docs/decisions.md#listing-graders and docs/decisions.md#grading-one-answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any
from weakref import WeakKeyDictionary

from anyio import CapacityLimiter, to_thread
from fastapi import Path, Request, Response

from assay.api.bodies import GRADE_ON_LOOP_MAX_BYTES, DirectBodyRoute, ThreadedBodyRoute, body_bytes
from assay.api.deps import DEFAULT_LIMIT, GraderServiceDep, Limit, Skip
from assay.api.envelope import Envelope, ok, rendered
from assay.api.query_defaults import QueryDefaultsRoute
from assay.api.rendering import SafeJSONResponse, json_bytes
from assay.api.routers import api_router
from assay.api.schemas.common import ProblemOut
from assay.api.schemas.graders import (
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
from assay.errors import Problem, ValidationError
from assay.graders import CallTransport, GraderInterface
from assay.graders import GradeResult as Grading
from assay.graders.contract.catalog import is_builtin
from assay.services.grading.answers import check_calls, grade_answer, grade_answers, needs_calls
from assay.services.grading.registry import GraderService

router = api_router(prefix="/api/graders", tags=["graders"], route_class=ThreadedBodyRoute)

GraderId = Annotated[str, Path(description="Grader id, e.g. string-match", max_length=200)]
MAX_CALLING_BATCH = 100
"""Answers per batch for a grader that makes an outbound call for each (a model judge)."""
CALLING_BATCH_CONCURRENCY = 8


@dataclass(frozen=True, slots=True)
class _Catalog:
    """What the grader routes answer from, made once per registry change (graders are immutable): every
    grader's listing entry and detail as JSON, the rendered pages of the listing asked for, and each default
    grader's spec as a grade reply echoes it."""

    generation: int
    summaries: list[dict[str, Any]]
    details: dict[str, dict[str, Any]]
    defaults: dict[str, tuple[GraderInterface, dict[str, Any]]]
    """Each grader's default instance and its spec's JSON."""
    pages: dict[tuple[int, int], bytes] = field(default_factory=dict)
    """The listing's envelope as sent, by ``(skip, limit)``: at most ``MAX_CACHED_PAGES``."""


MAX_CACHED_PAGES = 64
_catalogs: WeakKeyDictionary[GraderService, _Catalog] = WeakKeyDictionary()


def _catalog(graders: GraderService) -> _Catalog:
    # Describing a grader deep-copies its schema; doing it once per registry change, not per request, is most
    # of a listing's cost.
    catalog = _catalogs.get(graders)
    generation = graders.generation
    if catalog is None or catalog.generation != generation:
        registered = graders.list()
        details = {
            g.grader_id: GraderDetail.model_validate(g.metadata()).model_dump(mode="json") for g in registered
        }
        summaries = [
            GraderSummary.model_validate(detail).model_dump(mode="json") for detail in details.values()
        ]
        defaults = {g.grader_id: (g, _spec(g).model_dump(mode="json")) for g in registered}
        catalog = _catalogs[graders] = _Catalog(generation, summaries, details, defaults)
    return catalog


def _envelope(data: object) -> SafeJSONResponse:
    return SafeJSONResponse({"success": True, "data": data, "error": None})


def _spec(grader: GraderInterface) -> GraderSpecOut:
    return GraderSpecOut.model_validate(GraderService.spec(grader), from_attributes=True)


# The two GETs are the hot path: they answer from the prebuilt catalog, bypassing response-model
# validation (the catalog was validated against the same schemas when built; ``response_model`` still
# documents them), and take the registry from the app state rather than through a dependency.
async def list_graders(request: Request, limit: Limit = DEFAULT_LIMIT, skip: Skip = 0) -> Response:
    """Every registered grader, a page at a time."""
    catalog = _catalog(request.app.state.grader_service)
    page = catalog.pages.get((skip, limit))
    if page is None:
        chosen = catalog.summaries[skip : skip + limit]
        page = json_bytes(
            {
                "success": True,
                "data": {"graders": chosen, "count": len(chosen), "total": len(catalog.summaries)},
                "error": None,
            }
        )
        if len(catalog.pages) < MAX_CACHED_PAGES:
            catalog.pages[skip, limit] = page
    return Response(page, media_type="application/json")


# Answered without solving its parameters when the request has none (assay.api.query_defaults).
router.add_api_route(
    "",
    list_graders,
    methods=["GET"],
    summary="List graders",
    response_model=Envelope[GraderList],
    route_class_override=QueryDefaultsRoute,
)


@router.get("/{grader_id}", summary="Describe a grader", response_model=Envelope[GraderDetail])
async def get_grader(grader_id: GraderId, request: Request) -> Response:
    """One grader with its config schema and scoring guide; 404 ``NOT_FOUND`` for an unknown id."""
    graders: GraderService = request.app.state.grader_service
    detail = _catalog(graders).details.get(grader_id)
    if detail is None:
        graders.get(grader_id)  # raises the registry's own NotFoundError
    return _envelope(detail)


def _outcome(result: Grading) -> GradeOutcome:
    return GradeOutcome(passed=result["passed"], score=result["score"], details=result["details"])


def _calls(request: Request, grader: GraderInterface) -> CallTransport:
    """The app's transport for a grader that calls out (a model judge), its endpoint checked first under the
    targets' policy: a key that is not available or a refused URL is ``VALIDATION_ERROR``, as for a target."""
    check_calls(grader, request.app.state.scheduler.target_policy)
    calls: CallTransport = request.app.state.grader_calls
    return calls


def _threads(request: Request, grader: GraderInterface) -> CapacityLimiter | None:
    """Where a grader grades: a CPU-heavy one (semantic) on the threads kept for slow work, so that batches
    of it never hold the threads listings and quick grading need; others on the common ones (``None``)."""
    limiter: CapacityLimiter | None = request.app.state.slow_work if grader.cpu_bound else None
    return limiter


# Grading and config checks are CPU work. A small request is answered on the event loop: building the grader,
# grading and rendering cost less than a hop to a worker thread. A large one (its body past
# GRADE_ON_LOOP_MAX_BYTES: long texts or a big config, echoed in the reply) and a ``cpu_bound`` grader (an
# embedding model, on the threads kept for slow work) run on a worker thread, so that they never hold the
# loop (health checks, live evaluations); which, is decided before any hop. A grader that calls out (a model
# judge) waits for its reply on the loop: a worker thread must not be held for the length of a model's answer.
async def grade(grader_id: GraderId, body: GradeRequest, request: Request) -> Response:
    """Grade one answer (a playground); a bad config is ``VALIDATION_ERROR`` listing each problem. A model
    judge is asked through the server's egress policy, its key read by name (``ASSAY_SECRET_*``...)."""
    graders: GraderService = request.app.state.grader_service
    catalog = _catalog(graders)
    if body_bytes(request) >= GRADE_ON_LOOP_MAX_BYTES:
        grader = await to_thread.run_sync(graders.build, grader_id, body.config)
        if not needs_calls(grader):
            return await to_thread.run_sync(
                _graded_reply, grader, body, catalog, limiter=_threads(request, grader)
            )
        result = await grade_answer(
            grader, body.agent_response, body.expected_output, _calls(request, grader)
        )
        return await to_thread.run_sync(_reply, grader, result, catalog)
    grader = graders.build(grader_id, body.config)
    if needs_calls(grader):
        result = await grade_answer(
            grader, body.agent_response, body.expected_output, _calls(request, grader)
        )
        return _reply(grader, result, catalog)
    if grader.cpu_bound:
        return await to_thread.run_sync(
            _graded_reply, grader, body, catalog, limiter=_threads(request, grader)
        )
    return _graded_reply(grader, body, catalog)


# A small valid request calls ``grade`` without FastAPI's parameter solving (bodies.DirectBodyRoute).
router.add_api_route(
    "/{grader_id}/grade",
    grade,
    methods=["POST"],
    summary="Grade one answer",
    response_model=Envelope[GradeResult],
    route_class_override=DirectBodyRoute,
)


def _graded_reply(grader: GraderInterface, body: GradeRequest, catalog: _Catalog) -> Response:
    return _reply(grader, grader.grade(body.agent_response, body.expected_output), catalog)


def _reply(grader: GraderInterface, result: Grading, catalog: _Catalog) -> Response:
    default = catalog.defaults.get(grader.grader_id)
    if default is not None and default[0] is grader and is_builtin(type(grader)):
        # A built-in default grader, the common case: its spec's JSON was made with the catalog, and its
        # verdict is sent as it is (the contract tests check every built-in's: a bool, a score in [0, 1],
        # details of JSON values), where a model would be built, checked and dumped twice per answer.
        data = {
            "passed": result["passed"],
            "score": float(result["score"]),
            "details": result["details"],
            "grader": default[1],
        }
        return _envelope(data)
    # The reply echoes the effective config (copied), which can be as large as the request.
    return rendered(GradeResult(**_outcome(result).model_dump(), grader=_spec(grader)))


@router.post(
    "/{grader_id}/grade-batch",
    summary="Grade many answers with one config",
    response_model=Envelope[GradeBatchResult],
)
async def grade_batch(
    grader_id: GraderId, body: GradeBatchRequest, graders: GraderServiceDep, request: Request
) -> Response:
    """Grade up to 10,000 answers in order (up to 100 with a grader that calls out, a model judge)."""
    grader = await to_thread.run_sync(graders.build, grader_id, body.config)
    if needs_calls(grader):
        if len(body.items) > MAX_CALLING_BATCH:
            message = (
                f"at most {MAX_CALLING_BATCH} answers per batch for grader '{grader_id}', which makes "
                f"an outbound call for each (got {len(body.items)}); run an evaluation for more"
            )
            raise ValidationError.of(Problem(("items",), message))
        pairs = [(item.agent_response, item.expected_output) for item in body.items]
        results = await grade_answers(
            grader, pairs, _calls(request, grader), concurrency=CALLING_BATCH_CONCURRENCY
        )
    else:
        results = await to_thread.run_sync(
            lambda: [grader.grade(item.agent_response, item.expected_output) for item in body.items],
            limiter=_threads(request, grader),
        )
    return await to_thread.run_sync(_batch_reply, grader, results)


def _batch_reply(grader: GraderInterface, results: list[Grading]) -> Response:
    outcomes = [_outcome(result) for result in results]
    passed = sum(outcome.passed for outcome in outcomes)
    return rendered(
        GradeBatchResult(
            grader=_spec(grader),
            results=outcomes,
            count=len(outcomes),
            passed=passed,
            pass_rate=passed / len(outcomes),
        )
    )


@router.post("/{grader_id}/validate", summary="Check a grader config")
def validate(
    grader_id: GraderId, body: ValidateRequest, graders: GraderServiceDep
) -> Envelope[ValidationResult]:
    """Every problem of a config, without grading; 200 whether or not it is valid."""
    problems = [ProblemOut.of(problem) for problem in graders.problems(grader_id, body.config)]
    return ok(ValidationResult(valid=not problems, problems=problems))
