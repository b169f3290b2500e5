"""One suite file run against one target, checked before it starts (:class:`SuiteRun`) and executed with a
progress bar, its results written as they come and its summary printed: what ``assay run`` and ``assay eval``
run."""

from __future__ import annotations

import os
import tempfile
import time
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assay.cli.console import err, out
from assay.cli.run_summary import print_summary
from assay.errors import ValidationError

if TYPE_CHECKING:  # the rest is imported when the run starts (see assay.cli.graders)
    from assay.cli.interruption import Stopper
    from assay.config import ModelPrice
    from assay.domain import SuiteAssertions
    from assay.graders import GraderInterface
    from assay.services.figures.summary import SummaryTally
    from assay.services.figures.summary_records import Summary
    from assay.services.local_run.answer_stream import AnswerFile
    from assay.services.local_run.result_file import ResultLine
    from assay.services.local_run.run import LocalSink
    from assay.services.local_run.selection import Selection
    from assay.services.local_run.suite_stream import SuiteFacts, SuiteFile
    from assay.targets import TargetSpec
    from assay.targets.cached import CacheUse


def _count(tally: SummaryTally, record: ResultLine) -> None:
    """Count a result read back from a results file (one written before results had ``reason_code`` too)."""
    from assay.graders.contract.verdict import reason_code_of
    from assay.targets.usage import JudgeSpend

    tally.add_result(
        record["passed"],
        record["score"],
        record["error"],
        record["latency_ms"],
        record["match_status"],
        reason_code_of(record["details"]),
        record["details"],
        _tokens(record.get("usage")),
        record["number"],
        JudgeSpend.of_record(record.get("judge_usage")),
    )


def _tokens(usage: object) -> tuple[int, int, str | None] | None:
    """The usage of a result read back from a results file (one without usage: unknown)."""
    from assay.targets.usage import read_usage

    read = read_usage(usage, model=usage.get("model") if isinstance(usage, dict) else None)
    return None if read is None else (read.input_tokens, read.output_tokens, read.model)


def _regrade(
    grader: GraderInterface, suite: SuiteFile
) -> Callable[[int, str, str], tuple[bool, float | None]] | None:
    """How a resumed run grades a kept answer again to check its line's verdict: by the case's own
    assertions when it has some (docs/assertions.md), else by ``grader``; not at all when the run's grader
    calls out, or a case's assertions do (a judge: asking it again would cost a call per line, and may
    differ)."""
    from assay.services.local_run.run import plain_loop_grades

    if not plain_loop_grades(grader) or suite.calls_out:
        return None
    own = {case.target_case.place: case.checks for case in suite.cases() if case.checks is not None}

    def regrade(number: int, answer: str, expected: str) -> tuple[bool, float | None]:
        verdict = own.get(number, grader).grade(answer, expected)
        return verdict["passed"], verdict["score"]

    return regrade


@contextmanager
def _results_file(output: Path | None, *, keep: bool) -> Iterator[Path | None]:
    """Where results are written: ``--output``, else (when a report needs them) a temporary file."""
    if output is not None or not keep:
        yield output
        return
    descriptor, name = tempfile.mkstemp(prefix="assay-run-", suffix=".jsonl")
    os.close(descriptor)
    try:
        yield Path(name)
    finally:
        os.unlink(name)


