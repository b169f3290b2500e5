"""The record of one case's run, and the step that makes it: a reply graded into a :class:`CaseResult`.

Shared by every driver of a run: the event-loop runner (:mod:`assay.services.execution.runner`) and the
loop-free local run over recorded answers (:mod:`assay.services.local_run.run`). Imports no asyncio: a run
that never waits need not load an event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from assay.domain import Conversation
from assay.graders import GraderInterface
from assay.graders.contract.verdict import VerdictRecord
from assay.json_types import JsonObject
from assay.services.figures.summary import ReportShape, ResultFacts, Tokens
from assay.targets.base import TargetCase, TargetReply
from assay.targets.usage import JudgeSpend, Usage

if TYPE_CHECKING:
    from assay.graders import CallTransport
    from assay.graders.composite.assertions import AssertionsGrader

BATCH_SIZE = 500
"""Results handed to a sink at once, at most."""
FLUSH_INTERVAL_S = 0.1
"""How long a batch may wait to fill while replies trickle in (bounds work lost to a crash)."""


@dataclass(slots=True)
class RunCase:
    """A case to run: what the target sees, and what the grader compares the reply with (not frozen, like
    the other records made for every case: a frozen dataclass costs twice as much to make). ``checks`` is the
    grader of the case's own assertions (docs/assertions.md); ``None``: the run's grader grades it."""

    target_case: TargetCase
    expected_output: str
    checks: AssertionsGrader | None = None
    conversation: Conversation | None = None
    """A multi-turn case's turns, sent one by one (docs/conversations.md); ``None``: one call."""


@dataclass(slots=True)
class CaseResult:
    """The outcome of one case: graded (``details`` set) or an ``error`` reason with no grading.

    ``number`` (1-based place in the suite) and ``key`` (the user's name for the case, if its suite has
    keys) name the case to users; ``case_id`` is the database's id (the number, for the CLI). The verdict's
    shared fields (``match_status``, ``reason``, ``reason_code``, the ``answer`` read, a judge's
    ``explanation``) are typed here, read once from the grader's result (:class:`VerdictRecord`); ``details``
    is the grader's own. Built by keyword, except in :func:`_graded`, which runs for every graded case and
    passes its fields in order (keywords cost 0.8 µs more per case; bench/README.md, hot functions).
    """

    case_id: int
    number: int
    key: str | None
    input: str
    expected_output: str
    agent_response: str | None
    passed: bool
    score: float | None
    match_status: str | None
    reason: str | None
    reason_code: str | None
    answer: str | None
    explanation: str | None
    details: JsonObject | None
    error: str | None
    error_detail: str | None
    latency_ms: float | None
    attempts: int
    cached: bool = False
    """The reply came from the reply cache (the agent was not called for it)."""
    usage: Usage | None = None
    """What the agent's reply said it spent (``None``: unknown)."""
    trajectory: Any = None
    """The agent's trajectory read from its reply (a ``Trajectory``), or why it could not be read (a
    ``TrajectoryProblem``); ``None``: the target captures none. Its steps are stored apart."""
    repeat: int = 0
    """Which asking of the case this is (0-based; a run with ``repeats`` n has 0..n-1 of each case)."""
    judge: JudgeSpend | None = None
    """What the grader's calls (a model judge's) said they spent (``None``: no call was made)."""

    @property
    def tokens(self) -> Tokens | None:
        """The usage as the summary counts it."""
        usage = self.usage
        return None if usage is None else (usage.input_tokens, usage.output_tokens, usage.model)

    def as_dict(self) -> JsonObject:
        """The result as a JSON object (the API's): ``as_record`` with the database's ``case_id``."""
        return {"case_id": self.case_id, **self.as_record()}

    def as_record(self) -> JsonObject:
        """The result as users see it, by name: a line of a results file or an export (no database id)."""
        return {
            "number": self.number,
            "key": self.key,
            "input": self.input,
            "expected_output": self.expected_output,
            "agent_response": self.agent_response,
            "passed": self.passed,
            "score": self.score,
            "match_status": self.match_status,
            "reason": self.reason,
            "reason_code": self.reason_code,
            "answer": self.answer,
            "explanation": self.explanation,
            "details": self.details,
            "error": self.error,
            "error_detail": self.error_detail,
            "latency_ms": self.latency_ms,
            "attempts": self.attempts,
            **({"cached": True} if self.cached else {}),  # only when true: results files stay as they were
            **({"usage": _usage_record(self.usage)} if self.usage is not None else {}),
            **({"trajectory": summary} if (summary := _summary(self.trajectory)) else {}),
            **({"repeat": self.repeat} if self.repeat else {}),  # absent: 0, as in a run without repeats
            **({"judge_usage": self.judge.as_record()} if self.judge is not None else {}),
        }

    def facts(self, shape: ReportShape) -> ResultFacts:
        """What the summary needs of this result."""
        return shape.facts(
            self.passed,
            self.score,
            self.error,
            self.latency_ms,
            self.match_status,
            self.reason_code,
            self.details,
            self.tokens,
            judge=self.judge,
        )


