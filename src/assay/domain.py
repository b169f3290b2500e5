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
