"""What Assay's pull-request comment says, from typed figures: the run's pass rate and its 95 % interval
beside the base branch's latest run (or "no base run"), the flips and the paired test, the largest failure
groups, and links to the server's views. Pure: the figures come in, Markdown goes out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from assay.services.figures.paired import Flip, Verdict
from assay.services.local_run.compare_files import RunsComparison
from assay.services.suites.case_keys import case_label

__all__ = ["FailureGroup", "PullRequestReport", "RunFigures", "comment_marker", "render_comment"]

MAX_BODY_CHARS = 60_000
"""GitHub refuses a comment past 65,536 characters."""
SHOWN_GROUPS = 5
SHOWN_FLIPS = 5
_CELL_CHARS = 80
_VERDICTS = {
    Verdict.B_WORSE: "significantly worse than the base",
    Verdict.B_BETTER: "significantly better than the base",
    Verdict.NO_SIGNIFICANT_DIFFERENCE: "no significant difference",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RunFigures:
    """One evaluation's pass rate as its summary gives it."""

    evaluation_id: int
    passed: int
    total: int
    pass_rate: float | None
    interval: tuple[float, float] | None
    """Wilson 95 % interval of the pass rate."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureGroup:
    """Failed cases that share a verdict status or an error reason."""

    label: str
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PullRequestReport:
    """Everything the comment shows."""

    title: str
    head: RunFigures
    server_url: str
    base_branch: str | None
    base: RunFigures | None = None
    comparison: RunsComparison | None = None
    """The base run against this one (A the base, B this run), when there is a base run."""
    failures: list[FailureGroup] = field(default_factory=list)
    min_pass_rate: float | None = None


def comment_marker(name: str) -> str:
    """The hidden line that finds the comment again: one comment per ``name`` (one per suite, say)."""
    cleaned = re.sub(r"[^A-Za-z0-9_.:/ -]", "", name).replace("--", "-").strip() or "default"
    return f"<!-- assay-comment: {cleaned[:100]} -->"


def _text(value: str | None, limit: int = _CELL_CHARS) -> str:
    """User text made safe for one Markdown table cell or list line."""
    if value is None:
        return "(none)"
    flat = " ".join(value.split())
    cut = flat if len(flat) <= limit else flat[: limit - 1] + "…"
    return "`" + cut.replace("`", "'").replace("|", "\\|") + "`"


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _interval(figures: RunFigures) -> str:
    return "–" if figures.interval is None else f"{figures.interval[0]:.1%} – {figures.interval[1]:.1%}"


def _row(label: str, figures: RunFigures, server_url: str) -> str:
    link = f"[#{figures.evaluation_id}]({server_url}/evaluations/{figures.evaluation_id})"
    cells = (label, link, _rate(figures.pass_rate), _interval(figures), f"{figures.passed} / {figures.total}")
    return "| " + " | ".join(cells) + " |"


def _change(report: PullRequestReport) -> list[str]:
    base, comparison = report.base, report.comparison
    if base is None:
        branch = f"`{_text(report.base_branch)[1:-1]}`" if report.base_branch else "the base branch"
        return [f"No base run: the server has no finished run of {branch} on this suite to compare with."]
    lines = []
    if base.pass_rate is not None and report.head.pass_rate is not None:
        points = (report.head.pass_rate - base.pass_rate) * 100
        lines.append(f"Change against the base: **{points:+.1f} points**.")
    if comparison is not None:
        figures = comparison.figures
        lines.append(
            f"Flips over {figures.common_cases} cases run by both: "
            f"**{figures.pass_to_fail} pass → fail**, {figures.fail_to_pass} fail → pass; "
            f"{figures.method.described} p = {figures.p_value:.3g}: "
            f"{_VERDICTS[figures.verdict]}."
        )
        regressions = [flip for flip in comparison.flips if flip.flip is Flip.REGRESSION][:SHOWN_FLIPS]
        if regressions:
            lines.append("")
            lines.append("Regressions:")
            lines += [
                f"- {case_label(flip.number, flip.key)}: {_text(flip.input)}; expected "
                f"{_text(flip.expected_output)}, now {_text(flip.b_error or flip.b_response)}"
                for flip in regressions
            ]
    return lines


def _gate(report: PullRequestReport) -> list[str]:
    if report.min_pass_rate is None or report.head.pass_rate is None:
        return []
    held = report.head.pass_rate >= report.min_pass_rate
    said = "held" if held else "**missed**"
    return [f"Gate: pass rate ≥ {report.min_pass_rate:.1%}: {said}.", ""]


def render_comment(report: PullRequestReport, marker: str) -> str:
    """The comment's Markdown, ``marker`` its first line; cut to what GitHub takes."""
    server = report.server_url.rstrip("/")
    lines = [
        marker,
        f"### Assay: {_text(report.title)[1:-1]}",
        "",
        *_gate(report),
        "| run | evaluation | pass rate | 95 % interval | passed |",
        "|---|---|---|---|---|",
        _row("this pull request", report.head, server),
    ]
    if report.base is not None:
        base_label = f"base `{_text(report.base_branch)[1:-1]}`" if report.base_branch else "base"
        lines.append(_row(base_label, report.base, server))
    lines += ["", *_change(report)]
    if report.failures:
        lines += ["", "Largest failure groups:", "", "| failure | cases |", "|---|---|"]
        lines += [f"| {_text(group.label)} | {group.count} |" for group in report.failures[:SHOWN_GROUPS]]
    links = [f"[This run on Assay]({server}/evaluations/{report.head.evaluation_id})"]
    if report.base is not None:
        pair = f"a={report.base.evaluation_id}&b={report.head.evaluation_id}"
        links.append(f"[compared with the base]({server}/compare?{pair})")
    lines += ["", " · ".join(links)]
    body = "\n".join(lines) + "\n"
    return body if len(body) <= MAX_BODY_CHARS else body[: MAX_BODY_CHARS - 2] + "…\n"
