"""``assay history``, ``assay breakdown`` and ``assay failures``: the UI's views of stored evaluations, as
tables in a terminal (``--json`` for machines), read from the database ``assay serve`` writes.

Side by side stays in the UI: five answers a case do not fit a terminal's width.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from assay.cli.console import err, out, percent
from assay.cli.options import json_option
from assay.errors import ValidationError
from assay.services.figures.statistics import PassRate, Shift

if TYPE_CHECKING:  # the database and the tables are imported when a command runs (see assay.cli.graders)
    from rich.text import Text

    from assay.services.evaluations.records import Evaluation, Result
    from assay.services.views.breakdown import FailureGroup

__all__ = ["show_breakdown", "show_failures", "show_history"]

BAR_WIDTH = 20
CELL_CHARS = 60
"""Longest text shown in a cell of a case listing (input, answer...); the rest is cut with an ellipsis."""

evaluation_argument = click.argument(
    "evaluation_id", help="Evaluation id (as the UI and the API show)", type=click.IntRange(min=1)
)


def _json_default(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


def _print_json(value: Any) -> None:
    out.print(json.dumps(value, ensure_ascii=False, indent=2, default=_json_default), markup=False)


def rate_bar(rate: PassRate, width: int = BAR_WIDTH) -> str:
    """The pass rate's 95 % interval drawn on ``width`` cells: solid up to its low end, shaded across it."""
    if rate.low is None or rate.high is None:
        return " " * width
    cells = []
    for index in range(width):
        middle = (index + 0.5) / width
        cells.append("█" if middle < rate.low else "▒" if middle < rate.high else "·")
    return "".join(cells)


def _interval(rate: PassRate) -> str:
    return "-" if rate.low is None or rate.high is None else f"{rate.low:.1%} – {rate.high:.1%}"


def _cut(text: str | None, missing: str = "") -> Text:
    from rich.text import Text

    if text is None:
        return Text(missing, style="dim")
    line = " ".join(text.split())
    return Text(line if len(line) <= CELL_CHARS else line[: CELL_CHARS - 1] + "…")


def _running_note(evaluation: Evaluation) -> None:
    if not evaluation.status.is_terminal:
        err.print(
            f"evaluation {evaluation.id} is {evaluation.status.value}: {evaluation.done} of "
            f"{evaluation.total} cases so far",
            markup=False,
        )


@click.command("history")
@click.argument("suite", help="Suite id or name")
@click.option("--grader", "-g", "grader_id", help="Only this grader's evaluations")
@click.option("--limit", "-n", type=click.IntRange(1, 1000), default=20, help="The newest N")
@json_option
def show_history(*, suite: str, grader_id: str | None, limit: int, as_json: bool) -> None:
    """Pass rate of each completed evaluation of SUITE over time, with its 95% interval (Wilson); a run is
    a regression when the run before it passed more than this run's interval allows."""
    from rich.table import Table
    from rich.text import Text

    from assay.cli.database import database_session
    from assay.services.suites.service import SuiteService
    from assay.services.views.history import suite_history

    with database_session() as session:
        found = SuiteService(session).find(suite)
        history = suite_history(session, found.id, skip=0, limit=limit, grader_id=grader_id)
    if as_json:
        _print_json({"suite_id": found.id, "suite": found.name, **asdict(history)})
        return
    if not history.points:
        err.print(f"suite {found.id} '{found.name}' has no completed evaluation yet", markup=False)
        return
    shown = len(history.points)
    table = Table(
        "#",
        "name",
        "grader",
        "finished",
        "95% interval",
        "pass rate",
        "CI",
        "cases",
        "vs the run before",
        title=Text(f"History of suite {found.id} '{found.name}', oldest first"),
        caption=(
            f"{shown} of {history.total} completed evaluations · bar: █ below the 95% interval (Wilson), "
            "▒ the interval"
        ),
    )
    for point in history.points:
        shift = ""
        if point.shift in (Shift.REGRESSION, Shift.IMPROVEMENT) and point.previous_id is not None:
            shift = f"{point.shift.value} vs #{point.previous_id}"
        finished = point.finished_at or point.created_at
        table.add_row(
            str(point.evaluation_id),
            Text(point.name),
            point.grader_id,
            finished.strftime("%Y-%m-%d %H:%M"),
            rate_bar(point.pass_rate),
            percent(point.pass_rate.rate, 1),
            _interval(point.pass_rate),
            str(point.pass_rate.total),
            shift,
            style="red" if point.shift is Shift.REGRESSION else "green" if shift else None,
        )
    out.print(table)


