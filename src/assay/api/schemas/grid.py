"""Schemas of the side-by-side grid of a suite's evaluations."""

from __future__ import annotations

from pydantic import Field

from assay.api.schemas.common import ResponseModel
from assay.api.schemas.evaluations import SideOut
from assay.domain import EvaluationStatus
from assay.services.views.grid import Grid, GridColumn, GridRow


class GridColumnOut(ResponseModel):
    """One evaluation of the grid."""

    evaluation_id: int
    name: str
    grader_id: str
    status: EvaluationStatus
    pass_rate: float | None

    @classmethod
    def of(cls, column: GridColumn) -> GridColumnOut:
        """The schema of a service record."""
        return cls(
            evaluation_id=column.evaluation_id,
            name=column.name,
            grader_id=column.grader_id,
            status=column.status,
            pass_rate=column.pass_rate,
        )


class GridRowOut(ResponseModel):
    """One case: its number (from 1) and key, its input and expected output (as they are now), then each
    evaluation's outcome."""

    case_id: int
    number: int
    key: str | None
    input: str
    expected_output: str
    outcomes: list[SideOut | None] = Field(description="In the order of `columns`; null: no result")

    @classmethod
    def of(cls, row: GridRow) -> GridRowOut:
        """The schema of a service record."""
        return cls(
            case_id=row.case_id,
            number=row.number,
            key=row.key,
            input=row.input,
            expected_output=row.expected_output,
            outcomes=[SideOut.of(outcome) if outcome is not None else None for outcome in row.outcomes],
        )


class GridOut(ResponseModel):
    """A page of the grid: up to ``limit`` rows, fewer when they would pass ASSAY_MAX_RESULTS_PAGE_BYTES."""

    suite_id: int
    columns: list[GridColumnOut]
    rows: list[GridRowOut]
    count: int
    total: int
    next_skip: int | None = Field(
        description="Where the next page starts (skip + count); null after the last"
    )

    @classmethod
    def of(cls, grid: Grid) -> GridOut:
        """The schema of a service record."""
        rows = [GridRowOut.of(row) for row in grid.rows]
        return cls(
            suite_id=grid.suite_id,
            columns=[GridColumnOut.of(column) for column in grid.columns],
            rows=rows,
            count=len(rows),
            total=grid.total,
            next_skip=grid.next_skip,
        )
