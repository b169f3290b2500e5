"""Schemas of the evaluation routes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, JsonValue, StringConstraints

from assay.api.schemas.common import RequestModel, ResponseModel
from assay.api.schemas.graders import GradeOutcome, GraderSpecOut
from assay.chat import Message
from assay.config import ModelPrice, PriceTable
from assay.domain import MAX_REPEATS, EvaluationStatus
from assay.graders import MatchStatus
from assay.graders.composite.assertions import assertion_verdicts
from assay.graders.contract.verdict import VerdictRecord
from assay.json_types import JsonObject
from assay.services.evaluations.records import CaseOutcome, Evaluation, Result
from assay.services.evaluations.service import (
    DEFAULT_CONCURRENCY,
    MAX_CONCURRENCY,
    NewEvaluation,
    TargetTrialRequest,
)
from assay.services.execution.target_trial import TargetTrial
from assay.services.figures.cost import case_cost
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


class LatencyOut(ResponseModel):
    """Latency of the target's replies over every case that has one (errors included), in milliseconds."""

    p50: float | None
    p95: float | None
    max: float | None = None


class ModelTokensOut(ResponseModel):
    """Tokens spent through one model (null: the replies did not name it)."""

    model: str | None
    cases: int
    input_tokens: int
    output_tokens: int


class UsageOut(ResponseModel):
    """What the agent's replies said they spent, over the cases whose reply said so (the rest: unknown)."""

    cases: int
    input_tokens: int
    output_tokens: int
    by_model: list[ModelTokensOut]


class JudgeUsageOut(ResponseModel):
    """What the grader's calls (model judges') said they spent, apart from the agent's."""

    cases: int = Field(description="Cases graded with calls whose every call said what it spent")
    unknown_cases: int = Field(description="Cases graded by a call that did not say (or failed): unknown")
    calls: int
    input_tokens: int
    output_tokens: int
    by_model: list[ModelTokensOut] = Field(description="By the judge's model; cases there counts calls")


class CostPartOut(ResponseModel):
    """One part of a run's cost (the agent's, the judge's, or the total), in US dollars as exact decimals."""

    usd: Decimal | None = Field(description="Sum over the cases whose cost is known (null: none is: unknown)")
    known_cases: int
    unknown_cases: int = Field(description="Cases left out of usd: no tokens, or a model without a price")
    max_case_usd: Decimal | None = Field(description="The costliest known case")


class CostOut(ResponseModel):
    """A run's cost, the agent's and the judge's apart; never 0 for what is unknown."""

    agent: CostPartOut
    judge: CostPartOut
    total: CostPartOut


class ResultJudgeUsageOut(ResponseModel):
    """What the calls grading one case said they spent."""

    calls: int
    unknown_calls: int = Field(description="Calls that did not say (or failed): the tokens are then unknown")
    input_tokens: int | None = Field(description="Over every call (null: unknown)")
    output_tokens: int | None = Field(description="Over every call (null: unknown)")


class ResultCostOut(ResponseModel):
    """One case's cost in US dollars (null: unknown: no tokens, or a model without a price)."""

    agent_usd: Decimal | None
    judge_usd: Decimal | None = Field(description="0 when no call was made to grade it")
    total_usd: Decimal | None


class ResultUsageOut(ResponseModel):
    """What one reply said it spent."""

    input_tokens: int
    output_tokens: int
    model: str | None


class ClassScoresOut(ResponseModel):
    """Precision, recall and F1 of one class (``None`` where undefined)."""

    precision: float | None
    recall: float | None
    f1: float | None
    support: int


class BinaryReportOut(ResponseModel):
    """A binary grader's report: confusion matrix ``[expected][actual]`` with an ``invalid`` column."""

    labels: list[str]
    confusion_matrix: dict[str, dict[str, int]]
    per_class: dict[str, ClassScoresOut]
    total: int
    invalid: int
    invalid_expected: int
    accuracy: float | None = Field(description="Invalid answers counted as wrong")
    accuracy_valid_only: float | None = Field(description="Invalid answers left out")
    cohen_kappa: float | None = Field(description="Invalid answers as a category of their own")


