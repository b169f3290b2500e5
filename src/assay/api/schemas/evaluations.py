"""Schemas of the evaluation routes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, JsonValue, StringConstraints

from assay.api.schemas.common import RequestModel, ResponseModel
from assay.api.schemas.graders import GradeOutcome, GraderSpecOut
from assay.api.schemas.summary import SummaryOut
from assay.config import PriceTable
from assay.domain import MAX_REPEATS, EvaluationStatus
from assay.graders import MatchStatus
from assay.graders.contract.verdict import VerdictRecord
from assay.json_types import JsonObject
from assay.services.evaluations.records import CaseOutcome, Evaluation
from assay.services.evaluations.service import (
    DEFAULT_CONCURRENCY,
    MAX_CONCURRENCY,
    NewEvaluation,
    TargetTrialRequest,
)
from assay.services.execution.target_trial import TargetTrial
from assay.services.figures.paired import PairedMethod
from assay.services.figures.summary_records import Summary
from assay.services.views.comparison import Comparison, Flip, FlippedCase, Verdict
from assay.targets import EvaluationTargetSpec, HttpTargetSpec, OpenAITargetSpec, RecordedTargetSpec
from assay.targets.cached import CacheMode
from assay.targets.specs import JsonInt

MAX_ID = 2**31 - 1
NAME_PATTERN = r"^[^\x00-\x1f\x7f]*[^\x00-\x20\x7f][^\x00-\x1f\x7f]*$"
EvaluationName = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=NAME_PATTERN)]

ApiTarget = Annotated[
    HttpTargetSpec | OpenAITargetSpec | RecordedTargetSpec | EvaluationTargetSpec, Field(discriminator="type")
]
"""Targets the API runs (Python callables and shell commands are CLI-only: they run code here)."""


class EvaluationCreate(RequestModel):
    """An evaluation to run: a suite, a grader (with its config) and the target that answers."""

    suite_id: JsonInt = Field(ge=1, le=MAX_ID, strict=False)  # JSON Schema "integer" admits 3.0
    grader_id: str = Field(min_length=1, max_length=200, examples=["true-false"])
    grader_config: dict[str, JsonValue] | None = None
    target: ApiTarget
    name: EvaluationName | None = None
    concurrency: JsonInt = Field(default=DEFAULT_CONCURRENCY, ge=1, le=MAX_CONCURRENCY, strict=False)
    reply_cache: CacheMode = Field(
        default=CacheMode.OFF,
        strict=False,  # from its JSON string
        description="record: answer a case from the reply cache when this target was asked the same input "
        "before, else call the agent and cache its answer; replay: only from the cache (a case it does not "
        "hold fails as cache_miss, the agent is never called); off: neither. Errors are never cached.",
    )
    repeats: JsonInt = Field(
        default=1,
        ge=1,
        le=MAX_REPEATS,
        strict=False,
        description="How many times each case is asked (an agent's target only, past 1): results are kept "
        "per case and repeat, and the summary gives each case's passes of its repeats, pass@k and pass^k.",
    )
    allow_invalid_expected: bool = Field(
        default=False,
        description="Run even when the grader's preflight finds cases it can never pass; otherwise 422.",
    )
    prices: PriceTable | None = Field(
        default=None,
        description="US dollars per million input and output tokens, by model, for the evaluation's cost; "
        "they win over the server's ASSAY_PRICES for the models they name (the merged table is fixed when "
        "the evaluation is created).",
    )

    def to_new_evaluation(self) -> NewEvaluation:
        """The service's record of this request."""
        return NewEvaluation(
            suite_id=self.suite_id,
            grader_id=self.grader_id,
            target=self.target,  # typed: parsed once, here
            grader_config=dict(self.grader_config) if self.grader_config is not None else None,
            name=self.name,
            concurrency=self.concurrency,
            reply_cache=self.reply_cache,
            repeats=self.repeats,
            prices=self.prices,
            allow_invalid_expected=self.allow_invalid_expected,
        )


class EvaluationPatch(RequestModel):
    """A new name for an evaluation."""

    name: EvaluationName


