"""Runs evaluations in the server's event loop: start, stop, resume after a restart, and record the outcome.

Every database call goes through a worker thread (:func:`finish_in_thread`) so the API stays responsive.
A job killed with its process leaves its evaluation ``running``; :meth:`EvaluationJobs.resume` starts it
again at the next start, and only the cases without a result run (the unique key makes any replayed
write harmless).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from concurrent.futures import TimeoutError as FutureTimeoutError
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from assay.errors import AssayError
from assay.services.demo_suite import seed_demo_suite
from assay.services.evaluation_records import facts_of, result_columns
from assay.services.grader_service import GraderService
from assay.services.grading import calls_for
from assay.services.reachability import CALLING_TARGETS, ReachabilityWatch
from assay.services.regrade import stored_replies
from assay.services.runner import CaseResult, RunCase, finish_in_thread, run_cases
from assay.services.summary import ReportShape, ResultFacts, summarize
from assay.storage import evaluations as store
from assay.storage.database import loggable, retry_when_busy, session_factory
from assay.storage.evaluations import EvaluationRow, EvaluationStatus
from assay.storage.types import utc_now
from assay.targets import TargetCase, TargetPolicy, TargetReply, build_target, parse_target_spec

logger = logging.getLogger(__name__)

Status = EvaluationStatus
_UNFINISHED = (Status.PENDING, Status.RUNNING)
STOP_WAIT_S = 10.0
WATCH_INTERVAL_S = 5.0
"""How often the watchdog looks for unfinished evaluations with no job."""


@dataclass
class LiveFacts:
    """The summary facts of a running evaluation, kept in memory so that polling it costs no query."""

    total: int
    shape: ReportShape
    facts: list[ResultFacts] = field(default_factory=list)
    cached: tuple[int, dict[str, Any]] | None = None

    def summary(self) -> dict[str, Any]:
        """The summary of the facts so far (recomputed only when results were added)."""
        count = len(self.facts)
        cached = self.cached
        if cached is None or cached[0] != count:
            cached = (count, summarize(self.facts[:count], total_cases=self.total, shape=self.shape))
            self.cached = cached
        return cached[1]


class DatabaseSink:
    """Writes result batches of one evaluation, each batch in one transaction with its progress."""

    def __init__(self, engine: Engine, evaluation_id: int, live: LiveFacts) -> None:
        self._engine = engine
        self._evaluation_id = evaluation_id
        self._live = live

    def write(self, results: Sequence[CaseResult]) -> None:
        """Insert the batch (idempotently) and refresh the evaluation's ``done`` count."""
        rows = [result_columns(result) for result in results]

        def insert() -> None:
            with self._engine.begin() as connection:
                store.insert_results(connection, self._evaluation_id, rows)

        retry_when_busy(insert, what=f"evaluation {self._evaluation_id}: writing {len(rows)} results")
        self._live.facts.extend(result.facts(self._live.shape) for result in results)


def report_shape(row: EvaluationRow, graders: GraderService) -> ReportShape:
    """What the evaluation's report holds, as its grader declares it (a binary matrix, scores...)."""
    return ReportShape.of(graders.graders.get(row.grader_id))


def compute_summary(session: Session, row: EvaluationRow, graders: GraderService) -> dict[str, Any]:
    """The summary of everything stored for the evaluation so far."""
    shape = report_shape(row, graders)
    facts = facts_of(store.summary_columns(session, row.id), shape)
    return summarize(facts, total_cases=row.total, shape=shape)


