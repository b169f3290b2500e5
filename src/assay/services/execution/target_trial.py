"""Test a target before a run: send one case, once, and show the raw reply beside the answer read from it.

A newcomer's first question is whether the agent is reachable and whether the answer is read from the
right place (``response_path``, the chat message, the recorded key). One call answers both: the reply as
it came, the answer the evaluation would grade, or the error it would record, and what the grader makes
of that answer: the case's own assertions when it has some (their judges asked), as a run grades it. Nothing
is stored.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from assay.graders import GraderInterface
from assay.graders.contract.calls import CallReply, CallTransport, CaseContext, OutboundCall
from assay.graders.contract.verdict import VerdictRecord
from assay.services.execution.case_results import RunCase
from assay.services.grading.answers import calls_for, check_endpoints, grade_answer, open_calls
from assay.targets import ErrorReason, TargetPolicy, TargetReply, TargetSpec, build_target
from assay.targets.raw import RawReply, capturing_raw

TRIAL_TIMEOUT_S = 30.0
"""The longest a test of a target takes, its grader's calls (a model judge's) included."""


class _Deadline:
    """A grader's calls cut at the trial's deadline: a judge's retries must not outlast the trial."""

    def __init__(self, calls: CallTransport, deadline: float) -> None:
        self._calls = calls
        self._deadline = deadline

    async def send(self, call: OutboundCall) -> CallReply:
        try:
            async with asyncio.timeout_at(self._deadline):
                return await self._calls.send(call)
        except TimeoutError:
            detail = f"a test of a target takes at most {TRIAL_TIMEOUT_S:g} s, its grader's calls included"
            return CallReply(error=ErrorReason.TIMEOUT_AFTER_RETRIES.value, error_detail=detail)


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetTrial:
    """One case sent once: ``raw`` as the agent sent it (``None`` when nothing came back), ``answer`` as
    read from it, or the ``error`` the evaluation would record; ``verdict`` when a grader was given."""

    number: int
    key: str | None
    input: str
    expected_output: str
    raw: RawReply | None
    answer: str | None
    error: str | None
    error_detail: str | None
    latency_ms: float | None
    verdict: VerdictRecord | None

    @property
    def reached(self) -> bool:
        """Whether the agent sent something back (an error status counts: it answered)."""
        return self.raw is not None


async def _send_once(
    spec: TargetSpec, case: RunCase, policy: TargetPolicy | None, grader: GraderInterface | None
) -> tuple[TargetReply, RawReply | None, VerdictRecord | None]:
    # One attempt: a test shows what happened, not what retries would have hidden; and a test is waited
    # for by a person (and holds an API worker), so it gets at most TRIAL_TIMEOUT_S.
    deadline = asyncio.get_running_loop().time() + TRIAL_TIMEOUT_S
    once = spec.model_copy(update={"max_attempts": 1, "timeout": min(spec.timeout, TRIAL_TIMEOUT_S)})
    async with build_target(once, concurrency=1, policy=policy) as target:
        with capturing_raw() as kept:
            reply = await target.respond(case.target_case)
    verdict = None
    if case.checks is not None and not reply.is_error:
        verdict = await _graded_by_assertions(case, reply, policy, deadline)
    elif grader is not None and not reply.is_error:  # graded as a run grades it (a judge is called)
        async with calls_for(grader, policy, concurrency=1) as calls:
            context = CaseContext(input=case.target_case.input)
            cut = _Deadline(calls, deadline) if calls is not None else None
            verdict = VerdictRecord.of(
                await grade_answer(grader, reply.output, case.expected_output, cut, context)
            )
    return reply, kept[-1] if kept else None, verdict


async def _graded_by_assertions(
    case: RunCase, reply: TargetReply, policy: TargetPolicy | None, deadline: float
) -> VerdictRecord:
    """The verdict of the case's own assertions, their judges' calls (if any) made before ``deadline``."""
    checks = case.checks
    assert checks is not None  # the caller's test
    if not checks.makes_calls:
        return VerdictRecord.of(checks.grade(reply.output, case.expected_output))
    check_endpoints(checks.endpoints, policy, where=("assert",))
    async with open_calls(policy, concurrency=1) as calls:
        context = CaseContext(input=case.target_case.input)
        verdict = await checks.grade_calling(
            reply.output, case.expected_output, _Deadline(calls, deadline), context
        )
    return VerdictRecord.of(verdict)


def try_target(
    spec: TargetSpec,
    case: RunCase,
    *,
    policy: TargetPolicy | None = None,
    grader: GraderInterface | None = None,
) -> TargetTrial:
    """Send ``case`` to the target ``spec`` describes, once, in an event loop of its own; grade the answer
    when one came, with the case's own assertions (``case.checks``) when it has some, else with ``grader``
    when one is given. The spec must already be checked (policy)."""
    reply, raw, verdict = asyncio.run(_send_once(spec, case, policy, grader))
    target_case = case.target_case
    return TargetTrial(
        number=target_case.place,
        key=target_case.key,
        input=target_case.input,
        expected_output=case.expected_output,
        raw=raw,
        answer=reply.output,
        error=reply.error,
        error_detail=reply.error_detail,
        latency_ms=reply.latency_ms,
        verdict=verdict,
    )
