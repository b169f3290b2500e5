"""The runner against a real HTTP agent on loopback: concurrency, errors as data, stopping, flushing."""

from __future__ import annotations

import asyncio
import time

from assay.services.execution.runner import run_cases
from assay.targets import build_target, parse_target_spec
from tests.support.agent_server import AgentBehaviour, AgentServer, Fault
from tests.support.runner_parts import GRADER, ListSink, LoopWatchingGrader, cases, heartbeat


async def test_an_inline_sink_is_written_in_the_event_loop_with_the_same_results() -> None:
    responses = {str(i): "yes" if i % 4 else "maybe" for i in range(1, 1201)}
    target = build_target(parse_target_spec({"type": "recorded", "responses": responses}))
    threaded, inline = ListSink(), ListSink()
    await run_cases(cases(1200), target, GRADER, threaded, concurrency=8)
    outcome = await run_cases(cases(1200), target, GRADER, inline, concurrency=8, write_inline=True)
    assert outcome.written == 1200
    assert inline.threads == {"MainThread"}
    by_case = {result.case_id: result for result in threaded.results}
    assert [by_case[result.case_id] for result in inline.results] == inline.results


async def test_http_run_respects_concurrency_and_keeps_errors_as_data() -> None:
    behaviour = AgentBehaviour(default="yes", delay=0.05, faults={"question 3": Fault("status", 400)})
    with AgentServer(behaviour) as agent:
        target = build_target(
            parse_target_spec({"type": "http", "url": agent.url, "timeout": 5}), concurrency=4
        )
        sink = ListSink()
        started = time.monotonic()
        async with target:
            outcome = await run_cases(cases(20), target, GRADER, sink, concurrency=4)
        elapsed = time.monotonic() - started
    assert outcome.written == 20
    assert 0.25 <= elapsed < 2.0  # 20 cases x 50 ms / 4 at a time = 0.25 s
    by_id = {r.case_id: r for r in sink.results}
    assert by_id[3].error == "http_400"
    assert by_id[3].passed is False
    assert by_id[3].score is None
    assert by_id[1].match_status == "match"
    assert by_id[1].latency_ms is not None


async def test_stop_keeps_results_so_far_and_abandons_the_rest() -> None:
    with AgentServer(AgentBehaviour(default="yes", delay=0.05)) as agent:
        target = build_target(parse_target_spec({"type": "http", "url": agent.url}), concurrency=2)
        sink = ListSink()
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(0.3, stop.set)
        async with target:
            outcome = await run_cases(cases(100), target, GRADER, sink, concurrency=2, stop=stop)
    assert outcome.stopped
    assert 2 <= outcome.written < 100
    assert len({r.case_id for r in sink.results}) == outcome.written


async def test_a_trickle_of_replies_is_written_at_least_every_flush_interval() -> None:
    with AgentServer(AgentBehaviour(default="yes", delay=0.02)) as agent:
        target = build_target(parse_target_spec({"type": "http", "url": agent.url}), concurrency=1)
        sink = ListSink()
        async with target:
            await run_cases(cases(30), target, GRADER, sink, concurrency=1, flush_interval=0.1)
    assert len(sink.batches) >= 3  # about 0.6 s of replies, so a batch per 0.1 s rather than one at the end


async def test_a_stopped_run_with_a_cpu_bound_grader_grades_every_reply_it_received() -> None:
    with AgentServer(AgentBehaviour(default="yes", delay=0.02)) as agent:
        target = build_target(parse_target_spec({"type": "http", "url": agent.url}), concurrency=4)
        grader = LoopWatchingGrader()
        sink = ListSink()
        stop = asyncio.Event()
        # Stopped once 4 results are written, not at a fixed 0.3 s (a loaded machine may write none by then)
        stopper = asyncio.create_task(_stop_once_written(sink, 4, stop))
        beat = asyncio.create_task(heartbeat(grader.tick))
        try:
            async with target:
                outcome = await run_cases(cases(200), target, grader, sink, concurrency=4, stop=stop)
        finally:
            beat.cancel()
            stopper.cancel()
    assert outcome.stopped
    assert 4 <= outcome.written < 200
    assert len(grader.threads) == outcome.written  # every reply graded was written, and only once
    assert len({r.case_id for r in sink.results}) == outcome.written
    assert all(r.match_status == "match" for r in sink.results)


async def _stop_once_written(sink: ListSink, count: int, stop: asyncio.Event) -> None:
    """Set ``stop`` once ``sink`` holds ``count`` results, or after 30 s (the test then fails: too many)."""
    try:
        async with asyncio.timeout(30):
            while len(sink.results) < count:
                await asyncio.sleep(0.001)
    finally:
        stop.set()
