"""What every trajectory grader shares: reading the trajectory of a response, and failing closed without one.

A response's trajectory is, in order: an :class:`AgentReply`'s ``trajectory``; else the JSON document its
``raw`` (or ``text``) holds, read in a known dialect; a :class:`Trajectory` itself; a parsed JSON value
(a Python callable's dict or list) read in a known dialect; or the JSON text of any other response (whole,
or its one fenced block, as the json grader reads it: at most 1,000,000 characters). A response that gives
none is ``invalid_response`` with the reason, for every trajectory check: never a pass, whatever the check
(``tool-called`` with ``never`` on an unreadable trajectory fails like every other).
"""

from __future__ import annotations

from abc import abstractmethod
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple

from assay.graders.contract.base import GraderInterface
from assay.graders.contract.reply import AgentReply
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON, GradeResult, MatchStatus, verdict_result
from assay.graders.reading.json_reading import read_json
from assay.graders.reading.text import is_blank, read_text
from assay.graders.trajectory.building import MAX_NAME_CHARS
from assay.graders.trajectory.readers import read_trajectory
from assay.graders.trajectory.record import Trajectory, TrajectoryProblem

_NO_EXTRA: dict[str, Any] = {}


def _problem_reason(problem: TrajectoryProblem) -> str:
    dialect = f" (read as {problem.dialect})" if problem.dialect else ""
    return f"Response has no readable trajectory{dialect}: it {problem.reason}"


@lru_cache(maxsize=2)  # a reply of up to 1 MB and its document: few are kept
def _read_text(text: str) -> Trajectory | str:
    """The trajectory in a response's text, remembered: the graders of one case read the same reply."""
    if is_blank(text):
        return EMPTY_RESPONSE_REASON
    value, problem, _, _ = read_json(text, allow_fenced=True)
    if problem is not None:
        return f"Response has no readable trajectory: it {problem}"
    read = read_trajectory(value)
    return read if isinstance(read, Trajectory) else _problem_reason(read)


def trajectory_of(agent_response: object) -> Trajectory | str:
    """The trajectory ``agent_response`` gives, else the reason it gives none. Never raises."""
    if type(agent_response) is AgentReply:
        if agent_response.trajectory is not None:
            return agent_response.trajectory
        if agent_response.problem is not None:  # captured with the reply, and unreadable: never the text
            return f"Response has no readable trajectory: it {agent_response.problem}"
        source = agent_response.raw if agent_response.raw is not None else agent_response.text
        return _read_text(source)
    if isinstance(agent_response, Trajectory):
        return agent_response
    if isinstance(agent_response, dict | list):
        read = read_trajectory(agent_response)
        return read if isinstance(read, Trajectory) else _problem_reason(read)
    return _read_text(read_text(agent_response))


class Judged(NamedTuple):
    """A trajectory grader's finding: the status and reason, what it compared, and its own details keys."""

    status: MatchStatus
    reason: str
    normalized_expected: Any = None
    normalized_actual: Any = None
    extra: dict[str, Any] = _NO_EXTRA


def tool_name_property(description: str) -> dict[str, Any]:
    """The ``tool`` option of a grader that judges one tool's calls: a name as long as a read one may be, or
    ``null`` (the grader says what that means)."""
    return {
        "type": ["string", "null"],
        "minLength": 1,
        "maxLength": MAX_NAME_CHARS,
        "description": description,
        "default": None,
    }


class TrajectoryGrader(GraderInterface):
    """A grader of what the agent did: reads the expected output, then the trajectory (failing closed
    without one), then judges the trajectory (:meth:`judge`)."""

    fresh_results: ClassVar[bool] = True

    __slots__ = ()

    @abstractmethod
    def read_expected(self, expected_output: Any) -> tuple[Any, str | None]:
        """``(what is expected, None)``, or ``(None, why this expected output can never be matched)``."""

    @abstractmethod
    def judge(self, trajectory: Trajectory, expected: Any) -> Judged:
        """The verdict on a readable trajectory, given what :meth:`read_expected` read."""

    def check_expected(self, expected_output: Any) -> str | None:
        """Why this expected output (with this config) can never be matched, else ``None``."""
        return self.read_expected(expected_output)[1]

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response's trajectory; details name its ``dialect`` when one was read."""
        expected, problem = self.read_expected(expected_output)
        if problem is not None:
            return verdict_result(MatchStatus.INVALID_EXPECTED, problem, expected_output, agent_response)
        read = trajectory_of(agent_response)
        if isinstance(read, str):
            return verdict_result(MatchStatus.INVALID_RESPONSE, read, expected_output, agent_response)
        judged = self.judge(read, expected)
        return verdict_result(
            judged.status,
            judged.reason,
            expected_output,
            agent_response,
            judged.normalized_expected,
            judged.normalized_actual,
            extra={"dialect": read.dialect, **judged.extra},
        )
