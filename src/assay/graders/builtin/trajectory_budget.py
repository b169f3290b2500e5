"""The trajectory-budget grader: did the agent stay within its steps, tool calls, tokens and seconds?

Each limit set in the config is checked (a null limit is not); the expected output is not used. A limit the
trajectory gives no figure for (tokens from a dialect or agent that reports no usage, seconds without
timings) cannot be judged: that is ``invalid_response``, never a pass. A config setting no limit checks
nothing: every expected output is refused (``invalid_expected``) before the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from assay.graders.contract.base import Preset
from assay.graders.contract.verdict import MatchStatus
from assay.graders.reading.trajectories import Judged, TrajectoryGrader
from assay.graders.trajectory.record import Trajectory

_NO_LIMIT = "No limit is set: give at least one of max_steps, max_tool_calls, max_tokens... or max_seconds"


class _Limit(NamedTuple):
    key: str
    what: str
    description: str


_LIMITS = (
    _Limit("max_steps", "steps", "The most steps (messages, tool calls and tool results)"),
    _Limit("max_tool_calls", "tool calls", "The most tool calls"),
    _Limit("max_input_tokens", "input tokens", "The most input (prompt) tokens, summed over the model calls"),
    _Limit("max_output_tokens", "output tokens", "The most output (completion) tokens, summed"),
    _Limit("max_tokens", "tokens", "The most input and output tokens together"),
    _Limit("max_seconds", "seconds", "The longest the trajectory may take, in seconds"),
)


def _figure(trajectory: Trajectory, key: str) -> float | None:
    """The trajectory's figure a limit bounds, ``None`` when it gives none."""
    if key == "max_steps":
        return len(trajectory.steps)
    if key == "max_tool_calls":
        return len(trajectory.tool_calls())
    if key == "max_input_tokens":
        return trajectory.input_tokens
    if key == "max_output_tokens":
        return trajectory.output_tokens
    if key == "max_tokens":
        counts = (trajectory.input_tokens, trajectory.output_tokens)
        return None if None in counts else sum(count or 0 for count in counts)
    return trajectory.seconds


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else f"{value:,}"


class TrajectoryBudgetGrader(TrajectoryGrader):
    """Passes when every configured limit holds for the trajectory."""

    default_id: ClassVar[str] = "trajectory-budget"
    name: ClassVar[str] = "Trajectory budget"
    description: ClassVar[str] = (
        "The agent stayed within its budget: at most so many steps, tool calls, tokens or seconds; a figure "
        "the trajectory does not give is never a pass"
    )
    type: ClassVar[str] = "trajectory"
    version: ClassVar[str] = "1.0.0"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            limit.key: {
                "type": ["number" if limit.key == "max_seconds" else "integer", "null"],
                "minimum": 0,
                "description": f"{limit.description}; null: not checked",
                "default": None,
            }
            for limit in _LIMITS
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "Every configured limit holds",
        "0.0": "A limit is exceeded, the trajectory lacks a figure limited, or it is unreadable",
    }
    presets: ClassVar[Mapping[str, Preset]] = {
        "ten-tool-calls": Preset(
            "At most 10 tool calls and 50 steps", {"max_tool_calls": 10, "max_steps": 50}
        ),
        "one-minute": Preset("At most 60 seconds", {"max_seconds": 60}),
    }

    __slots__ = ("_limits",)

    def __init__(self, grader_id: str = "trajectory-budget", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._limits: tuple[tuple[_Limit, float], ...] = tuple(
            (limit, self._config[limit.key]) for limit in _LIMITS if self._config[limit.key] is not None
        )
        self._freeze()

    def read_expected(self, expected_output: Any) -> tuple[Any, str | None]:
        """Nothing is read from the expected output; a config without limits is refused."""
        return (None, None) if self._limits else (None, _NO_LIMIT)

    def judge(self, trajectory: Trajectory, expected: Any) -> Judged:
        """Check each configured limit; the first exceeded (or unknown) figure decides."""
        figures: dict[str, float | None] = {}
        unknown: list[str] = []
        over: list[str] = []
        for limit, bound in self._limits:
            figure = figures[limit.key] = _figure(trajectory, limit.key)
            if figure is None:
                unknown.append(limit.what)
            elif figure > bound:
                over.append(f"{_number(figure)} {limit.what}, at most {_number(bound)}")
        extra = {"figures": figures}
        if over:
            return Judged(MatchStatus.MISMATCH, "Over budget: " + "; ".join(over), None, None, extra)
        if unknown:
            reason = f"The trajectory ({trajectory.dialect}) gives no figure for: {', '.join(unknown)}"
            return Judged(MatchStatus.INVALID_RESPONSE, reason, None, None, extra)
        held = "; ".join(
            f"{_number(figures[limit.key] or 0)} {limit.what} of {_number(bound)}"
            for limit, bound in self._limits
        )
        return Judged(MatchStatus.MATCH, f"Within budget: {held}", None, None, extra)
