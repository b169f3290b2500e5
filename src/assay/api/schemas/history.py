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
        description="regression: the previous pass rate lies above this run's Wilson 95 % interval; "
        "improvement: below it; steady: inside it; null for the first point or without results"
    )

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
