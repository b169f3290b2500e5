"""``assay grade-file``: grade every row of a JSONL or CSV file."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.console import err, out
from assay.cli.gate import check_gate
from assay.cli.graders import ConfigOption, GraderOption, PresetOption
from assay.cli.options import check_rate, grader_config
from assay.errors import NotFoundError

if TYPE_CHECKING:  # the rest is imported when the command runs (see assay.cli.graders)
    from rich.console import Console

    from assay.graders import GraderInterface
    from assay.services.file_grading import GradeTally
    from assay.services.grading import GradePairs
    from assay.services.row_reader import BadRow

_PROGRESS_EVERY_ROWS = 8192
_OUTPUT_BUFFER_BYTES = 1 << 20
_PROGRESS_FROM_BYTES = 4 * 1024 * 1024
_BAD_ROWS_SHOWN = 50


def _report_bad_row(tally: GradeTally) -> Callable[[BadRow], None]:
    def report(bad: BadRow) -> None:
        if len(tally.bad_rows) <= _BAD_ROWS_SHOWN:
            err.print(f"line {bad.line}: {bad.message}", markup=False)

    return report


def _summary(tally: GradeTally, console: Console) -> None:
    from rich.table import Table

    table = Table("rows", "passed", "pass rate", "bad rows", title="Summary")
    table.add_row(str(tally.rows), str(tally.passed), f"{tally.pass_rate:.2%}", str(len(tally.bad_rows)))
    console.print(table)
    statuses = Table("match_status / error", "count")
    for status, count in tally.by_status.most_common():
        statuses.add_row(status, str(count))
    console.print(statuses)
    hidden = len(tally.bad_rows) - _BAD_ROWS_SHOWN
    if hidden > 0:
        err.print(f"... and {hidden} more bad rows")


def grade_file(
    file: Annotated[
        Path, typer.Argument(help="JSONL or CSV with agent_response and expected_output per row")
    ],
    grader_id: GraderOption,
    config: ConfigOption = None,
    preset: PresetOption = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write results here (JSONL); default stdout")
    ] = None,
    min_pass_rate: Annotated[
        float | None,
        typer.Option(
            "--min-pass-rate",
            help="Exit 1 when the pass rate (bad rows count as failed) is below this (0-1); default 1",
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-j", min=1, max=1024, help="Calls in flight (a model judge)")
    ] = 8,
) -> None:
    """Grade every row of FILE; one JSON result per row and a summary. Exit 0 when the pass rate reaches
    the gate (default: every row passed), 1 when not (unreadable rows count as failed), 2 on a usage error."""
    from assay.services.grader_service import GraderService
    from assay.services.grading import blocking_grading, needs_calls

    check_rate(min_pass_rate)
    graders = GraderService()
    grader = graders.build(grader_id, grader_config(graders, grader_id, config, preset))
    with blocking_grading(grader, concurrency=concurrency) as grade_pairs:
        tally = _grade_rows(file, grader, output, grade_pairs if needs_calls(grader) else None)
    _summary(tally, out if output is not None else err)
    check_gate(passed=tally.passed, counted=tally.counted, min_pass_rate=min_pass_rate)


def _grade_rows(
    file: Path, grader: GraderInterface, output: Path | None, grade_pairs: GradePairs | None
) -> GradeTally:
    """Grade FILE's rows into ``output`` (stdout by default); what was seen."""
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeRemainingColumn

    from assay.services.file_grading import GradeTally, grade_stream
    from assay.services.row_reader import RowFormat

    try:
        source = file.open("rb")
    except OSError as exc:
        raise NotFoundError(f"cannot read {file}: {exc.strerror}") from exc
    tally = GradeTally()
    sink = output.open("wb", buffering=_OUTPUT_BUFFER_BYTES) if output is not None else sys.stdout.buffer
    size = file.stat().st_size
    show_progress = err.is_terminal and size >= _PROGRESS_FROM_BYTES
    try:
        with (
            source,
            Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                TaskProgressColumn(),
                TimeRemainingColumn(),
                console=err,
                disable=not show_progress,
            ) as progress,
        ):
            task = progress.add_task(f"grading {file.name}", total=size)
            lines = grade_stream(
                grader,
                source,
                RowFormat.for_path(file),
                tally,
                _report_bad_row(tally),
                grade_pairs=grade_pairs,
            )
            write = sink.write  # the buffered writer batches; holding lines in a list here was 75% slower
            for count, line in enumerate(lines, 1):
                write(line)
                if show_progress and not count % _PROGRESS_EVERY_ROWS:
                    progress.update(task, completed=source.tell())
            sink.flush()
    finally:
        if output is not None:
            sink.close()
    return tally
