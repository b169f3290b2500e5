"""Re-grading: a new evaluation that grades the replies a finished one stored, without calling the agent.

A stored reply whose result kept a trajectory is graded with that trajectory again, read back from the
chunk store a page at a time when its case's turn comes (:class:`StoredTrajectories`), so trajectory checks
judge what the agent did rather than failing closed; the re-grade stores it as its own.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from assay.domain import EvaluationStatus
from assay.errors import Problem, ValidationError
from assay.graders.trajectory.building import last_text
from assay.graders.trajectory.record import FORMAT, Step, Trajectory, TrajectoryProblem, from_json
from assay.services.execution.trajectories import TrajectoryFacts
from assay.storage import evaluations as store
from assay.storage import results as result_store
from assay.storage.trajectories import read_steps
from assay.targets import EvaluationTargetSpec, TargetReply
from assay.targets.heavy_thread import in_heavy_thread

MAX_STEPS = 100_000
"""The most steps a re-grade reads back: the readers' own cap on a trajectory (docs/trajectories.md)."""
PAGE_STEPS = 1000
PAGE_BYTES = 4 * 1024 * 1024
"""A page read back: the stored JSON of at most this many steps or bytes is held at a time."""


def check_source(session: Session, spec: EvaluationTargetSpec, suite_id: int) -> None:
    """Refuse a source that does not exist, has not finished, or evaluated another suite."""
    source = store.find_evaluation(session, spec.evaluation_id)
    problem = None
    if source is None:
        problem = f"evaluation {spec.evaluation_id} does not exist"
    elif not EvaluationStatus(source.status).is_terminal:
        problem = f"evaluation {spec.evaluation_id} is {source.status}; wait until it ends"
    elif source.suite_id != suite_id:
        problem = f"evaluation {spec.evaluation_id} ran suite {source.suite_id}, not suite {suite_id}"
    if problem is not None:
        raise ValidationError.of(Problem(("target", "evaluation", "evaluation_id"), problem))


@dataclass(frozen=True, slots=True)
class StoredReplies:
    """The stored replies of some cases, by case id, and the facts of the trajectories their results kept."""

    replies: dict[int, TargetReply]
    traced: dict[int, TrajectoryFacts] = field(default_factory=dict)


def stored_replies(
    session: Session, evaluation_id: int, case_ids: Sequence[int] | None = None
) -> StoredReplies:
    """Each case's stored reply (of ``case_ids`` only, when given), by case id: the answer, or the target's
    error with its detail (it stays an error). An error its grader gave (a model judge that failed) is no
    error of the reply: the answer is graded again. The trajectories are read later, one at a time."""
    replies: dict[int, TargetReply] = {}
    traced: dict[int, TrajectoryFacts] = {}
    for case_id, response, error, detail, latency, attempts, graded, summary in result_store.replies_by_case(
        session, evaluation_id, case_ids
    ):
        replies[case_id] = TargetReply(
            response,
            error=None if graded else error,
            error_detail=None if graded else detail,
            latency_ms=latency,
            attempts=attempts,
        )
        facts = TrajectoryFacts.stored(summary)
        if facts is not None:
            traced[case_id] = facts
    return StoredReplies(replies, traced)


def read_back(
    session: Session, evaluation_id: int, case_id: int, facts: TrajectoryFacts
) -> Trajectory | TrajectoryProblem:
    """The trajectory a result stored, rebuilt from its chunks a page at a time; the problem that keeps it
    from being read (too long, chunks missing) otherwise, which every trajectory check then reports."""
    if facts.steps > MAX_STEPS:
        return TrajectoryProblem(
            reason=f"the stored trajectory has {facts.steps:,} steps, more than the {MAX_STEPS:,} a re-grade "
            "reads back",
            dialect=facts.dialect,
        )
    steps: list[Step] = []
    offset: int | None = 0
    try:
        while offset is not None and len(steps) < facts.steps:
            page = read_steps(session, evaluation_id, case_id, offset, PAGE_STEPS, PAGE_BYTES)
            if not page.steps:
                break
            # Each page read as a normalised document of its own: its dicts are let go before the next one.
            steps.extend(from_json({"format": FORMAT, "dialect": facts.dialect, "steps": page.steps}).steps)
            offset = page.next_offset
    except (ValueError, zlib.error) as problem:  # a chunk that no longer reads: said, never raised
        return TrajectoryProblem(
            reason=f"the stored trajectory does not read: {problem}", dialect=facts.dialect
        )
    if len(steps) != facts.steps:
        return TrajectoryProblem(
            reason=f"the stored trajectory holds {len(steps):,} of its {facts.steps:,} steps",
            dialect=facts.dialect,
        )
    return Trajectory(
        steps=tuple(steps),
        dialect=facts.dialect,
        final_text=last_text(steps),
        input_tokens=facts.input_tokens,
        output_tokens=facts.output_tokens,
        seconds=facts.seconds,
    )


class StoredTrajectories:
    """The trajectories a re-graded evaluation's results kept, read back one case at a time when the replay
    target gives that case's reply (on the heavy-work thread, as a captured trajectory is read)."""

    def __init__(self, engine: Engine, evaluation_id: int, traced: Mapping[int, TrajectoryFacts]) -> None:
        self._engine = engine
        self._evaluation_id = evaluation_id
        self._traced = traced

    async def __call__(self, case_id: int) -> Trajectory | TrajectoryProblem | None:
        """The case's stored trajectory (``None``: its result kept none)."""
        facts = self._traced.get(case_id)
        if facts is None:
            return None
        return await in_heavy_thread(self._read, case_id, facts)

    def _read(self, case_id: int, facts: TrajectoryFacts) -> Trajectory | TrajectoryProblem:
        with Session(self._engine) as session:
            return read_back(session, self._evaluation_id, case_id, facts)
