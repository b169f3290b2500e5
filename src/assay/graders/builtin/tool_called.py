"""The tool-called grader: did the agent call a tool, at least (or at most) so many times, or never?

The tool is the config's ``tool``, or else the expected output (its text, stripped). The count is the number
of calls of that exact name in the trajectory; it must lie in ``[at_least, at_most]`` (``at_most`` null: no
upper bound). ``never`` is ``at_least`` 0 and ``at_most`` 0. A response without a readable trajectory is
``invalid_response``, never a pass (not even for ``never``): docs/trajectories.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from assay.graders.contract.base import Preset
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.verdict import MatchStatus
from assay.graders.reading.text import excerpt, read_text
from assay.graders.reading.trajectories import Judged, TrajectoryGrader, tool_name_property
from assay.graders.trajectory.building import MAX_NAME_CHARS
from assay.graders.trajectory.record import Trajectory

_NO_TOOL = "No tool is named: set 'tool' or give the tool's name as the expected output"


def _times(count: int) -> str:
    return "once" if count == 1 else "twice" if count == 2 else f"{count} times"


class ToolCalledGrader(TrajectoryGrader):
    """Passes when the trajectory calls the tool between ``at_least`` and ``at_most`` times."""

    default_id: ClassVar[str] = "tool-called"
    name: ClassVar[str] = "Tool called"
    description: ClassVar[str] = (
        "The agent's trajectory calls a tool (named in the config or by the expected output) at least / at "
        "most n times, or never; an unreadable trajectory never passes"
    )
    type: ClassVar[str] = "trajectory"
    version: ClassVar[str] = "1.0.0"
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "tool": tool_name_property("The tool's exact name; null reads it from the expected output"),
            "at_least": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100_000,
                "description": "The fewest calls that pass (0 with at_most 0: never called)",
                "default": 1,
            },
            "at_most": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": 100_000,
                "description": "The most calls that pass; null for no bound",
                "default": None,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The trajectory calls the tool a number of times within [at_least, at_most]",
        "0.0": "It calls it too few or too many times, or the response has no readable trajectory",
    }
    presets: ClassVar[Mapping[str, Preset]] = {
        "never": Preset("The tool is never called", {"at_least": 0, "at_most": 0}),
        "once": Preset("The tool is called exactly once", {"at_least": 1, "at_most": 1}),
    }

    __slots__ = ("_at_least", "_at_most", "_tool")

    def __init__(self, grader_id: str = "tool-called", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._tool: str | None = self._config["tool"]
        self._at_least: int = self._config["at_least"]
        self._at_most: int | None = self._config["at_most"]
        self._freeze()

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """The bounds must leave some count, and some count must fail."""
        at_least, at_most = config.get("at_least", 1), config.get("at_most")
        if at_most is not None and at_most < at_least:
            return [ConfigProblem("at_most", "'at_most' is below 'at_least'", ProblemKind.VALUE)]
        if at_least == 0 and at_most is None:
            return [
                ConfigProblem("at_least", "'at_least' 0 without 'at_most' passes anything", ProblemKind.VALUE)
            ]
        return []

    def read_expected(self, expected_output: Any) -> tuple[Any, str | None]:
        """The tool's name: the config's, else the expected output's text."""
        if self._tool is not None:
            return self._tool, None
        name = read_text(expected_output).strip()
        if not name:
            return None, _NO_TOOL
        if len(name) > MAX_NAME_CHARS:
            return None, f"The expected tool name is longer than {MAX_NAME_CHARS} characters"
        return name, None

    def judge(self, trajectory: Trajectory, expected: Any) -> Judged:
        """Count the tool's calls and compare with the bounds."""
        count = len(trajectory.calls_of(expected))
        tool, at_least, at_most = excerpt(expected), self._at_least, self._at_most
        called = f"The agent called {tool} {_times(count)}" if count else f"The agent never called {tool}"
        if count < at_least:
            reason = f"{called}; at least {_times(at_least)} expected"
        elif at_most is not None and count > at_most:
            reason = (
                f"{called}; it must never be called"
                if at_most == 0
                else f"{called}; at most {_times(at_most)}"
            )
        else:
            return Judged(MatchStatus.MATCH, called, expected, count, {"count": count})
        return Judged(MatchStatus.MISMATCH, reason, expected, count, {"count": count})
