"""``assay eval [FILE]``: the eval an ``assay.yaml`` describes (docs/eval-file.md), run as ``assay run`` runs
a suite (:func:`assay.cli.suite_run.execute_run`, per suite), then judged by its gates.

Exit 0 when every gate holds (without gates: every case passed), 1 when one is missed, 2 for any problem of
the file (each named by its line, all checked before anything runs), 3 for a bug.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.console import err
from assay.cli.gate import FAILED, check_gate
from assay.cli.options import PATH, cache_options, cache_use, check_writable, env_prices
from assay.domain import MAX_REPEATS
from assay.errors import ValidationError

if TYPE_CHECKING:
    from assay.services.eval_file.gates import MetadataTally
    from assay.services.eval_file.model import EvalFile
    from assay.services.eval_file.plan import EvalPlan
    from assay.services.local_run.suite_stream import SuiteFile

DEFAULT_FILE = Path("assay.yaml")


def _per_suite(path: Path | None, suite: Path, several: bool) -> Path | None:
    """An output file of one suite: the file named, or beside it with the suite's name when there are
    several suites (``results.jsonl`` -> ``results.billing.jsonl``)."""
    if path is None or not several:
        return path
    return path.with_name(f"{path.stem}.{suite.stem}{path.suffix}")


def _metadata_reader(suite: SuiteFile, count: int, tally: MetadataTally) -> Callable[[Path], None]:
    """Counts each graded run of ``suite``'s cases (one a case without repeats) by the metadata the gates
    name, from its results file."""
    from array import array

    from assay.services.local_run.result_file import read_records

    def read(results: Path) -> None:
        passes, runs = array("I", bytes(4 * (count + 1))), array("I", bytes(4 * (count + 1)))
        for record in read_records(results):
            number = record.get("number")
            if isinstance(number, int) and 0 < number <= count:
                passes[number] += record.get("passed") is True
                runs[number] += 1
        for case in suite.cases():
            place = case.target_case.place
            for run in range(runs[place]):
                tally.add(case.target_case.metadata, run < passes[place])

    return read


def _with_repeats(model: EvalFile, repeats: int, name: str) -> EvalFile:
    """The file's model with ``--repeats`` in place of its own, checked as the file would be."""
    import pydantic

    from assay.services.eval_file.model import EvalFile

    try:
        return EvalFile.model_validate(
            {**model.model_dump(by_alias=True, exclude_unset=True), "repeats": repeats}
        )
    except pydantic.ValidationError as exc:
        raise ValidationError(f"{name} with --repeats {repeats}: {exc.errors()[0]['msg']}") from None


def _suite_names(plan: EvalPlan) -> None:
    stems = [path.stem for path in plan.suites]
    twice = sorted({stem for stem in stems if stems.count(stem) > 1})
    if twice and (plan.results is not None or plan.junit is not None):
        raise ValidationError(
            f"suites {', '.join(twice)} share a file name: their outputs would be one file; rename one"
        )


