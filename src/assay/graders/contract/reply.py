"""What the runner hands a grader when an agent's reply carries more than its text."""

from __future__ import annotations

from dataclasses import dataclass

from assay.graders.trajectory.record import Trajectory


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentReply:
    """An agent's reply: the text every text grader reads (through ``reading.text.read_text``), the
    trajectory read from it when there is one, and the raw reply it came from.

    Text graders grade ``text`` exactly as they would grade the bare string; trajectory graders read
    ``trajectory``, or, when it is ``None``, look for one in ``raw`` (else ``text``).
    """

    text: str
    trajectory: Trajectory | None = None
    raw: str | None = None

    def __str__(self) -> str:
        return self.text
