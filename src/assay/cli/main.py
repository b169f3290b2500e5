"""The ``assay`` command: one Typer app, errors turned into one line and an exit code here only."""

from __future__ import annotations

import sys

import typer

from assay.cli.console import err
from assay.cli.grade_file import grade_file
from assay.cli.graders import grade, list_graders
from assay.cli.run import run
from assay.cli.serve import serve
from assay.cli.views import show_breakdown, show_failures, show_history
from assay.cli.worker import worker
from assay.errors import AssayError

app = typer.Typer(
    name="assay",
    help="Assay: evaluate AI agents against test suites with exact graders.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.command("graders")(list_graders)
app.command("grade")(grade)
app.command("grade-file")(grade_file)
app.command("run")(run)
app.command("serve")(serve)
app.command("worker")(worker)
app.command("history")(show_history)
app.command("breakdown")(show_breakdown)
app.command("failures")(show_failures)


def main() -> None:
    """Entry point of the ``assay`` script."""
    try:
        app()
    except AssayError as exc:
        # The message names the first problems; add any it does not hold, on the same line.
        extra = [problem for problem in exc.problems if problem not in exc.message]
        err.print(f"error: {': '.join([exc.message, *extra])}", markup=False)
        sys.exit(exc.exit_code)
