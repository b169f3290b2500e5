"""A reply's captured trajectory, read: from the reply's JSON part, or from the OTLP spans of its trace.

The runner calls :func:`read_captured` after each reply of a target that captures trajectories; the reply
then carries the :class:`~assay.graders.trajectory.Trajectory`, or the problem that kept it from being read
(spans that never came, a document in no known dialect), which every trajectory check reports as
``invalid_response`` with its reason. Reading a large document takes milliseconds, so it runs on a worker
thread, not on the event loop; the captured document is let go once read.
"""

from __future__ import annotations

from typing import Any

from assay.graders.contract.reply import AgentReply
from assay.graders.trajectory import Trajectory, TrajectoryProblem, read_trajectory, summarize
from assay.services.execution.threads import finish_in_thread
from assay.targets.base import TargetReply
from assay.targets.trace_capture import Capture, TraceReceiver

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
                reason="was to come as OTLP spans, but this process has no OTLP receiver (run it with "
                "'assay serve')"
            )
        taken = await receiver.take(capture.trace.trace_id, capture.grace_s)
        if taken.problem is not None:
            return TrajectoryProblem(reason=taken.problem, dialect="otlp")
        document = taken.document
    read: Trajectory | TrajectoryProblem = await finish_in_thread(
        read_trajectory, document, _HINTS.get(capture.dialect, capture.dialect)
    )
    return read


def graded_answer(reply: TargetReply) -> str | AgentReply | None:
    """What graders are handed of ``reply``: its text, or an :class:`AgentReply` when a trajectory was
    captured (read, or the problem that kept it from being read)."""
    trajectory = reply.trajectory
    if trajectory is None:
        return reply.output
    if isinstance(trajectory, Trajectory):
        return AgentReply(text=reply.output or "", trajectory=trajectory)
    return AgentReply(text=reply.output or "", trajectory=None, problem=trajectory.reason)


def trajectory_summary(trajectory: object) -> dict[str, Any] | None:
    """The stored summary of a read trajectory (its dialect with it); ``None`` for anything else."""
    if not isinstance(trajectory, Trajectory):
        return None
    return {"dialect": trajectory.dialect, **summarize(trajectory).to_json()}
