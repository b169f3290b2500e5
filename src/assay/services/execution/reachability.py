"""Telling an agent that cannot be reached from one that answers badly.

When the first cases of a run all fail to connect (a wrong URL, an agent not started), every other case
would fail the same way, each after its retries, and the run would end "completed" at 0 %. A
:class:`ReachabilityWatch` sees each result as it comes: once the first :data:`FIRST_CASES` results all
failed to reach the agent, with no reply from it at all, the run is stopped and ends ``failed`` with the
cause (``connection refused to http://127.0.0.1:9/``). A run whose every result failed so ends ``failed``
too, however few its cases. Once the agent has answered anything, even an HTTP error, the watch is off.

The same watch, given :data:`SETUP_REASONS`, tells a run that cannot work as set up from one whose agent
answers badly (``assay run``): a refused key (HTTP 401/403, the agent's or a judge's), a command that fails
(``nosuchbinary``), a Python callable that raises, an unreachable agent. The CLI watches the results (a
judge's error is a result's, not a reply's); the server watches replies for an unreachable agent only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from assay.targets import ErrorReason

FIRST_CASES = 5
"""How many results, all unreachable and first of the run, stop it."""

UNREACHABLE_REASONS = frozenset(
    {ErrorReason.CONNECTION_ERROR_AFTER_RETRIES.value, ErrorReason.EGRESS_REFUSED.value}
)
"""Reasons that say the agent was never reached: no connection, or one the egress policy refused.
A timeout is not one of them: a slow agent was reached."""

SETUP_REASONS = UNREACHABLE_REASONS | frozenset(
    {
        ErrorReason.COMMAND_FAILED.value,
        ErrorReason.CALLABLE_ERROR.value,
        ErrorReason.SECRET_UNAVAILABLE.value,
        ErrorReason.CACHE_MISS.value,
        "http_401",
        "http_403",
        "judge_http_401",
        "judge_http_403",
        f"judge_{ErrorReason.SECRET_UNAVAILABLE.value}",
    }
)
"""Reasons that, shown by every one of the first results, say the run's set-up is wrong rather than the
agent's answers: nothing will change by running the rest."""

_CHECK = {
    ErrorReason.COMMAND_FAILED.value: ("the command failed", "check --command"),
    ErrorReason.CALLABLE_ERROR.value: ("the Python callable raised", "check --python"),
    ErrorReason.SECRET_UNAVAILABLE.value: ("an API key could not be read", "check the key's variable"),
    "http_401": ("the key was refused (HTTP 401)", "check the API key"),
    "http_403": ("the key was refused (HTTP 403)", "check the API key and its rights"),
    "judge_http_401": ("the judge refused the key (HTTP 401)", "check the judge's API key"),
    "judge_http_403": ("the judge refused the key (HTTP 403)", "check the judge's API key and its rights"),
    f"judge_{ErrorReason.SECRET_UNAVAILABLE.value}": (
        "the judge's API key could not be read",
        "check the judge's api_key_env",
    ),
}
"""What each set-up reason other than an unreachable agent says, and what to check."""

CALLING_TARGETS = frozenset({"http", "openai"})
"""Target types that reach an agent over the network (recorded and replayed answers cannot be unreachable)."""


@dataclass(slots=True)
class ReachabilityWatch:
    """Counts the unreachable results at the start of a run; whether to stop it, and why it failed."""

    limit: int = FIRST_CASES
    reasons: frozenset[str] = UNREACHABLE_REASONS
    """The reasons counted: an unreachable agent's by default, :data:`SETUP_REASONS` for a local run."""
    unreachable: int = 0
    reached: bool = False
    reason: str | None = None
    detail: str | None = None

    def observe(self, error: str | None, detail: str | None = None) -> bool:
        """Count one result (its error reason and detail); whether the run should stop now."""
        if self.reached:
            return False
        if error not in self.reasons:
            self.reached = True
            return False
        self.unreachable += 1
        if self.detail is None and detail:
            self.reason, self.detail = error, detail
        self.reason = self.reason or error
        return self.gave_up

    @property
    def gave_up(self) -> bool:
        """Whether the first ``limit`` results all failed to reach the agent (none reached it): the run stops
        and fails, even if a call in flight meanwhile got through."""
        return self.unreachable >= self.limit

    def observe_all(self, errors: Iterable[str | None]) -> None:
        """Count results stored before (a resumed run)."""
        for error in errors:
            self.observe(error)

    @property
    def is_unreachable(self) -> bool:
        """Whether every result so far failed to reach the agent (and there is at least one)."""
        return not self.reached and self.unreachable > 0

    def message(self) -> str:
        """The evaluation's error: the cause, and how many cases showed it."""
        if self.reason in _CHECK:
            what, hint = _CHECK[self.reason]
            if self.gave_up:
                scope = f"the first {self.limit} cases"
            else:
                scope = "the one case run" if self.unreachable == 1 else f"all {self.unreachable} cases run"
            stopped = ", so the run was stopped" if self.gave_up else ""
            cause = f": {self.detail.strip()}" if self.detail else ""
            return f"{what} for {scope}{stopped}{cause} ({hint})"
        cause = self.detail or self.reason or "no connection"
        if self.gave_up:
            scope = f"the first {self.limit} cases all failed to connect, so the run was stopped"
        elif self.unreachable == 1:
            scope = "the one case run failed to connect"
        else:
            scope = f"all {self.unreachable} cases failed to connect"
        hint = "check the target's URL and that the agent runs"
        return f"the agent could not be reached: {cause} ({scope}; {hint})"