@click.command("breakdown")
@evaluation_argument
@click.option("--key", "-k", help="Metadata key of the cases (default: the first with 2 to 49 values)")
@json_option
def show_breakdown(*, evaluation_id: int, key: str | None, as_json: bool) -> None:
    """Pass rate of an evaluation per value of a case metadata key, worst first, with 95% intervals."""
    from rich.table import Column, Table
    from rich.text import Text

    from assay.cli.database import database_session
    from assay.services.evaluations.service import stored_evaluation
    from assay.services.views.breakdown import breakdown, default_key, metadata_keys

    with database_session() as session:
        evaluation = stored_evaluation(session, evaluation_id)
        if key is None:
            keys = metadata_keys(session, evaluation_id)
            if not keys:
                raise ValidationError(
                    f"the cases of evaluation {evaluation_id} have no metadata keys to break it down by"
                )
            listed = ", ".join(f"{item.key} ({item.cases})" for item in keys[:10])
            key = default_key(session, evaluation_id, keys)
            if key is None:
                raise ValidationError(
                    f"no metadata key of evaluation {evaluation_id} splits its cases into a few groups "
                    f"(its keys: {listed}); choose one with --key"
                )
            err.print(f"by '{key}', of the keys: {listed}; choose one with --key", markup=False)
        result = breakdown(session, evaluation_id, key)
        if result.groups and all(group.missing for group in result.groups):
            known = ", ".join(item.key for item in metadata_keys(session, evaluation_id)[:10]) or "none"
            raise ValidationError(
                f"no case of evaluation {evaluation_id} has the metadata key '{key}' (its keys: {known})"
            )
    if as_json:
        _print_json(asdict(result))
        return
    _running_note(evaluation)
    table = Table(
        Column(header=Text(key)),
        "95% interval",
        "pass rate",
        "CI",
        "passed",
        "cases",
        title=Text(f"Evaluation {evaluation.id} '{evaluation.name}' by '{key}', worst first"),
        caption=(
            f"{result.distinct_values} value{'' if result.distinct_values == 1 else 's'} · "
            f"overall {percent(result.overall.rate, 1)} "
            f"({result.overall.passed} of {result.overall.total})"
        ),
    )
    rows = [
        (Text(group.label, style="dim" if group.missing else ""), group.pass_rate) for group in result.groups
    ]
    if result.other is not None:
        rows.append((Text("(other values)", style="dim"), result.other))
    for label, rate in rows:
        table.add_row(
            label,
            rate_bar(rate),
            percent(rate.rate, 1),
            _interval(rate),
            str(rate.passed),
            str(rate.total),
        )
    out.print(table)


def _group_name(group: FailureGroup) -> str:
    """How a group is named on the command line: its error reason, else its ``match_status``."""
    if group.error is not None:
        return group.error
    return group.match_status.value if group.match_status is not None else "failed"


def _reason(result: Result) -> str | None:
    return result.reason if result.reason is not None else result.error_detail


@click.command("failures")
@evaluation_argument
@click.option("--group", help="List this group's cases: a match_status or an error reason")
@click.option("--limit", "-n", type=click.IntRange(1, 10_000), default=50, help="Cases listed at most")
@json_option
def show_failures(*, evaluation_id: int, group: str | None, limit: int, as_json: bool) -> None:
    """Failed cases of an evaluation grouped by match_status and error reason, largest first; with
    --group, that group's cases."""
    from rich.table import Table
    from rich.text import Text

    from assay.cli.database import database_session
    from assay.services.evaluations.service import ResultQuery, page_of_results, stored_evaluation
    from assay.services.views.breakdown import failure_groups

    with database_session() as session:
        evaluation = stored_evaluation(session, evaluation_id)
        groups = failure_groups(session, evaluation_id)
        if group is None:
            cases = None
        else:
            chosen = next((item for item in groups.groups if _group_name(item) == group), None)
            if chosen is None:
                names = ", ".join(_group_name(item) for item in groups.groups) or "none: nothing failed"
                raise ValidationError(
                    f"evaluation {evaluation_id} has no failure group '{group}' (groups: {names})"
                )
            query = ResultQuery(outcome=chosen.outcome, match_status=chosen.match_status, error=chosen.error)
            cases = page_of_results(session, evaluation_id, query, skip=0, limit=limit)
    if as_json:
        if cases is None:
            _print_json(asdict(groups))
        else:
            _print_json({"group": group, "total": cases.total, "results": [r.as_dict() for r in cases.items]})
        return
    _running_note(evaluation)
    if cases is None:
        if not groups.groups:
            err.print(f"evaluation {evaluation.id} '{evaluation.name}': no case failed", markup=False)
            return
        table = Table(
            "group",
            "count",
            "share",
            title=Text(f"Evaluation {evaluation.id} '{evaluation.name}': {groups.failed} failed, by reason"),
        )
        for item in groups.groups:
            kind = "error" if item.error is not None else "match_status"
            table.add_row(
                Text(f"{_group_name(item)} ({kind})"), str(item.count), percent(item.count / groups.failed, 1)
            )
        out.print(table)
        err.print(f"a group's cases: assay failures {evaluation.id} --group NAME", markup=False)
        return
    table = Table(
        "#",
        "key",
        "case id",
        "input",
        "expected_output",
        "agent_response",
        "reason",
        title=Text(f"Evaluation {evaluation.id} '{evaluation.name}': {group}"),
        caption=f"{len(cases.items)} of {cases.total} · in the UI: /evaluations/{evaluation.id}?case=ID",
    )
    for result in cases.items:
        table.add_row(
            str(result.number),
            Text(result.key or ""),
            str(result.case_id),
            _cut(result.input),
            _cut(result.expected_output),
            _cut(result.agent_response, "(no answer)"),
            _cut(_reason(result)),
        )
    out.print(table)
