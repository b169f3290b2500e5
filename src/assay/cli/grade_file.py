"""``assay grade-file``: grade every row of a JSONL or CSV file."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.console import Stream, err
from assay.cli.gate import check_gate
from assay.cli.options import PATH, check_rate, check_writable, grader_config, grader_options
from assay.cli.tables import PlainTable
from assay.errors import NotFoundError, ValidationError

if TYPE_CHECKING:  # the rest is imported when the command runs (see assay.cli.graders)
    from assay.graders import GraderInterface
    from assay.services.grading.answers import GradePairs
    from assay.services.local_run.file_grading import GradeTally
    from assay.services.suites.row_reader import BadRow

_PROGRESS_EVERY_ROWS = 8192
_OUTPUT_BUFFER_BYTES = 1 << 20
_PROGRESS_FROM_BYTES = 4 * 1024 * 1024
_BAD_ROWS_SHOWN = 50


def _report_bad_row(tally: GradeTally, file: Path) -> Callable[[BadRow], None]:
    def report(bad: BadRow) -> None:
        if tally.rows == 0 and len(tally.bad_rows) == 1 and bad.message.startswith("missing field(s)"):
            # The first row lacks a column: the file's shape is wrong (a column named `response`), not its
            # rows; one line and exit 2, not a "missing field" per row and a failed gate.
            raise ValidationError(
                f"{file.name} line {bad.line}: {bad.message}: each row needs agent_response and "
                "expected_output"
            )
        if len(tally.bad_rows) <= _BAD_ROWS_SHOWN:
            err.print(f"line {bad.line}: {bad.message}", markup=False)

    return report


def _summary(tally: GradeTally, stream: Stream) -> None:
    row = (str(tally.rows), str(tally.passed), f"{tally.pass_rate:.2%}", str(len(tally.bad_rows)))
    stream.table(PlainTable(("rows", "passed", "pass rate", "bad rows"), [row], title="Summary"))
    statuses = [(status, str(count)) for status, count in tally.by_status.most_common()]
    stream.table(PlainTable(("match_status / error", "count"), statuses))
    hidden = len(tally.bad_rows) - _BAD_ROWS_SHOWN
    if hidden > 0:
        err.print(f"... and {hidden} more bad rows", markup=False)


@click.command("grade-file")
@click.argument("file", help="JSONL or CSV with agent_response and expected_output per row", type=PATH)
@grader_options
@click.option("--output", "-o", type=PATH, help="Write results here (JSONL); default stdout")
@click.option(
    "--min-pass-rate",
    type=float,
    help="Exit 1 when the pass rate (bad rows count as failed) is below this (0-1); default 1",
)
@click.option(
    "--concurrency", "-j", type=click.IntRange(1, 1024), default=8, help="Calls in flight (a model judge)"
)
def grade_file(
    *,
    file: Path,
    grader_id: str,
    config: str | None,
    preset: str | None,
    output: Path | None,
    min_pass_rate: float | None,
    concurrency: int,
) -> None:
    """Grade every row of FILE; one JSON result per row and a summary. Exit 0 when the pass rate reaches
    the gate (default: every row passed), 1 when not (unreadable rows count as failed), 2 on a usage error."""
    from assay.services.grading.answers import blocking_grading, needs_calls
    from assay.services.grading.registry import GraderService

    check_rate(min_pass_rate)
    check_writable(output, "--output")
    graders = GraderService()
    grader = graders.build(grader_id, grader_config(graders, grader_id, config, preset))
    with blocking_grading(grader, concurrency=concurrency) as grade_pairs:
        tally = _grade_rows(file, grader, output, grade_pairs if needs_calls(grader) else None)
    _summary(tally, err)  # always stderr: stdout holds results only (without --output, the rows)
    check_gate(passed=tally.passed, counted=tally.counted, min_pass_rate=min_pass_rate)


@contextmanager
def _progress(file: Path, size: int) -> Iterator[Callable[[int], None] | None]:
    """A progress bar over a large file's bytes on a terminal (Rich's progress is loaded only then): a
    function taking the bytes read so far, or ``None``."""
    if size < _PROGRESS_FROM_BYTES or not err.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeRemainingColumn

    columns = (BarColumn(), TaskProgressColumn(), TimeRemainingColumn())
    with Progress("[progress.description]{task.description}", *columns, console=err.rich) as progress:
        task = progress.add_task(f"grading {file.name}", total=size)
        yield lambda completed: progress.update(task, completed=completed)


def _grade_rows(
    file: Path, grader: GraderInterface, output: Path | None, grade_pairs: GradePairs | None
) -> GradeTally:
    """Grade FILE's rows into ``output`` (stdout by default); what was seen."""
    from assay.services.local_run.file_grading import GradeTally, grade_stream
    from assay.services.suites.row_reader import RowFormat

    try:
        source = file.open("rb")
    except OSError as exc:
        raise NotFoundError(f"cannot read {file}: {exc.strerror}") from exc
    tally = GradeTally()
    sink = output.open("wb", buffering=_OUTPUT_BUFFER_BYTES) if output is not None else sys.stdout.buffer
    try:
        with source, _progress(file, file.stat().st_size) as show_progress:
            lines = grade_stream(
                grader,
                source,
                RowFormat.for_path(file),
                tally,
                _report_bad_row(tally, file),
                grade_pairs=grade_pairs,
            )
            write = sink.write  # the buffered writer batches; holding lines in a list here was 75% slower
            for count, line in enumerate(lines, 1):
                write(line)
                if show_progress is not None and not count % _PROGRESS_EVERY_ROWS:
                    show_progress(source.tell())
            sink.flush()
    finally:
        if output is not None:
            sink.close()
    return tally