class ScoreBinOut(ResponseModel):
    """Scores in ``[low, high)`` (the last bin includes 1.0)."""

    low: float
    high: float
    count: int


class ScoreDistributionOut(ResponseModel):
    """Graded scores of a grader whose score is a similarity (report ``score``)."""

    bins: list[ScoreBinOut]
    p25: float | None
    p50: float | None
    p75: float | None


class AssertionFiguresOut(ResponseModel):
    """One assertion's verdicts over the cases it graded."""

    total: int
    passed: int
    by_match_status: dict[str, int]


class AssertionVerdictOut(ResponseModel):
    """One assertion's verdict on a case (docs/assertions.md)."""

    name: str
    grader_id: str
    passed: bool
    score: float
    match_status: str
    reason: str | None


class CaseRepeatsOut(ResponseModel):
    """One case's passes of its runs, with the Wilson 95 % interval of its pass rate."""

    number: int
    passed: int
    runs: int
    low: float
    high: float


class RepeatFiguresOut(ResponseModel):
    """A run that asked each case several times: pass@k and pass^k (unbiased, averaged over cases) and its
    flaky cases (some runs passed, some not)."""

    repeats: int
    cases: int
    flaky: int
    pass_at_k: list[float] = Field(
        description="pass_at_k[k-1]: the chance that k runs hold a pass, k ≤ repeats"
    )
    pass_hat_k: list[float] = Field(description="pass_hat_k[k-1]: the chance that k runs all pass (pass^k)")
    cases_by_failures: list[int] = Field(
        description="cases_by_failures[f]: cases that failed f of their runs"
    )
    flaky_cases: list[CaseRepeatsOut] = Field(description="Up to 100, the nearest to half passed first")


class SummaryOut(ResponseModel):
    """The evaluation's figures; errors count as failures in the pass rate, not in the mean score."""

    total_cases: int
    finished: int
    graded: int
    passed: int
    failed: int
    pass_rate: float | None
    pass_rate_ci95: list[float] | None = Field(description="Wilson 95 % interval [low, high]")
    mean_score: float | None
    by_match_status: dict[str, int]
    by_reason_code: dict[str, int] = Field(
        default_factory=dict,
        description="Verdicts by the reason code their grader gave (e.g. the extract grader's 'hedged')",
    )
    error_count: int
    errors_by_reason: dict[str, int]
    latency_ms: LatencyOut
    binary: BinaryReportOut | None = None
    score_distribution: ScoreDistributionOut | None = None
    by_assertion: dict[str, AssertionFiguresOut] = Field(
        default_factory=dict,
        description="Verdicts by assertion name, over the cases graded by per-case assertions",
    )
    usage: UsageOut | None = Field(
        default=None, description="The agent's tokens, when any reply said what it spent (else unknown)"
    )
    repeats: RepeatFiguresOut | None = Field(
        default=None,
        description="pass@k, pass^k and flaky cases, when each case was asked more than once (the counts "
        "above are then of runs: total_cases is cases × repeats)",
    )
    judge_usage: JudgeUsageOut | None = Field(
        default=None, description="The judge's tokens, when any case was graded with calls"
    )
    cost: CostOut | None = Field(
        default=None, description="The cost, when the evaluation has a price table (ASSAY_PRICES, prices)"
    )


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


class TrajectorySummaryOut(ResponseModel):
    """What a result keeps of the agent's trajectory: its dialect, counts, the tools called (name to number
    of calls, in first-use order), usage and duration (null: the trajectory does not say)."""

    dialect: str
    steps: int
    tool_calls: int
    tool_names: dict[str, int]
    input_tokens: int | None
    output_tokens: int | None
    seconds: float | None


