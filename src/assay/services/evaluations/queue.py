"""Evaluations on PostgreSQL: each lane's next shard is a procrastinate job, run by any worker process.

A lane's job runs its shard (and the lane's next ones, for a turn), then queues the lane's following
shard and ends. Its ``lock`` keeps one shard of a lane running at a time, so an evaluation never has
more calls in flight than its concurrency across all workers; its ``queueing_lock`` keeps one waiting.
Queued again after every turn, lanes of all running evaluations take turns: none waits for another to end.

Every worker also keeps the queue whole: the jobs of a worker that stopped sending heartbeats are ended
and their shards queued again (only the cases without a stored result are called again), and a lane of
an unfinished evaluation with no job (a server that died right after creating it) gets one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

import procrastinate
from procrastinate import exceptions as queue_errors
from procrastinate.jobs import Status as JobStatus
from sqlalchemy import Engine

from assay.services.evaluations.scheduling import STOP_WAIT_S, Scheduler, WorkerOptions
from assay.services.evaluations.shard_plan import LANE_CONCURRENCY, Shard, first_shards
from assay.services.execution.threads import finish_in_thread
from assay.services.grading.registry import GraderService
from assay.storage.database import loggable
from assay.targets import TargetPolicy

logger = logging.getLogger(__name__)

TASK = "assay.run_lane"
QUEUE = "assay-evaluations"
SUBMIT_WAIT_S = 10.0
_WATCH_EVERY = 3
"""Heartbeats between two looks for lanes without a job."""


def lane_key(evaluation_id: int, lane: int) -> str:
    """The lock and queueing lock of one lane's jobs."""
    return f"assay-evaluation-{evaluation_id}-lane-{lane}"


def queue_conninfo(engine: Engine) -> str:
    """The libpq connection string of the engine's database (procrastinate speaks psycopg directly)."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


class QueueScheduler(Scheduler):
    """Queues evaluations' lanes on procrastinate; runs an embedded worker unless told not to."""

    def __init__(
        self, engine: Engine, graders: GraderService, policy: TargetPolicy, options: WorkerOptions
    ) -> None:
        super().__init__(engine, graders, policy, options)
        connector = procrastinate.PsycopgConnector(conninfo=queue_conninfo(engine))
        self.app = procrastinate.App(connector=connector)
        self.app.task(name=TASK, queue=QUEUE)(self._run_job)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[Any]] = []

    # ---- Queueing -----------------------------------------------------------------------------------

    def submit(self, evaluation_id: int, concurrency: int) -> None:
        """Queue the first shard of every lane of a new evaluation (from a request's thread)."""
        if self._loop is None:
            raise RuntimeError("QueueScheduler.start() was not awaited")
        future = asyncio.run_coroutine_threadsafe(
            self._queue_all(first_shards(evaluation_id, concurrency)), self._loop
        )
        future.result(timeout=SUBMIT_WAIT_S)

    async def _queue_all(self, shards: list[Shard]) -> None:
        for shard in shards:
            await self._queue(shard)

    async def _queue(self, shard: Shard) -> None:
        key = lane_key(shard.evaluation_id, shard.lane)
        deferrer = self.app.configure_task(TASK, lock=key, queueing_lock=key, queue=QUEUE)
        # AlreadyEnqueued: the lane's next shard already waits, and the lane goes on from there.
        with contextlib.suppress(queue_errors.AlreadyEnqueued):
            await deferrer.defer_async(evaluation_id=shard.evaluation_id, lane=shard.lane, index=shard.index)

    async def _run_job(self, evaluation_id: int, lane: int, index: int) -> None:
        following = await self.runner.run_lane(Shard(evaluation_id=evaluation_id, lane=lane, index=index))
        if following is not None:
            await self._queue(following)

    # ---- Running ------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the queue; with ``run_evaluations``, run a worker in this process."""
        self._loop = asyncio.get_running_loop()
        await self.app.open_async()
        if self.options.run_evaluations:
            self._tasks = [
                asyncio.create_task(self.run_worker(), name="evaluation-worker"),
                asyncio.create_task(self._keep_queue(), name="evaluation-queue-keeper"),
            ]
        else:
            logger.info("this server runs no evaluation (--no-worker): `assay worker` processes run them")

    async def run_worker(self) -> None:
        """Take and run lanes' jobs until cancelled (then stop gracefully)."""
        await self.app.run_worker_async(
            queues=[QUEUE],
            name=self.name,
            concurrency=max(1, self.options.max_in_flight // LANE_CONCURRENCY),
            install_signal_handlers=False,
            update_heartbeat_interval=self.options.heartbeat_s,
            stalled_worker_timeout=self.options.stalled_s,
            fetch_job_polling_interval=1.0,
            shutdown_graceful_timeout=STOP_WAIT_S,
            delete_jobs="successful",
        )

    async def close(self) -> None:
        """Stop the worker (shards hand their lane back to the queue) and close the queue."""
        self.runner.stop()
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=STOP_WAIT_S + 5)
        await self.app.close_async()

    async def _keep_queue(self) -> None:
        beats = 0
        while True:
            await asyncio.sleep(self.options.heartbeat_s)
            beats += 1
            try:
                await self._requeue_stalled()
                if beats % _WATCH_EVERY == 0:
                    await self._queue_orphan_lanes()
            except Exception as exc:  # an unreachable database: try again at the next beat
                logger.warning("could not look after the evaluation queue: %s", loggable(exc))

    async def _requeue_stalled(self) -> None:
        """End the jobs of workers that stopped sending heartbeats, and queue their shards again."""
        manager = self.app.job_manager
        stalled = await manager.get_stalled_jobs(
            task_name=TASK, seconds_since_heartbeat=self.options.stalled_s
        )
        for job in stalled:
            if job.id is None:
                continue
            try:
                await manager.finish_job_by_id_async(job.id, status=JobStatus.FAILED, delete_job=True)
            except queue_errors.ConnectorException:
                continue  # another worker ended it first
            shard = Shard(**job.task_kwargs)  # type: ignore[arg-type]
            logger.warning("shard %s: its worker stopped answering; queued again", shard)
            await self._queue(shard)

    async def _queue_orphan_lanes(self) -> None:
        """Queue every lane of an unfinished evaluation that has no job waiting or running at all (a
        server that died right after creating it, a job that failed): the last lane to end completes it.

        A lane that lost its worker is queued again by :meth:`_requeue_stalled`, not here.
        """
        # One listing, so that a job moving from waiting to running between two reads is not missed.
        jobs = await self.app.job_manager.list_jobs_async(task=TASK)
        live = {JobStatus.TODO.value, JobStatus.DOING.value}
        alive = {job.task_kwargs.get("evaluation_id") for job in jobs if job.status in live}
        for evaluation_id, concurrency in await finish_in_thread(self.unfinished):
            if evaluation_id not in alive:
                logger.warning("evaluation %s had no job; queued again", evaluation_id)
                await self._queue_all(first_shards(evaluation_id, concurrency))


async def run_worker(
    engine: Engine, graders: GraderService, policy: TargetPolicy, options: WorkerOptions
) -> None:
    """``assay worker``: run evaluations' shards from the queue until SIGTERM or SIGINT, then stop cleanly
    (shards write what they graded and their lanes go back to the queue)."""
    scheduler = QueueScheduler(engine, graders, policy, options)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)
    await scheduler.start()
    logger.info(
        "worker %s runs evaluations (at most %d calls in flight)", scheduler.name, options.max_in_flight
    )
    try:
        await stop.wait()
    finally:
        await scheduler.close()
