"""A multi-turn case run turn by turn (docs/conversations.md): each scripted user message is sent with the
history the agent actually produced (its own replies, not a script's), each reply graded by its turn's
assertions, and the last reply handed back to be graded as the case's.

Kept apart from the runner: :func:`converse` is what the runner awaits instead of one call for a case
with turns, and :func:`with_turns` folds the turns' verdicts into the case's result.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from assay.chat import Message, ToolCall
from assay.domain import Conversation
from assay.graders.composite.assertions import AssertionsGrader
from assay.graders.contract.reply import AgentReply
from assay.graders.contract.verdict import VerdictRecord
from assay.graders.trajectory.record import Step, Trajectory
from assay.services.execution.case_results import (
    CaseResult,
    RunCase,
    grade_reply,
    grade_reply_calling,
    ungraded_result,
)
from assay.targets.base import TargetCase, TargetReply
from assay.targets.reasons import ErrorReason

if TYPE_CHECKING:
    from assay.graders import CallTransport, GraderInterface
    from assay.targets.base import Target

__all__ = [
    "ConversationRun",
    "StoredCase",
    "TurnVerdict",
    "converse",
    "messages_of",
    "run_conversation_case",
    "stored_run_case",
    "turns_of",
    "with_turns",
]

Respond = Callable[[TargetCase], Awaitable[TargetReply]]


def messages_of(conversation: Conversation | None) -> tuple[Message, ...] | None:
    """What a case's first call sends: its conversation's messages, then its first turn when it has turns
    (``None``: its input, a string). A multi-turn case's later calls are made by :func:`converse`."""
    if conversation is None:
        return None
    if conversation.turns:
        return (*conversation.messages, Message(role="user", content=conversation.turns[0].content))
    return conversation.messages or None


class StoredCase(Protocol):
    """The columns of a stored case that a run reads: a ``CaseRow``, or a shard's ``PendingCase``."""

    @property
    def id(self) -> int: ...
    @property
    def number(self) -> int: ...
    @property
    def input(self) -> str: ...
    @property
    def expected_output(self) -> str: ...
    @property
    def case_metadata(self) -> dict[str, Any]: ...
    @property
    def case_key(self) -> str | None: ...
    @property
    def conversation(self) -> dict[str, Any] | None: ...


def stored_run_case(row: StoredCase, *, repeat: int = 0) -> RunCase:
    """What the runner asks about a stored case: its input, or its conversation (docs/conversations.md)."""
    conversation = Conversation.from_json(row.conversation) if row.conversation else None
    target_case = TargetCase(
        row.id,
        row.input,
        row.case_metadata or {},
        number=row.number,
        key=row.case_key,
        messages=messages_of(conversation),
        repeat=repeat,
    )
    return RunCase(target_case, row.expected_output, conversation=turns_of(conversation))


def turns_of(conversation: Conversation | None) -> Conversation | None:
    """The conversation a case runs turn by turn (``RunCase.conversation``): one with turns, else ``None``."""
    return conversation if conversation is not None and conversation.turns else None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnVerdict:
    """One turn's outcome: the agent's reply and its assertions' verdict (``passed`` true with no
    assertions), or the target's ``error``."""

    number: int
    content: str
    agent_response: str | None
    passed: bool
    score: float | None = None
    reason: str | None = None
    error: str | None = None
    latency_ms: float | None = None

    def as_json(self) -> dict[str, Any]:
        """The verdict as a result's ``details.turns`` holds it."""
        return {
            "turn": self.number,
            "content": self.content,
            "agent_response": self.agent_response,
            "passed": self.passed,
            "score": self.score,
            "reason": self.reason,
            "error": self.error,
            "latency_ms": self.latency_ms,
        }


@dataclass(slots=True, kw_only=True)
class ConversationRun:
    """What a multi-turn case produced: the last reply (graded as the case's), every turn's verdict, the
    whole conversation, and whether turns were left unsent (a failure with ``stop_at_first_failure``, an
    error, or the time bound)."""

    last: TargetReply
    last_text: str = ""
    """The last reply's text (of a reply that is a trajectory document, its final text)."""
    verdicts: list[TurnVerdict] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    unsent: int = 0

    def agent_reply(self) -> AgentReply:
        """What the case's own checks grade: the last reply's text, the whole conversation as its
        trajectory (read as OpenAI chat messages, the form the messages are kept in)."""
        from assay.graders.trajectory.readers import read_trajectory  # pydantic: only for a conversation

        document = {"messages": [message.as_openai() for message in self.messages]}
        found = read_trajectory(document, "openai-chat")
        trajectory = found if isinstance(found, Trajectory) else None
        return AgentReply(text=self.last_text, trajectory=trajectory, raw=self.last.output)

    @property
    def turns_passed(self) -> bool:
        """Whether every turn was sent and passed its assertions."""
        return not self.unsent and all(verdict.passed for verdict in self.verdicts)