class EvaluationJobs:
    """The evaluations running in this process, one asyncio task each.

    ``submit`` and ``stop`` may be called from any thread (sync API routes run in a thread pool).
    """

    def __init__(self, engine: Engine, graders: GraderService, policy: TargetPolicy | None = None) -> None:
        self.target_policy = policy if policy is not None else TargetPolicy()
        """What this server's targets may do (egress, secrets, answer cap)."""
        self._engine = engine
        self._sessions = session_factory(engine)
        self._graders = graders
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._stops: dict[int, asyncio.Event] = {}
        self._live: dict[int, LiveFacts] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def attach(self) -> None:
        """Bind to the running event loop (call from within it, at startup)."""
        self._loop = asyncio.get_running_loop()

    def submit(self, evaluation_id: int) -> None:
        """Start running an evaluation (no-op if it already runs here)."""
        if self._loop is None:
            raise RuntimeError("EvaluationJobs.attach() was not called")
        self._loop.call_soon_threadsafe(self._start, evaluation_id)

    def _start(self, evaluation_id: int) -> None:
        if evaluation_id in self._tasks:
            return
        self._stops[evaluation_id] = asyncio.Event()
        task = asyncio.create_task(self._run(evaluation_id), name=f"evaluation-{evaluation_id}")
        self._tasks[evaluation_id] = task
        task.add_done_callback(lambda _: self._forget(evaluation_id))

    def _forget(self, evaluation_id: int) -> None:
        self._tasks.pop(evaluation_id, None)
        self._stops.pop(evaluation_id, None)
        self._live.pop(evaluation_id, None)

    def live_summary(self, evaluation_id: int) -> dict[str, Any] | None:
        """The summary of an evaluation running here, from memory; ``None`` when it does not run here."""
        live = self._live.get(evaluation_id)
        return live.summary() if live is not None else None

    def is_running(self, evaluation_id: int) -> bool:
        """Whether a job for this evaluation runs in this process."""
        return evaluation_id in self._tasks

    def stop(self, evaluation_id: int, *, wait: bool = False) -> bool:
        """Ask a running job to stop (results so far are kept); with ``wait``, block until it has.

        Returns whether a job was running. Must not be called with ``wait`` from the loop's own thread.
        """
        loop = self._loop
        if loop is None or evaluation_id not in self._tasks:
            return False

        async def stop_and_wait() -> None:
            stop = self._stops.get(evaluation_id)
            task = self._tasks.get(evaluation_id)
            if stop is not None:
                stop.set()
            if wait and task is not None:
                await asyncio.wait({task}, timeout=STOP_WAIT_S)

        future = asyncio.run_coroutine_threadsafe(stop_and_wait(), loop)
        if wait:
            try:
                future.result(timeout=STOP_WAIT_S + 1)
            except FutureTimeoutError:
                logger.warning("evaluation %s did not stop within %s s", evaluation_id, STOP_WAIT_S)
        return True

    def seed_demo(self) -> bool:
        """Seed the demo suite into a database that has no suite; whether it did."""
        with self._sessions() as session:
            return seed_demo_suite(session)

    def _unfinished_ids(self) -> list[int]:
        with self._sessions() as session:
            return store.evaluation_ids_with_status(session, list(_UNFINISHED))

    async def resume(self) -> list[int]:
        """Start every evaluation left pending or running (by a crash or a shutdown); their ids."""
        ids = await finish_in_thread(self._unfinished_ids)
        for evaluation_id in ids:
            self._start(evaluation_id)
        return ids

    async def watch(self) -> None:
        """Forever: start any evaluation left pending or running with no job behind it in this process.

        A job can end without its final status (a database that stayed busy); a live server must not show
        such an evaluation as running forever, so it is picked up again and ends the usual way.
        """
        while True:
            await asyncio.sleep(WATCH_INTERVAL_S)
            try:
                ids = await finish_in_thread(self._unfinished_ids)
            except Exception as exc:  # a busy or unreachable database: look again at the next round
                logger.warning("evaluation watchdog could not read the database: %s", loggable(exc))
                continue
            for evaluation_id in ids:
                if evaluation_id not in self._tasks:
                    logger.warning(
                        "evaluation %s was left unfinished with no job; resuming it", evaluation_id
                    )
                    self._start(evaluation_id)

    async def wait(self, evaluation_id: int) -> None:
        """Wait until the evaluation's job (if any) has ended."""
        task = self._tasks.get(evaluation_id)
        if task is not None:
            await asyncio.wait({task})

    async def close(self) -> None:
        """Cancel every job, leaving its evaluation ``running`` so that the next start resumes it."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_WAIT_S)

    # ---- One job ------------------------------------------------------------------------------------

    def _prepare(
        self, evaluation_id: int
    ) -> tuple[EvaluationRow, list[RunCase], LiveFacts, dict[int, TargetReply] | None] | None:
        with self._sessions() as session:
            row = store.find_evaluation(session, evaluation_id)
            if row is None or Status(row.status).is_terminal:
                return None
            cases = store.cases_without_result(session, evaluation_id, row.suite_id)
            started = row.started_at or utc_now()
            if not store.set_status(
                session, evaluation_id, Status.RUNNING, only_from=_UNFINISHED, started_at=started
            ):
                return None  # cancelled in the meantime
            session.commit()
            session.refresh(row)
            live = LiveFacts(row.total, report_shape(row, self._graders))
            stored = store.summary_columns(session, evaluation_id)  # a resumed evaluation's results
            live.facts.extend(facts_of(stored, live.shape))
            run_cases_ = [
                RunCase(
                    TargetCase(
                        case.id,
                        case.input,
                        case.case_metadata or {},
                        number=case.position + 1,
                        key=case.case_key,
                    ),
                    case.expected_output,
                )
                for case in cases
            ]
            source_id = row.target.get("evaluation_id") if row.target.get("type") == "evaluation" else None
            replies = stored_replies(session, source_id) if source_id is not None else None  # re-grading
            return row, run_cases_, live, replies

    def _finish(
        self,
        evaluation_id: int,
        status: Status | None,
        error: str | None = None,
        live: LiveFacts | None = None,
    ) -> None:
        # The final status must not be lost to a busy database; if it still is, the watchdog resumes the
        # evaluation (it is left running with no job) and it ends again.
        retry_when_busy(
            lambda: self._write_finish(evaluation_id, status, error, live),
            what=f"evaluation {evaluation_id}: writing its final status",
        )

    def _write_finish(
        self, evaluation_id: int, status: Status | None, error: str | None, live: LiveFacts | None
    ) -> None:
        with self._sessions() as session:
            row = store.find_evaluation(session, evaluation_id)
            if row is None:
                return
            summary = live.summary() if live is not None else compute_summary(session, row, self._graders)
            if status is not None and store.set_status(
                session,
                evaluation_id,
                status,
                only_from=_UNFINISHED,
                finished_at=utc_now(),
                summary=summary,
                error=error,
            ):
                session.commit()
                return
            row.summary = summary  # a cancel already set the status; keep it, add the summary
            session.commit()

    async def _run(self, evaluation_id: int) -> None:
        try:
            prepared = await finish_in_thread(self._prepare, evaluation_id)
            if prepared is None:
                return
            row, cases, live, replies = prepared
            self._live[evaluation_id] = live
            grader = self._graders.build(row.grader_id, row.grader_config)
            if grader.version != row.grader_version:
                raise AssayError(
                    f"grader '{row.grader_id}' is now version {grader.version}, this evaluation ran with "
                    f"{row.grader_version}; start a new evaluation"
                )
            spec = parse_target_spec(row.target)
            target = build_target(
                spec, concurrency=row.concurrency, policy=self.target_policy, stored_replies=replies
            )
            sink = DatabaseSink(self._engine, evaluation_id, live)
            watch = None
            if spec.type in CALLING_TARGETS:
                watch = ReachabilityWatch()
                watch.observe_all(fact.error for fact in live.facts)  # a resumed run's stored results
            # A model judge's calls go out under the targets' policy; other graders open nothing.
            async with target, calls_for(grader, self.target_policy, concurrency=row.concurrency) as calls:
                outcome = await run_cases(
                    cases,
                    target,
                    grader,
                    sink,
                    concurrency=row.concurrency,
                    stop=self._stops[evaluation_id],
                    reachability=watch,
                    calls=calls,
                )
            if watch is not None and watch.is_unreachable:
                # Not "completed at 0 %": the agent never answered, so nothing was evaluated.
                await finish_in_thread(self._finish, evaluation_id, Status.FAILED, watch.message(), live)
                return
            final = None if outcome.stopped else Status.COMPLETED
            await finish_in_thread(self._finish, evaluation_id, final, None, live)
        except asyncio.CancelledError:
            raise  # shutdown: stay ``running`` and resume at the next start
        except Exception as exc:  # any failure ends this evaluation as data, never the server
            message = exc.message if isinstance(exc, AssayError) else f"{type(exc).__name__}: {exc}"
            logger.error("evaluation %s failed", evaluation_id, exc_info=loggable(exc))
            await finish_in_thread(self._finish, evaluation_id, Status.FAILED, message)


async def seed_and_resume(jobs: EvaluationJobs, *, seed_demo: bool) -> list[int]:
    """Startup: bind the jobs to this loop, seed the demo suite if asked, resume unfinished evaluations."""
    jobs.attach()
    if seed_demo:
        await finish_in_thread(jobs.seed_demo)
    return await jobs.resume()
