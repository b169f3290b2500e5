"""Schemas of an evaluation's results: one case's result (verdict, usage, cost) and pages of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Literal

from pydantic import Field

from assay.api.schemas.common import ResponseModel
from assay.chat import Message
from assay.config import ModelPrice
from assay.graders import MatchStatus
from assay.graders.composite.assertions import assertion_verdicts
from assay.json_types import JsonObject
from assay.services.evaluations.records import Result
from assay.services.figures.cost import case_cost


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


class AssertionVerdictOut(ResponseModel):
    """One assertion's verdict on a case (docs/assertions.md)."""

    name: str
    grader_id: str
    passed: bool
    score: float
    match_status: str
    reason: str | None


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
