"""Plain domain records shared by the layers (no ORM, no API schema)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class GraderSpec:
    """What graded a result: a grader id, its effective config and its version; never a live object."""

    grader_id: str
    config: dict[str, Any] = field(default_factory=dict)
    version: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON form stored with an evaluation."""
        return {"grader_id": self.grader_id, "config": self.config, "version": self.version}


@dataclass(frozen=True, slots=True)
class NewCase:
    """A case to add to a suite: what the agent is asked, what it should answer, anything else known."""

    input: str
    expected_output: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Case:
    """A stored case."""

    id: int
    suite_id: int
    position: int
    input: str
    expected_output: str
    metadata: dict[str, Any]
