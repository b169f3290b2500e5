"""The evaluation runner: asks a target about every case, grades each reply, hands results to one writer.

Concurrency is a fixed pool of workers sharing one iterator of cases, so at most ``concurrency`` calls are
in flight. Results go through an :class:`asyncio.Queue` to a single writer task that passes them to the
sink in batches (in a worker thread, so a database write never blocks the event loop). Storage is the
sink's business; the runner only promises that every result it grades reaches the sink, in batches.

Grading is inline for a cheap grader (microseconds: a thread hop would cost more). A grader that says it
is ``cpu_bound`` (an embedding model: milliseconds per answer) is handed the replies instead, in arrival
order, and grades them on a worker thread, up to :data:`GRADE_BATCH` per hop, so the loop stays free for
health checks and every other request while an evaluation grades.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from assay.graders import CallTransport, GraderInterface
from assay.services.execution.case_results import (
    BATCH_SIZE,
    FLUSH_INTERVAL_S,
    CaseResult,
    ResultSink,
    RunCase,
    RunOutcome,
    grade_replies,
    grade_reply,
    grade_reply_calling,
)
from assay.services.execution.reachability import ReachabilityWatch
from assay.services.execution.threads import finish_in_thread
from assay.services.execution.trajectories import packed, read_captured
from assay.targets.base import Target, TargetReply

_YIELD_EVERY = 256
GRADE_BATCH = 16
"""Replies a ``cpu_bound`` grader grades per hop to a worker thread: the hop's cost is shared by the batch,
and a stop waits for one batch at most (about 0.1 s for the semantic grader's ~6 ms per answer)."""
_GRADE_BACKLOG = 2 * GRADE_BATCH
"""Replies waiting for such a grader before the workers wait too (a grader slower than the agent must not
make the run hold every reply in memory)."""
T = TypeVar("T")


class _ThreadGrading:
    """Grades replies with a ``cpu_bound`` grader on a worker thread, in batches, in the order handed in;
    each result is awaited into ``deliver`` (on the loop). At most :data:`_GRADE_BACKLOG` replies wait."""

    def __init__(self, grader: GraderInterface, deliver: Callable[[CaseResult], Awaitable[None]]) -> None:
        self._grader = grader
        self._deliver = deliver
        self._pending: deque[tuple[RunCase, TargetReply]] = deque()
        self._room = asyncio.Semaphore(_GRADE_BACKLOG)
        self._ready = asyncio.Event()
        self._closed = False
        self.task: asyncio.Task[None] = asyncio.create_task(self._run())

    async def put(self, case: RunCase, reply: TargetReply) -> None:
        """Hand a reply in; waits while the backlog is full."""
        await self._room.acquire()
        self._pending.append((case, reply))
        self._ready.set()

    async def finish(self, *, drain: bool) -> None:
        """Grade and deliver every reply handed in (``drain``), or drop those not yet on a thread; raises
        what the grader raised. A batch on a thread is always waited for (a thread cannot be stopped)."""
        if self.task.done():
            return
        if drain:
            self._closed = True
            self._ready.set()
            await self.task
        else:
            self.task.cancel()
            await asyncio.wait({self.task})

    async def _run(self) -> None:
        while True:
            await self._ready.wait()
            if not self._pending:
                if self._closed:
                    return
                self._ready.clear()
                continue
            batch = [self._pending.popleft() for _ in range(min(GRADE_BATCH, len(self._pending)))]
            for _ in batch:
                self._room.release()
            results, error = await finish_in_thread(grade_replies, batch, self._grader)
            for result in results:
                await self._deliver(result)  # waits while a bounded queue (``max_pending``) is full
            if error is not None:
                raise error


async def _next_batch(
    queue: asyncio.Queue[CaseResult | None], batch_size: int, flush_interval: float
) -> tuple[list[CaseResult], bool]:
    """Up to ``batch_size`` results, waiting at most ``flush_interval`` after the first for more to come.

    Returns the batch and whether the end of the run (``None``) was reached.
    """
    loop = asyncio.get_running_loop()
    batch: list[CaseResult] = []
    item = await queue.get()
    deadline = loop.time() + flush_interval
    while item is not None:
        batch.append(item)
        if len(batch) >= batch_size:
            return batch, False
        try:
            item = queue.get_nowait()
            continue
        except asyncio.QueueEmpty:
            pass
        remaining = deadline - loop.time()
        if remaining <= 0:
            return batch, False
        try:
            item = await asyncio.wait_for(queue.get(), remaining)  # a trickle of replies makes one batch
        except TimeoutError:
            return batch, False
    return batch, True


async def _write_batches(
    queue: asyncio.Queue[CaseResult | None],
    sink: ResultSink,
    on_written: Callable[[int], None],
    batch_size: int,
    flush_interval: float,
    *,
    inline: bool,
) -> int:
    written = 0
    finished = False
    while not finished:
        batch, finished = await _next_batch(queue, batch_size, flush_interval)
        if batch:
            if inline:
                sink.write(batch)
            else:
                await finish_in_thread(sink.write, batch)
            written += len(batch)
            on_written(len(batch))
    return written


def _calls_out(grader: GraderInterface) -> bool:
    from assay.graders.contract.calls import calls_out  # loaded by a run that grades with calls only

    return calls_out(grader)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def run_cases(
    cases: Iterable[RunCase],
    target: Target,
    grader: GraderInterface,
    sink: ResultSink,
    *,
    concurrency: int,
    stop: asyncio.Event | None = None,
    gate: asyncio.Semaphore | None = None,
    on_written: Callable[[int], None] = lambda count: None,
    batch_size: int = BATCH_SIZE,
    flush_interval: float = FLUSH_INTERVAL_S,
    reachability: ReachabilityWatch | None = None,
    calls: CallTransport | None = None,
    max_pending: int = 0,
    write_inline: bool = False,
    holds: Callable[[], bool] | None = None,
) -> RunOutcome:
    """Run every case through ``target`` and ``grader`` into ``sink``.

    A grader that needs outbound calls per answer (a model judge), or a case's own assertions holding one,
    has them made through ``calls``, in the same worker as the case, so ``concurrency`` bounds the cases
    whose judges are being asked too. A ``cpu_bound`` grader grades
    on a worker thread, in batches (see the module's notes). Setting ``stop`` ends the run early: calls in
    flight are abandoned (those cases get no result, so a later resume runs them) and every reply received
    so far is still graded and written. A ``reachability`` watch sees every reply and sets ``stop`` when
    the agent cannot be reached at all. ``gate``, shared by runs, bounds the agent calls in flight of them
    all (a worker's cap). With ``max_pending``, a worker whose result finds that many waiting for the sink
    waits for room: a target faster than the sink (recorded answers) then slows down instead of piling
    results up in memory. With ``write_inline`` the sink's ``write`` is made in the event loop, not in a
    worker thread: for a sink that never blocks for long (appending to a local file), where handing each
    batch to a thread and back costs more than the write. ``holds`` is asked before every call: once it
    says no (the process may have lost its shard to another), the run stops as ``stop`` stops it.
    """
    queue: asyncio.Queue[CaseResult | None] = asyncio.Queue(max_pending)
    remaining = iter(cases)
    stop = stop or asyncio.Event()
    calling = calls is not None and _calls_out(grader)
    threaded = _ThreadGrading(grader, queue.put) if not calling and grader.cpu_bound else None

    async def work() -> None:
        at_once, put = target.reply_at_once, queue.put_nowait
        for count, case in enumerate(remaining, 1):
            if case.conversation is not None:
                if not await _conversation(case):
                    return
                continue
            # An answer at hand (recorded, a cache hit) calls no agent, so it takes no place under the gate:
            # the gate's acquire and a coroutine per case were most of a recorded shard's own loop work.
            reply = at_once(case.target_case)
            if reply is None:
                if gate is None:
                    if holds is not None and not holds():
                        stop.set()
                        return
                    reply = await target.respond(case.target_case, holds)
                else:
                    async with gate:
                        if holds is not None and not holds():  # after the wait for the gate, before calling
                            stop.set()
                            return
                        reply = await target.respond(case.target_case, holds)
            if holds is not None and not holds():  # lost while the call ran: the shard's new owner asks again
                stop.set()
                return
            if reply.capture is not None:  # a target capturing trajectories: read it (spans may come later)
                await read_captured(reply, target.traces)
                await target.keep_trajectory(
                    case.target_case, reply
                )  # the reply cache stores it with the reply
            # Whether the agent was reached is the reply's to say (a grader's error never is one).
            if reachability is not None and reachability.observe(reply.error, reply.error_detail):
                stop.set()
            checks = case.checks
            # A case's own assertions holding a judge make its calls, whatever the run's grader.
            own_calls = checks is not None and calls is not None and checks.makes_calls
            if threaded is not None and not own_calls:
                await threaded.put(case, reply)
            else:
                if calls is not None and (calling or own_calls):
                    result = await grade_reply_calling(case, reply, grader, calls)
                else:
                    result = grade_reply(case, reply, grader)
                if result.trajectory is not None:  # graded: its steps are compressed and let go now
                    result = await packed(result)
                try:
                    put(result)
                except asyncio.QueueFull:
                    await queue.put(result)
            if not count % _YIELD_EVERY:
                await asyncio.sleep(0)  # instant targets never suspend; let the writer and the stop run
            if stop.is_set():
                return

    async def _conversation(case: RunCase) -> bool:
        """A multi-turn case run into the queue; whether the run goes on."""
        from assay.services.execution.conversation import run_conversation_case

        ran = await run_conversation_case(case, target, grader, gate=gate, holds=holds, calls=calls)
        if ran is None or (holds is not None and not holds()):
            stop.set()
            return False
        result, last = ran
        if reachability is not None and reachability.observe(last.error, last.error_detail):
            stop.set()
        await queue.put(result)
        return not stop.is_set()

    writer = asyncio.create_task(
        _write_batches(queue, sink, on_written, batch_size, flush_interval, inline=write_inline)
    )
    workers = [asyncio.create_task(work()) for _ in range(max(1, concurrency))]
    all_done: asyncio.Future[Any] = asyncio.gather(*workers)
    all_done.add_done_callback(_retrieve)  # a cancelled run must not log "exception never retrieved"
    stop_wait: asyncio.Future[Any] = asyncio.create_task(stop.wait())
    try:
        watched: set[asyncio.Future[Any]] = {all_done, stop_wait, writer}
        if threaded is not None:
            watched.add(threaded.task)  # done early only when the grader raised
        await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        if writer.done():  # the sink failed: nothing more can be kept, so stop asking
            all_done.cancel()
            await writer  # raises the sink's error
        if threaded is not None and threaded.task.done():
            all_done.cancel()
            await threaded.task  # raises the grader's error, as grading inline would
        if not all_done.done():
            all_done.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await all_done
    finally:
        stop_wait.cancel()
        for worker in workers:
            worker.cancel()
        try:
            if threaded is not None:  # the replies received are graded, unless the sink can keep nothing
                await threaded.finish(drain=not writer.done())
        finally:
            if not writer.done():
                await queue.put(None)  # after the results still queued: the writer keeps taking them
            written = await writer
    return RunOutcome(written, stop.is_set())
