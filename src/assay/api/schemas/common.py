"""Bases shared by every API schema."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from assay.errors import Problem
from assay.services.figures.statistics import PassRate


class RequestModel(BaseModel):
    """A request body: unknown (and so server-owned) fields are refused, and types are strict."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ResponseModel(BaseModel):
    """A response body."""


class PassRateOut(ResponseModel):
    """Passes out of results (target errors count as failures), with the Wilson 95 % interval."""

    passed: int
    total: int
    rate: float | None = Field(description="passed / total; null without results")
    ci95: list[float] | None = Field(description="Wilson 95 % interval [low, high]; null without results")

    @classmethod
    def of(cls, rate: PassRate) -> PassRateOut:
        """The schema of a service record."""
        interval = rate.interval
        return cls(
            passed=rate.passed, total=rate.total, rate=rate.rate, ci95=list(interval) if interval else None
        )


class ProblemOut(ResponseModel):
    """One problem of a request: where (``loc``) and what. ``loc`` is a path into the request (body keys
    and list indexes, e.g. ``["target", "http", "url"]``; a union member's type is one step, as pydantic
    names it) or a line or case of an uploaded file (``["line", 4]``); empty for the request as a whole."""

    loc: list[str | int]
    message: str

    @classmethod
    def of(cls, problem: Problem) -> ProblemOut:
        """The API's record of a problem."""
        return cls(loc=list(problem.loc), message=problem.message)