class EvaluationRerun(RequestModel):
    """Options of a re-run; everything else is the source evaluation's."""

    name: EvaluationName | None = Field(default=None, description='Default: "<name> · re-run of #<id>"')
    allow_invalid_expected: bool = Field(
        default=False,
        description="Run even when the grader's preflight finds cases it can never pass; otherwise 422.",
    )


TrialTarget = Annotated[HttpTargetSpec | OpenAITargetSpec | RecordedTargetSpec, Field(discriminator="type")]
"""Targets a test can call (a re-grading ``evaluation`` target calls no agent: nothing to test)."""


class TargetTrialIn(RequestModel):
    """A target to test on one case of a suite before running it; with a grader, the answer is graded."""

    suite_id: JsonInt = Field(ge=1, le=MAX_ID, strict=False)
    target: TrialTarget
    case_number: JsonInt = Field(
        default=1, ge=1, le=MAX_ID, strict=False, description="Which case to send, by number (from 1)"
    )
    grader_id: str | None = Field(default=None, min_length=1, max_length=200, examples=["true-false"])
    grader_config: dict[str, JsonValue] | None = None

    def to_request(self) -> TargetTrialRequest:
        """The service's record of this request."""
        return TargetTrialRequest(
            suite_id=self.suite_id,
            target=self.target,  # typed: parsed once, here
            case_number=self.case_number,
            grader_id=self.grader_id,
            grader_config=dict(self.grader_config) if self.grader_config is not None else None,
        )


class RawReplyOut(ResponseModel):
    """The agent's reply as it came: ``source`` says from where (``HTTP 200 from http://…``)."""

    source: str
    text: str | None
    status: int | None = Field(description="The HTTP status, for HTTP targets")
    content_type: str | None
    truncated: bool = Field(description="The text was longer and is cut")


class TargetTrialOut(ResponseModel):
    """One case sent once: the raw reply (``null`` when nothing came back), the answer read from it or
    the error an evaluation would record, and the verdict: the case's own assertions' when it has some, else
    the grader's when a grader was given."""

    number: int
    key: str | None
    input: str
    expected_output: str
    reached: bool = Field(description="Whether the agent sent a reply at all")
    raw: RawReplyOut | None
    answer: str | None = Field(description="The agent_response an evaluation would grade")
    error: str | None
    error_detail: str | None
    latency_ms: float | None
    verdict: GradeOutcome | None

    @classmethod
    def of(cls, trial: TargetTrial) -> TargetTrialOut:
        """The schema of a service record."""
        raw = trial.raw
        return cls(
            number=trial.number,
            key=trial.key,
            input=trial.input,
            expected_output=trial.expected_output,
            reached=trial.reached,
            raw=None
            if raw is None
            else RawReplyOut(
                source=raw.source,
                text=raw.text,
                status=raw.status,
                content_type=raw.content_type,
                truncated=raw.truncated,
            ),
            answer=trial.answer,
            error=trial.error,
            error_detail=trial.error_detail,
            latency_ms=trial.latency_ms,
            verdict=_grade_outcome(trial.verdict),
        )


def _grade_outcome(verdict: VerdictRecord | None) -> GradeOutcome | None:
    return None if verdict is None else GradeOutcome.model_validate(verdict, from_attributes=True)


class ProgressOut(ResponseModel):
    """Cases with a result, of all cases."""

    done: int
    total: int


