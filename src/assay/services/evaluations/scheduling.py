"""Scheduling: which process runs which shard of which evaluation.

Two schedulers share :class:`~assay.services.evaluations.shards.ShardRunner`, so a shard runs the same way
everywhere:

* on PostgreSQL, :class:`~assay.services.evaluations.queue.QueueScheduler` puts each lane's next shard on a
  procrastinate queue that any number of ``assay serve`` and ``assay worker`` processes take from;
* on SQLite (one file, one writer), :class:`EmbeddedScheduler` runs every lane in the one process that
  holds the database's runner lease; a second server on the same file runs nothing, and says so.

Either way, a cancel is a status in the database: every shard reads it within
:data:`~assay.services.evaluations.shards.STATUS_POLL_S` and stops.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from assay.config import Settings
from assay.domain import EvaluationStatus, GraderSpec
from assay.services.evaluations.graders import EvaluationGraders
from assay.services.evaluations.recount import finish_evaluation
from assay.services.evaluations.shard_plan import Shard, first_shards
from assay.services.evaluations.shards import ShardRunner
from assay.services.execution.threads import finish_in_thread
from assay.services.grading.registry import GraderService
from assay.storage import evaluations as store
from assay.storage.database import loggable
from assay.storage.leases import release_lease, take_lease
from assay.targets import TargetPolicy

if TYPE_CHECKING:
    from assay.graders import GraderInterface
    from assay.storage.evaluations import EvaluationRow
    from assay.targets import TargetSpec

logger = logging.getLogger(__name__)

STOP_WAIT_S = 10.0
"""How long a shutdown waits for shards to write what they graded."""
LEASE_NAME = "evaluations"


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerOptions:
    """How a process runs evaluations (from the ``ASSAY_WORKER_*`` settings)."""

    run_evaluations: bool = True
    max_in_flight: int = 64
    heartbeat_s: float = 2.0
    stalled_s: float = 15.0

    @classmethod
    def of(cls, settings: Settings) -> WorkerOptions:
        """The options the settings give."""
        return cls(
            run_evaluations=settings.run_evaluations,
            max_in_flight=settings.worker_max_in_flight,
            heartbeat_s=settings.worker_heartbeat_s,
            stalled_s=max(settings.worker_stalled_s, 3 * settings.worker_heartbeat_s),
        )


def worker_name() -> str:
    """A name for this process in logs and leases: host, pid and a random tail."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Scheduler(ABC):
    """Starts evaluations and stops them, whichever processes run their shards."""

    def __init__(
        self, engine: Engine, graders: GraderService, policy: TargetPolicy, options: WorkerOptions
    ) -> None:
        self.target_policy = policy
        """What this server's targets may do (egress, secrets, answer cap)."""
        self.engine = engine
        self.graders = EvaluationGraders(graders)
        """Each evaluation's grader, built once in this process (by its creation, plan or first recount)."""
        self.options = options
        self.name = worker_name()
        self.runner = self._new_runner()

    def _new_runner(self) -> ShardRunner:
        options = self.options
        return ShardRunner(
            self.engine,
            self.graders,
            self.target_policy,
            max_in_flight=options.max_in_flight,
            heartbeat_s=options.heartbeat_s,
            # Others take this process for dead ``stalled_s`` after its last heartbeat, which may be a
            # heartbeat older than its last look at the fence.
            stalled_s=max(options.stalled_s - options.heartbeat_s, options.heartbeat_s),
        )

    def created(self, row: EvaluationRow, grader: GraderInterface, spec: TargetSpec) -> None:
        """An evaluation was just created in this process with ``grader`` and the target ``spec`` its
        creation built and checked: kept, so that running and counting it here builds and parses neither
        again (another process builds and parses them once itself, from the stored row)."""
        graded_by = GraderSpec(grader_id=row.grader_id, config=row.grader_config, version=row.grader_version)
        self.graders.keep(graded_by, grader)
        self.runner.expect(row.id, row.created_at, spec)

    @abstractmethod
    def submit(self, evaluation_id: int, concurrency: int) -> None:
        """Have a new evaluation run (callable from any thread)."""

    def stop(self, evaluation_id: int) -> bool:
        """Cancel an unfinished evaluation, its summary recounted; whether it was unfinished.

        Every shard, on any worker, reads the status within half a second and stops; no result is
        stored after this returns.
        """
        ended = finish_evaluation(self.engine, self.graders, evaluation_id, EvaluationStatus.CANCELLED)
        self.runner.end(evaluation_id)
        return ended

    @abstractmethod
    async def start(self) -> None:
        """Start running evaluations here (if this process runs any), resuming those left unfinished."""

    @abstractmethod
    async def close(self) -> None:
        """Stop running: shards write what they graded; the unfinished stay to run again."""

    def unfinished(self) -> list[tuple[int, int]]:
        """``(id, concurrency)`` of every evaluation left pending or running."""
        with Session(self.engine) as session:
            return store.unfinished_evaluations(session)


