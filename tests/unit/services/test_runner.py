"""The runner on recorded targets: batches, sinks, where a grader grades (the runner over HTTP on a loopback
agent: tests/api/test_runner_over_http.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest

from assay.graders import GraderInterface
from assay.graders.contract.verdict import GradeResult, MatchStatus, Verdict
from assay.services.execution.case_results import CaseResult, RunCase
from assay.services.execution.runner import GRADE_BATCH, run_cases
from assay.services.grader_service import GraderService
from assay.targets import TargetCase, build_target, parse_target_spec

GRADER = GraderService(load_plugins=False).get("true-false")


class ListSink:
    """Keeps every batch; can be told to fail."""

    def __init__(self, fail: bool = False) -> None:
        self.batches: list[list[CaseResult]] = []
        self.fail = fail
        self.threads: set[str] = set()

    def write(self, results: Sequence[CaseResult]) -> None:
        self.threads.add(threading.current_thread().name)
        if self.fail:
            raise OSError("disk full")
        self.batches.append(list(results))

    @property
    def results(self) -> list[CaseResult]:
        return [result for batch in self.batches for result in batch]


class ThreadWatchingGrader(GraderInterface):
    """Passes "yes"; notes the thread each ``grade()`` runs on. "boom" makes it raise (a plugin's bug)."""

    default_id: ClassVar[str] = "thread-watching"
    name: ClassVar[str] = "Thread watching"
    description: ClassVar[str] = "A test grader"
    type: ClassVar[str] = "test"
    version: ClassVar[str] = "1.0.0"
    config_schema: ClassVar[dict[str, Any]] = {"type": "object", "additionalProperties": False}
    scoring_guide: ClassVar[dict[str, str]] = {"1.0": "yes", "0.0": "anything else"}

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        self.threads.append(threading.get_ident())
        self.wait()
        if agent_response == "boom":
            raise RuntimeError("a grader bug")
        status = MatchStatus.MATCH if agent_response == "yes" else MatchStatus.MISMATCH
        return Verdict(status, "test", expected_output, agent_response).result()

    def wait(self) -> None:
        """What the grader does besides (nothing, for a cheap one)."""


class LoopWatchingGrader(ThreadWatchingGrader):
    """A CPU-bound grader whose every ``grade()`` lasts until the event loop has turned (a heartbeat task
    sets ``tick``): graded on the loop, no answer could ever see it turn."""

    cpu_bound: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__()
        self.tick = threading.Event()
        self.loop_turned: list[bool] = []

    def wait(self) -> None:
        if self.loop_turned and not self.loop_turned[-1]:
            self.loop_turned.append(False)  # the loop is already known to be held: fail fast
            return
        self.tick.clear()
        self.loop_turned.append(self.tick.wait(timeout=5))


async def heartbeat(tick: threading.Event) -> None:
    while True:
        tick.set()
        await asyncio.sleep(0.001)


def cases(count: int, expected: str = "true") -> list[RunCase]:
    return [RunCase(TargetCase(i, f"question {i}", {}), expected) for i in range(1, count + 1)]


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
