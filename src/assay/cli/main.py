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


PROBLEMS_SHOWN = 20
"""Problems listed under an error, one a line; the rest are counted."""


def report(exc: AssayError) -> None:
    """``error: <message>`` on one line, then each problem the message does not already say, capped."""
    err.print(f"error: {exc.message}", markup=False)
    # A problem the message already states is not repeated: all of it ("line 2: ..."), or, for a lone
    # problem, its words (a message such as "Grader not found: no grader has the id ...").
    lone = len(exc.problems) == 1
    extra = [
        str(problem)
        for problem in exc.problems
        if str(problem) not in exc.message and not (lone and problem.message in exc.message)
    ]
    for problem in extra[:PROBLEMS_SHOWN]:
        err.print(f"  {problem}", markup=False)
    if len(extra) > PROBLEMS_SHOWN:
        err.print(f"  ... and {len(extra) - PROBLEMS_SHOWN} more", markup=False)


UNEXPECTED = 3
"""Exit code of a command stopped by an error Assay did not foresee (a bug): never 1, which a CI job reads as
"the agent failed the gate"."""


def main() -> None:
    """Entry point of the ``assay`` script."""
    try:
        app()
    except AssayError as exc:
        report(exc)
        sys.exit(exc.exit_code)
    except Exception as exc:  # a bug: the trace helps report it, and the exit code is not a verdict
        import traceback  # only here: it loads the source-reading modules

        traceback.print_exc()
        err.print(
            f"error: assay stopped on an unexpected {type(exc).__name__} (a bug; please report it)",
            markup=False,
        )
        sys.exit(UNEXPECTED)
