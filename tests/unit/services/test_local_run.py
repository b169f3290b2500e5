"""``assay run``'s drivers: recorded answers graded in a plain loop (no event loop) give what the event-loop
runner gives, stop between cases when drained, skip the cases a resumed run has, and keep what was graded
before a grader's bug."""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.services.execution.case_results import RunCase
from assay.services.figures.summary import ReportShape, SummaryTally
from assay.services.grader_service import GraderService
from assay.services.local_run.answer_stream import Answer
from assay.services.local_run.result_file import ResultAppender, read_records
from assay.services.local_run.run import LocalSink, RunControl, plain_loop_grades, run_local, run_recorded
from assay.targets import TargetCase, parse_target_spec
from tests.unit.services.test_runner import ThreadWatchingGrader

GRADER = GraderService(load_plugins=False).get("true-false")
COUNT = 1200


def cases(count: int = COUNT, control: RunControl | None = None, drain_at: int = 0) -> Iterator[RunCase]:
    """Cases 1 to ``count``, expecting true; ``control`` is drained as case ``drain_at`` is read."""
    for number in range(1, count + 1):
        if control is not None and number == drain_at:
            control.drain()
        yield RunCase(TargetCase(number, f"Is {number} odd?", {}, number=number), "true")


def answers(count: int = COUNT, text: str | None = None) -> Iterator[Answer]:
    return iter(Answer(n, None, text or ("yes" if n % 3 else "no")) for n in range(1, count + 1))


def sink(path: Path) -> LocalSink:
    return LocalSink(SummaryTally(ReportShape.of(GRADER)), ResultAppender(path))


async def test_the_plain_loop_writes_and_counts_what_the_event_loop_runner_does(tmp_path: Path) -> None:
    plain, looped = sink(tmp_path / "plain.jsonl"), sink(tmp_path / "looped.jsonl")
    outcome = run_recorded(cases(), GRADER, plain, answers=answers())
    spec = parse_target_spec({"type": "recorded"})
    await run_local(cases(), spec, GRADER, looped, concurrency=4, answers=answers())
    plain_records = list(read_records(tmp_path / "plain.jsonl"))
    looped_records = sorted(read_records(tmp_path / "looped.jsonl"), key=lambda record: record["number"])
    assert [record["number"] for record in plain_records] == list(range(1, COUNT + 1))
    assert plain_records == looped_records
    assert plain.tally.summary(COUNT) == looped.tally.summary(COUNT)
    assert (outcome.written, outcome.stopped) == (COUNT, False)


def test_a_drained_run_takes_no_new_case(tmp_path: Path) -> None:
    control = RunControl()
    outcome = run_recorded(
        cases(control=control, drain_at=11),
        GRADER,
        sink(tmp_path / "out.jsonl"),
        answers=answers(),
        control=control,
    )
    assert [record["number"] for record in read_records(tmp_path / "out.jsonl")] == list(range(1, 11))
    assert (outcome.written, outcome.stopped) == (10, True)


def test_the_cases_with_a_result_are_skipped_and_their_answers_passed_by(tmp_path: Path) -> None:
    done = array("I", bytes(4 * (COUNT + 1)))
    for number in (1, 2, 500, COUNT):
        done[number] = 1
    run_recorded(cases(), GRADER, sink(tmp_path / "out.jsonl"), answers=answers(), done=done)
    records = list(read_records(tmp_path / "out.jsonl"))
    assert [record["number"] for record in records] == [n for n in range(1, COUNT + 1) if not done[n]]
    assert all(record["agent_response"] == ("yes" if record["number"] % 3 else "no") for record in records)


def test_a_grader_bug_fails_the_run_after_writing_what_was_graded(tmp_path: Path) -> None:
    grader = ThreadWatchingGrader()
    recorded = (Answer(n, None, "boom" if n == 701 else "yes") for n in range(1, COUNT + 1))
    with pytest.raises(RuntimeError, match="a grader bug"):
        run_recorded(cases(), grader, sink(tmp_path / "out.jsonl"), answers=recorded)
    assert [record["number"] for record in read_records(tmp_path / "out.jsonl")] == list(range(1, 701))


def test_only_a_grader_that_makes_no_call_is_graded_in_a_plain_loop() -> None:
    from assay.graders import LLMJudgeGrader

    assert plain_loop_grades(GRADER)
    assert plain_loop_grades(GraderService(load_plugins=False).build("all", {}))
    assert not plain_loop_grades(LLMJudgeGrader())


def test_a_stopped_runs_junit_lists_the_cases_it_never_ran_as_skipped(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from assay.services.local_run.junit import write_junit

    cases = [RunCase(TargetCase(n, f"q{n}", {}), "true") for n in range(1, 5)]
    ran = {"number": 2, "key": None, "input": "q2", "expected_output": "true", "agent_response": "yes",
           "passed": True, "score": 1.0, "match_status": "match", "details": {}, "error": None,
           "error_detail": None, "latency_ms": 3.0}  # fmt: skip
    report = tmp_path / "junit.xml"
    write_junit(report, "s", [ran], 0.1, cases=cases, count=4)
    root = ET.parse(report).getroot()
    assert (root.get("tests"), root.get("skipped")) == ("4", "3")
    skipped = [case.get("name") for case in root if case.find("skipped") is not None]
    assert skipped == ["case #1: q1", "case #3: q3", "case #4: q4"]
