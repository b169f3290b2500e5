"""``assay graders`` and ``assay grade``: list the graders, grade one answer.

What a command needs is imported when it runs (as in every command module): ``assay`` loads all of them to
know its options, and each should start as fast as it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from assay.cli.console import out
from assay.cli.gate import check_gate
from assay.cli.options import grader_config, grader_options, json_option

if TYPE_CHECKING:
    from assay.graders import GraderInterface


@click.command("graders")
@json_option
@click.option("--markdown", "as_markdown", is_flag=True, help="Print a Markdown table (docs/graders.md)")
def list_graders(*, as_json: bool, as_markdown: bool) -> None:
    """List the registered graders."""
    from assay.graders import why_unavailable
    from assay.serialization import json_text
    from assay.services.grading.registry import GraderService

    graders = GraderService().list()
    if as_json:
        out.print(json_text([grader.metadata() for grader in graders], indent=2), markup=False)
        return
    if as_markdown:
        out.print(markdown_catalogue(graders), markup=False)
        return
    from rich.table import Table
    from rich.text import Text

    table = Table("id", "name", "version", "description", "presets", title="Graders")
    for grader in graders:
        presets = ", ".join(grader.presets)
        description = Text(grader.description)
        reason = why_unavailable(grader)
        if reason is not None:  # listed all the same, so that its install command is seen
            description.append(f"\nUnavailable: {reason}", style="bold red")
        table.add_row(grader.grader_id, grader.name, grader.version, description, presets)
    out.print(table)


def markdown_catalogue(graders: Sequence[GraderInterface]) -> str:
    """A Markdown table of the graders: id, what passes, config options, presets."""
    lines = ["| id | passes when | options | presets |", "|---|---|---|---|"]
    for grader in graders:
        options = ", ".join(f"`{name}`" for name in grader.config_schema.get("properties", {}))
        presets = ", ".join(f"`{name}`" for name in grader.presets)
        cells = (f"`{grader.grader_id}`", grader.description, options or "—", presets or "—")
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


@click.command("grade")
@grader_options
@click.option("--expected", "-e", required=True, help="The expected output")
@click.option("--response", "-r", required=True, help="The agent's response")
def grade(*, grader_id: str, expected: str, response: str, config: str | None, preset: str | None) -> None:
    """Grade one response; prints the result as JSON, exits 0 when it passed and 1 when it did not. A model
    judge (llm-judge) is asked over HTTP, its key read from the variable its config names."""
    from assay.serialization import json_text
    from assay.services.grading.answers import blocking_grading
    from assay.services.grading.registry import GraderService

    graders = GraderService()
    grader = graders.build(grader_id, grader_config(graders, grader_id, config, preset))
    with blocking_grading(grader) as grade_pairs:
        (result,) = grade_pairs([(response, expected)])
    out.print(json_text(result, indent=2), markup=False)
    check_gate(passed=int(result["passed"]), counted=1, min_pass_rate=None)
