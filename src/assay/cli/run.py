"""``assay run``: evaluate a suite file against a target without a server, with a CI pass-rate gate.

Results are appended to ``--output`` as they come, so a run that is killed keeps what it graded, and
``--resume`` continues it; SIGINT and SIGTERM stop a run cleanly (:mod:`assay.cli.interruption`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.console import out
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
from assay.domain import MAX_REPEATS
from assay.errors import ValidationError

if TYPE_CHECKING:  # the rest is imported when the command runs (see assay.cli.graders)
    from assay.graders import GraderInterface
    from assay.json_types import JsonObject
    from assay.services.execution.case_results import RunCase
    from assay.services.local_run.answer_stream import AnswerFile
    from assay.targets import TargetSpec

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
    from assay.cli.suite_run import SuiteRun, check_repeats, execute_run, open_answers, scan_suite
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
