"""Graders that need outbound calls (a model judge): what such a grader and the platform exchange.

A grader stays pure. One that needs calls plans them (:meth:`CallingGrader.plan_calls`) and reads their
replies (:meth:`CallingGrader.read_replies`), told the case's :class:`CaseContext` when the caller has one
(the input the agent was asked, which a judge needs to tell a correct answer). A lone judge is the one-call
case (:class:`OneCallGrader`: ``plan`` and ``read``); a composite holding judges plans the calls of all of
them and has each reply read by its own child. Whoever grades (the evaluation runner, the API's playground,
the CLI) sends the requests through the targets' HTTP code, which applies the egress policy, reads secrets by
name, retries with backoff and ``Retry-After``, times out and caps the reply, and hands back a
:class:`CallReply`. :func:`grade_calling` is that exchange, written once. The platform knows the capability
(:func:`calls_out`), never a grader's id.

Plain :meth:`CallingGrader.grade` has no way out: it reads every reply as :meth:`CallReply.unavailable`,
which a grader must turn into a verdict that fails (an error, never a pass).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

from assay.graders.contract.base import GraderInterface
from assay.graders.contract.verdict import GradeResult

__all__ = [
    "CALL_UNAVAILABLE",
    "NO_CONTEXT",
    "CallPlan",
    "CallReply",
    "CallTransport",
    "CallingGrader",
    "CaseContext",
    "Endpoint",
    "OneCallGrader",
    "OutboundCall",
    "calls_out",
    "grade_calling",
]

CALL_UNAVAILABLE = "call_unavailable"
"""The reason of a reply that was never asked for: the grader was called without a way out."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Endpoint:
    """Where a grader's calls go and how; checked by the platform's egress and secret policies.

    ``url_field`` and ``key_field`` name the config keys the URL and the key's variable come from, so a
    refusal can say which field to fix.
    """

    url: str
    """The URL each call is POSTed to."""
    api_key_env: str | None
    """Name of the environment variable whose value is sent as ``Authorization: Bearer``; never the value."""
    timeout: float
    """Seconds one attempt may take."""
    max_attempts: int
    """Tries per call, the first included (retryable failures only: timeouts, 408, 429, 5xx)."""
    max_reply_bytes: int
    """A longer reply body is not read (the call fails)."""
    max_total_seconds: float | None = None
    """Seconds one answer's call may take in all, every attempt, backoff and ``Retry-After`` wait included;
    then it fails as a timeout (``None``: bounded only by ``max_attempts`` × (``timeout`` + waits))."""
    url_field: str = "base_url"
    key_field: str = "api_key_env"