class EvaluationOut(ResponseModel):
    """An evaluation. Target header values and recorded responses are never shown."""

    id: int
    name: str
    suite_id: int
    grader: GraderSpecOut
    target: JsonObject
    concurrency: int
    repeats: int = Field(description="How many times each case is asked; progress counts cases × repeats")
    reply_cache: CacheMode
    status: EvaluationStatus
    progress: ProgressOut
    summary: SummaryOut | None
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    duration_s: float | None

    @classmethod
    def of(cls, evaluation: Evaluation) -> EvaluationOut:
        """The schema of a service record."""
        return cls(
            id=evaluation.id,
            name=evaluation.name,
            suite_id=evaluation.suite_id,
            grader=GraderSpecOut.model_validate(evaluation.grader, from_attributes=True),
            target=evaluation.target,
            concurrency=evaluation.concurrency,
            repeats=evaluation.repeats,
            reply_cache=CacheMode(evaluation.reply_cache),
            status=evaluation.status,
            progress=ProgressOut(done=evaluation.done, total=evaluation.total),
            summary=_summary_out(evaluation.summary),
            error=evaluation.error,
            created_at=evaluation.created_at,
            started_at=evaluation.started_at,
            finished_at=evaluation.finished_at,
            duration_s=evaluation.duration_s,
        )


def _summary_out(summary: Summary | None) -> SummaryOut | None:
    return None if summary is None else SummaryOut.model_validate(summary, from_attributes=True)


class EvaluationList(ResponseModel):
    """A page of evaluations."""

    evaluations: list[EvaluationOut]
    count: int
    total: int


class SideOut(ResponseModel):
    """One evaluation's outcome for a case."""

    passed: bool
    score: float | None
    agent_response: str | None
    match_status: MatchStatus | None
    error: str | None

    @classmethod
    def of(cls, outcome: CaseOutcome) -> SideOut:
        """The schema of a service record."""
        return cls(
            passed=outcome.passed,
            score=outcome.score,
            agent_response=outcome.agent_response,
            match_status=MatchStatus(outcome.match_status) if outcome.match_status is not None else None,
            error=outcome.error,
        )


class FlippedCaseOut(ResponseModel):
    """A case that passed in one evaluation and failed in the other."""

    case_id: int
    number: int
    key: str | None
    flip: Flip
    input: str
    expected_output: str
    a: SideOut
    b: SideOut

    @classmethod
    def of(cls, flipped: FlippedCase) -> FlippedCaseOut:
        """The schema of a service record."""
        return cls(
            case_id=flipped.case_id,
            number=flipped.number,
            key=flipped.key,
            flip=flipped.flip,
            input=flipped.input,
            expected_output=flipped.expected_output,
            a=SideOut.of(flipped.a),
            b=SideOut.of(flipped.b),
        )


class ComparisonOut(ResponseModel):
    """Evaluation B against A on the cases both finished, with the paired test: McNemar's exact test, or
    with repeats a sign-flip permutation test on per-case pass rates (a case "flips" when its rate moved)."""

    a_id: int
    b_id: int
    suite_id: int
    common_cases: int
    only_in_a: int
    only_in_b: int
    both_passed: int
    both_failed: int
    pass_to_fail: int
    fail_to_pass: int
    a_pass_rate: float | None
    b_pass_rate: float | None
    p_value: float = Field(description="Two-sided p-value of the paired test")
    p_value_b_worse: float = Field(description="One-sided: B fails more of the cases that flipped")
    p_value_b_better: float
    verdict: Verdict
    method: PairedMethod = Field(
        description="mcnemar: each run asked each case once; sign_flip: repeats, per-case pass rates"
    )
    same_rate: int = Field(
        description="With repeats, cases whose pass rate did not change and is neither 0 nor 1 (else 0)"
    )
    flips: list[FlippedCaseOut] = Field(
        description="One page of flipped cases, in case order: up to ``limit``, fewer when they would pass "
        "ASSAY_MAX_RESULTS_PAGE_BYTES"
    )
    flips_total: int
    next_skip: int | None = Field(
        description="Where the next page of flips starts (skip + count); null after the last"
    )

    @classmethod
    def of(cls, comparison: Comparison) -> ComparisonOut:
        """The schema of a service record."""
        return cls.model_validate(
            {
                "a_id": comparison.a_id,
                "b_id": comparison.b_id,
                "suite_id": comparison.suite_id,
                **comparison.figures.as_dict(),
                "flips": [FlippedCaseOut.of(flip) for flip in comparison.flips],
                "flips_total": comparison.flips_total,
                "next_skip": comparison.next_skip,
            }
        )
