"""Bases shared by every API schema."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from assay.errors import Problem


class RequestModel(BaseModel):
    """A request body: unknown (and so server-owned) fields are refused, and types are strict."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ResponseModel(BaseModel):
    """A response body."""


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
