"""Schemas of the grader routes (docs/decisions.md#listing-graders, docs/decisions.md#grading-one-answer)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, JsonValue

from assay.api.schemas.common import ProblemOut, RequestModel, ResponseModel
from assay.graders import VerdictReport

MAX_BATCH = 10_000


class GraderSummary(ResponseModel):
    """A grader as listed."""

    id: str = Field(examples=["string-match"])
    name: str
    description: str
    type: str
    version: str
    config_schema: dict[str, Any] = Field(
        description="JSON Schema of the config (additionalProperties: false)"
    )
    available: bool = Field(
        description="Whether it can grade on this server (false: an optional package is missing)"
    )
    unavailable_reason: str | None = Field(
        description="When unavailable: why, and the command that installs what it needs; else null"
    )


class PresetOut(ResponseModel):
    """A named configuration a grader publishes."""

    description: str
    config: dict[str, Any]


class GraderDetail(GraderSummary):
    """A grader with its scoring guide, what its verdicts support and its presets."""

    scoring_guide: dict[str, str]
    report: VerdictReport = Field(
        description="pass_fail: counts only; binary: a confusion matrix; score: a score distribution"
    )
    presets: dict[str, PresetOut] = Field(description="Named configs; one fills the whole config")


class GraderList(ResponseModel):
    """A page of graders."""

    graders: list[GraderSummary]
    count: int = Field(description="Graders on this page")
    total: int = Field(description="Graders in all")


NULL_GRADES_AS_EMPTY = "null is graded as an empty value (graders never refuse an input)"


class GradeRequest(RequestModel):
    """One answer to grade."""

    agent_response: str | None = Field(description=f"The agent's answer; {NULL_GRADES_AS_EMPTY}")
    expected_output: str | None = Field(description=f"The expected output; {NULL_GRADES_AS_EMPTY}")
    config: dict[str, JsonValue] | None = Field(
        default=None, description="Grader config; defaults if omitted"
    )


class GradeItem(RequestModel):
    """One pair of a batch."""

    agent_response: str | None = Field(description=f"The agent's answer; {NULL_GRADES_AS_EMPTY}")
    expected_output: str | None = Field(description=f"The expected output; {NULL_GRADES_AS_EMPTY}")


class GradeBatchRequest(RequestModel):
    """Many answers graded with one config."""

    items: list[GradeItem] = Field(min_length=1, max_length=MAX_BATCH)
    config: dict[str, JsonValue] | None = None


class ValidateRequest(RequestModel):
    """A config to check."""

    config: JsonValue = Field(
        default=None, description="Any JSON value; only an object (or null) can be valid"
    )


class GraderSpecOut(ResponseModel):
    """Exactly what graded: id, effective config and grader version."""

    grader_id: str
    config: dict[str, Any]
    version: str


class GradeOutcome(ResponseModel):
    """The verdict on one answer."""

    passed: bool
    score: float = Field(ge=0.0, le=1.0)
    details: dict[str, Any]


class GradeResult(GradeOutcome):
    """The verdict on one answer and the grader that gave it."""

    grader: GraderSpecOut


class GradeBatchResult(ResponseModel):
    """Verdicts in the order of the items."""

    grader: GraderSpecOut
    results: list[GradeOutcome]
    count: int
    passed: int
    pass_rate: float = Field(ge=0.0, le=1.0)


class ValidationResult(ResponseModel):
    """Whether a config is valid, and every problem found."""

    valid: bool
    problems: list[ProblemOut] = Field(
        description='Each problem, located in the request body: ["config", ...] (["config"]: all of it)'
    )
