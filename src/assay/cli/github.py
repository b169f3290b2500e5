"""``assay github comment``: the one pull-request comment of a run pushed to a server (docs/ci.md).

The figures come from the server's REST API (:mod:`assay.cli.server_client`): the run's summary, the base
branch's latest finished run of the same suite (the branch its name records, see
:func:`~assay.services.local_run.push_plan.branch_of`), the server's comparison of the two and the run's
failure groups. :mod:`assay.ci` renders and posts them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from assay.cli.console import out
from assay.cli.options import check_rate

if TYPE_CHECKING:
    from assay.ci.comment import FailureGroup, RunFigures

MAX_PAGES = 20
"""Pages of 100 of a suite's finished evaluations searched for the base run, newest first."""
SHOWN_FLIPS = 20


def _figures(evaluation: dict[str, Any]) -> RunFigures:
    from assay.ci.comment import RunFigures

    summary = evaluation.get("summary") or {}
    interval = summary.get("pass_rate_ci95")
    return RunFigures(
        evaluation_id=evaluation["id"],
        passed=summary.get("passed", 0),
        total=summary.get("total_cases", 0),
        pass_rate=summary.get("pass_rate"),
        interval=(interval[0], interval[1]) if interval else None,
    )


def _base_run(server: str, suite_id: int, branch: str, head_id: int) -> dict[str, Any] | None:
    """The latest finished evaluation of ``suite_id`` pushed from ``branch`` (other than ``head_id``)."""
    from assay.cli.server_client import call
    from assay.services.local_run.push_plan import branch_of

    for page in range(MAX_PAGES):
        listed = call(
            server, "GET", f"/evaluations?suite_id={suite_id}&status=completed&limit=100&skip={100 * page}"
        )
        for evaluation in listed["evaluations"]:
            if evaluation["id"] != head_id and branch_of(evaluation["name"]) == branch:
                found: dict[str, Any] = evaluation
                return found
        if len(listed["evaluations"]) < 100:
            return None
    return None


def _failures(server: str, evaluation_id: int) -> list[FailureGroup]:
    """The run's failure groups, by verdict status or error reason and by assertion, largest first."""
    from assay.ci.comment import FailureGroup
    from assay.cli.server_client import call

    found = call(server, "GET", f"/evaluations/{evaluation_id}/failures")
    groups = [
        FailureGroup(
            label=f"error {group['error']}" if group["error"] else str(group["match_status"]),
            count=group["count"],
        )
        for group in found["groups"]
    ]
    groups += [
        FailureGroup(label=f"assertion {group['name']}: {group['match_status']}", count=group["count"])
        for group in found.get("by_assertion") or ()
    ]
    return sorted(groups, key=lambda group: -group.count)


def _write_outputs(environ: dict[str, str], body: str, url: str) -> None:
    """The step's output (``comment-url``) and its job summary, when the job gives their files."""
    if output := environ.get("GITHUB_OUTPUT"):
        with Path(output).open("a", encoding="utf-8") as stream:
            stream.write(f"comment-url={url}\n")
    if summary := environ.get("GITHUB_STEP_SUMMARY"):
        with Path(summary).open("a", encoding="utf-8") as stream:
            stream.write(body)


@click.group("github")
def github() -> None:
    """GitHub Actions: the pull request's comment of a run (docs/ci.md)."""


@github.command("comment")
@click.option("--server", required=True, help="The server the run was pushed to (key from ASSAY_API_KEY)")
@click.option("--evaluation", "evaluation_id", type=click.IntRange(1), required=True, help="The pushed run")
@click.option("--base-branch", help="Compare with its latest run (default: the pull request's base branch)")
@click.option("--title", help="The comment's heading; one comment per title (default: the suite's name)")
@click.option("--public-url", help="The server's address in the comment's links (default: --server)")
@click.option("--min-pass-rate", type=float, help="The gate, shown as held or missed")
def comment(
    *,
    server: str,
    evaluation_id: int,
    base_branch: str | None,
    title: str | None,
    public_url: str | None,
    min_pass_rate: float | None,
) -> None:
    """Create or update the pull request's one comment on a run pushed to a server: its pass rate and
    interval against the base branch's latest run, flips, failure groups, links. GITHUB_TOKEN,
    GITHUB_REPOSITORY, GITHUB_EVENT_PATH (and GITHUB_API_URL) come from the job; prints the comment's URL."""
    from assay.ci.comment import PullRequestReport, comment_marker, render_comment
    from assay.ci.github import CommentTarget, upsert_comment
    from assay.ci.pull_request import PullRequest
    from assay.cli.compare import server_comparison
    from assay.cli.server_client import call

    check_rate(min_pass_rate)
    environ = dict(os.environ)
    pull_request = PullRequest.from_environ(environ)
    target = CommentTarget.from_environ(environ, pull_request)  # checked before the server is asked
    head = call(server, "GET", f"/evaluations/{evaluation_id}")
    suite = call(server, "GET", f"/suites/{head['suite_id']}")
    branch = base_branch or pull_request.base_branch
    base = _base_run(server, head["suite_id"], branch, evaluation_id) if branch else None
    comparison = server_comparison(server, str(base["id"]), str(evaluation_id), SHOWN_FLIPS) if base else None
    heading = title or suite["name"]
    report = PullRequestReport(
        title=heading,
        head=_figures(head),
        server_url=(public_url or server).rstrip("/"),
        base_branch=branch,
        base=_figures(base) if base else None,
        comparison=comparison,
        failures=_failures(server, evaluation_id),
        min_pass_rate=min_pass_rate,
    )
    body = render_comment(report, comment_marker(title or "default"))
    posted = upsert_comment(target, comment_marker(title or "default"), body)
    _write_outputs(environ, body, posted.url)
    out.print(posted.url or str(posted.id), markup=False)
