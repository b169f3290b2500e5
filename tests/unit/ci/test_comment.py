"""The pull request's comment: what it says with and without a base run, text from users kept inside its
cells, its marker; and the pull request read from a job's environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.ci.comment import (
    MAX_BODY_CHARS,
    FailureGroup,
    PullRequestReport,
    RunFigures,
    comment_marker,
    render_comment,
)
from assay.ci.pull_request import PullRequest
from assay.errors import SettingsError
from assay.services.figures.paired import Flip, PairedFigures, Verdict
from assay.services.local_run.compare_files import FlippedRun, RunsComparison

HEAD = RunFigures(evaluation_id=9, passed=4, total=12, pass_rate=4 / 12, interval=(0.138, 0.609))
BASE = RunFigures(evaluation_id=3, passed=12, total=12, pass_rate=1.0, interval=(0.757, 1.0))


def _comparison(flips: list[FlippedRun]) -> RunsComparison:
    figures = PairedFigures.of(
        in_a=12, in_b=12, common=12, a_passed=12, b_passed=4, pass_to_fail=8, fail_to_pass=0
    )
    assert figures.verdict is Verdict.B_WORSE
    return RunsComparison(
        a="evaluation 3", b="evaluation 9", figures=figures, flips=flips, flips_total=len(flips)
    )


def test_the_comment_shows_both_runs_the_change_flips_failures_and_links() -> None:
    flip = FlippedRun(
        number=2, key="q|2", flip=Flip.REGRESSION, input="Is `x` | y?\nnew line", expected_output="true",
        a_response="yes", b_response="no", a_error=None, b_error=None,
    )  # fmt: skip
    report = PullRequestReport(
        title="bools",
        head=HEAD,
        server_url="https://assay.example/",
        base_branch="main",
        base=BASE,
        comparison=_comparison([flip]),
        failures=[FailureGroup(label="wrong_answer", count=8)],
        min_pass_rate=0.8,
    )
    body = render_comment(report, comment_marker("bools"))
    lines = body.splitlines()
    assert lines[0] == "<!-- assay-comment: bools -->"
    assert (
        "| this pull request | [#9](https://assay.example/evaluations/9) | 33.3% | 13.8% – 60.9% | 4 / 12 |"
        in lines
    )
    assert (
        "| base `main` | [#3](https://assay.example/evaluations/3) | 100.0% | 75.7% – 100.0% | 12 / 12 |"
        in lines
    )
    assert "Change against the base: **-66.7 points**." in lines
    assert "significantly worse than the base" in body
    assert "Gate: pass rate ≥ 80.0%: **missed**." in lines
    assert "| `wrong_answer` | 8 |" in lines
    # A case's text stays on its line, its backticks and pipes unable to end the code span or the cell.
    assert "- case #2 (key q|2): `Is 'x' \\| y? new line`; expected `true`, now `no`" in lines
    assert "[compared with the base](https://assay.example/compare?a=3&b=9)" in body


def test_without_a_base_run_the_comment_says_so() -> None:
    report = PullRequestReport(title="bools", head=HEAD, server_url="http://s", base_branch="develop")
    body = render_comment(report, comment_marker("x"))
    assert "No base run: the server has no finished run of `develop` on this suite to compare with." in body
    assert "| base" not in body
    assert "compare?" not in body
    assert "Gate" not in body  # no gate given


def test_a_long_comment_is_cut_to_what_github_takes() -> None:
    groups = [FailureGroup(label="x" * 70, count=n) for n in range(5)]
    report = PullRequestReport(
        title="t" * 100_000, head=HEAD, server_url="http://s", base_branch=None, failures=groups
    )
    assert len(render_comment(report, comment_marker("x"))) <= MAX_BODY_CHARS


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("", "<!-- assay-comment: default -->"),
        ("a --> b", "<!-- assay-comment: a - b -->"),
        ("suite 1", "<!-- assay-comment: suite 1 -->"),
    ],
)
def test_a_marker_cannot_end_its_html_comment(name: str, marker: str) -> None:
    assert comment_marker(name) == marker


def test_the_pull_request_comes_from_the_event_file(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps({"pull_request": {"number": 7, "base": {"ref": "main"}, "head": {"ref": "f"}}})
    )
    found = PullRequest.from_environ({"GITHUB_REPOSITORY": "team/agent", "GITHUB_EVENT_PATH": str(event)})
    assert found == PullRequest(repository="team/agent", number=7, base_branch="main", head_branch="f")


@pytest.mark.parametrize(
    ("event", "repository", "said"),
    [
        ({"ref": "refs/heads/main"}, "team/agent", "names no pull request"),
        ({"pull_request": {"number": "7"}}, "team/agent", "names no pull request"),
        ({"pull_request": {"number": 7}}, "agent", "owner/name"),
        (None, "team/agent", "not set"),
        ("[1, 2]", "team/agent", "does not hold a JSON object"),
    ],
)
def test_a_job_without_a_pull_request_is_a_configuration_error(
    tmp_path: Path, event: object, repository: str, said: str
) -> None:
    environ = {"GITHUB_REPOSITORY": repository}
    if event is not None:
        path = tmp_path / "event.json"
        path.write_text(event if isinstance(event, str) else json.dumps(event))
        environ["GITHUB_EVENT_PATH"] = str(path)
    with pytest.raises(SettingsError, match=said):
        PullRequest.from_environ(environ)
