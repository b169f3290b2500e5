"""Trajectories over the API: ``GET /api/evaluations/{id}/results/{case_id}/trajectory`` (a page of a
result's steps), ``.../breakdown/tools`` (pass rate per tool used) and ``.../compare/{other}/tools``
(the tools changed between two runs)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Path, Query
from pydantic import Field

from assay.api.deps import MAX_ID, PaginationDep, SessionDep, SettingsDep
from assay.api.envelope import Envelope, ok
from assay.api.routers import api_router
from assay.api.schemas.common import PassRateOut, ResponseModel
from assay.api.schemas.results import TrajectorySummaryOut
from assay.api.schemas.tool_usage import ToolChangesOut
from assay.services.views.tool_breakdown import tool_breakdown
from assay.services.views.tool_usage import tool_changes
from assay.services.views.trajectory_pages import MAX_PAGE_STEPS, trajectory_page

EvaluationId = Annotated[int, Path(ge=1, le=MAX_ID, description="Evaluation id")]

router = api_router(prefix="/api/evaluations", tags=["evaluations"])


class ToolCallOut(ResponseModel):
    """A tool call: the tool's name, its arguments (the parsed JSON, or the string sent when it did not
    parse) and its id."""

    name: str
    arguments: Any = None
    call_id: str | None = None


class StepOut(ResponseModel):
    """One step of a trajectory: a message, a tool call or a tool result (``call_id``: the call answered)."""

    kind: Literal["message", "tool_call", "tool_result"]
    role: str | None = None
    text: str | None = None
    tool_call: ToolCallOut | None = None
    call_id: str | None = None
    is_error: bool = False
    started_ms: float | None = None
    duration_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


class TrajectoryPageOut(ResponseModel):
    """Steps ``offset`` onwards of a result's trajectory, and its summary."""

    summary: TrajectorySummaryOut
    offset: int
    steps: list[StepOut]
    next_offset: int | None = Field(description="Where the next page starts; null: this page is the last")


@router.get("/{evaluation_id:int}/results/{case_id}/trajectory", summary="A page of a result's trajectory")
def get_trajectory_page(
    evaluation_id: Annotated[int, Path(ge=1, le=MAX_ID, description="Evaluation id")],
    case_id: Annotated[int, Path(ge=1, le=MAX_ID, description="Case id")],
    session: SessionDep,
    settings: SettingsDep,
    offset: Annotated[int, Query(ge=0, le=2**31 - 1, description="The first step (from 0)")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_STEPS, description="Steps at most")] = 100,
) -> Envelope[TrajectoryPageOut]:
    """Up to ``limit`` steps from ``offset`` (fewer when they pass the page size cap,
    ``ASSAY_MAX_RESULTS_PAGE_BYTES``); only the stored chunks the page overlaps are read. 404 when the result
    has no stored trajectory."""
    found = trajectory_page(session, evaluation_id, case_id, offset, limit, settings.max_results_page_bytes)
    page = found.page
    return ok(
        TrajectoryPageOut(
            summary=TrajectorySummaryOut.model_validate(found.facts, from_attributes=True),
            offset=page.offset,
            steps=[StepOut.model_validate(step) for step in page.steps],
            next_offset=page.next_offset,
        )
    )


class ToolGroupOut(ResponseModel):
    """The results whose trajectory called one tool."""

    tool: str
    calls: int = Field(description="Calls of the tool in those results")
    pass_rate: PassRateOut


class ToolBreakdownOut(ResponseModel):
    """Pass rate per tool the agent called, worst first (the 200 most used tools)."""

    evaluation_id: int
    groups: list[ToolGroupOut]
    no_tool: PassRateOut = Field(description="The results whose trajectory called no tool")
    with_trajectory: int = Field(description="Results with a stored trajectory (the others are left out)")


@router.get("/{evaluation_id:int}/breakdown/tools", summary="Pass rate per tool the agent called")
def get_tool_breakdown(evaluation_id: EvaluationId, session: SessionDep) -> Envelope[ToolBreakdownOut]:
    """Per tool, the results whose trajectory called it, their pass rate and the calls made, from each
    result's stored trajectory summary."""
    found = tool_breakdown(session, evaluation_id)
    return ok(
        ToolBreakdownOut(
            evaluation_id=found.evaluation_id,
            groups=[
                ToolGroupOut(tool=group.tool, calls=group.calls, pass_rate=PassRateOut.of(group.pass_rate))
                for group in found.groups
            ],
            no_tool=PassRateOut.of(found.no_tool),
            with_trajectory=found.with_trajectory,
        )
    )


@router.get("/{evaluation_id:int}/compare/{other_id:int}/tools", summary="Tools changed between two runs")
def get_tool_changes(
    evaluation_id: EvaluationId,
    other_id: Annotated[int, Path(ge=1, le=MAX_ID, description="Evaluation B, compared with A")],
    session: SessionDep,
    page: PaginationDep,
) -> Envelope[ToolChangesOut]:
    """A page of the cases both runs traced, each with A's and B's tools (first-use order, calls each), their
    calls in the order made and the call where those orders first differ; the cases whose tools or order
    changed first. 422 when the runs are of different suites."""
    changes = tool_changes(session, evaluation_id, other_id, skip=page.skip, limit=page.limit)
    return ok(ToolChangesOut.of(changes))