async def converse(
    case: TargetCase,
    conversation: Conversation,
    respond: Respond,
    *,
    calls: CallTransport | None = None,
) -> ConversationRun:
    """Send ``conversation``'s turns one after another through ``respond``, within its ``max_seconds``."""
    run = ConversationRun(last=TargetReply(None), messages=list(conversation.messages))
    started = time.perf_counter()
    try:
        async with asyncio.timeout(conversation.max_seconds):
            await _turns(case, conversation, respond, run, calls)
    except TimeoutError:
        run.last = TargetReply(
            None,
            error=ErrorReason.CONVERSATION_TIMEOUT.value,
            error_detail=f"the turns took more than {conversation.max_seconds:g} s "
            f"({len(run.verdicts)} of {len(conversation.turns)} answered)",
        )
        run.unsent = len(conversation.turns) - len(run.verdicts)
    run.last.latency_ms = round((time.perf_counter() - started) * 1000.0, 3)
    return run


async def _turns(
    case: TargetCase,
    conversation: Conversation,
    respond: Respond,
    run: ConversationRun,
    calls: CallTransport | None,
) -> None:
    attempts = 0
    for number, turn in enumerate(conversation.turns, 1):
        run.messages.append(Message(role="user", content=turn.content))
        asked = TargetCase(
            case.case_id,
            turn.content,
            case.metadata,
            number=case.number,
            key=case.key,
            messages=tuple(run.messages),
            repeat=case.repeat,
        )
        reply = await respond(asked)
        attempts += reply.attempts
        reply.attempts = attempts
        run.last = reply
        if reply.error is not None:
            run.verdicts.append(
                TurnVerdict(
                    number=number,
                    content=turn.content,
                    agent_response=reply.output,
                    passed=False,
                    reason=reply.error_detail,
                    error=reply.error,
                    latency_ms=reply.latency_ms,
                )
            )
            run.unsent = len(conversation.turns) - number
            return
        produced = _produced(reply.output)
        run.messages.extend(produced.messages)
        run.last_text = produced.reply.text
        verdict = await _graded(turn.assertions, produced.reply, turn.content, calls)
        run.verdicts.append(
            TurnVerdict(
                number=number,
                content=turn.content,
                agent_response=reply.output,
                passed=verdict is None or verdict.passed,
                score=None if verdict is None else verdict.score,
                reason=None if verdict is None else verdict.reason,
                latency_ms=reply.latency_ms,
            )
        )
        if verdict is not None and not verdict.passed and conversation.stop_at_first_failure:
            run.unsent = len(conversation.turns) - number
            return


@dataclass(frozen=True, slots=True)
class _Produced:
    """What one reply adds to the history, and the reply as the turn's assertions grade it."""

    messages: list[Message]
    reply: AgentReply


def _produced(output: str | None) -> _Produced:
    """The messages a reply adds to the history: its text as the assistant's message; or, when it is a
    JSON document whose trajectory calls tools (docs/conversations.md), the tool calls and results it made
    after the last user message, then its final text."""
    text = output or ""
    plain = _Produced([Message(role="assistant", content=text)], AgentReply(text=text, raw=output))
    if not text.lstrip().startswith(("{", "[")):
        return plain
    try:
        document = orjson.loads(text)
    except orjson.JSONDecodeError:
        return plain
    # The dialects' readers (their pydantic models) load at a reply that may be a trajectory, not at a
    # server's start: ~0.035 s of CPU that only conversations with tool-calling agents need.
    from assay.graders.trajectory.readers import read_trajectory

    found = read_trajectory(document)
    if not isinstance(found, Trajectory) or not found.tool_calls():
        return plain
    final = found.final_text or ""
    users = [
        index for index, step in enumerate(found.steps) if step.kind == "message" and step.role == "user"
    ]
    messages = messages_of_steps(found.steps[users[-1] + 1 if users else 0 :])
    if not messages or messages[-1].role != "assistant" or messages[-1].tool_calls:
        messages.append(Message(role="assistant", content=final))
    return _Produced(messages, AgentReply(text=final, trajectory=found, raw=output))