def _usage_record(usage: Usage) -> JsonObject:
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "model": usage.model}


class ResultSink(Protocol):
    """Where results go; ``write`` may run in a worker thread (see ``run_cases``) and must be idempotent per
    case."""

    def write(self, results: Sequence[CaseResult]) -> None:
        """Store one batch of results."""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How a run ended: results written, and whether it stopped early because it was asked to."""

    written: int
    stopped: bool


def grade_reply(
    case: RunCase, reply: TargetReply, grader: GraderInterface, response: object = None
) -> CaseResult:
    """The result of one case: a target error is kept as data (failed, unscored); a reply is graded (as
    ``response`` when given: an ``AgentReply`` carrying more than the reply's text)."""
    if reply.error is not None:
        return _result(case, reply)
    answer = _answer(reply, response)
    checks = case.checks
    if checks is None:
        return _graded(case, reply, VerdictRecord.of(grader.grade(answer, case.expected_output)))
    return _graded(case, reply, VerdictRecord.of(checks.grade(answer, case.expected_output)))


async def grade_reply_calling(
    case: RunCase, reply: TargetReply, grader: GraderInterface, calls: CallTransport, response: object = None
) -> CaseResult:
    """:func:`grade_reply` making the calls the grading needs (a model judge's), sent by ``calls``: the case's
    own assertions' when they call out, else ``grader``'s; told the case's input (a judge sees the
    question)."""
    from assay.graders.contract.calls import (  # loaded by a run that grades with calls only
        CaseContext,
        calls_out,
        grade_calling,
    )
    from assay.targets.grader_calls import SpendCounter

    if reply.error is not None:
        return grade_reply(case, reply, grader)
    checks = case.checks
    context = CaseContext(input=case.target_case.input)
    answer = _answer(reply, response)
    counted = SpendCounter(calls)  # the judge's spend, apart from the agent's
    if checks is not None:
        if not checks.makes_calls:
            return grade_reply(case, reply, grader, response)
        verdict = await checks.grade_calling(answer, case.expected_output, counted, context)
    elif calls_out(grader):
        verdict = await grade_calling(grader, answer, case.expected_output, counted, context)
    else:
        return grade_reply(case, reply, grader, response)
    return _graded(case, reply, VerdictRecord.of(verdict), counted.spend())


def _answer(reply: TargetReply, response: object) -> object:
    """What graders are handed: the caller's ``response`` (a conversation's), else the reply's trajectory as
    an ``AgentReply`` when it has one, else its text."""
    if response is not None:
        return response
    if reply.trajectory is None:
        return reply.output
    from assay.services.execution.trajectories import graded_answer

    return graded_answer(reply)


# Trajectories' modules (their readers, the heavy-work thread) are loaded only when a target captures one:
# a run of recorded answers starts without them (tests/e2e/cli/test_startup.py).


def _summary(trajectory: object) -> JsonObject | None:
    if trajectory is None:
        return None
    from assay.services.execution.trajectories import trajectory_summary

    return trajectory_summary(trajectory)


def _graded(
    case: RunCase, reply: TargetReply, verdict: VerdictRecord, judge: JudgeSpend | None = None
) -> CaseResult:
    """The result of a graded reply; a verdict whose grader could not judge (``error``) is stored as a case
    error with that reason, its details kept (what the judge was asked and answered)."""
    if reply.trajectory is not None:  # graders were handed an AgentReply, and may quote it
        from assay.services.execution.trajectories import plain_details

        verdict = replace(verdict, details=plain_details(verdict.details))
    if verdict.error is not None:
        return _result(
            case,
            reply,
            details=verdict.details,
            reason=verdict.reason,
            reason_code=verdict.reason_code,
            explanation=verdict.explanation,
            error=verdict.error,
            error_detail=verdict.reason or None,
            judge=judge,
        )
    target_case = case.target_case
    # Every field in order, positionally: this runs for every graded case (see CaseResult).
    return CaseResult(
        target_case.case_id,
        target_case.place,
        target_case.key,
        target_case.input,
        case.expected_output,
        reply.output,
        verdict.passed,
        verdict.score,
        verdict.match_status._value_,
        verdict.reason,
        verdict.reason_code,
        verdict.answer,
        verdict.explanation,
        verdict.details,
        None,
        None,
        reply.latency_ms,
        reply.attempts,
        reply.cached,
        reply.usage,
        reply.trajectory,
        target_case.repeat,
        judge,
    )


def ungraded_result(case: RunCase, reply: TargetReply) -> CaseResult:
    """The record of a reply no grader judged (the target's error, or one whose verdict comes from
    elsewhere: a multi-turn case's turns)."""
    return _result(case, reply)


def _result(
    case: RunCase,
    reply: TargetReply,
    *,
    passed: bool = False,
    score: float | None = None,
    details: JsonObject | None = None,
    match_status: str | None = None,
    reason: str | None = None,
    reason_code: str | None = None,
    answer: str | None = None,
    explanation: str | None = None,
    error: str | None = None,
    error_detail: str | None = None,
    judge: JudgeSpend | None = None,
) -> CaseResult:
    """The record of one case's reply and verdict; without a verdict, the target's error (if any)."""
    target_case = case.target_case
    if reply.error is not None:
        error, error_detail = reply.error, reply.error_detail
    return CaseResult(
        case_id=target_case.case_id,
        number=target_case.place,
        key=target_case.key,
        input=target_case.input,
        expected_output=case.expected_output,
        agent_response=reply.output,  # with an error: None, or what an answer cut at the size cap holds
        passed=passed,
        score=score,
        details=details,
        match_status=match_status,
        reason=reason,
        reason_code=reason_code,
        answer=answer,
        explanation=explanation,
        error=error,
        error_detail=error_detail,
        latency_ms=reply.latency_ms,
        attempts=reply.attempts,
        cached=reply.cached,
        usage=reply.usage,
        trajectory=reply.trajectory,
        repeat=target_case.repeat,
        judge=judge,
    )


def grade_replies(
    pending: Sequence[tuple[RunCase, TargetReply]], grader: GraderInterface
) -> tuple[list[CaseResult], Exception | None]:
    """:func:`grade_reply` for each reply in turn (called on a worker thread): the results, and what the
    grader raised if it did (a bug: the results before it are kept, the run then fails as it would inline)."""
    results: list[CaseResult] = []
    for case, reply in pending:
        try:
            results.append(grade_reply(case, reply, grader))
        except Exception as exc:
            return results, exc
    return results, None