def _run_with_progress(
    suite: SuiteFile,
    facts: SuiteFacts,
    spec: TargetSpec | None,
    grader: GraderInterface,
    sink: LocalSink,
    stopper: Stopper,
    *,
    concurrency: int,
    done: Sequence[int] | None,
    answers: AnswerFile | None,
    total: int,
    cache: CacheUse | None = None,
    repeats: int = 1,
) -> None:
    """Run the cases without a result, a progress bar on a terminal (Rich's progress is loaded only then).

    Recorded answers graded by a grader that calls nothing run in a plain loop (no event loop to load)."""
    from assay.services.local_run.run import plain_loop_grades, run_local, run_recorded

    def run_plain(recorded: AnswerFile, on_written: Callable[[int], None]) -> None:
        control = sink.control
        with stopper.running(control):
            run_recorded(
                suite.cases(),
                grader,
                sink,
                answers=recorded.in_case_order(),
                control=control,
                done=done,
                on_written=on_written,
            )

    async def run_in_loop(on_written: Callable[[int], None]) -> None:
        import asyncio

        from assay.targets import parse_target_spec

        control = sink.control
        with stopper.running(control, asyncio.get_running_loop()):
            await run_local(
                suite.cases(),
                spec if spec is not None else parse_target_spec({"type": "recorded"}),
                grader,
                sink,
                concurrency=concurrency,
                control=control,
                done=done,
                answers=answers.in_case_order() if answers is not None else None,
                on_written=on_written,
                cache=cache,
                cases_call=suite.calls_out,
                repeats=repeats,
            )

    def run(on_written: Callable[[int], None]) -> None:
        if answers is not None and plain_loop_grades(grader) and not suite.calls_out:
            run_plain(answers, on_written)
        else:
            import asyncio

            asyncio.run(run_in_loop(on_written))

    if not err.is_terminal:
        run(lambda count: None)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err.rich,
    ) as progress:
        task = progress.add_task(facts.name, total=total, completed=sink.tally.finished)
        run(lambda count: progress.advance(task, count))


def check_repeats(repeats: int, spec: TargetSpec | None) -> None:
    """Repeats ask an agent again: recorded answers give each case one answer (exit 2)."""
    if repeats == 1:
        return  # nothing to check, and nothing loaded for it (a recorded run starts lean)
    from assay.targets import RecordedTargetSpec

    if spec is None or isinstance(spec, RecordedTargetSpec):
        raise ValidationError(
            "repeats need an agent to ask again: recorded answers give each case one answer"
        )


def scan_suite(
    path: Path,
    grader: GraderInterface,
    *,
    preflight: bool,
    fingerprints: bool = False,
    defaults: SuiteAssertions | None = None,
) -> tuple[SuiteFile, SuiteFacts]:
    """The suite file read once and checked whole (every case by its grader, unless not ``preflight``);
    ``defaults`` are assertions and rules given beside it (``assay eval``'s)."""
    from assay.services.local_run.suite_stream import SuiteFile

    suite = SuiteFile(path, defaults=defaults)
    facts, report = suite.scan(preflight=grader if preflight else None, fingerprints=fingerprints)
    if report is not None and not report.ok:
        raise report.error(grader.grader_id, "--allow-invalid-expected")
    return suite, facts


def open_answers(responses: Path | None, facts: SuiteFacts) -> AnswerFile | None:
    """The recorded answers file, checked against the suite, when there is one."""
    from assay.services.local_run.answer_stream import AnswerFile

    if responses is None:
        return None
    answers = AnswerFile(responses, facts)
    answers.check()
    return answers


@dataclass(frozen=True, slots=True, kw_only=True)
class SuiteRun:
    """One suite file run against one target, everything checked: what ``assay run`` and ``assay eval`` run
    (``spec`` ``None``: the recorded ``answers``)."""

    suite: SuiteFile
    facts: SuiteFacts
    grader: GraderInterface
    spec: TargetSpec | None
    answers: AnswerFile | None
    concurrency: int
    selection: Selection
    output: Path | None
    junit: Path | None
    server: str | None
    resuming: bool = False
    read_results: Callable[[Path], None] | None = None
    """Called with the finished run's results file (a temporary one without ``output``): ``assay eval``'s
    gates by metadata read it."""
    cache: CacheUse | None = None
    """The reply cache the run answers from first (``--cache``, ``--replay``); closed when the run ends."""
    repeats: int = 1
    """How many times each case is asked (its results carry their ``repeat``)."""
    prices: Mapping[str, ModelPrice] | None = None
    """The price table the run's cost is counted with (none: the cost is not counted)."""


