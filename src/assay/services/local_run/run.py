"""Evaluations without a server (``assay run``): a suite file streamed through the runner into a results file.

The same per-case step as the server's runner (:mod:`assay.services.execution.case_results`); only the sink
differs. Nothing grows with the suite: cases and recorded answers are read as the run asks for them
(:mod:`assay.services.local_run.suite_stream`, :mod:`assay.services.local_run.answer_stream`), and each batch
of results is appended to the results file (:mod:`assay.services.local_run.result_file`) and counted into the
summary (:class:`SummaryTally`), then dropped.

Two drivers: :func:`run_local` runs the event-loop runner (:mod:`assay.services.execution.runner`), for a
target or a grader that calls out; :func:`run_recorded` grades recorded answers with a grader that calls
nothing in a plain loop, since nothing is ever waited for (an event loop would only cost: asyncio alone takes
longer to load than a run of a few hundred cases). Neither asyncio nor the runner is loaded until
:func:`run_local` runs.

A run is stopped in two steps (:class:`RunControl`): ``drain`` hands out no new case, so the cases in flight
finish and are written; ``halt`` abandons those still in flight (they get no result, so a resumed run runs
them). A run in a plain loop has one case in flight at most, between the checks of ``draining``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.graders import GraderInterface
from assay.services.execution.case_results import (
    BATCH_SIZE,
    FLUSH_INTERVAL_S,
    CaseResult,
    RunCase,
    RunOutcome,
    grade_reply,
)
from assay.services.figures.summary import SummaryTally
from assay.services.local_run.answer_stream import Answer
from assay.services.local_run.result_file import ResultAppender
from assay.targets.base import TargetCase, TargetReply
from assay.targets.reasons import ErrorReason
from assay.targets.recorded import RecordedTarget

if TYPE_CHECKING:
    from assay.services.execution.reachability import ReachabilityWatch
    from assay.targets import Target, TargetSpec
    from assay.targets.cached import CacheUse

MAX_PENDING = 4 * BATCH_SIZE
"""Results waiting for the results file at most: recorded answers are graded faster than they are written."""
_ANSWERS_KEPT_PER_WORKER = 4
"""Answers kept per worker for cases handed out; a recorded target reads a case's at once, so one would do."""


