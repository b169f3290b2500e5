"""An agent that cannot be reached stops a run, and only such an agent."""

from __future__ import annotations

import asyncio

from assay.services.execution.case_results import RunCase
from assay.services.execution.reachability import FIRST_CASES, ReachabilityWatch
from assay.services.execution.runner import run_cases
from assay.services.grader_service import GraderService
from assay.targets import TargetCase, build_target, parse_target_spec
from tests.unit.services.test_runner import ListSink

GRADER = GraderService(load_plugins=False).get("true-false")
REFUSED = "connection_error_after_retries"


def test_the_first_cases_all_unreachable_stop_the_run() -> None:
    watch = ReachabilityWatch()
    stops = [watch.observe(REFUSED, "connection refused to http://127.0.0.1:9/") for _ in range(FIRST_CASES)]
    assert stops == [False] * (FIRST_CASES - 1) + [True]
    assert watch.is_unreachable
    assert watch.message().startswith(
        "the agent could not be reached: connection refused to http://127.0.0.1:9/ (the first 5 cases"
    )


def test_one_answer_or_any_other_error_turns_the_watch_off() -> None:
    for first in (None, "http_503_after_retries", "timeout_after_retries", "bad_response"):
        watch = ReachabilityWatch()
        watch.observe(REFUSED)
        watch.observe(first)
        assert not any(watch.observe(REFUSED) for _ in range(20))
        assert not watch.is_unreachable


def test_egress_refusals_count_as_unreachable_and_resumed_results_are_counted() -> None:
    watch = ReachabilityWatch(limit=3)
    watch.observe_all([REFUSED, "egress_refused"])
    assert watch.observe("egress_refused", "a rule") is True
    assert ReachabilityWatch().is_unreachable is False  # nothing seen: nothing to say


async def test_the_runner_stops_when_the_watch_says_so() -> None:
    spec = {"type": "http", "url": "http://127.0.0.1:9/", "timeout": 2, "max_attempts": 1}
    cases = [RunCase(TargetCase(i, f"q{i}", {}), "true") for i in range(1, 101)]
    sink, watch, stop = ListSink(), ReachabilityWatch(), asyncio.Event()
    async with build_target(parse_target_spec(spec)) as target:
        outcome = await run_cases(cases, target, GRADER, sink, concurrency=2, stop=stop, reachability=watch)
    assert outcome.stopped
    assert FIRST_CASES <= outcome.written < 100
    assert watch.is_unreachable
    assert {result.error_detail for result in sink.results} == {"connection refused to http://127.0.0.1:9/"}
