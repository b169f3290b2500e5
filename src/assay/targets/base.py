"""The target interface: one case in, one reply out (a response or a machine-readable error)."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

import orjson

from assay.targets.reasons import DEFAULT_MAX_ANSWER_BYTES, ErrorReason, TargetCallError, cut_answer
from assay.targets.redaction import Redactor
from assay.targets.retry import RetryPolicy, call_with_retries
from assay.targets.trace_capture import Capture, TraceReceiver, collecting_captures
from assay.targets.usage import Usage, collecting_usage

if TYPE_CHECKING:  # pydantic is loaded only when a case holds a chat
    from assay.chat import Message


@dataclass(slots=True)  # not frozen: made for every case (see RunCase)
class TargetCase:
    """What a target sees of a test case.

    ``number`` is the case's 1-based place in its suite (``None``: ``case_id`` is that place, as for the
    CLI's cases) and ``key`` the user's own name for it, when its suite's cases have keys. ``messages``,
    when given, is what the agent is sent (a conversation; ``input`` is then its text for people);
    ``repeat`` which asking of the case this is (0-based, for a run that asks each case several times).
    """

    case_id: int
    input: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    number: int | None = None
    key: str | None = None
    messages: tuple[Message, ...] | None = None
    repeat: int = 0

    @property
    def asked(self) -> str:
        """What the agent is asked, as one text that tells any two requests apart (the reply cache's key):
        the input, or the messages' JSON after a NUL (which no JSON text starts with)."""
        if self.messages is None:
            return self.input
        return "\0" + orjson.dumps([message.as_openai() for message in self.messages]).decode()

    def chat(self) -> list[dict[str, Any]]:
        """The messages in OpenAI's chat format: the conversation, or the input as one user message."""
        if self.messages is None:
            return [{"role": "user", "content": self.input}]
        return [message.as_openai() for message in self.messages]

    @property
    def place(self) -> int:
        """The case's number: its 1-based place in its suite."""
        return self.number if self.number is not None else self.case_id

    @property
    def name(self) -> str:
        """What recorded answers know the case by: its key in a keyed suite, else its number."""
        if self.key is not None:
            return self.key
        return str(self.number if self.number is not None else self.case_id)  # :attr:`place`, inlined


@dataclass(slots=True)  # not frozen: made for every case (see RunCase)
class TargetReply:
    """A target's answer to one case: ``output``, or ``error`` (a reason code) and ``error_detail``.

    An error may still carry an output: an answer cut at the size cap is stored as far as it goes."""

    output: str | None
    error: str | None = None
    error_detail: str | None = None
    latency_ms: float | None = None
    attempts: int = 1
    cached: bool = False
    """Given by the reply cache (the agent was not called for it)."""
    usage: Usage | None = None
    """What the reply said it spent; ``None``: unknown (it said nothing, or nothing was called)."""
    capture: Capture | None = None
    """The trajectory the answering call captured (its trace id, the reply's part), when the target
    captures trajectories; read into a trajectory by the runner (``services/execution/trajectories.py``)."""
    trajectory: Any = None
    """The trajectory read from ``capture``: an ``assay.graders.trajectory`` ``Trajectory``, or the problem
    that kept it from being read (a ``TrajectoryProblem``); ``None`` when nothing was captured."""

    @property
    def is_error(self) -> bool:
        """Whether the case ended without a usable response."""
        return self.error is not None


class Target(ABC):
    """Produces the agent's response for a case; never raises for a failed call (failure is data).

    Subclasses implement :meth:`call` for one attempt, raising :class:`TargetCallError`; :meth:`respond`
    adds the timeout, the retries and the timing. Use a target as an async context manager so the
    resources it holds (an HTTP client) are released.
    """

    traces: TraceReceiver | None = None
    """Where the spans of the traces this target sends arrive (targets capturing OTLP spans set it)."""

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        *,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        redactor: Redactor | None = None,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self.max_answer_bytes = max_answer_bytes
        self.redactor = redactor if redactor is not None else Redactor()
        """The secrets this target sends: taken out of every reply it returns (an agent may echo them)."""

    @abstractmethod
    async def call(self, case: TargetCase) -> str | None:
        """One attempt at answering ``case``; raises :class:`TargetCallError` when it fails."""

    def reply_at_once(self, case: TargetCase) -> TargetReply | None:
        """The reply to ``case`` when the target has it at hand without waiting (recorded answers), else
        ``None``: then :meth:`respond` is awaited. Spares the runner a coroutine per case."""
        return None

    async def respond(self, case: TargetCase, proceed: Callable[[], bool] | None = None) -> TargetReply:
        """The reply to ``case`` after retries, without the target's secrets; never raises except for
        cancellation. ``proceed`` is asked before every attempt: once it says no (the process lost its shard
        while a retry waited, or while it was frozen), no further attempt is made."""
        reply = await self._respond(case, proceed)
        if self.redactor:  # reply bodies are redacted as read; this catches what else a failure quotes
            text = self.redactor.text
            reply.output = text(reply.output) if reply.output is not None else None
            reply.error_detail = text(reply.error_detail) if reply.error_detail is not None else None
        return reply

    async def _respond(self, case: TargetCase, proceed: Callable[[], bool] | None) -> TargetReply:
        started = time.perf_counter()

        async def attempt() -> str | None:
            if proceed is not None and not proceed():
                raise TargetCallError(ErrorReason.TARGET_ERROR.value, "stopped: the shard is no longer ours")
            return await self.call(case)

        try:
            with collecting_usage() as noted, collecting_captures() as captured:
                try:
                    output, attempts = await call_with_retries(attempt, self.policy)
                    capture = captured[-1] if captured else None  # the attempt that answered
                finally:
                    # Tasks the call started (the HTTP client's) copied the context, and with it this list:
                    # emptied, it keeps no capture alive (nor the reply body an outlined one holds).
                    captured.clear()
        except TargetCallError as failure:
            return TargetReply(
                failure.output,
                error=failure.final_reason,
                error_detail=failure.detail or None,
                latency_ms=_elapsed_ms(started),
                attempts=failure.attempts,
            )
        except Exception as exc:  # a bug in a target must end one case, not the whole run
            return TargetReply(
                None,
                error=ErrorReason.TARGET_ERROR.value,
                error_detail=f"{type(exc).__name__}: {exc}",
                latency_ms=_elapsed_ms(started),
            )
        too_large = cut_answer(output, self.max_answer_bytes) if output is not None else None
        if too_large is not None:
            return TargetReply(
                too_large.output,
                error=too_large.reason,
                error_detail=too_large.detail,
                latency_ms=_elapsed_ms(started),
                attempts=attempts,
                usage=noted[-1] if noted else None,
            )
        usage = noted[-1] if noted else None  # the attempt that answered
        return TargetReply(
            output, latency_ms=_elapsed_ms(started), attempts=attempts, usage=usage, capture=capture
        )

    async def keep_trajectory(self, case: TargetCase, reply: TargetReply) -> None:
        """Told once ``reply``'s captured trajectory is read (``reply.trajectory``): the reply cache stores
        it then (:mod:`assay.targets.cached`); other targets keep nothing."""
        return None

    async def aclose(self) -> None:
        """Release what the target holds; the default holds nothing."""
        return None

    async def __aenter__(self) -> Target:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 3)


def response_text(value: object) -> str | None:
    """An agent's answer as stored text: strings as they are, JSON scalars and structures as JSON text.

    ``None`` stays ``None`` (graders read it as an empty response); ``True`` becomes ``"true"`` so the
    true-false grader reads the boolean an agent meant.
    """
    if value is None or isinstance(value, str):
        return value
    return orjson.dumps(value).decode()
