"""Evaluations without a server (``assay run``): a suite file streamed through the runner into a results file.

The same runner as the server's; only the sink differs. Nothing grows with the suite: cases and recorded
answers are read as the runner asks for them (:mod:`assay.services.suite_stream`,
:mod:`assay.services.answer_stream`), and each batch of results is appended to the results file
(:mod:`assay.services.result_file`) and counted into the summary (:class:`SummaryTally`), then dropped.

A run is stopped in two steps (:class:`RunControl`): ``drain`` hands out no new case, so the cases in flight
finish and are written; ``halt`` abandons those still in flight (they get no result, so a resumed run runs
them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from assay.graders import GraderInterface
from assay.services.answer_stream import Answer
from assay.services.grading import calls_for, check_calls
from assay.services.reachability import ReachabilityWatch
from assay.services.result_file import ResultAppender
from assay.services.runner import BATCH_SIZE, CaseResult, RunCase, RunOutcome, run_cases
from assay.services.summary import SummaryTally
from assay.targets import RecordedTargetSpec, Target, TargetSpec, build_target, check_target

MAX_PENDING = 4 * BATCH_SIZE
"""Results waiting for the results file at most: recorded answers are graded faster than they are written."""
_ANSWERS_KEPT_PER_WORKER = 4
"""Answers kept per worker for cases handed out; a recorded target reads a case's at once, so one would do."""


@dataclass
class RunControl:
    """How a local run stops: ``draining`` hands out no new case, ``halt`` abandons the cases in flight."""

    draining: bool = False
    halt: asyncio.Event = field(default_factory=asyncio.Event)

    def drain(self) -> None:
        """Take no new case; the cases in flight finish and are written."""
        self.draining = True


@dataclass
class LocalSink:
    """Appends each batch of results to the results file, when there is one, and counts it in the summary."""

    tally: SummaryTally
    output: ResultAppender | None = None

    def write(self, results: Sequence[CaseResult]) -> None:
        """Keep the batch: written out, then counted (so the summary never counts a result not written)."""
        if self.output is not None:
            self.output.append(results)
        add = self.tally.add_result
        for result in results:
            add(
                result.passed,
                result.score,
                result.error,
                result.latency_ms,
                result.match_status,
                result.details,
            )


def _handed_out(
    cases: Iterable[RunCase],
    *,
    control: RunControl,
    done: Sequence[int] | None,
    answers: Iterator[Answer] | None,
    window: dict[str, str | None],
    keep: int,
) -> Iterator[RunCase]:
    """The cases to run: none once draining, none that already has a result (``done[number]``); each
    recorded answer (``answers`` come in case order, as the cases do) put in ``window`` as its case is handed
    out, the oldest dropped past ``keep``. One generator for all of it: it runs for every case."""
    pending = next(answers, None) if answers is not None else None
    for case in cases:
        target_case = case.target_case
        answer = None
        if pending is not None and pending.answers(target_case):
            answer = pending
            pending = next(answers, None) if answers is not None else None
        if control.draining:
            return
        if done is not None and done[target_case.place]:
            continue
        if answer is not None:
            window[target_case.name] = answer.text
            if len(window) > keep:
                del window[next(iter(window))]
        yield case


async def run_local(
    cases: Iterable[RunCase],
    spec: TargetSpec,
    grader: GraderInterface,
    sink: LocalSink,
    *,
    concurrency: int,
    control: RunControl | None = None,
    done: Sequence[int] | None = None,
    answers: Iterator[Answer] | None = None,
    on_written: Callable[[int], None] = lambda count: None,
    reachability: ReachabilityWatch | None = None,
) -> RunOutcome:
    """Run the ``cases`` without a result in ``done`` into ``sink``.

    With ``answers`` (recorded answers in case order) ``spec`` must be a recorded target: each case's answer
    is read as the case is handed out. A ``reachability`` watch stops the run when the first cases all fail
    to reach the agent.
    """
    control = control or RunControl()
    check_target(spec)
    check_calls(grader)
    window: dict[str, str | None] = {}
    target: Target
    if answers is not None:
        from assay.targets.recorded import RecordedTarget

        if not isinstance(spec, RecordedTargetSpec):
            raise TypeError("recorded answers go with a recorded target")
        target = RecordedTarget(spec, responses=window)
    else:
        target = build_target(spec, concurrency=concurrency)
    keep = _ANSWERS_KEPT_PER_WORKER * concurrency
    pending = _handed_out(cases, control=control, done=done, answers=answers, window=window, keep=keep)
    async with target, calls_for(grader, concurrency=concurrency) as calls:
        return await run_cases(
            pending,
            target,
            grader,
            sink,
            concurrency=concurrency,
            stop=control.halt,
            on_written=on_written,
            reachability=reachability,
            calls=calls,
            max_pending=MAX_PENDING,
            write_inline=True,
        )
