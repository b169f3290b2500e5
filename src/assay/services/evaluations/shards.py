"""Shard execution: run one slice of an evaluation's cases and store its results, on any worker.

An evaluation runs in the lanes and shards of :mod:`~assay.services.evaluations.shard_plan`. A shard calls
only the cases without a stored result, and results are written idempotently
(:mod:`~assay.services.evaluations.result_sink`), so a shard run again (its worker died) repeats only what
was in flight.

The same code runs the shards of the embedded runner (SQLite) and of the job queue (PostgreSQL).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import replace
from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from assay.domain import UNFINISHED, EvaluationStatus
from assay.errors import AssayError
from assay.services.evaluations.fence import Fence
from assay.services.evaluations.graders import EvaluationGraders
from assay.services.evaluations.recount import RunningTally, SummaryRefresher, finish_evaluation
from assay.services.evaluations.regrade import StoredReplies, StoredTrajectories, stored_replies
from assay.services.evaluations.result_sink import DatabaseSink
from assay.services.evaluations.shard_plan import Plan, Shard, lane_concurrency
from assay.services.evaluations.shard_replies import ShardReplies
from assay.services.execution.conversation import stored_run_case
from assay.services.execution.reachability import CALLING_TARGETS, ReachabilityWatch
from assay.services.execution.runner import run_cases
from assay.services.execution.threads import finish_in_thread
from assay.services.grading.answers import calls_for
from assay.services.grading.assertions import case_graders
from assay.services.suites.service import case_assertions
from assay.storage import evaluations as store
from assay.storage import results as result_store
from assay.storage import suites as suite_store
from assay.storage.database import loggable
from assay.storage.evaluations import PendingCase
from assay.storage.types import utc_now
from assay.targets import (
    EvaluationTargetSpec,
    TargetPolicy,
    TargetSpec,
    build_target,
)
from assay.targets.cached import CachedTarget, CacheMode
from assay.targets.specs import case_fields, read_target_record
from assay.targets.templates import asked_text

logger = logging.getLogger(__name__)

INSTANT_SPAN = 20
"""Shards run at once by the one lane of an evaluation that calls no agent (recorded or stored answers)."""
JOB_BUDGET_S = 2.0
"""A lane's turn: after this long it hands its next shard back to the queue, so evaluations take turns."""
STATUS_POLL_S = 0.5
"""How often a running shard reads its evaluation's status: a cancel on any server stops it this soon."""
_CACHED_EVALUATIONS = 32


class _StoppedError(Exception):
    """The evaluation ended (cancelled, failed, deleted) while a shard ran."""


class _FencedError(Exception):
    """This process was frozen past ``stalled_s`` while a shard ran: another may run that shard now."""


class _UnreachableError(Exception):
    """The agent could not be reached at all: the evaluation fails with the cause, nothing was evaluated."""


def _failure_message(exc: Exception) -> str:
    """What an evaluation that failed on ``exc`` says; a database error's values (a failing row holds
    answers and headers) are left out, as in the log."""
    if isinstance(exc, AssayError):
        return exc.message
    safe = loggable(exc)
    return str(safe) if safe is not exc else f"{type(exc).__name__}: {exc}"