def messages_of_steps(steps: Sequence[Step]) -> list[Message]:
    """Trajectory steps as chat messages: an assistant's calls in a row become one message's tool calls,
    each result a ``tool`` message; a call without an id gets ``call_<n>``."""
    messages: list[Message] = []
    calls: list[ToolCall] = []
    for step in steps:
        if step.kind == "tool_call" and step.tool_call is not None:
            call = step.tool_call
            arguments = (
                call.arguments if isinstance(call.arguments, str) else orjson.dumps(call.arguments).decode()
            )
            calls.append(
                ToolCall(id=call.call_id or f"call_{len(calls) + 1}", name=call.name, arguments=arguments)
            )
            continue
        if calls:
            messages.append(Message(role="assistant", tool_calls=tuple(calls)))
            calls = []
        if step.kind == "tool_result":
            messages.append(Message(role="tool", content=step.text or "", tool_call_id=step.call_id or ""))
        elif step.role in ("assistant", "system", "developer", "user"):
            messages.append(Message(role=step.role, content=step.text or ""))  # type: ignore[arg-type]
    if calls:
        messages.append(Message(role="assistant", tool_calls=tuple(calls)))
    return messages


async def _graded(
    assertions: Any, reply: AgentReply, content: str, calls: CallTransport | None
) -> VerdictRecord | None:
    """The turn's assertions' verdict on its reply (``None``: it has none). A model judge among them is
    asked through ``calls`` when the run has them; otherwise it fails closed, as a judge without its calls
    does."""
    if assertions is None or not assertions.items:
        return None
    grader = AssertionsGrader(assertions)
    if calls is not None and grader.makes_calls:
        from assay.graders.contract.calls import CaseContext

        return VerdictRecord.of(await grader.grade_calling(reply, "", calls, CaseContext(input=content)))
    return VerdictRecord.of(grader.grade(reply, ""))


def with_turns(result: CaseResult, run: ConversationRun, *, graded_at_end: bool) -> CaseResult:
    """``result`` (the case's own verdict on the last reply) with the turns' verdicts in ``details.turns``:
    it passes only when every turn passed too. Without a verdict of its own (``graded_at_end`` false: no
    expected output, no assertions of its own), the turns alone decide."""
    details = dict(result.details or {})
    details["turns"] = [verdict.as_json() for verdict in run.verdicts]
    result.details = details
    if result.error is not None:
        return result
    failed = next((verdict for verdict in run.verdicts if not verdict.passed), None)
    if not graded_at_end:
        result.passed = run.turns_passed
        result.score = 1.0 if result.passed else 0.0
        result.match_status = "match" if result.passed else "mismatch"
        result.reason = "every turn passed" if result.passed else None
    if failed is not None:
        result.passed = False
        result.match_status = "mismatch"
        result.reason = f"turn {failed.number} failed: {failed.reason or 'its assertions did not pass'}"
    elif run.unsent:
        result.passed = False
        result.reason = f"{run.unsent} turn(s) were not sent"
    # Stored results read the reason and status from the details (records.py): they say the same.
    details["reason"], details["match_status"] = result.reason, result.match_status
    return result


class _LostError(Exception):
    """The process no longer holds the shard: the case ends without a result (its new owner runs it)."""


async def run_conversation_case(
    case: RunCase,
    target: Target,
    grader: GraderInterface,
    *,
    gate: asyncio.Semaphore | None = None,
    holds: Callable[[], bool] | None = None,
    calls: CallTransport | None = None,
) -> tuple[CaseResult, TargetReply] | None:
    """The result of a case with turns (``case.conversation``): its turns, then its own verdict on the last
    reply; and that last reply. ``None`` when ``holds`` said no before a call (the runner then stops)."""
    assert case.conversation is not None

    async def respond(asked: TargetCase) -> TargetReply:
        if gate is None:
            if holds is not None and not holds():
                raise _LostError
            return await target.respond(asked, holds)
        async with gate:
            if holds is not None and not holds():
                raise _LostError
            return await target.respond(asked, holds)

    try:
        run = await converse(case.target_case, case.conversation, respond, calls=calls)
    except _LostError:
        return None
    graded_at_end = case.checks is not None or case.expected_output != ""
    if not graded_at_end or run.last.error is not None:
        result = ungraded_result(case, run.last)
    elif calls is not None:
        result = await grade_reply_calling(case, run.last, grader, calls, run.agent_reply())
    else:
        result = grade_reply(case, run.last, grader, run.agent_reply())
    return with_turns(result, run, graded_at_end=graded_at_end), run.last
