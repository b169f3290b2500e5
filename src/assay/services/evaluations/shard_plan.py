"""The lanes and shards of an evaluation, and the plan its shards share.

Its cases are cut by position into shards of :data:`SHARD_CASES`, and its concurrency into lanes of at most
:data:`LANE_CONCURRENCY` calls: lane ``k`` runs shards ``k, k + lanes, k + 2·lanes...`` one after the other,
so all lanes together never have more than the evaluation's concurrency in flight, whatever number of
workers runs them.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.graders import GraderInterface
from assay.services.evaluations.recount import RunningTally
from assay.services.execution.reachability import CALLING_TARGETS, ReachabilityWatch
from assay.services.grading.assertions import CaseGraders
from assay.targets import TargetPolicy, TargetSpec
from assay.targets.cached import CacheMode

SHARD_CASES = 500
"""Cases (by position) in one shard."""
LANE_CONCURRENCY = 16
"""Most calls in flight in one lane: an evaluation of concurrency 64 runs in 4 lanes, on up to 4 workers."""


def lanes_of(concurrency: int) -> int:
    """How many lanes an evaluation of ``concurrency`` runs in."""
    return max(1, -(-concurrency // LANE_CONCURRENCY))


def lane_concurrency(concurrency: int, lane: int) -> int:
    """The calls lane ``lane`` may have in flight: the evaluation's concurrency shared out (sums to it)."""
    lanes = lanes_of(concurrency)
    return max(1, concurrency // lanes + (1 if lane < concurrency % lanes else 0))


@dataclass(frozen=True, slots=True, kw_only=True)
class Shard:
    """One shard of one lane of an evaluation: the cases at positions ``[index, index + 1) · SHARD_CASES``."""

    evaluation_id: int
    lane: int
    index: int

    @property
    def positions(self) -> tuple[int, int]:
        """The positions ``(low, high)`` the shard covers, ``low`` included."""
        return self.positions_of(1)

    def positions_of(self, span: int) -> tuple[int, int]:
        """The positions of ``span`` shards from this one on."""
        return self.index * SHARD_CASES, (self.index + span) * SHARD_CASES


def first_shards(evaluation_id: int, concurrency: int) -> list[Shard]:
    """The first shard of every lane: what starts (or restarts) an evaluation."""
    return [
        Shard(evaluation_id=evaluation_id, lane=lane, index=lane) for lane in range(lanes_of(concurrency))
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What every shard of an evaluation needs, read once per worker (the target may be large)."""

    suite_id: int
    concurrency: int
    position_limit: int
    """The evaluation's cases (its ``total`` over its repeats): the suite's first ones (positions run from 0,
    with no gap), so a case added to the suite after it was created is not part of it."""
    repeats: int
    spec: TargetSpec
    grader: GraderInterface
    source_id: int | None
    policy: TargetPolicy
    """This process's target policy with the egress policy stored with the evaluation (that accepted it)."""
    reachability: ReachabilityWatch | None
    """Shared by this worker's shards of the evaluation: stops it when the agent cannot be reached."""
    checks: CaseGraders | None = None
    """The graders of per-case assertions; ``None`` when the suite has none anywhere."""
    reply_cache: CacheMode = CacheMode.OFF
    fingerprint: str = ""
    """The target's reply cache key part (:meth:`~assay.targets.specs._TargetSpecBase.fingerprint`), when
    the evaluation uses the cache."""
    tally: RunningTally | None = None
    """The summary of the rows this worker stores, counted as they are written (none for a resumed run)."""

    @property
    def calls_agent(self) -> bool:
        """Whether the target calls an agent (HTTP, OpenAI), rather than reading answers already given."""
        return self.spec.type in CALLING_TARGETS

    @property
    def lanes(self) -> int:
        """The lanes that run shards: one when nothing is called (recorded or stored answers need no
        concurrency, and lanes would only take turns at writing), else :func:`lanes_of` the concurrency."""
        return lanes_of(self.concurrency) if self.calls_agent else 1

    def bounded(self, positions: tuple[int, int]) -> tuple[int, int]:
        """``positions`` without those past the evaluation's cases."""
        return positions[0], min(positions[1], self.position_limit)
