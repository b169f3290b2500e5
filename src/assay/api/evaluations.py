"""Evaluation routes: create and run, list, read, cancel, delete, results, exports, comparison."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from anyio import to_thread
from fastapi import Depends, Path, Query, Request, Response, status

from assay.api.bodies import ThreadedBodyRoute
from assay.api.deps import MAX_ID, NO_NUL, GraderServiceDep, PaginationDep, SessionDep, SettingsDep
from assay.api.downloads import download, file_stem
from assay.api.envelope import Envelope, ok, rendered
from assay.api.routers import api_router
from assay.api.schemas.breakdown import BreakdownOut, FailureGroupsOut, MetadataKeyList, MetadataKeyOut
from assay.api.schemas.evals import EvalFileOut
from assay.api.schemas.evaluations import (
    ComparisonOut,
    EvaluationCreate,
    EvaluationList,
    EvaluationOut,
    EvaluationPatch,
    EvaluationRerun,
    TargetTrialIn,
    TargetTrialOut,
)
from assay.api.schemas.results import ResultDetailOut, ResultList, ResultOut
from assay.api.schemas.suites import Deleted
from assay.domain import EvaluationStatus, Outcome, ResultSort
from assay.graders import MatchStatus
from assay.graders.contract.verdict import MAX_REASON_CODE_LENGTH
from assay.services.evaluations.scheduling import Scheduler
from assay.services.evaluations.service import EvaluationService, ResultQuery
from assay.services.views.breakdown import breakdown, default_key, failure_groups, metadata_keys
from assay.services.views.comparison import Flip, compare
from assay.services.views.result_export import csv_lines, jsonl_lines

router = api_router(prefix="/api/evaluations", tags=["evaluations"], route_class=ThreadedBodyRoute)

CREATE_PATH = "/api/evaluations"
EvaluationId = Annotated[int, Path(ge=1, le=MAX_ID, description="Evaluation id")]


def get_evaluation_service(
    request: Request, session: SessionDep, graders: GraderServiceDep
) -> EvaluationService:
    """Evaluation use cases on this request's session, with the app's scheduler."""
    scheduler: Scheduler = request.app.state.scheduler
    settings = request.app.state.settings
    return EvaluationService(
        session, graders, scheduler, max_page_bytes=settings.max_results_page_bytes, prices=settings.prices
    )


EvaluationServiceDep = Annotated[EvaluationService, Depends(get_evaluation_service)]


class ExportFormat(StrEnum):
    """Formats results can be exported to."""

    JSONL = "jsonl"
    CSV = "csv"


class ResultOrder(StrEnum):
    """The ``sort`` of a results listing: a :class:`ResultSort`, descending with a leading ``-`` (an enum in
    the OpenAPI document, so that the UI's choices are the schema's)."""

    NUMBER = "number"
    NUMBER_DESCENDING = "-number"
    SCORE = "score"
    SCORE_DESCENDING = "-score"
    LATENCY_MS = "latency_ms"
    LATENCY_MS_DESCENDING = "-latency_ms"

    @property
    def sort(self) -> ResultSort:
        """The ordering, whichever the direction."""
        return ResultSort(self.value.lstrip("-"))

    @property
    def is_descending(self) -> bool:
        """Whether the order is reversed."""
        return self.value.startswith("-")


_EXPORT_MEDIA = {ExportFormat.JSONL: "application/x-ndjson", ExportFormat.CSV: "text/csv; charset=utf-8"}


@router.post("", status_code=status.HTTP_201_CREATED, summary="Create and start an evaluation")
def create_evaluation(body: EvaluationCreate, evaluations: EvaluationServiceDep) -> Envelope[EvaluationOut]:
    """A new ``pending`` evaluation, started at once. An unknown suite or grader is ``NOT_FOUND``; a bad
    grader config or target is ``VALIDATION_ERROR``, before anything runs."""
    return ok(EvaluationOut.of(evaluations.create(body.to_new_evaluation())))


@router.post("/test-target", summary="Test a target on one case before a run")
async def try_a_target(
    body: TargetTrialIn, evaluations: EvaluationServiceDep, request: Request
) -> Envelope[TargetTrialOut]:
    """Send one case of the suite (the first by default) to the target, once, and return the raw reply
    beside the answer read from it, or the error an evaluation would record (an agent that is down is a
    ``connection_error`` naming the URL and the cause: a result, not a failed request). Stores nothing.
    The target is checked as for an evaluation (``VALIDATION_ERROR``); an unknown suite is ``NOT_FOUND``."""
    # On the threads kept for slow work: an agent or judge that hangs holds one of those, not a thread
    # that listings and reads need.
    trial = await to_thread.run_sync(
        evaluations.try_target, body.to_request(), limiter=request.app.state.slow_work
    )
    return ok(TargetTrialOut.of(trial))


@router.get("", summary="List evaluations")
def list_evaluations(
    evaluations: EvaluationServiceDep,
    page: PaginationDep,
    suite_id: Annotated[int | None, Query(ge=1, le=MAX_ID, description="Only this suite's")] = None,
    status_filter: Annotated[EvaluationStatus | None, Query(alias="status", description="Only these")] = None,
) -> Envelope[EvaluationList]:
    """Evaluations, newest first, a page at a time."""
    found = evaluations.list(skip=page.skip, limit=page.limit, suite_id=suite_id, status=status_filter)
    items = [EvaluationOut.of(evaluation) for evaluation in found.items]
    return ok(EvaluationList(evaluations=items, count=len(items), total=found.total))


@router.get("/{evaluation_id:int}", summary="Describe an evaluation")
def get_evaluation(evaluation_id: EvaluationId, evaluations: EvaluationServiceDep) -> Envelope[EvaluationOut]:
    """Status, progress, timings and summary (computed from the results so far while it runs)."""
    return ok(EvaluationOut.of(evaluations.get(evaluation_id)))


@router.post("/{evaluation_id:int}/cancel", summary="Cancel an evaluation")
def cancel_evaluation(
    evaluation_id: EvaluationId, evaluations: EvaluationServiceDep
) -> Envelope[EvaluationOut]:
    """Stop it, keeping the results so far; cancelling a finished evaluation changes nothing."""
    return ok(EvaluationOut.of(evaluations.cancel(evaluation_id)))


@router.patch("/{evaluation_id:int}", summary="Rename an evaluation")
def rename_evaluation(
    evaluation_id: EvaluationId, body: EvaluationPatch, evaluations: EvaluationServiceDep
) -> Envelope[EvaluationOut]:
    """Give it a new name (running or not)."""
    return ok(EvaluationOut.of(evaluations.rename(evaluation_id, body.name)))


@router.post(
    "/{evaluation_id:int}/rerun",
    status_code=status.HTTP_201_CREATED,
    summary="Run an evaluation again with the same settings",
)
def rerun_evaluation(
    evaluation_id: EvaluationId, evaluations: EvaluationServiceDep, body: EvaluationRerun | None = None
) -> Envelope[EvaluationOut]:
    """A new evaluation of the same suite with the same grader, config, target and concurrency, started at
    once. The stored target carries over whole: header values (write-only) and recorded answers included;
    ``{{secret.NAME}}`` placeholders are read again. Checked as a new evaluation is (422, 404)."""
    options = body or EvaluationRerun()
    rerun = evaluations.rerun(
        evaluation_id, name=options.name, allow_invalid_expected=options.allow_invalid_expected
    )
    return ok(EvaluationOut.of(rerun))


@router.get("/{evaluation_id:int}/config", summary="An evaluation's settings as an assay.yaml")
def get_evaluation_config(evaluation_id: EvaluationId, session: SessionDep) -> Envelope[EvalFileOut]:
    """Its suite (as ``server_suite``), grader, target and concurrency as the equivalent ``assay.yaml``
    text (docs/eval-file.md), which ``POST /api/evals`` runs again; header values and recorded answers are
    left out, as everywhere they are shown."""
    from assay.services.eval_file.stored import stored_eval_file

    return ok(EvalFileOut(config=stored_eval_file(session, evaluation_id)))


@router.delete("/{evaluation_id:int}", summary="Delete an evaluation")
def delete_evaluation(evaluation_id: EvaluationId, evaluations: EvaluationServiceDep) -> Envelope[Deleted]:
    """Delete it and its results (stopping it first if it runs)."""
    evaluations.delete(evaluation_id)
    return ok(Deleted(id=evaluation_id))


def result_query(
    outcome: Annotated[
        Outcome | None,
        Query(
            description="passed; failed (not passed: graded and failed, or a target error, as the summary's "
            "failed); invalid (invalid response/expected); error (the target failed)"
        ),
    ] = None,
    match_status: Annotated[MatchStatus | None, Query(examples=["mismatch"])] = None,
    error: Annotated[
        str | None, Query(max_length=100, pattern=NO_NUL, description="Only this error reason")
    ] = None,
    q: Annotated[
        str | None, Query(max_length=200, pattern=NO_NUL, description="Text in input, expected or response")
    ] = None,
    reason_code: Annotated[
        str | None,
        Query(
            max_length=MAX_REASON_CODE_LENGTH,
            pattern=NO_NUL,
            examples=["hedged"],
            description="Only verdicts with this reason code (e.g. the extract grader's refusals)",
        ),
    ] = None,
    sort: Annotated[ResultOrder, Query(description="A leading '-' sorts descending")] = ResultOrder.NUMBER,
) -> ResultQuery:
    """Which results a listing or an export covers: the same filters for both."""
    return ResultQuery(
        outcome=outcome,
        match_status=match_status,
        error=error,
        search=q,
        reason_code=reason_code,
        sort=sort.sort,
        descending=sort.is_descending,
    )


ResultQueryDep = Annotated[ResultQuery, Depends(result_query)]


@router.get(
    "/{evaluation_id:int}/results",
    summary="List an evaluation's results",
    response_model=Envelope[ResultList],
)
def list_results(
    evaluation_id: EvaluationId, evaluations: EvaluationServiceDep, page: PaginationDep, query: ResultQueryDep
) -> Response:
    """Results in case order (or by score / latency), filtered, a page at a time."""
    found = evaluations.results(evaluation_id, query, skip=page.skip, limit=page.limit)
    prices = evaluations.prices_of(evaluation_id)
    items = [ResultOut.of(result, prices) for result in found.items]
    next_skip = page.skip + len(items)
    # Rendered on this worker thread: a page of results is the largest answer the API gives.
    return rendered(
        ResultList(
            results=items,
            count=len(items),
            total=found.total,
            next_skip=next_skip if next_skip < found.total else None,
        )
    )


@router.get("/{evaluation_id:int}/results/{case_id}", summary="One case's result")
def get_result(
    evaluation_id: EvaluationId,
    case_id: Annotated[int, Path(ge=1, le=MAX_ID, description="Case id")],
    evaluations: EvaluationServiceDep,
) -> Envelope[ResultDetailOut]:
    """The result of one case (a link to a case), with the case's input messages when it is a conversation;
    404 when the evaluation has none for it (yet)."""
    result = evaluations.result(evaluation_id, case_id)
    messages = evaluations.input_messages(case_id)
    return ok(ResultDetailOut.of_case(result, messages, evaluations.prices_of(evaluation_id)))


@router.get("/{evaluation_id:int}/failures", summary="Failed results grouped by status and reason")
def get_failure_groups(evaluation_id: EvaluationId, session: SessionDep) -> Envelope[FailureGroupsOut]:
    """Failed results counted by ``match_status`` and error reason, the largest group first (at most
    200), each with the results filter (``outcome``, ``match_status``, ``error``) that lists it."""
    return ok(FailureGroupsOut.of(failure_groups(session, evaluation_id)))


@router.get("/{evaluation_id:int}/breakdown", summary="Pass rate per value of a metadata key")
def get_breakdown(
    evaluation_id: EvaluationId,
    session: SessionDep,
    key: Annotated[
        str, Query(min_length=1, max_length=200, pattern=NO_NUL, description="A key of the cases' metadata")
    ],
) -> Envelope[BreakdownOut]:
    """Pass rate with its Wilson 95 % interval per value of ``key``, worst first: the 200 most frequent
    values, the rest as ``other``, cases without the key as a ``missing`` group."""
    return ok(BreakdownOut.of(breakdown(session, evaluation_id, key)))


@router.get("/{evaluation_id:int}/breakdown/keys", summary="Metadata keys to break results down by")
def get_breakdown_keys(evaluation_id: EvaluationId, session: SessionDep) -> Envelope[MetadataKeyList]:
    """The metadata keys of the evaluated suite's cases with how many cases have each, the most common
    first (at most 200), and the one a breakdown opens on."""
    found = metadata_keys(session, evaluation_id)
    keys = [MetadataKeyOut.of(key) for key in found]
    default = default_key(session, evaluation_id, found)
    return ok(MetadataKeyList(keys=keys, count=len(keys), default_key=default))


@router.get(
    "/{evaluation_id:int}/export",
    summary="Export an evaluation's results as a file",
    response_class=Response,
    responses={
        200: {
            "description": "Results as JSON lines or CSV (CSV cells that would run as formulas are quoted)",
            "content": {
                "application/x-ndjson": {"schema": {"type": "string"}},
                "text/csv": {"schema": {"type": "string"}},
            },
        }
    },
)
def export_results(
    evaluation_id: EvaluationId,
    evaluations: EvaluationServiceDep,
    session: SessionDep,
    query: ResultQueryDep,
    export_format: Annotated[ExportFormat, Query(alias="format")] = ExportFormat.JSONL,
) -> Response:
    """The results the filters cover (all by default), in case order, as a download (a file, not an
    envelope; errors are envelopes)."""
    name = evaluations.name(evaluation_id)  # an unknown evaluation is a 404 here, before anything is sent
    exported = evaluations.iter_exported(evaluation_id, query)
    if export_format is ExportFormat.JSONL:
        lines = jsonl_lines(exported, f"/api/evaluations/{evaluation_id}/results")
    else:  # a column per metadata key of the suite's cases, the most common first
        lines = csv_lines(exported, [key.key for key in metadata_keys(session, evaluation_id)])
    return download(
        lines,
        media_type=_EXPORT_MEDIA[export_format],
        filename=f"{file_stem(name, 'evaluation')}-results.{export_format.value}",
        still_there=lambda: evaluations.require(evaluation_id),  # deleted meanwhile: a 404, not an empty file
    )


@router.get(
    "/{evaluation_id:int}/compare/{other_id:int}",
    summary="Compare two evaluations of one suite",
    response_model=Envelope[ComparisonOut],
)
def compare_evaluations(
    evaluation_id: EvaluationId,
    other_id: Annotated[int, Path(ge=1, le=MAX_ID, description="Evaluation B, compared with A")],
    session: SessionDep,
    settings: SettingsDep,
    page: PaginationDep,
    flip: Annotated[Flip | None, Query(description="Only the flips of this kind")] = None,
) -> Response:
    """B against A: per-case flips (a page), counts, and McNemar's exact test of "is B worse than A?"."""
    comparison = compare(
        session,
        evaluation_id,
        other_id,
        skip=page.skip,
        limit=page.limit,
        flip=flip,
        max_page_bytes=settings.max_results_page_bytes,
    )
    return rendered(ComparisonOut.of(comparison))