@dataclass
class RunControl:
    """How a local run stops: ``draining`` hands out no new case, ``halt`` abandons the cases in flight."""

    draining: bool = False
    halted: bool = False
    _on_halt: list[Callable[[], None]] = field(default_factory=list)

    def drain(self) -> None:
        """Take no new case; the cases in flight finish and are written."""
        self.draining = True

    def halt(self) -> None:
        """Take no new case and abandon those in flight."""
        self.draining = self.halted = True
        for hook in self._on_halt:
            hook()

    def when_halted(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` on :meth:`halt` (at once if the run is halted already)."""
        self._on_halt.append(hook)
        if self.halted:
            hook()


@dataclass
class LocalSink:
    """Appends each batch of results to the results file, when there is one, and counts it in the summary.

    A ``watch`` (:data:`~assay.services.execution.reachability.SETUP_REASONS`) sees every result, a judge's
    errors too, and halts ``control``'s run once the first results all failed for one set-up reason."""

    tally: SummaryTally
    output: ResultAppender | None = None
    watch: ReachabilityWatch | None = None
    control: RunControl = field(default_factory=RunControl)

    def write(self, results: Sequence[CaseResult]) -> None:
        """Keep the batch: written out, then counted (so the summary never counts a result not written)."""
        if self.output is not None:
            self.output.append(results)
        watch = self.watch
        if watch is not None and not watch.reached:
            for result in results:
                if watch.observe(result.error, result.error_detail):
                    self.control.halt()
        add = self.tally.add_result
        for result in results:
            add(
                result.passed,
                result.score,
                result.error,
                result.latency_ms,
                result.match_status,
                result.reason_code,
                result.details,
                result.tokens,
                result.number,
                result.judge,
            )


def repeated(cases: Iterable[RunCase], repeats: int) -> Iterator[RunCase]:
    """Each case ``repeats`` times in a row, its repeat index set (0 to ``repeats`` - 1)."""
    if repeats == 1:
        yield from cases
        return
    for case in cases:
        yield case
        first = case.target_case
        for repeat in range(1, repeats):  # made by position: dataclasses.replace costs several times more
            again = TargetCase(
                first.case_id, first.input, first.metadata, first.number, first.key, first.messages, repeat
            )
            yield RunCase(again, case.expected_output, case.checks, case.conversation)


def done_slot(number: int, repeat: int, repeats: int) -> int:
    """Where ``done`` (:func:`_handed_out`) marks case ``number``'s ``repeat``: the number itself without
    repeats."""
    return (number - 1) * repeats + repeat + 1


def _handed_out(
    cases: Iterable[RunCase],
    *,
    control: RunControl,
    done: Sequence[int] | None,
    answers: Iterator[Answer] | None,
    window: dict[str, str | None],
    keep: int,
    repeats: int = 1,
) -> Iterator[RunCase]:
    """The cases to run: none once draining, none that already has a result (``done[slot]``, see
    :func:`done_slot`); each recorded answer (``answers`` come in case order, as the cases do) put in
    ``window`` as its case is handed out, the oldest dropped past ``keep``. One generator for all of it: it
    runs for every case."""
    pending = next(answers, None) if answers is not None else None
    for case in cases:
        target_case = case.target_case
        answer = None
        if pending is not None and pending.answers(target_case):
            answer = pending
            pending = next(answers, None) if answers is not None else None
        if control.draining:
            return
        if done is not None and done[(target_case.place - 1) * repeats + target_case.repeat + 1]:
            continue
        if answer is not None:
            window[target_case.name] = answer.text
            if len(window) > keep:
                del window[next(iter(window))]
        yield case


def plain_loop_grades(grader: GraderInterface) -> bool:
    """Whether a run over recorded answers graded by ``grader`` can do without an event loop
    (:func:`run_recorded`): the grader makes no outbound call."""
    # No grader can call out before the module that defines calling graders is loaded (it is loaded only
    # when first named), and a run that grades without calls does not load it.
    calls = sys.modules.get("assay.graders.contract.calls")
    return calls is None or not calls.calls_out(grader)


_NO_TURNS = TargetReply(
    None,
    error=ErrorReason.TARGET_ERROR.value,
    error_detail="a multi-turn case needs an agent to answer its turns; a file of answers has one per case",
    attempts=0,
)


def run_recorded(
    cases: Iterable[RunCase],
    grader: GraderInterface,
    sink: LocalSink,
    *,
    answers: Iterator[Answer],
    control: RunControl | None = None,
    done: Sequence[int] | None = None,
    on_written: Callable[[int], None] = lambda count: None,
) -> RunOutcome:
    """:func:`run_local` over recorded ``answers`` (in case order) with a grader that calls nothing: each
    case's answer is looked up and graded in turn (a ``cpu_bound`` grader too: there is no loop to keep free),
    and the results go to ``sink`` in batches, as the runner's writer hands them over (full, or after
    :data:`FLUSH_INTERVAL_S`). If grading raises, the results before it are written first."""
    if not plain_loop_grades(grader):
        raise TypeError("a grader that calls out is run by run_local")
    control = control or RunControl()
    window: dict[str, str | None] = {}
    reply = RecordedTarget(window).reply_at_once
    pending = _handed_out(cases, control=control, done=done, answers=answers, window=window, keep=1)
    clock = time.monotonic
    batch: list[CaseResult] = []
    written = 0
    due = clock() + FLUSH_INTERVAL_S
    try:
        for case in pending:
            if case.conversation is not None:  # one recorded answer cannot answer a case's turns
                batch.append(grade_reply(case, _NO_TURNS, grader))
            else:
                batch.append(grade_reply(case, reply(case.target_case), grader))
            if len(batch) >= BATCH_SIZE or clock() >= due:
                full, batch = batch, []  # emptied first: a sink that failed is not asked again
                sink.write(full)
                written += len(full)
                on_written(len(full))
                due = clock() + FLUSH_INTERVAL_S
    finally:
        if batch:
            sink.write(batch)
            written += len(batch)
            on_written(len(batch))
    return RunOutcome(written, control.draining)


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
    target: Target | None = None,
    cache: CacheUse | None = None,
    cases_call: bool = False,
    repeats: int = 1,
) -> RunOutcome:
    """Run the ``cases`` without a result in ``done`` into ``sink``; through ``target`` when given (one built
    by the caller: the Python API's function), else the one ``spec`` describes.

    With ``answers`` (recorded answers in case order) ``spec`` must be a recorded target: each case's answer
    is read as the case is handed out. A ``reachability`` watch stops the run when the first cases all fail
    to reach the agent. With ``cache``, the target built from ``spec`` answers from the reply cache first.
    ``cases_call``: the cases' own assertions hold a judge (its endpoint checked by the suite's scan), so a
    transport for its calls is opened whatever ``grader``. ``repeats``: each case is asked that many times
    (``done`` then marks each (case, repeat) at :func:`done_slot`).
    """
    import asyncio

    from assay.services.execution.runner import run_cases
    from assay.services.grading.answers import calls_for, check_calls
    from assay.targets import RecordedTargetSpec, build_target, check_target

    control = control or RunControl()
    halt = asyncio.Event()
    control.when_halted(halt.set)
    if target is None:
        check_target(spec)
    check_calls(grader)
    window: dict[str, str | None] = {}
    if target is None and answers is not None:
        if not isinstance(spec, RecordedTargetSpec):
            raise TypeError("recorded answers go with a recorded target")
        target = RecordedTarget(window, metadata_key=spec.metadata_key)
    elif target is None:
        target = build_target(spec, concurrency=concurrency)
        if cache is not None:
            target = cache.around(target, spec)
    keep = _ANSWERS_KEPT_PER_WORKER * concurrency
    pending = _handed_out(
        repeated(cases, repeats),
        control=control,
        done=done,
        answers=answers,
        window=window,
        keep=keep,
        repeats=repeats,
    )
    async with target, calls_for(grader, concurrency=concurrency, cases_call=cases_call) as calls:
        return await run_cases(
            pending,
            target,
            grader,
            sink,
            concurrency=concurrency,
            stop=halt,
            on_written=on_written,
            reachability=reachability,
            calls=calls,
            max_pending=MAX_PENDING,
            write_inline=True,
        )