@click.command("eval")
@click.argument("file", required=False, type=PATH, help="The eval file (default ./assay.yaml)")
@click.option(
    "--filter",
    "filters",
    multiple=True,
    help="Run only the cases whose metadata has key=value (repeatable: all must match)",
)
@click.option("--limit", type=int, help="Run only the first N cases of each suite (of those --filter takes)")
@click.option("--output", "-o", type=PATH, help="Results file (JSONL) instead of the file's outputs.results")
@click.option("--junit", type=PATH, help="JUnit XML report instead of the file's outputs.junit")
@click.option("--concurrency", "-j", type=click.IntRange(1, 1024), help="Instead of the file's concurrency")
@click.option(
    "--repeats",
    type=click.IntRange(1, MAX_REPEATS),
    help="Ask each case this many times, instead of the file's",
)
@click.option(
    "--server",
    help="Also store each finished suite run on this Assay server (key from ASSAY_API_KEY), instead of the "
    "file's server",
)
@click.option(
    "--no-server",
    is_flag=True,
    help="Store the run nowhere, whatever the file's server says (the GitHub Action pushes the results "
    "file itself)",
)
@cache_options
def eval_command(
    *,
    file: Path | None,
    filters: Sequence[str],
    limit: int | None,
    output: Path | None,
    junit: Path | None,
    concurrency: int | None,
    repeats: int | None,
    server: str | None,
    no_server: bool,
    use_cache: bool,
    replay: bool,
    cache_dir: Path | None,
) -> None:
    """Run the eval FILE describes (suites, target, assertions, outputs, gates); exit 0 when its gates hold,
    1 when one is missed, 2 for a problem of the file."""
    from assay.cli.suite_run import SuiteRun, check_repeats, execute_run, open_answers, scan_suite
    from assay.services.eval_file.gates import EvalTotals, MetadataTally
    from assay.services.eval_file.loading import read_eval_file
    from assay.services.eval_file.plan import plan_eval
    from assay.services.local_run.selection import Selection

    path = file if file is not None else DEFAULT_FILE
    model, root = read_eval_file(path)
    if repeats is not None:  # checked again with the gates, as if the file said it
        model = _with_repeats(model, repeats, path.name)
    folder = path.parent
    plan = plan_eval(model, folder, source=path.name, root=root)
    if plan.server_suites:
        raise ValidationError(
            f"{path.name}: server_suite {plan.server_suites[0]} is run by its server (POST /api/evals); "
            "assay eval runs suite files"
        )
    selection = Selection.parse(filters, limit)
    several = len(plan.suites) > 1
    results_path = output if output is not None else plan.results
    junit_path = junit if junit is not None else plan.junit
    _suite_names(plan)
    outputs = [
        (_per_suite(results_path, suite, several), _per_suite(junit_path, suite, several))
        for suite in plan.suites
    ]
    for results, report in outputs:
        check_writable(results, "outputs.results")
        check_writable(report, "outputs.junit")
    if no_server and server is not None:
        raise ValidationError("give --server or --no-server, not both")
    server = None if no_server else server if server is not None else model.server
    if server is not None:
        from assay.cli.server_client import check_server

        check_server(server)
    if model.target.type == "python" and str(folder.resolve()) not in sys.path:
        sys.path.insert(0, str(folder.resolve()))  # the agent's module may sit beside the file
    # Every suite is read and checked (its preflight too) before any runs.
    scanned = [
        scan_suite(suite, plan.grader, preflight=not model.allow_invalid_expected, defaults=plan.defaults)
        for suite in plan.suites
    ]
    answers = open_answers(plan.responses, scanned[0][1]) if plan.responses is not None else None
    check_repeats(model.repeats, plan.spec)
    if use_cache and replay:
        raise ValidationError("give --cache or --replay, not both (--replay never calls the agent)")
    mode = "replay" if replay else "record" if use_cache else model.cache
    if mode != "off" and plan.spec is None:
        raise ValidationError(
            f"{path.name}: the reply cache is for a target that calls an agent, not recorded responses"
        )
    if mode == "off" and cache_dir is not None:
        raise ValidationError("--cache-dir goes with --cache, --replay or the file's cache")
    prices = {**env_prices(), **model.prices}  # the file's prices win for the models they name
    tally = MetadataTally(model.gates.by_metadata)
    totals = EvalTotals()
    for (suite, facts), (results, report) in zip(scanned, outputs, strict=True):
        if several:
            err.print(f"suite {suite.path.name}", markup=False)
        if results is not None:
            results.unlink(missing_ok=True)  # the eval's outputs are its own: each run writes them anew
        summary = execute_run(
            SuiteRun(
                suite=suite,
                facts=facts,
                grader=plan.grader,
                spec=plan.spec,
                answers=answers,
                concurrency=concurrency if concurrency is not None else model.concurrency,
                selection=selection,
                output=results,
                junit=report,
                server=server,
                read_results=_metadata_reader(suite, facts.count, tally) if tally.needed else None,
                # Opened per suite: a run closes its cache when it ends.
                cache=cache_use(use_cache=mode == "record", replay=mode == "replay", cache_dir=cache_dir),
                repeats=model.repeats,
                prices=prices,
            )
        )
        totals.add(summary)
    if several:
        err.print(f"all suites: {totals.passed}/{totals.total} passed", markup=False)
    if model.gates.empty:
        check_gate(passed=totals.passed, counted=totals.total, min_pass_rate=None)
        return
    verdicts = totals.judge(model.gates, tally)
    for verdict in verdicts:
        err.print(verdict.line(), markup=False)
    missed = [verdict for verdict in verdicts if not verdict.held]
    if missed:
        err.print(f"{len(missed)} of {len(verdicts)} gates missed", markup=False)
        raise SystemExit(FAILED)
