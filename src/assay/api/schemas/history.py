"""Schemas of a suite's history."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from assay.api.schemas.common import PassRateOut, ResponseModel
from assay.services.figures.statistics import Shift
from assay.services.views.history import History, HistoryPoint


class HistoryPointOut(ResponseModel):
    """One completed evaluation of the suite, against the one before it."""

    evaluation_id: int
    name: str
    grader_id: str
    created_at: datetime
    finished_at: datetime | None
    pass_rate: PassRateOut
    previous_id: int | None = Field(description="The completed evaluation before this one")
    shift: Shift | None = Field(
        description="Against the previous run by the paired test of the cases both finished (exact McNemar, "
        "one-sided, 5 %; the compare page's rule): regression or improvement only when significant, steady "
        "within noise; null for the first point or when the two runs share no case"
    )
    common_cases: int | None = Field(description="Cases both this run and the previous one finished")
    p_value: float | None = Field(description="The paired test's two-sided p-value")

    @classmethod
    def of(cls, point: HistoryPoint) -> HistoryPointOut:
        """The schema of a service record."""
        return cls(
            evaluation_id=point.evaluation_id,
            name=point.name,
            grader_id=point.grader_id,
            created_at=point.created_at,
            finished_at=point.finished_at,
            pass_rate=PassRateOut.of(point.pass_rate),
            previous_id=point.previous_id,
            shift=point.shift,
            common_cases=point.common_cases,
            p_value=point.p_value,
        )


class HistoryOut(ResponseModel):
    """A page of the suite's completed evaluations, oldest first (page 0 holds the newest)."""

    suite_id: int
    points: list[HistoryPointOut]
    count: int
    total: int = Field(description="Completed evaluations of the suite (of the grader, if filtered)")

    @classmethod
    def of(cls, history: History) -> HistoryOut:
        """The schema of a service record."""
        points = [HistoryPointOut.of(point) for point in history.points]
        return cls(suite_id=history.suite_id, points=points, count=len(points), total=history.total)
