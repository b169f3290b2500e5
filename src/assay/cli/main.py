"""The ``assay`` command: one click group, errors turned into one line and an exit code here only."""

from __future__ import annotations

import importlib
import sys

import click

from assay.cli.console import err
from assay.errors import AssayError

COMMANDS = {
    "graders": "assay.cli.graders:list_graders",
    "grade": "assay.cli.graders:grade",
    "grade-file": "assay.cli.grade_file:grade_file",
    "run": "assay.cli.run:run",
    "serve": "assay.cli.serve:serve",
    "worker": "assay.cli.worker:worker",
    "history": "assay.cli.views:show_history",
    "breakdown": "assay.cli.views:show_breakdown",
    "failures": "assay.cli.views:show_failures",
    "import": "assay.cli.imports:import_suite",
    "compare": "assay.cli.compare:compare",
    "push": "assay.cli.push:push",
    "eval": "assay.cli.eval:eval_command",
    "init": "assay.cli.init:init",
    "schema": "assay.cli.schema:schema",
    "cache": "assay.cli.cache:cache",
    "github": "assay.cli.github:github",
}
"""Each command by name, as ``module:attribute``: a command's module is imported when that command runs
(or help lists it), so ``assay run`` does not load the server's or the views' imports (click's lazy group
pattern)."""


class _Commands(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        # As declared (click sorts them by name), then any added with add_command().
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = COMMANDS[cmd_name].partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.NoSuchCommand as exc:  # click suggests from the loaded commands only: offer them all
            raise click.NoSuchCommand(
                exc.command_name, possibilities=self.list_commands(ctx), ctx=ctx
            ) from None


app = _Commands(
    "assay",
    help="Assay: evaluate AI agents against test suites with exact graders.",
    no_args_is_help=True,
    context_settings={"show_default": True},  # defaults other than none and a false flag
)
app = click.version_option(package_name="assay", message="assay %(version)s")(app)


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
        app.main()
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