@dataclass(frozen=True, slots=True, kw_only=True)
class OutboundCall:
    """One request a grader asks the platform to make: a JSON body POSTed to its endpoint."""

    endpoint: Endpoint
    body: Mapping[str, Any]
    """A JSON object (strings hold no lone surrogates)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallReply:
    """What came back: a 2xx reply's ``body``, or an ``error`` reason (``timeout_after_retries``,
    ``http_401``, ``egress_refused``...) with its detail. Secret values are never in either."""

    status: int | None = None
    body: bytes = b""
    error: str | None = None
    error_detail: str | None = None
    latency_ms: float | None = None
    attempts: int = 0

    @classmethod
    def unavailable(cls) -> CallReply:
        """The reply :meth:`CallingGrader.grade` reads: no call could be made."""
        return cls(
            error=CALL_UNAVAILABLE,
            error_detail="grade() makes no outbound call; grade through an evaluation, the API or the CLI",
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseContext:
    """What a calling grader may be told of the case besides the answer and the expected output."""

    input: str | None = None
    """The input the agent was given (the question); ``None`` when the caller has none (a playground, a
    file of answers)."""


NO_CONTEXT = CaseContext()


@dataclass(frozen=True, slots=True, kw_only=True)
class CallPlan:
    """The calls a grader asks for one answer, and what it keeps to read their replies."""

    calls: tuple[OutboundCall, ...]
    state: Any = None
    """The grader's own (a composite's verdicts of its children that need no call); the platform never
    reads it."""


class CallTransport(Protocol):
    """What sends a grader's calls (the targets' HTTP code); ``send`` never raises but for cancellation."""

    async def send(self, call: OutboundCall) -> CallReply:
        """Make the call; failures are a reply with an ``error``."""
        ...


class CallingGrader(GraderInterface):
    """A grader whose verdict needs outbound calls (a model judge; a composite holding judges).

    For one answer it plans its calls (:meth:`plan_calls`: none needed is a verdict at once), the platform
    sends them, and it reads their replies (:meth:`read_replies`), one per call in the plan's order. Neither
    raises, like ``grade``; a reply that cannot be read is a failing verdict. Whether an instance calls out
    at all is :attr:`makes_calls` (a composite holding no judge makes none): ask :func:`calls_out`.
    """

    __slots__ = ()

    @property
    def makes_calls(self) -> bool:
        """Whether grading an answer with this instance may make a call."""
        return True

    @property
    @abstractmethod
    def endpoints(self) -> tuple[Endpoint, ...]:
        """Every endpoint this grader's calls may go to (checked once, before a run)."""

    @abstractmethod
    def plan_calls(
        self, agent_response: Any, expected_output: Any, case: CaseContext
    ) -> CallPlan | GradeResult:
        """The calls that judge this answer of ``case``, or the verdict when none is needed."""

    @abstractmethod
    def read_replies(
        self,
        agent_response: Any,
        expected_output: Any,
        case: CaseContext,
        plan: CallPlan,
        replies: Sequence[CallReply],
    ) -> GradeResult:
        """The verdict from the replies to ``plan``'s calls (one per call, in order)."""

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Without a transport: a verdict that says the calls could not be made (never a pass)."""
        planned = self.plan_calls(agent_response, expected_output, NO_CONTEXT)
        if not isinstance(planned, CallPlan):
            return planned
        unavailable = [CallReply.unavailable()] * len(planned.calls)
        return self.read_replies(agent_response, expected_output, NO_CONTEXT, planned, unavailable)


class OneCallGrader(CallingGrader):
    """A calling grader making one call per answer to one endpoint (a model judge): the one-call case of
    :class:`CallingGrader`, written as :meth:`plan` and :meth:`read`."""

    __slots__ = ()

    @property
    @abstractmethod
    def endpoint(self) -> Endpoint:
        """Where this grader's calls go (the same for every answer: checked once, before a run)."""

    @property
    def endpoints(self) -> tuple[Endpoint, ...]:
        """The one endpoint."""
        return (self.endpoint,)

    @abstractmethod
    def plan(self, agent_response: Any, expected_output: Any) -> OutboundCall | GradeResult:
        """The call that judges this answer, or the verdict when no call is needed (an empty answer)."""

    @abstractmethod
    def read(
        self, agent_response: Any, expected_output: Any, call: OutboundCall, reply: CallReply
    ) -> GradeResult:
        """The verdict from the reply to ``call`` (planned for this answer)."""

    def plan_case(
        self, agent_response: Any, expected_output: Any, case: CaseContext
    ) -> OutboundCall | GradeResult:
        """:meth:`plan` told the case's context; a grader whose request uses it (a judge shown the question)
        overrides this and :meth:`read_case`. By default the context is not used."""
        return self.plan(agent_response, expected_output)

    def read_case(
        self,
        agent_response: Any,
        expected_output: Any,
        case: CaseContext,
        call: OutboundCall,
        reply: CallReply,
    ) -> GradeResult:
        """:meth:`read` told the case's context (the one the call was planned with)."""
        return self.read(agent_response, expected_output, call, reply)

    def plan_calls(
        self, agent_response: Any, expected_output: Any, case: CaseContext
    ) -> CallPlan | GradeResult:
        """The one call, as a plan."""
        planned = self.plan_case(agent_response, expected_output, case)
        return CallPlan(calls=(planned,)) if isinstance(planned, OutboundCall) else planned

    def read_replies(
        self,
        agent_response: Any,
        expected_output: Any,
        case: CaseContext,
        plan: CallPlan,
        replies: Sequence[CallReply],
    ) -> GradeResult:
        """The one reply, read (a missing one is read as a call not made: never a pass)."""
        reply = replies[0] if replies else CallReply.unavailable()
        return self.read_case(agent_response, expected_output, case, plan.calls[0], reply)


def calls_out(grader: GraderInterface) -> TypeGuard[CallingGrader]:
    """Whether grading with ``grader`` makes outbound calls (the capability the platform asks, by instance:
    a composite is a calling grader only when a judge is among its descendants)."""
    return isinstance(grader, CallingGrader) and grader.makes_calls


async def grade_calling(
    grader: CallingGrader,
    agent_response: Any,
    expected_output: Any,
    transport: CallTransport,
    case: CaseContext = NO_CONTEXT,
) -> GradeResult:
    """Grade one answer of the case ``case``, making the calls the grader plans through ``transport``, all at
    once (the transport's pool bounds them; a grader plans at most a few). Never raises."""
    planned = grader.plan_calls(agent_response, expected_output, case)
    if not isinstance(planned, CallPlan):
        return planned
    if len(planned.calls) == 1:  # a lone judge: no gather
        replies: Sequence[CallReply] = [await transport.send(planned.calls[0])]
    else:
        import asyncio  # here: a command grading without calls loads this module, not asyncio

        replies = await asyncio.gather(*(transport.send(call) for call in planned.calls))
    return grader.read_replies(agent_response, expected_output, case, planned, replies)
