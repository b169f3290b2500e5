"""``assay run``: evaluate a suite file against a target without a server, with a CI pass-rate gate.

Results are appended to ``--output`` as they come, so a run that is killed keeps what it graded, and
``--resume`` continues it; SIGINT and SIGTERM stop a run cleanly (:mod:`assay.cli.interruption`).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.console import err, out
from assay.cli.gate import FAILED, check_gate, limits_held
from assay.cli.options import (
    PATH,
    USD_AMOUNT,
    cache_options,
    cache_use,
    check_rate,
    check_writable,
    env_prices,
    grader_config,
    grader_options,
)
from assay.cli.tables import PlainTable
from assay.domain import MAX_REPEATS
from assay.errors import ValidationError

if TYPE_CHECKING:  # the rest is imported when the command runs (see assay.cli.graders)
    from assay.cli.interruption import Stopper
    from assay.config import ModelPrice
    from assay.domain import SuiteAssertions
    from assay.graders import GraderInterface
    from assay.json_types import JsonObject
    from assay.services.execution.case_results import RunCase
    from assay.services.figures.repeats import RepeatFigures
    from assay.services.figures.summary import SummaryTally
    from assay.services.figures.summary_records import BinaryReport, Summary
    from assay.services.local_run.answer_stream import AnswerFile
    from assay.services.local_run.result_file import ResultLine
    from assay.services.local_run.run import LocalSink
    from assay.services.local_run.selection import Selection
    from assay.services.local_run.suite_stream import SuiteFacts, SuiteFile
    from assay.targets import TargetSpec
    from assay.targets.cached import CacheUse

_TARGET_OPTIONS = "--target-url, --openai-model, --responses, --python or --command"


def _headers(values: Sequence[str]) -> JsonObject:
    headers: JsonObject = {}
    for value in values:
        name, colon, content = value.partition(":")
        if not colon or not name.strip():
            raise ValidationError(f"--header must look like 'Name: value', got {value!r}")
        headers[name.strip()] = content.strip()
    return headers


def _target(
    *,
    target_url: str | None,
    openai_model: str | None,
    responses: Path | None,
    python: str | None,
    command: str | None,
    extra: JsonObject,
    http: JsonObject,
    openai: JsonObject,
) -> TargetSpec | None:
    """The target the options name; ``None`` for recorded answers (``--responses``): they are read apart, as
    the cases run (and a run over them that calls nothing needs no target spec, nor pydantic to load)."""
    chosen = [
        name
        for name, value in (
            ("target-url", target_url),
            ("openai-model", openai_model),
            ("responses", responses),
            ("python", python),
            ("command", command),
        )
        if value is not None
    ]
    if len(chosen) != 1:
        raise ValidationError(f"give exactly one target: {_TARGET_OPTIONS} (got {len(chosen)})")
    data: JsonObject
    if target_url is not None:
        data = {"type": "http", "url": target_url, **http}
    elif openai_model is not None:
        data = {"type": "openai", "model": openai_model, **openai}
    elif responses is not None:
        return None
    elif python is not None:
        data = {"type": "python", "callable": python}
    else:
        data = {"type": "command", "command": command}
    from assay.targets import parse_target_spec

    return parse_target_spec({**data, **extra})


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2%}"


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _print_summary(summary: Summary, duration_s: float, tally: SummaryTally | None = None) -> None:
    """The summary table. Its mean score counts every case run, an errored one scoring 0, by the pass rate's
    rule (an errored case failed): an agent that errs more does not get a better mean."""
    from assay.services.figures.statistics import ratio

    interval = summary.pass_rate_ci95
    headers: tuple[str, ...] = ("cases", "passed", "failed", "errors", "pass rate", "95% CI", "mean score")
    headers += ("p50 ms", "p95 ms", "max ms")
    row = (
        str(summary.finished),
        str(summary.passed),
        str(summary.failed),
        str(summary.error_count),
        _rate(summary.pass_rate),
        f"{interval[0]:.1%} - {interval[1]:.1%}" if interval else "-",
        _number(
            summary.mean_score
            if tally is None
            else ratio(tally.score_sum, tally.finished)
            if tally.score_count
            else None,
            3,
        ),
        _number(summary.latency_ms.p50),
        _number(summary.latency_ms.p95),
        _number(summary.latency_ms.max),
    )
    err.table(PlainTable(headers, [row], title=f"Summary ({duration_s:.2f} s)"))
    counts = [*summary.by_match_status.items(), *summary.errors_by_reason.items()]
    err.table(PlainTable(("match_status / error", "count"), [(name, str(count)) for name, count in counts]))
    if summary.binary is not None:
        _print_labels(summary.binary)
    if summary.usage is not None:
        usage = summary.usage
        spent = [
            (item.model or "(not named)", str(item.cases), str(item.input_tokens), str(item.output_tokens))
            for item in usage.by_model
        ]
        title = f"Agent tokens ({usage.cases} of {summary.finished} replies said what they spent)"
        err.table(PlainTable(("model", "replies", "input tokens", "output tokens"), spent, title=title))
    _print_spend(summary)
    if summary.by_assertion:
        rows = [
            (name, f"{figures.passed} / {figures.total}", _rate(figures.passed / figures.total))
            for name, figures in summary.by_assertion.items()
        ]
        err.table(PlainTable(("assertion", "passed", "pass rate"), rows))
    if summary.repeats is not None:
        _print_repeats(summary.repeats)


def _print_repeats(figures: RepeatFigures) -> None:
    """pass@k and pass^k for every k, then the flaky cases (each with its passes and Wilson interval)."""
    ks = [str(k) for k in range(1, figures.repeats + 1)]
    rows = [
        ("pass@k", *(f"{value:.1%}" for value in figures.pass_at_k)),
        ("pass^k", *(f"{value:.1%}" for value in figures.pass_hat_k)),
    ]
    title = f"Repeats: each of {figures.cases} cases asked {figures.repeats} times"
    err.table(PlainTable(("k", *ks), rows, title=title))
    if figures.flaky:
        flaky = [
            (f"#{case.number}", f"{case.passed} / {case.runs}", f"{case.low:.1%} - {case.high:.1%}")
            for case in figures.flaky_cases
        ]
        shown = "" if figures.flaky == len(flaky) else f", {len(flaky)} shown"
        err.table(
            PlainTable(("case", "passed", "95% CI"), flaky, title=f"Flaky cases ({figures.flaky}{shown})")
        )
    else:
        err.print("no flaky case: every case passed all its repeats or none", markup=False)


def _print_spend(summary: Summary) -> None:
    """The judge's tokens, apart from the agent's, and the cost: agent, judge, total, each with the cases
    whose cost is unknown (never counted as 0)."""
    judged = summary.judge_usage
    if judged is not None:
        spent = [
            (item.model or "(not named)", str(item.cases), str(item.input_tokens), str(item.output_tokens))
            for item in judged.by_model
        ]
        title = f"Judge tokens ({judged.calls} calls; {judged.unknown_cases} cases of unknown tokens)"
        err.table(PlainTable(("model", "calls", "input tokens", "output tokens"), spent, title=title))
    cost = summary.cost
    if cost is None:
        if summary.usage is not None or judged is not None:
            err.print("cost: unknown (no price table: ASSAY_PRICES, or prices: in assay.yaml)", markup=False)
        return
    rows = [
        (part, figures.describe(), str(figures.unknown_cases))
        for part, figures in (("agent", cost.agent), ("judge", cost.judge), ("total", cost.total))
    ]
    err.table(PlainTable(("cost", "US dollars", "cases unknown"), rows, title="Cost"))


def _print_labels(binary: BinaryReport) -> None:
    """The label report; its columns are the grader's own labels (a plugin's as well as true/false's)."""
    from assay.services.figures.summary import INVALID

    columns = (*binary.labels, INVALID)
    matrix = [
        (label, *(str(row.get(column, 0)) for column in columns))
        for label, row in binary.confusion_matrix.items()
    ]
    err.table(PlainTable(("expected \\ actual", *columns), matrix, title="Label report"))
    scores = ", ".join(
        f"{label}: P {_number(s.precision, 3)} R {_number(s.recall, 3)} F1 {_number(s.f1, 3)}"
        for label, s in binary.per_class.items()
    )
    accuracy, valid_only = _rate(binary.accuracy), _rate(binary.accuracy_valid_only)
    err.print(
        f"accuracy {accuracy} (invalid excluded: {valid_only}), "
        f"Cohen's kappa {_number(binary.cohen_kappa, 3)}; {scores}",
        markup=False,
    )


