"""A target that replays the replies an earlier evaluation stored (re-grading); nothing is called."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from assay.targets.base import Target, TargetCase, TargetReply
from assay.targets.reasons import ErrorReason, TargetCallError

_MISSING = TargetReply(
    None,
    error=ErrorReason.NO_RECORDED_RESPONSE.value,
    error_detail="the evaluation has no result for this case",
)


class ReplayTarget(Target):
    """Gives each case its stored reply as it was: the answer, or the error, with its latency and attempts."""

    def __init__(self, replies: Mapping[int, TargetReply]) -> None:
        super().__init__()
        self._replies = replies

    async def call(self, case: TargetCase) -> str | None:
        """The stored answer; a stored error is raised again as the same reason."""
        reply = self._replies.get(case.case_id, _MISSING)
        if reply.error is not None:
            raise TargetCallError(reply.error, reply.error_detail or "")
        return reply.output

    async def respond(self, case: TargetCase, proceed: Callable[[], bool] | None = None) -> TargetReply:
        """The stored reply at once: no timeout or retries, which would only change it."""
        return self._replies.get(case.case_id, _MISSING)