class EmbeddedScheduler(Scheduler):
    """Runs evaluations in this process, if it holds the database's runner lease (SQLite).

    The lease is renewed every heartbeat and expires after ``stalled_s``: when its holder dies, another
    server on the file takes over and resumes the unfinished evaluations.
    """

    def __init__(
        self, engine: Engine, graders: GraderService, policy: TargetPolicy, options: WorkerOptions
    ) -> None:
        super().__init__(engine, graders, policy, options)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._holding = False
        self._renewed_at = 0.0
        """When this process last took or renewed the lease (monotonic seconds)."""
        self._running: dict[int, set[asyncio.Task[None]]] = {}
        self._keeper: asyncio.Task[None] | None = None
        self._told = False

    async def start(self) -> None:
        """Take the lease (or wait for it) and run every unfinished evaluation while holding it."""
        self._loop = asyncio.get_running_loop()
        if not self.options.run_evaluations:
            logger.info("this server runs no evaluation (--no-worker)")
            return
        await self._hold_once()
        self._keeper = asyncio.create_task(self._keep(), name="evaluation-lease")

    def submit(self, evaluation_id: int, concurrency: int) -> None:
        """Run a new evaluation now if this process holds the lease (else the holder finds it soon)."""
        if self._loop is not None and self._holding:
            self._loop.call_soon_threadsafe(self._start_lanes, evaluation_id, concurrency)

    async def close(self) -> None:
        """Stop every lane (their shards stay to run again), then give the lease up."""
        self.runner.stop()
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.wait({self._keeper})
        tasks = {task for lanes in self._running.values() for task in lanes}
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_WAIT_S)
        if self._holding:
            await finish_in_thread(self._release)

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.options.heartbeat_s)
            await self._hold_once()

    async def _hold_once(self) -> None:
        """Renew (or take) the lease; when held, start every unfinished evaluation not running here."""
        try:
            holder = await finish_in_thread(self._take)
        except Exception as exc:  # a busy database: try again at the next heartbeat
            logger.warning("could not renew the evaluation runner lease: %s", loggable(exc))
            if self._holding and time.monotonic() - self._renewed_at > self.options.stalled_s:
                self._give_up_lanes()  # the lease has expired: another server may run them now
            return
        if holder is not None:
            if self._holding:
                self._give_up_lanes()
            if self._holding or not self._told:
                logger.warning(
                    "another Assay process (%s) runs the evaluations of this SQLite database; this one "
                    "will not run any while it does (on PostgreSQL, any number of processes share them)",
                    holder,
                )
                self._told = True
            self._holding = False
            return
        if not self._holding:
            logger.info("this process runs the evaluations of this database (%s)", self.name)
        self._holding = True
        self._renewed_at = time.monotonic()
        try:
            unfinished = await finish_in_thread(self.unfinished)
        except Exception as exc:
            logger.warning("could not read the unfinished evaluations: %s", loggable(exc))
            return
        for evaluation_id, concurrency in unfinished:
            if evaluation_id not in self._running:
                logger.warning(
                    "evaluation %s was left unfinished with nothing running it; resuming it", evaluation_id
                )
                self._start_lanes(evaluation_id, concurrency)

    def _take(self) -> str | None:
        with self.engine.begin() as connection:
            return take_lease(connection, LEASE_NAME, self.name, seconds=self.options.stalled_s)

    def _release(self) -> None:
        with self.engine.begin() as connection:
            release_lease(connection, LEASE_NAME, self.name)

    def _give_up_lanes(self) -> None:
        """Stop this process's lanes (their shards stay to run again): its lease expired, so another server
        may run the same evaluations now. A fresh runner serves this process if it takes the lease again."""
        logger.warning("this process lost the evaluation runner lease; it stops running evaluations")
        stopped, self.runner = (
            self.runner,
            self._new_runner(),
        )
        stopped.stop()
        self._holding = False

    def _start_lanes(self, evaluation_id: int, concurrency: int) -> None:
        if evaluation_id in self._running or self.runner.stopping.is_set():
            return
        lanes: set[asyncio.Task[None]] = set()
        self._running[evaluation_id] = lanes
        for shard in first_shards(evaluation_id, concurrency):
            task = asyncio.create_task(self._run_lane(shard), name=f"evaluation-{evaluation_id}-{shard.lane}")
            lanes.add(task)
            task.add_done_callback(self._lane_ended)

    def _lane_ended(self, task: asyncio.Task[None]) -> None:
        for evaluation_id, lanes in list(self._running.items()):
            lanes.discard(task)
            if not lanes:
                del self._running[evaluation_id]

    async def _run_lane(self, shard: Shard) -> None:
        runner = self.runner  # a lane ends with the runner it started on (see _give_up_lanes)
        following: Shard | None = shard
        while following is not None and not runner.stopping.is_set():
            epoch = runner.fence.epoch()
            following = await runner.run_lane(following)
            if not runner.fence.holds(epoch):
                break  # frozen past the lease: the lease keeper resumes the lane if this process holds it

    async def wait(self, evaluation_id: int) -> None:
        """Wait until no lane of the evaluation runs here (tests)."""
        lanes = self._running.get(evaluation_id)
        if lanes:
            await asyncio.wait(set(lanes))