def _test_target(
    spec: TargetSpec | None, case: RunCase, grader: GraderInterface, answers: AnswerFile | None
) -> None:
    """Send the first case once and print what came back and what was read from it (exit 2: no answer);
    with recorded ``answers`` (``spec`` is ``None``), the first case's answer is the one read."""
    from assay.services.execution.target_trial import try_target
    from assay.services.suites.case_keys import case_label
    from assay.targets import parse_target_spec

    if spec is None:
        first = next(answers.in_case_order(), None) if answers is not None else None
        found = {case.target_case.name: first.text} if first and first.answers(case.target_case) else {}
        spec = parse_target_spec({"type": "recorded", "responses": found})
    trial = try_target(spec, case, grader=grader)
    out.print(f"{case_label(trial.number, trial.key)}: {trial.input}", markup=False)
    if trial.raw is None:
        out.print("raw reply: none (nothing came back)", markup=False)
    else:
        kind = f"; {trial.raw.content_type}" if trial.raw.content_type else ""
        cut = "; cut" if trial.raw.truncated else ""
        out.print(f"raw reply ({trial.raw.source}{kind}{cut}):", markup=False)
        out.print(trial.raw.text if trial.raw.text is not None else "null", markup=False)
    if trial.error is not None:
        out.print(f"answer: none ({trial.error}: {trial.error_detail or 'no detail'})", markup=False)
        raise SystemExit(2)
    out.print(f"answer: {json.dumps(trial.answer, ensure_ascii=False)}", markup=False)
    if trial.verdict is not None:
        verdict = trial.verdict
        outcome = "pass" if verdict.passed else "fail"
        out.print(f"verdict: {outcome} ({verdict.match_status}): {verdict.reason}", markup=False)