class ResultOut(ResponseModel):
    """One case's result: graded (``details``) or ended by an ``error`` reason. ``number`` (from 1) and
    ``key`` name the case as every surface does; ``case_id`` is the database's id of the case."""

    case_id: int
    number: int
    key: str | None
    input: str
    expected_output: str
    agent_response: str | None
    passed: bool
    score: float | None
    match_status: MatchStatus | None
    reason: str | None = Field(description="Why the grader decided so (its details' reason)")
    reason_code: str | None = Field(
        description="The rule that decided, when the grader names one (the extract grader's 'hedged'...)"
    )
    answer: str | None = Field(description="The answer the grader read in a longer reply (answer extraction)")
    explanation: str | None = Field(description="A model judge's reasoning")
    details: JsonObject | None = Field(description="Everything the grader said, as it said it")
    error: str | None = Field(
        description="Why the case has no verdict: the target's failure (timeout_after_retries...), or its "
        "grader's (invalid_judgement, judge_<reason>: a model judge that failed; details then say more)",
        examples=["timeout_after_retries", "http_503_after_retries", "bad_response", "invalid_judgement"],
    )
    error_detail: str | None
    latency_ms: float | None
    attempts: int
    cached: bool = Field(description="The reply came from the reply cache: the agent was not called for it")
    repeat: int = Field(description="Which asking of the case this is, from 0 (an evaluation's repeats)")
    usage: ResultUsageOut | None = Field(description="What the agent's reply said it spent (null: unknown)")
    judge_usage: ResultJudgeUsageOut | None = Field(
        default=None, description="What the grader's calls (a model judge's) said they spent (null: no call)"
    )
    cost: ResultCostOut | None = Field(
        default=None, description="The case's cost, when the evaluation has a price table (else null)"
    )
    assertions: list[AssertionVerdictOut] | None = Field(
        default=None,
        description="Each assertion's verdict, for a case graded by its own assertions (else null); the "
        "same verdicts as details.children",
    )
    trajectory: TrajectorySummaryOut | None = Field(
        default=None,
        description="The summary of the agent's trajectory, when its target captures one (its steps: "
        "GET .../results/{case_id}/trajectory)",
    )

    @classmethod
    def of(cls, result: Result, prices: Mapping[str, ModelPrice] | None = None) -> ResultOut:
        """The schema of a service record; its cost with the evaluation's ``prices`` (none: no cost)."""
        out = cls.model_validate(result, from_attributes=True)
        judge = result.judge
        if judge is not None:
            out.judge_usage = ResultJudgeUsageOut(
                calls=judge.calls,
                unknown_calls=judge.unknown_calls,
                input_tokens=judge.input_tokens,
                output_tokens=judge.output_tokens,
            )
        if prices:
            cost = case_cost(prices, result.tokens, judge)
            out.cost = ResultCostOut(agent_usd=cost.agent, judge_usd=cost.judge, total_usd=cost.total)
        verdicts = assertion_verdicts(result.details)
        if verdicts is not None:
            out.assertions = [AssertionVerdictOut.model_validate(v, from_attributes=True) for v in verdicts]
        return out


class MessageToolCallOut(ResponseModel):
    """A tool an input message's assistant calls: its id, name and arguments (the JSON text given)."""

    id: str
    name: str
    arguments: str


class InputMessageOut(ResponseModel):
    """One message of a conversation input, in OpenAI's chat format (docs/conversations.md)."""

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | None = Field(description="The text; null for an assistant message that only calls tools")
    tool_calls: list[MessageToolCallOut] = Field(description="The tools an assistant message calls")
    tool_call_id: str | None = Field(description="The call a tool message answers")
    name: str | None


class ResultDetailOut(ResultOut):
    """One case's result, with what only the one-result route gives: the case's input messages."""

    messages: list[InputMessageOut] | None = Field(
        default=None,
        description="The case's input as chat messages, when it is a conversation (null: a text input, or a "
        "case deleted since; input then holds the text)",
    )

    @classmethod
    def of_case(
        cls, result: Result, messages: Sequence[Message], prices: Mapping[str, ModelPrice] | None = None
    ) -> ResultDetailOut:
        """The schema of a service record and its case's input ``messages`` (none: a text input)."""
        out = cls.model_validate(ResultOut.of(result, prices), from_attributes=True)
        if messages:
            out.messages = [
                InputMessageOut.model_validate(message, from_attributes=True) for message in messages
            ]
        return out


class ResultList(ResponseModel):
    """A page of results: up to ``limit`` rows, fewer when they would pass ASSAY_MAX_RESULTS_PAGE_BYTES."""

    results: list[ResultOut]
    count: int
    total: int
    next_skip: int | None = Field(
        description="Where the next page starts (skip + count); null after the last"
    )


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
