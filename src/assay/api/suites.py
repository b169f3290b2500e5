"""Test-suite routes: CRUD, cases, and file import/export."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from fastapi import File, Form, Query, Request, Response, UploadFile, status

from assay.api.bodies import ThreadedBodyRoute
from assay.api.deps import (
    MAX_ID,
    NO_NUL,
    GraderServiceDep,
    PaginationDep,
    SessionDep,
    SuiteId,
    SuiteServiceDep,
)
from assay.api.downloads import download, file_stem
from assay.api.envelope import CONFLICT_RESPONSE, Envelope, ErrorEnvelope, ok, rendered
from assay.api.routers import api_router
from assay.api.schemas.grid import GridOut
from assay.api.schemas.history import HistoryOut
from assay.api.schemas.suites import (
    CaseList,
    CaseOut,
    CasesAdded,
    CasesAppend,
    Deleted,
    Description,
    PreflightOut,
    PreflightRequest,
    SuiteCreate,
    SuiteList,
    SuiteName,
    SuiteOut,
    SuitePatch,
)
from assay.errors import NotFoundError, Problem, ValidationError
from assay.services.grading.preflight import preflight_suite
from assay.services.suites.files import SuiteFormat, csv_lines, jsonl_lines, read_suite_file, suite_name_from
from assay.services.views.grid import MAX_EVALUATIONS, side_by_side
from assay.services.views.history import suite_history

router = api_router(prefix="/api/suites", tags=["suites"], route_class=ThreadedBodyRoute)

IMPORT_PATH = "/api/suites/import"


class ExportFormat(StrEnum):
    """Formats a suite can be exported to."""

    JSONL = "jsonl"
    CSV = "csv"


_EXPORT_MEDIA = {ExportFormat.JSONL: "application/x-ndjson", ExportFormat.CSV: "text/csv; charset=utf-8"}


@router.post("", status_code=status.HTTP_201_CREATED, summary="Create a suite", responses=CONFLICT_RESPONSE)
def create_suite(body: SuiteCreate, suites: SuiteServiceDep) -> Envelope[SuiteOut]:
    """A new suite with its cases in the given order; 409 ``CONFLICT`` when the name is taken."""
    cases = [case.to_new_case() for case in body.cases]
    created = suites.create(body.name, body.description, cases, assertions=body.suite_assertions())
    return ok(SuiteOut.of(created))


@router.get("", summary="List suites")
def list_suites(suites: SuiteServiceDep, page: PaginationDep) -> Envelope[SuiteList]:
    """Suites, newest first, a page at a time."""
    found = suites.list(skip=page.skip, limit=page.limit)
    items = [SuiteOut.of(suite) for suite in found.items]
    return ok(SuiteList(suites=items, count=len(items), total=found.total))


@router.post(
    "/import",
    status_code=status.HTTP_201_CREATED,
    summary="Import a suite from a file",
    responses={
        **CONFLICT_RESPONSE,
        413: {
            "model": ErrorEnvelope,
            "description": "File over ASSAY_MAX_IMPORT_BYTES (`PAYLOAD_TOO_LARGE`)",
        },
    },
)
def import_suite(
    suites: SuiteServiceDep,
    file: Annotated[UploadFile, File(description="A .jsonl, .csv or .json file of cases")],
    name: Annotated[SuiteName | None, Form(description="Suite name; default: from the file")] = None,
    description: Annotated[Description | None, Form()] = None,
    file_format: Annotated[
        SuiteFormat | None, Form(alias="format", description="Default: from the file name's extension")
    ] = None,
) -> Envelope[SuiteOut]:
    """A new suite from a file; 422 ``VALIDATION_ERROR`` lists every bad line by number. A ``key`` (or
    ``id``) field is the case's key: all cases have one or none, and a key given twice names both lines."""
    filename = file.filename or ""
    chosen_format = file_format or SuiteFormat.for_filename(filename)
    parsed = read_suite_file(file.file.read(), chosen_format)
    suite_name = name or suite_name_from(parsed.name or filename.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    if not suite_name:
        raise ValidationError(
            "Give the suite a name", problems=[Problem(("name",), "required when the file has no name")]
        )
    suite = suites.create(
        suite_name,
        description or parsed.description or "",
        parsed.cases,
        places=parsed.places,
        assertions=parsed.assertions,
    )
    return ok(SuiteOut.of(suite))


@router.get("/{suite_id:int}", summary="Describe a suite")
def get_suite(suite_id: SuiteId, suites: SuiteServiceDep) -> Envelope[SuiteOut]:
    """One suite with its ``case_count``."""
    return ok(SuiteOut.of(suites.get(suite_id)))


@router.patch("/{suite_id:int}", summary="Rename or redescribe a suite", responses=CONFLICT_RESPONSE)
def update_suite(suite_id: SuiteId, body: SuitePatch, suites: SuiteServiceDep) -> Envelope[SuiteOut]:
    """Change the name and/or description; 409 ``CONFLICT`` when the new name is taken."""
    updated = suites.update(
        suite_id, name=body.name, description=body.description, assertions=body.suite_assertions()
    )
    return ok(SuiteOut.of(updated))


@router.delete("/{suite_id:int}", summary="Delete a suite", responses=CONFLICT_RESPONSE)
def delete_suite(
    suite_id: SuiteId,
    suites: SuiteServiceDep,
    request: Request,
    cascade: Annotated[
        bool, Query(description="Also delete the suite's evaluations (running ones are stopped first)")
    ] = False,
) -> Envelope[Deleted]:
    """Delete a suite and its cases; 409 ``CONFLICT`` when it has evaluations, unless ``cascade``."""
    suites.delete(suite_id, cascade=cascade, stop_evaluation=request.app.state.scheduler.stop)
    return ok(Deleted(id=suite_id))


# A page of cases and the cases just added can run to megabytes: rendered on the route's worker thread.
@router.get("/{suite_id:int}/cases", summary="List a suite's cases", response_model=Envelope[CaseList])
def list_cases(suite_id: SuiteId, suites: SuiteServiceDep, page: PaginationDep) -> Response:
    """Cases in their order, a page at a time."""
    found = suites.cases(suite_id, skip=page.skip, limit=page.limit)
    items = [CaseOut.of(case) for case in found.items]
    return rendered(CaseList(cases=items, count=len(items), total=found.total))


@router.post(
    "/{suite_id:int}/cases",
    status_code=status.HTTP_201_CREATED,
    summary="Append cases",
    responses=CONFLICT_RESPONSE,
    response_model=Envelope[CasesAdded],
)
def append_cases(suite_id: SuiteId, body: CasesAppend, suites: SuiteServiceDep) -> Response:
    """Add cases after the suite's last one."""
    added = suites.add_cases(suite_id, [case.to_new_case() for case in body.cases])
    total = suites.get(suite_id).case_count
    cases = [CaseOut.of(case) for case in added]
    return rendered(CasesAdded(cases=cases, count=len(added), total=total), status.HTTP_201_CREATED)


@router.get(
    "/{suite_id:int}/export",
    summary="Export a suite as a file",
    response_class=Response,
    responses={
        200: {
            "description": "The cases as JSON lines or CSV (CSV cells that would run as formulas are quoted)",
            "content": {
                "application/x-ndjson": {"schema": {"type": "string"}},
                "text/csv": {"schema": {"type": "string"}},
            },
        }
    },
)
def export_suite(
    suite_id: SuiteId,
    suites: SuiteServiceDep,
    export_format: Annotated[ExportFormat, Query(alias="format")] = ExportFormat.JSONL,
) -> Response:
    """Every case as a JSONL or CSV download (not an envelope: a file; errors are envelopes)."""
    suite = suites.get(suite_id)  # an unknown suite is a 404 here, before anything is sent
    write = jsonl_lines if export_format is ExportFormat.JSONL else csv_lines
    return download(
        write(suites.iter_cases(suite_id)),
        media_type=_EXPORT_MEDIA[export_format],
        filename=f"{file_stem(suite.name, 'suite')}.{export_format.value}",
    )


@router.post("/{suite_id:int}/preflight", summary="Check a suite's expected outputs against a grader")
def preflight(
    suite_id: SuiteId,
    body: PreflightRequest,
    session: SessionDep,
    suites: SuiteServiceDep,
    graders: GraderServiceDep,
) -> Envelope[PreflightOut]:
    """Which cases the grader can never pass (counts and the first cases); runs nothing, calls no agent."""
    suites.get(suite_id)  # an unknown suite is a 404 whatever the grader
    grader = graders.build(body.grader_id, dict(body.config) if body.config is not None else None)
    report = preflight_suite(session, suite_id, grader)
    return ok(PreflightOut.of(grader.grader_id, report, repeats=body.repeats))


@router.get("/{suite_id:int}/history", summary="Pass rate of each completed evaluation over time")
def get_history(
    suite_id: SuiteId,
    session: SessionDep,
    page: PaginationDep,
    grader_id: Annotated[
        str | None, Query(max_length=200, pattern=NO_NUL, description="Only this grader's evaluations")
    ] = None,
) -> Envelope[HistoryOut]:
    """The suite's completed evaluations, oldest first (page 0: the ``limit`` newest), each with its pass
    rate and Wilson 95 % interval, marked ``regression`` when the previous one's pass rate lies above that
    interval (``improvement`` below it)."""
    return ok(
        HistoryOut.of(suite_history(session, suite_id, skip=page.skip, limit=page.limit, grader_id=grader_id))
    )


_EVALUATION_IDS = rf"^[1-9][0-9]{{0,9}}(,[1-9][0-9]{{0,9}}){{0,{MAX_EVALUATIONS - 1}}}$"
"""1 to ``MAX_EVALUATIONS`` ids, comma-separated, none 0 or with a leading zero."""


def _evaluation_ids(text: str) -> list[int]:
    ids = [int(part) for part in text.split(",")]
    beyond = next((item for item in ids if item > MAX_ID), None)
    if beyond is not None:  # the pattern bounds digits, not values: a larger id cannot exist
        raise NotFoundError(f"Evaluation {beyond} not found")
    return ids


@router.get(
    "/{suite_id:int}/grid", summary="Evaluations of the suite side by side", response_model=Envelope[GridOut]
)
def get_grid(
    suite_id: SuiteId,
    session: SessionDep,
    request: Request,
    page: PaginationDep,
    evaluations: Annotated[
        str,
        Query(
            pattern=_EVALUATION_IDS,
            description=f"1 to {MAX_EVALUATIONS} evaluation ids of this suite, comma-separated",
            examples=["1,2,3"],
        ),
    ],
    disagree: Annotated[bool, Query(description="Only cases passed by some and failed by others")] = False,
) -> Response:
    """A row per case in case order (input, expected output, then each evaluation's answer and verdict), a
    page at a time. An evaluation of another suite is a 422 ``VALIDATION_ERROR``; an unknown one a 404; one
    listed twice is shown once."""
    grid = side_by_side(
        session,
        suite_id,
        _evaluation_ids(evaluations),
        skip=page.skip,
        limit=page.limit,
        only_disagreements=disagree,
        max_page_bytes=request.app.state.settings.max_results_page_bytes,
    )
    return rendered(GridOut.of(grid))