def _check_output(output: Path | None, *, resume: bool, test_target: bool) -> bool:
    """Whether the run resumes from ``output``; a file holding results is never overwritten (exit 2)."""
    holds_results = output is not None and output.is_file() and output.stat().st_size > 0
    if resume and output is None:
        raise ValidationError("--resume needs --output: the results file of the run to continue")
    if holds_results and not resume and not test_target:
        raise ValidationError(
            f"{output} already holds results: give --resume to run only the cases it lacks, "
            "or another --output"
        )
    return resume and holds_results


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


@click.command("run")
@click.argument("suite_file", help="Suite file: JSONL, CSV or JSON with input, expected_output", type=PATH)
@grader_options
@click.option("--target-url", help='HTTP agent: POST {"input": ...}, read "output"')
@click.option("--openai-model", help="Model of an OpenAI-compatible chat API")
@click.option(
    "--responses",
    type=PATH,
    help="Recorded answers: JSONL/CSV rows with agent_response, each naming its case by key (or id) in a "
    "suite whose cases have keys, else by number (1 for the first case); a row naming none answers the case "
    "at its own place",
)
@click.option("--python", help="Python callable module:function")
@click.option("--command", help="Shell command: input on stdin, answer on stdout")
@click.option("--header", "-H", multiple=True, help="'Name: value' for --target-url")
@click.option("--body-template", help="JSON body with {{input}}, {{metadata.x}}")
@click.option("--response-path", help="Dotted path of the answer in the reply")
@click.option("--openai-base-url", help="Default https://api.openai.com/v1")
@click.option("--api-key-env", help="Env var holding the API key (default OPENAI_API_KEY)")
@click.option("--system-prompt", help="For --openai-model")
@click.option("--temperature", type=float, help="For --openai-model")
@click.option("--timeout", type=float, help="Seconds per call (default 30)")
@click.option("--max-attempts", type=int, help="Tries per case with backoff (default 4)")
@click.option("--concurrency", "-j", type=click.IntRange(1, 1024), default=8)
@click.option(
    "--repeats",
    type=click.IntRange(1, MAX_REPEATS),
    default=1,
    help="Ask each case this many times: pass@k, pass^k and flaky cases (an agent's target)",
)
@click.option(
    "--filter",
    "filters",
    multiple=True,
    help="Run only the cases whose metadata has key=value (repeatable: all must match)",
)
@click.option("--limit", type=int, help="Run only the first N cases (of those --filter takes)")
@click.option("--min-pass-rate", type=float, help="Exit 1 when the pass rate is below this (0-1)")
@click.option(
    "--max-cost-usd",
    type=USD_AMOUNT,
    help="Exit 1 when the run costs more than this, agent and judge (prices: ASSAY_PRICES); an unknown cost "
    "misses it",
)
@click.option(
    "--max-cost-per-case-usd", type=USD_AMOUNT, help="Exit 1 when a case costs more than this (or is unknown)"
)
@click.option(
    "--max-latency-p95-ms",
    type=click.FloatRange(min=0, min_open=True),
    help="Exit 1 when the agent's p95 latency, errors included, is above this",
)
@click.option("--junit", type=PATH, help="Write a JUnit XML report here")
@click.option(
    "--server",
    help="Also store the finished run as an evaluation on this Assay server (key from ASSAY_API_KEY), as "
    "`assay push` does",
)
@click.option(
    "--output",
    "-o",
    type=PATH,
    help="Write each result here as it is graded (JSONL); a file already holding results is refused without "
    "--resume",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Continue the run whose results --output holds: run only the cases without a result there, append "
    "theirs, and report on all (a missing or empty file starts afresh)",
)
@cache_options
@click.option(
    "--allow-invalid-expected", is_flag=True, help="Run even with cases the grader can never pass (preflight)"
)
@click.option(
    "--test-target",
    is_flag=True,
    help="Run nothing: send the first case once, print the raw reply, the answer read from it and its "
    "verdict; exit 0 when an answer was read, 2 when not",
)
def run(
    *,
    suite_file: Path,
    grader_id: str,
    config: str | None,
    preset: str | None,
    target_url: str | None,
    openai_model: str | None,
    responses: Path | None,
    python: str | None,
    command: str | None,
    header: Sequence[str],
    body_template: str | None,
    response_path: str | None,
    openai_base_url: str | None,
    api_key_env: str | None,
    system_prompt: str | None,
    temperature: float | None,
    timeout: float | None,
    max_attempts: int | None,
    concurrency: int,
    repeats: int,
    filters: Sequence[str],
    limit: int | None,
    min_pass_rate: float | None,
    max_cost_usd: Decimal | None,
    max_cost_per_case_usd: Decimal | None,
    max_latency_p95_ms: float | None,
    junit: Path | None,
    server: str | None,
    output: Path | None,
    resume: bool,
    use_cache: bool,
    replay: bool,
    cache_dir: Path | None,
    allow_invalid_expected: bool,
    test_target: bool,
) -> None:
    """Evaluate SUITE_FILE against one target, print a summary, and gate on the pass rate, the cost and the
    latency (for CI)."""
    from assay.services.figures.limits import SpendLimits
    from assay.services.grading.registry import GraderService
    from assay.services.local_run.selection import Selection

    check_rate(min_pass_rate)
    limits = SpendLimits(
        max_cost_usd=max_cost_usd,
        max_cost_per_case_usd=max_cost_per_case_usd,
        max_latency_p95_ms=max_latency_p95_ms,
    )
    prices = env_prices()
    selection = Selection.parse(filters, limit)
    check_writable(output, "--output")
    check_writable(junit, "--junit")
    if server is not None and not test_target:
        from assay.cli.server_client import check_server

        check_server(server)  # a wrong URL or key is said now, not after every case has run
    resuming = _check_output(output, resume=resume, test_target=test_target)
    graders = GraderService()
    grader = graders.build(grader_id, grader_config(graders, grader_id, config, preset))
    suite, facts = scan_suite(
        suite_file, grader, preflight=not (allow_invalid_expected or test_target), fingerprints=resuming
    )
    extra: JsonObject = {
        key: value
        for key, value in (("timeout", timeout), ("max_attempts", max_attempts))
        if value is not None
    }
    http: JsonObject = {"headers": _headers(header or [])}
    if body_template is not None:
        try:
            http["body_template"] = json.loads(body_template)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"--body-template is not valid JSON: {exc.msg}") from exc
    if response_path is not None:
        http["response_path"] = response_path or None
    openai: JsonObject = {
        key: value
        for key, value in (
            ("base_url", openai_base_url),
            ("api_key_env", api_key_env),
            ("system_prompt", system_prompt),
            ("temperature", temperature),
        )
        if value is not None
    }
    spec = _target(
        target_url=target_url,
        openai_model=openai_model,
        responses=responses,
        python=python,
        command=command,
        extra=extra,
        http=http,
        openai=openai,
    )
    answers = open_answers(responses, facts)
    check_repeats(repeats, spec)
    if (use_cache or replay) and spec is None:
        raise ValidationError("--cache and --replay are for a target that calls an agent, not --responses")
    cache = None if test_target else cache_use(use_cache=use_cache, replay=replay, cache_dir=cache_dir)
    if test_target:
        _test_target(spec, suite.first_case(), grader, answers)
        return
    summary = execute_run(
        SuiteRun(
            suite=suite,
            facts=facts,
            grader=grader,
            spec=spec,
            answers=answers,
            concurrency=concurrency,
            selection=selection,
            output=output,
            junit=junit,
            server=server,
            resuming=resuming,
            cache=cache,
            repeats=repeats,
            prices=prices,
        )
    )
    held = limits.empty or limits_held(limits, [summary])
    # Every case of the suite counts: one the run did not finish is not a pass.
    check_gate(passed=summary.passed, counted=summary.total_cases, min_pass_rate=min_pass_rate)
    if not held:
        raise SystemExit(FAILED)


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
                _print_summary(summary, duration, tally)
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
