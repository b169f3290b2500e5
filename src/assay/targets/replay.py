"""A target that replays the replies an earlier evaluation stored (re-grading); nothing is called."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

from assay.targets.base import Target, TargetCase, TargetReply
from assay.targets.reasons import ErrorReason, TargetCallError

_MISSING = TargetReply(
    None,
    error=ErrorReason.NO_RECORDED_RESPONSE.value,
    error_detail="the evaluation has no result for this case",
)


TrajectoryLoader = Callable[[int], Awaitable[Any]]
"""Reads back the trajectory a case's stored reply carried (by case id): a ``Trajectory``, the
``TrajectoryProblem`` that keeps it from being read, or ``None`` when it carried none."""


class ReplayTarget(Target):
    """Gives each case its stored reply as it was: the answer, or the error, with its latency and attempts;
    and the trajectory it carried, read back by ``trajectories`` when given."""

    def __init__(
        self, replies: Mapping[int, TargetReply], trajectories: TrajectoryLoader | None = None
    ) -> None:
        super().__init__()
        self._replies = replies
        self._trajectories = trajectories

    async def call(self, case: TargetCase) -> str | None:
        """The stored answer; a stored error is raised again as the same reason."""
        reply = self._replies.get(case.case_id, _MISSING)
        if reply.error is not None:
            raise TargetCallError(reply.error, reply.error_detail or "")
        return reply.output

    async def respond(self, case: TargetCase, proceed: Callable[[], bool] | None = None) -> TargetReply:
        """The stored reply at once (no timeout or retries, which would only change it) and its trajectory."""
        reply = self._replies.get(case.case_id, _MISSING)
        if self._trajectories is None or reply.error is not None:
            return reply
        trajectory = await self._trajectories(case.case_id)
        # A copy: the stored reply is not kept holding a trajectory once its case is graded.
        return reply if trajectory is None else replace(reply, trajectory=trajectory)