def execute_run(plan: SuiteRun) -> Summary:
    """Run the cases, print the summary, write the JUnit report and push to a server when asked; its summary.
    Exit 2 when the target was never reached (nothing was evaluated: a setup problem, not a verdict)."""
    from assay.cli.interruption import Stopper, report_interrupted
    from assay.services.execution.reachability import SETUP_REASONS, ReachabilityWatch
    from assay.services.figures.summary import ReportShape, SummaryTally
    from assay.services.grading.registry import GraderService
    from assay.services.local_run.result_file import (
        ResultAppender,
        RunHeader,
        file_digest,
        read_records,
        read_results,
    )
    from assay.services.local_run.run import LocalSink

    suite, facts, grader, answers = plan.suite, plan.facts, plan.grader, plan.answers
    output, junit, server, selection = plan.output, plan.junit, plan.server, plan.selection
    repeats = plan.repeats
    if repeats > 1 and server is not None:
        raise ValidationError("--server does not take a run with repeats yet: push its cases run once")
    tally = SummaryTally(ReportShape.of(grader), repeats=repeats, prices=plan.prices)
    grader_spec = GraderService.spec(grader)
    run_header = RunHeader(
        grader_spec.grader_id,
        grader_spec.config,
        grader_spec.version,
        file_digest(suite.path),
        facts.name,
        facts.count,
        str(suite.path.resolve()),
        suite.defaults.as_json() if suite.defaults is not None else None,
        repeats,
    )
    done: array[int] | None = None
    if plan.resuming and output is not None:
        done = read_results(
            output,
            facts,
            lambda record: _count(tally, record),
            header=run_header,
            regrade=_regrade(grader, suite),
        )
    total = facts.count * repeats
    if not selection.everything:
        done = done if done is not None else array("I", bytes(4 * (facts.count * repeats + 1)))
        taken = selection.mark_left_out(suite.cases(), done, repeats)
        if taken == 0:
            raise ValidationError(f"--filter/--limit take none of the {facts.count} cases of {suite.path}")
        err.print(f"running {taken} of the {facts.count} cases (--filter/--limit)", markup=False)
        total = taken * repeats
    if plan.resuming:
        err.print(
            f"resuming: {tally.finished} of {total} cases already have a result in {output}", markup=False
        )
    if plan.spec is not None:  # an agent answers (recorded answers load no scipy: the start-up budget)
        from assay.services.figures.power import detectable_difference

        err.print(f"preflight: {detectable_difference(total).line()}", markup=False)
    keep = junit is not None or server is not None or plan.read_results is not None
    with _results_file(output, keep=keep) as results:
        # Every result is watched (a judge's errors are results'), recorded answers too: a run whose first
        # cases all fail for one set-up reason stops, exit 2, not a failed gate.
        watch = ReachabilityWatch(reasons=SETUP_REASONS)
        sink = LocalSink(tally, ResultAppender(results, run_header) if results is not None else None, watch)
        stopper = Stopper()
        started = time.perf_counter()
        try:
            with stopper.watching():
                _run_with_progress(
                    suite, facts, plan.spec, grader, sink, stopper, concurrency=plan.concurrency, done=done,
                    answers=answers, total=total, cache=plan.cache, repeats=repeats,
                )  # fmt: skip
                duration = time.perf_counter() - started
                summary = tally.summary(total)
                print_summary(summary, duration, tally)
                if junit is not None and results is not None:
                    from assay.services.local_run.junit import (
                        write_junit,
                    )  # only when asked: XML support takes time to load

                    # A run stopped early lists the cases it never ran, as skipped.
                    unrun = selection.chosen(suite.cases()) if summary.finished < total else ()
                    write_junit(
                        junit, facts.name, read_records(results), duration, cases=unrun, count=facts.count
                    )
                finished = stopper.signal is None and not watch.is_unreachable and summary.finished == total
                if server is not None and results is not None and finished:
                    from assay.cli.push import push_results

                    push_results(server, results)
                if plan.read_results is not None and results is not None:
                    plan.read_results(results)  # each batch was written whole, with no buffer between
        finally:
            if plan.cache is not None:
                plan.cache.cache.close()
            if sink.output is not None:
                sink.output.close()
            if answers is not None:
                answers.close()
            if facts.keys is not None:
                facts.keys.close()
    if output is None:
        out.print(f"{summary.passed}/{summary.finished} passed", markup=False)
    if stopper.signal is not None and summary.finished < total:
        report_interrupted(stopper.signal, summary.finished, total, output, server)
    if watch.is_unreachable:
        err.print(f"error: {watch.message()}", markup=False)
        raise SystemExit(2)  # nothing was evaluated: a setup problem, not a pass rate below the gate
    return summary
