"""The writer of a shard's results: each batch stored in one transaction with its progress."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sqlalchemy import Engine

from assay.services.evaluations.records import result_columns, trajectory_chunks
from assay.services.evaluations.recount import RunningTally
from assay.services.evaluations.shard_replies import ShardReplies
from assay.services.execution.case_results import CaseResult
from assay.storage.database import retry_when_busy
from assay.storage.reply_cache import store_replies
from assay.storage.result_batches import NewResult, write_results
from assay.storage.trajectories import write_trajectory_chunks
from assay.targets.heavy_thread import wait_in_heavy_thread


class DatabaseSink:
    """Writes result batches of one evaluation, each batch in one transaction with its progress (and the
    agent's new replies to cache, when the evaluation uses the reply cache); the rows stored are then
    counted into ``tally``."""

    def __init__(
        self,
        engine: Engine,
        evaluation_id: int,
        on_ended: asyncio.Event,
        cached: ShardReplies | None = None,
        tally: RunningTally | None = None,
    ) -> None:
        self._engine = engine
        self._evaluation_id = evaluation_id
        self._on_ended = on_ended
        self._cached = cached
        self._tally = tally
        self._loop = asyncio.get_running_loop()

    def write(self, results: Sequence[CaseResult]) -> None:
        """Insert the batch (idempotently) unless the evaluation ended (then ask the run to stop)."""
        rows = [result_columns(result) for result in results]
        trajectories = wait_in_heavy_thread(trajectory_chunks, results) if _has_trajectory(results) else []

        def insert() -> Sequence[NewResult] | None:
            with self._engine.begin() as connection:
                written = write_results(connection, self._evaluation_id, rows)
                if self._cached is not None:
                    store_replies(connection, self._cached.drain())
                if written is not None and trajectories:
                    write_trajectory_chunks(connection, self._evaluation_id, trajectories)
                return written

        written = retry_when_busy(
            insert, what=f"evaluation {self._evaluation_id}: writing {len(rows)} results"
        )
        if written is None:  # ended meanwhile: nothing more of it is stored, so stop calling
            self._loop.call_soon_threadsafe(self._on_ended.set)
        elif self._tally is not None:  # committed: a retried transaction is counted once
            self._tally.add(written)


def _has_trajectory(results: Sequence[CaseResult]) -> bool:
    return any(result.trajectory is not None for result in results)
