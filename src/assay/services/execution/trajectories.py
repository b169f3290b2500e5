"""A reply's captured trajectory, read: from the reply's JSON part, or from the OTLP spans of its trace.

The runner calls :func:`read_captured` after each reply of a target that captures trajectories; the reply
then carries the :class:`~assay.graders.trajectory.Trajectory`, or the problem that kept it from being read
(spans that never came, a document in no known dialect), which every trajectory check reports as
``invalid_response`` with its reason. Reading a large document takes milliseconds, so it runs on the
heavy-work thread (``targets/heavy_thread.py``), not on the event loop; the document is let go once read.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from assay.graders.contract.reply import AgentReply
from assay.graders.trajectory.record import Trajectory, TrajectoryProblem, iter_steps_json, summarize
from assay.json_types import JsonObject
from assay.targets.base import TargetReply
from assay.targets.heavy_thread import in_heavy_thread
from assay.targets.trace_capture import Capture, TraceReceiver

if TYPE_CHECKING:
    from assay.services.execution.case_results import CaseResult
    from assay.storage.trajectories import Chunk

_HINTS = {"auto": None}


async def read_captured(reply: TargetReply, receiver: TraceReceiver | None) -> None:
    """Set ``reply.trajectory`` from ``reply.capture`` (then dropped); a reply with an error is left alone."""
    capture = reply.capture
    if capture is None:
        return
    reply.capture = None
    if reply.error is not None:
        return
    reply.trajectory = await _read(capture, receiver)


async def _read(capture: Capture, receiver: TraceReceiver | None) -> Trajectory | TrajectoryProblem:
    if capture.problem is not None:
        return TrajectoryProblem(reason=capture.problem)
    document: Any = capture.document
    if not capture.from_reply:
        if receiver is None:
            return TrajectoryProblem(
                reason="cannot arrive: it comes as OTLP spans and this process has no OTLP receiver "
                "(run the evaluation on 'assay serve')"
            )
        taken = await receiver.take(capture.trace.trace_id, capture.grace_s)
        if taken.problem is not None:
            return TrajectoryProblem(reason=taken.problem, dialect="otlp")
        document = taken.document
    # On the one heavy-work thread: reading holds the interpreter, and several reads at once starved the
    # loop (health p99 ~400 ms, bench/trajectories.py).
    return await in_heavy_thread(_read_steps, document, _HINTS.get(capture.dialect, capture.dialect))


def _read_steps(document: Any, dialect: str | None) -> Trajectory | TrajectoryProblem:
    """The trajectory of ``document`` without its raw document: the steps are what is graded and stored,
    and the document (or the reply body an outlined one holds) must not live on in the read trajectory."""
    from assay.graders.trajectory.readers import read_trajectory  # pydantic: only for a capturing target

    read = read_trajectory(document, dialect)
    return replace(read, raw=None) if isinstance(read, Trajectory) else read


def graded_answer(reply: TargetReply) -> str | AgentReply | None:
    """What graders are handed of ``reply``: its text, or an :class:`AgentReply` when a trajectory was
    captured (read, or the problem that kept it from being read)."""
    trajectory = reply.trajectory
    if trajectory is None:
        return reply.output
    if isinstance(trajectory, Trajectory):
        return AgentReply(text=reply.output or "", trajectory=trajectory)
    return AgentReply(text=reply.output or "", trajectory=None, problem=trajectory.reason)


def plain_details(value: Any) -> Any:
    """A verdict's details with every :class:`AgentReply` in them made its text: graders quote the response
    they were handed (``actual_original``, a composite's children), and a stored or exported result holds
    JSON. Only verdicts on replies with a trajectory go through here."""
    if isinstance(value, AgentReply):
        return value.text
    if isinstance(value, dict):
        return {key: plain_details(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_details(item) for item in value]
    return value


KEPT_SEQUENCE = 100
"""Tool calls whose order a result row keeps: a row stays small (a name is at most 256 characters) whatever
its trajectory's length, and a change of order is seen within the first hundred calls."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TrajectoryFacts:
    """What a result row keeps of its trajectory (``results.trajectory_summary``): its dialect, counts,
    the tools used in first-use order with their number of calls, usage and duration."""

    dialect: str
    steps: int
    tool_calls: int
    tool_names: dict[str, int]
    input_tokens: int | None
    output_tokens: int | None
    seconds: float | None
    tool_sequence: list[str] | None = None
    """The first :data:`KEPT_SEQUENCE` tool calls' names in the order made (all of them when ``tool_calls``
    is no more); ``None`` in rows stored before it was kept. Compare reads it, never the steps."""

    @classmethod
    def of(cls, trajectory: Trajectory) -> TrajectoryFacts:
        """The facts of a read trajectory."""
        summary = summarize(trajectory)
        return cls(
            dialect=trajectory.dialect,
            steps=summary.steps,
            tool_calls=summary.tool_calls,
            tool_names=dict(summary.tool_names),
            input_tokens=summary.input_tokens,
            output_tokens=summary.output_tokens,
            seconds=summary.seconds,
            tool_sequence=list(trajectory.tool_names()[:KEPT_SEQUENCE]),
        )

    @classmethod
    def stored(cls, data: JsonObject | None) -> TrajectoryFacts | None:
        """The facts as a row stored them (``None``: the row has none, or they do not read)."""
        if not isinstance(data, dict):
            return None
        try:  # the stored form is this record's asdict(): its fields' JSON types, unchecked
            return cls(**data)  # type: ignore[arg-type]
        except TypeError:  # a row written by another version: shown without facts rather than failing
            return None


@dataclass(frozen=True, slots=True)
class PackedTrajectory:
    """A graded trajectory as it is stored: its facts (the row's summary) and its steps' compressed chunks.
    A result waiting to be written holds this, tens of kB, rather than the steps, megabytes."""

    facts: TrajectoryFacts
    chunks: tuple[Chunk, ...]


def pack(trajectory: Trajectory) -> PackedTrajectory:
    """``trajectory`` as it is stored (compressing its steps: on the heavy-work thread)."""
    from assay.storage.trajectories import chunk_steps  # SQLAlchemy: only for a capturing target

    return PackedTrajectory(TrajectoryFacts.of(trajectory), tuple(chunk_steps(iter_steps_json(trajectory))))


async def packed(result: CaseResult) -> CaseResult:
    """``result`` with its graded trajectory packed (the steps let go); any other result as it is.

    Packed as soon as graded, in the case's own worker: the trajectories held at once are then bounded by
    the calls in flight, not by how far the writer lags behind."""
    trajectory = result.trajectory
    if not isinstance(trajectory, Trajectory):
        return result
    return replace(result, trajectory=await in_heavy_thread(pack, trajectory))


def trajectory_summary(trajectory: object) -> JsonObject | None:
    """The summary a result row stores: the facts of a read trajectory (or of stored or packed ones);
    ``None`` for anything else (none captured, or unreadable: the verdicts say why)."""
    if isinstance(trajectory, Trajectory):
        return asdict(TrajectoryFacts.of(trajectory))
    if isinstance(trajectory, PackedTrajectory):
        return asdict(trajectory.facts)
    if isinstance(trajectory, TrajectoryFacts):
        return asdict(trajectory)
    return None