class ShardRunner:
    """Runs shards in this process, all its shards' calls bounded by one cap (``max_in_flight``)."""

    def __init__(
        self,
        engine: Engine,
        graders: EvaluationGraders,
        policy: TargetPolicy,
        *,
        max_in_flight: int,
        heartbeat_s: float = 2.0,
        stalled_s: float = 13.0,
    ) -> None:
        self.engine = engine
        self.graders = graders
        self.policy = policy
        self.max_in_flight = max_in_flight
        self.stopping = asyncio.Event()
        """Set at shutdown: shards stop calling, write what they graded and hand their shard back."""
        self._gate = asyncio.Semaphore(max_in_flight)
        self._summaries = SummaryRefresher(engine, graders)
        self._plans: OrderedDict[int, Plan] = OrderedDict()
        self._plans_lock = threading.Lock()  # shards of several evaluations read plans in worker threads
        self._expected: OrderedDict[int, tuple[datetime, TargetSpec]] = OrderedDict()
        """Target specs of evaluations just created in this process, by id, with the creation's time."""
        self._running: dict[int, set[asyncio.Event]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self.fence = Fence(stalled_s)
        """Every call checks it: a process frozen past ``stalled_s`` may have lost its shards to another."""
        self._heartbeat_s = heartbeat_s
        self._ticker: asyncio.Task[None] | None = None

    def stop(self) -> None:
        """Ask every running shard to stop soon (a shutdown): their shards stay to run again."""
        self.stopping.set()
        if self._ticker is not None:
            self._ticker.cancel()

    async def _tick(self) -> None:
        """Look at the fence every heartbeat, so that only a frozen process finds a gap in its life."""
        while True:
            self.fence.epoch()
            await asyncio.sleep(self._heartbeat_s / 2)

    def end(self, evaluation_id: int) -> None:
        """Stop this process's shards of an evaluation that just ended here (a cancel), at once rather
        than at their next look at its status; callable from any thread."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._end, evaluation_id)

    def _end(self, evaluation_id: int) -> None:
        for ended in self._running.get(evaluation_id, ()):
            ended.set()

    async def run_lane(self, shard: Shard) -> Shard | None:
        """Run ``shard``, then the lane's next shards until its turn (:data:`JOB_BUDGET_S`) is over.

        Returns the shard the lane goes on with (to queue again), or ``None`` when the lane is done: the
        evaluation ended, or the lane ran its last shard (then, if no case lacks a result, the evaluation
        completes here). A failure to prepare the evaluation (a grader that changed) fails it.
        """
        evaluation_id = shard.evaluation_id
        current: Shard | None = shard
        if self._ticker is None and not self.stopping.is_set():
            self._ticker = asyncio.create_task(self._tick(), name="shard-fence")
        try:
            plan = await finish_in_thread(self._plan, evaluation_id)
            if plan is None:
                return None
            if not plan.calls_agent and shard.lane > 0:
                return None  # lane 0 runs every shard (see Plan.lanes)
            started = time.monotonic()
            lanes = plan.lanes
            # Without calls, one lane runs shards many at a time: its writes overlap its grading, as if
            # the turn were one shard (per-shard queries and final writes would double the time per case).
            span = 1 if plan.calls_agent else INSTANT_SPAN
            while current is not None and current.positions[0] < plan.position_limit:
                if self.stopping.is_set():
                    return current
                ran = await self._run_shard(current, plan, span)
                current = Shard(
                    evaluation_id=evaluation_id, lane=shard.lane, index=current.index + max(lanes, span)
                )
                if ran and time.monotonic() - started >= JOB_BUDGET_S:
                    break
            if current is not None and current.positions[0] < plan.position_limit:
                return current
            if plan.reachability is not None and plan.reachability.is_unreachable:
                raise _UnreachableError(plan.reachability.message())  # every case failed to connect
            await finish_in_thread(self._complete_if_done, evaluation_id, plan)
            return None
        except _StoppedError:
            return current if self.stopping.is_set() else None
        except _FencedError:
            # Queued again: run by whichever process holds it now (AlreadyEnqueued if one queued it).
            logger.warning(
                "evaluation %s: this process was frozen past its lease; it stops its shard", evaluation_id
            )
            return current
        except _UnreachableError as exc:
            await finish_in_thread(self._fail, evaluation_id, str(exc))
            return None
        except Exception as exc:  # a failure ends this evaluation as data, never the worker
            if await finish_in_thread(self._fail, evaluation_id, _failure_message(exc)):
                logger.error("evaluation %s failed", evaluation_id, exc_info=loggable(exc))
            return None

    def expect(self, evaluation_id: int, created_at: datetime, spec: TargetSpec) -> None:
        """The target spec of an evaluation just created in this process, as its creation checked it: its
        plan takes it rather than reading the stored spec and parsing it again (callable from any thread)."""
        with self._plans_lock:
            self._expected[evaluation_id] = (created_at, spec)
            while len(self._expected) > _CACHED_EVALUATIONS:  # another process may run it (a queue)
                self._expected.popitem(last=False)

    def _expected_spec(self, evaluation_id: int, created_at: datetime) -> TargetSpec | None:
        """The spec :meth:`expect` was given for this evaluation, if it is the same one (an id can name
        another evaluation once that one is deleted)."""
        with self._plans_lock:
            expected = self._expected.get(evaluation_id)
        return expected[1] if expected is not None and expected[0] == created_at else None

    # ---- One shard ----------------------------------------------------------------------------------

    def _plan(self, evaluation_id: int) -> Plan | None:
        """The evaluation's plan (cached), after moving it to ``running``; ``None`` if it has ended."""
        with Session(self.engine, expire_on_commit=False) as session:
            row = store.find_evaluation(session, evaluation_id)
            if row is None or EvaluationStatus(row.status).is_terminal:
                self._forget(evaluation_id)
                return None
            if row.status == EvaluationStatus.PENDING:
                store.set_status(
                    session,
                    evaluation_id,
                    EvaluationStatus.RUNNING,
                    only_from=UNFINISHED,
                    started_at=utc_now(),
                )
                session.commit()
            plan = self._cached(evaluation_id)
            if plan is not None:
                return plan
            grader = self.graders.of(row)
            if grader.version != row.grader_version:
                raise AssayError(
                    f"grader '{row.grader_id}' is now version {grader.version}, this evaluation ran with "
                    f"{row.grader_version}; start a new evaluation"
                )
            spec = self._expected_spec(evaluation_id, row.created_at)
            if spec is None:  # parsed once per process, where it is read (the target may be large)
                spec = read_target_record(store.target_of(session, evaluation_id))
            watch = None
            cache = CacheMode.OFF  # a target that calls no agent has no reply to cache
            if spec.type in CALLING_TARGETS:
                cache = CacheMode(row.reply_cache)
                watch = ReachabilityWatch()
                watch.observe_all(result_store.some_errors(session, evaluation_id, limit=watch.limit))
            plan = Plan(
                suite_id=row.suite_id,
                concurrency=row.concurrency,
                position_limit=row.total // row.repeats,
                repeats=row.repeats,
                spec=spec,
                grader=grader,
                source_id=spec.evaluation_id if isinstance(spec, EvaluationTargetSpec) else None,
                policy=replace(self.policy, egress=self.policy.egress.carried(row.egress)),
                reachability=watch,
                checks=case_graders(
                    session, row.suite_id, suite_store.stored_assertions(session, row.suite_id)
                ),
                reply_cache=cache,
                fingerprint=spec.fingerprint() if cache is not CacheMode.OFF else "",
                tally=RunningTally.of(row, grader),
            )
        with self._plans_lock:
            self._plans[evaluation_id] = plan
            while len(self._plans) > _CACHED_EVALUATIONS:
                self._plans.popitem(last=False)
        return plan

    def _cached(self, evaluation_id: int) -> Plan | None:
        with self._plans_lock:
            plan = self._plans.get(evaluation_id)
            if plan is not None:
                self._plans.move_to_end(evaluation_id)
            return plan

    def _forget(self, evaluation_id: int) -> None:
        with self._plans_lock:
            self._plans.pop(evaluation_id, None)
            self._expected.pop(evaluation_id, None)

    def _cases(
        self, shard: Shard, plan: Plan, span: int
    ) -> tuple[list[PendingCase], StoredReplies | None, ShardReplies | None]:
        with Session(self.engine) as session:
            pending = store.cases_without_result(
                session,
                shard.evaluation_id,
                plan.suite_id,
                plan.bounded(shard.positions_of(span)),
                repeats=plan.repeats,
            )
            replies = None
            if plan.source_id is not None and pending:  # re-grading: the source's replies to these cases
                if store.status_of(session, plan.source_id) is None:
                    # Its replies went with it: every case would read "no recorded response".
                    raise AssayError(
                        f"evaluation {plan.source_id}, whose answers this re-grades, was deleted; "
                        "nothing is left to re-grade"
                    )
                replies = stored_replies(session, plan.source_id, [case.id for case in pending])
            cached = None
            if plan.reply_cache is not CacheMode.OFF and pending:
                fields = case_fields(plan.spec)
                asked = [(_asked(case, fields), repeat) for case in pending for repeat in case.repeats]
                cached = ShardReplies.read(session, plan.fingerprint, asked)
        return pending, replies, cached

    async def _run_shard(self, shard: Shard, plan: Plan, span: int = 1) -> bool:
        """Run the shard's cases that have no result; whether there were any. :class:`_StoppedError` if the
        evaluation ended or this runner stops meanwhile."""
        pending, replies, cached = await finish_in_thread(self._cases, shard, plan, span)
        if not pending:
            return False
        ended = asyncio.Event()
        stop = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._running.setdefault(shard.evaluation_id, set()).add(ended)
        watcher = asyncio.create_task(self._watch(shard.evaluation_id, ended, stop, plan.tally))
        sink = DatabaseSink(self.engine, shard.evaluation_id, ended, cached, plan.tally)
        # One run case per (case, repeat) without a result: the runner, the sink and the cache see them apart.
        run = [stored_run_case(case, repeat=repeat) for case in pending for repeat in case.repeats]
        if plan.checks is not None:  # per-case assertions (a suite with none runs as it always did)
            by_case = {case.id: case for case in pending}
            for run_case in run:
                own = case_assertions(by_case[run_case.target_case.case_id].assertions)
                run_case.checks = plan.checks.for_case(own, run_case.target_case.metadata)
        concurrency = lane_concurrency(plan.concurrency, shard.lane)
        fence, epoch = self.fence, self.fence.epoch()
        try:
            # Re-grading replies that carried trajectories: each read back when its case is graded.
            trajectories = None
            if replies is not None and replies.traced and plan.source_id is not None:
                trajectories = StoredTrajectories(self.engine, plan.source_id, replies.traced)
            target = build_target(
                plan.spec,
                concurrency=concurrency,
                policy=plan.policy,
                stored_replies=None if replies is None else replies.replies,
                stored_trajectories=trajectories,
            )
            if cached is not None:
                fields = case_fields(plan.spec)
                target = CachedTarget(target, cached, plan.fingerprint, plan.reply_cache, fields)
            # A model judge's calls (the grader's, or a case's assertions') go out under the targets'
            # policy; other graders open nothing.
            cases_call = plan.checks is not None and any(
                case.checks is not None and case.checks.makes_calls for case in run
            )
            judge = calls_for(plan.grader, plan.policy, concurrency=concurrency, cases_call=cases_call)
            async with target, judge as calls:
                outcome = await run_cases(
                    run,
                    target,
                    plan.grader,
                    sink,
                    concurrency=concurrency,
                    stop=stop,
                    gate=self._gate,
                    reachability=plan.reachability,
                    calls=calls,
                    holds=lambda: fence.holds(epoch),
                )
        finally:
            watcher.cancel()
            running = self._running.get(shard.evaluation_id, set())
            running.discard(ended)
            if not running:
                self._running.pop(shard.evaluation_id, None)
        if plan.reachability is not None and plan.reachability.gave_up:
            raise _UnreachableError(plan.reachability.message())
        if not fence.holds(epoch):
            raise _FencedError
        if outcome.stopped or ended.is_set():
            raise _StoppedError
        return True

    async def _watch(
        self, evaluation_id: int, ended: asyncio.Event, stop: asyncio.Event, tally: RunningTally | None
    ) -> None:
        """Set ``stop`` when the evaluation ends (on any server) or this runner stops; meanwhile, take
        turns at recounting its summary (off the writer's path, so that results are never held up)."""
        while True:
            try:
                await asyncio.wait_for(_either(ended, self.stopping), STATUS_POLL_S)
                break
            except TimeoutError:
                pass
            try:
                status = await finish_in_thread(self._status, evaluation_id)
                if status is not None and not status.is_terminal:
                    await finish_in_thread(self._summaries.refresh, evaluation_id, tally)
            except Exception as exc:  # a busy or unreachable database: look again next time
                logger.warning("evaluation %s: cannot read its status: %s", evaluation_id, loggable(exc))
                continue
            if status is None or status.is_terminal:
                ended.set()
                break
        stop.set()

    def _status(self, evaluation_id: int) -> EvaluationStatus | None:
        with self.engine.connect() as connection:
            return store.status_of(connection, evaluation_id)

    # ---- The end ------------------------------------------------------------------------------------

    def _complete_if_done(self, evaluation_id: int, plan: Plan) -> None:
        with Session(self.engine) as session:
            if store.has_case_without_result(
                session, evaluation_id, plan.suite_id, plan.position_limit, repeats=plan.repeats
            ):
                return  # another lane still runs; the last one to end completes the evaluation
        completed = EvaluationStatus.COMPLETED
        if finish_evaluation(self.engine, self.graders, evaluation_id, completed, tally=plan.tally):
            self._forget(evaluation_id)

    def _fail(self, evaluation_id: int, message: str) -> bool:
        """End the evaluation as failed; whether it was still unfinished (not cancelled, not deleted)."""
        self._forget(evaluation_id)
        return finish_evaluation(
            self.engine, self.graders, evaluation_id, EvaluationStatus.FAILED, error=message
        )


async def _either(first: asyncio.Event, second: asyncio.Event) -> None:
    """Return when either event is set."""
    tasks = {asyncio.ensure_future(first.wait()), asyncio.ensure_future(second.wait())}
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


def _asked(case: PendingCase, fields: tuple[str, ...]) -> str:
    """The reply cache's text of a stored case's call (:func:`~assay.targets.templates.asked_text`)."""
    return asked_text(stored_run_case(case).target_case, fields)
