"""The runner on recorded targets: batches, sinks, where a grader grades (the runner over HTTP on a loopback
agent: tests/api/test_runner_over_http.py)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from assay.services.execution.runner import GRADE_BATCH, run_cases
from assay.targets import TargetCase, build_target, parse_target_spec
from tests.support.runner_parts import (
    GRADER,
    ListSink,
    LoopWatchingGrader,
    ThreadWatchingGrader,
    cases,
    heartbeat,
)


async def test_recorded_run_grades_every_case_in_batches() -> None:
    responses = {str(i): "yes" if i % 4 else "no" for i in range(1, 1201)}
    target = build_target(parse_target_spec({"type": "recorded", "responses": responses}))
    sink = ListSink()
    progress: list[int] = []
    outcome = await run_cases(cases(1200), target, GRADER, sink, concurrency=8, on_written=progress.append)
    assert (outcome.written, outcome.stopped) == (1200, False)
    assert sorted(r.case_id for r in sink.results) == list(range(1, 1201))
    assert sum(r.passed for r in sink.results) == 900
    assert all(len(batch) <= 500 for batch in sink.batches)
    assert sum(progress) == 1200
    assert "MainThread" not in sink.threads  # writes happen off the event loop


async def test_a_recorded_reply_at_once_is_what_respond_gives() -> None:
    responses = {"1": "yes", "2": None, "3": "x" * 100}
    target = build_target(parse_target_spec({"type": "recorded", "responses": responses}))
    target.max_answer_bytes = 10
    for number in (1, 2, 3, 4):  # an answer, a null one, one past the size cap, none recorded
        case = TargetCase(number, "question", {})
        assert target.reply_at_once(case) == await target.respond(case)
    missing = target.reply_at_once(TargetCase(4, "question", {}))
    assert missing is not None
    assert missing.error == "no_recorded_response"


async def test_a_failing_sink_fails_the_run() -> None:
    target = build_target(parse_target_spec({"type": "recorded", "responses": {}}))
    with pytest.raises(OSError, match="disk full"):
        await run_cases(cases(10), target, GRADER, ListSink(fail=True), concurrency=2)


async def test_a_cpu_bound_grader_grades_off_the_loop_which_keeps_turning() -> None:
    responses = {str(i): "yes" if i % 3 else "no" for i in range(1, 101)}
    target = build_target(parse_target_spec({"type": "recorded", "responses": responses}))
    grader = LoopWatchingGrader()
    sink = ListSink()
    beat = asyncio.create_task(heartbeat(grader.tick))
    try:
        outcome = await run_cases(cases(100), target, grader, sink, concurrency=4)
    finally:
        beat.cancel()
    assert outcome.written == 100
    assert len(grader.loop_turned) == 100
    assert all(grader.loop_turned)  # the loop ran during every grade()
    assert threading.get_ident() not in grader.threads
    by_id = {r.case_id: r for r in sink.results}
    assert sorted(by_id) == list(range(1, 101))
    assert all(by_id[i].passed == bool(i % 3) and by_id[i].input == f"question {i}" for i in by_id)


async def test_a_cheap_grader_grades_inline_on_the_loop() -> None:
    target = build_target(parse_target_spec({"type": "recorded", "responses": {"1": "yes", "2": "no"}}))
    grader = ThreadWatchingGrader()
    outcome = await run_cases(cases(2), target, grader, ListSink(), concurrency=2)
    assert outcome.written == 2
    assert set(grader.threads) == {threading.get_ident()}  # no thread hop per case


async def test_results_of_a_cpu_bound_grader_keep_the_reply_order() -> None:
    # One worker, an instant target: replies come in case order, and so must the results.
    count = 5 * GRADE_BATCH + 3
    target = build_target(
        parse_target_spec({"type": "recorded", "responses": {str(i): "yes" for i in range(1, count + 1)}})
    )
    grader = LoopWatchingGrader()
    sink = ListSink()
    beat = asyncio.create_task(heartbeat(grader.tick))
    try:
        await run_cases(cases(count), target, grader, sink, concurrency=1)
    finally:
        beat.cancel()
    assert [r.case_id for r in sink.results] == list(range(1, count + 1))


async def test_a_cpu_bound_grader_that_raises_fails_the_run_as_inline_keeping_earlier_results() -> None:
    responses = {str(i): "boom" if i == 7 else "yes" for i in range(1, 41)}
    target = build_target(parse_target_spec({"type": "recorded", "responses": responses}))
    grader = LoopWatchingGrader()
    sink = ListSink()
    beat = asyncio.create_task(heartbeat(grader.tick))
    try:
        with pytest.raises(RuntimeError, match="a grader bug"):
            await run_cases(cases(40), target, grader, sink, concurrency=1)
    finally:
        beat.cancel()
    assert [r.case_id for r in sink.results] == list(range(1, 7))  # graded before the bug, and written


async def test_a_cpu_bound_grader_delivers_into_a_bounded_result_queue() -> None:
    # assay run bounds the results waiting for the sink (max_pending): the grading thread's deliveries
    # wait for room instead of overflowing it, and every result is still written, in order.
    count = 4 * GRADE_BATCH + 5
    target = build_target(
        parse_target_spec({"type": "recorded", "responses": {str(i): "yes" for i in range(1, count + 1)}})
    )
    grader = LoopWatchingGrader()
    sink = ListSink()
    beat = asyncio.create_task(heartbeat(grader.tick))
    try:
        outcome = await run_cases(
            cases(count), target, grader, sink, concurrency=1, max_pending=2, batch_size=3
        )
    finally:
        beat.cancel()
    assert outcome.written == count
    assert [r.case_id for r in sink.results] == list(range(1, count + 1))
    assert all(len(batch) <= 3 for batch in sink.batches)


async def test_answers_at_hand_take_no_place_under_the_gate() -> None:
    # The workers' gate bounds agent calls; a recorded answer calls nobody, so a gate with no room left
    # (other shards' calls hold it all) must not hold a recorded run up.
    responses = {str(i): "yes" for i in range(1, 101)}
    target = build_target(parse_target_spec({"type": "recorded", "responses": responses}))
    full = asyncio.Semaphore(1)
    await full.acquire()
    sink = ListSink()
    outcome = await asyncio.wait_for(
        run_cases(cases(100), target, GRADER, sink, concurrency=4, gate=full, holds=lambda: True), 10
    )
    assert (outcome.written, outcome.stopped) == (100, False)
    assert sorted(result.case_id for result in sink.results) == list(range(1, 101))
