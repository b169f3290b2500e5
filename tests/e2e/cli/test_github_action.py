"""The GitHub Action's script (scripts/github-action.sh, what action.yml runs) end to end: a real `assay
serve`, a fake GitHub API on loopback. A run on main is the base; a pull request's run creates the one
comment, a second run updates it (not a second comment), and the comment shows the figures; the runs are in
the suite's history and `assay compare` gates on them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.agent_server import AgentServer
from tests.support.assay_process import AssayProcess
from tests.support.cli import invoke
from tests.support.github_api import Comment, GitHubApi

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "github-action.sh"
KEY = "action-test-key"
TOKEN = "ghs_secret-token-never-logged"
CASES = 12
SCRIPT_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AssayProcess]:
    with AssayProcess(tmp_path_factory.mktemp("server"), env={"ASSAY_API_KEY": KEY}) as process:
        yield process


@pytest.fixture
def github() -> Iterator[AgentServer]:
    api = GitHubApi(token=TOKEN)
    # Other comments first, past one page of 100: the action's own is found by its marker, not its place.
    api.comments += [Comment(id=n, issue=7, body=f"a reviewer's comment {n}") for n in range(1, 106)]
    with AgentServer(app=api) as fake:
        yield fake


def _action(
    tmp_path: Path,
    server: AssayProcess,
    github: AgentServer,
    *,
    answers: list[str],
    event: str,
    ref: str,
    cases: int = CASES,
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Run the action's script as a job of ``event`` on branch ``ref`` would; its result and outputs."""
    suite = tmp_path / "bools.jsonl"
    suite.write_text(
        "".join(json.dumps({"input": f"q{n}", "expected_output": "true"}) + "\n" for n in range(1, cases + 1))
    )
    responses = tmp_path / f"answers-{len(list(tmp_path.iterdir()))}.jsonl"
    responses.write_text("".join(json.dumps({"agent_response": answer}) + "\n" for answer in answers))
    event_file = tmp_path / "event.json"
    event_file.write_text(
        json.dumps({"pull_request": {"number": 7, "base": {"ref": "main"}, "head": {"ref": ref}}})
    )
    outputs = tmp_path / f"outputs-{len(list(tmp_path.iterdir()))}"
    outputs.touch()
    env = {
        **os.environ,
        "ASSAY": f"{sys.executable} -m assay.cli",
        "ASSAY_ACTION_SUITE": str(suite),
        "ASSAY_ACTION_GRADER": "true-false",
        "ASSAY_ACTION_RESPONSES": str(responses),
        "ASSAY_ACTION_MIN_PASS_RATE": "0.8",
        "ASSAY_ACTION_SERVER": server.url,
        "ASSAY_API_KEY": KEY,
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": github.url,
        "GITHUB_REPOSITORY": "team/agent",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(event_file),
        "GITHUB_SHA": "0123456789abcdef",
        "GITHUB_REF_NAME": ref if event == "push" else "7/merge",
        "GITHUB_HEAD_REF": ref if event == "pull_request" else "",
    }
    done = subprocess.run(
        ["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_S, check=False
    )
    assert TOKEN not in done.stdout + done.stderr
    pairs = (line.split("=", 1) for line in outputs.read_text().splitlines())
    return done, dict(pairs)


def test_the_action_comments_once_and_updates_it(
    server: AssayProcess, github: AgentServer, tmp_path: Path
) -> None:
    api: GitHubApi = github.app
    base, base_outputs = _action(tmp_path, server, github, answers=["yes"] * CASES, event="push", ref="main")
    assert base.returncode == 0, base.stderr
    assert api.requests == []  # a push to main stores the base run and comments on nothing

    worse, worse_outputs = _action(
        tmp_path, server, github, answers=["no"] * 8 + ["yes"] * 4, event="pull_request", ref="feature"
    )
    assert worse.returncode == 1, worse.stderr  # the gate (0.8) missed: the job fails, after commenting
    ours = [comment for comment in api.comments if "<!-- assay-comment" in comment.body]
    assert len(ours) == 1
    assert api.posts("POST") == 1
    body = ours[0].body
    head_id, base_id = int(worse_outputs["evaluation-id"]), int(base_outputs["evaluation-id"])
    assert "| this pull request | " in body
    assert "| 33.3% | " in body
    assert "| 4 / 12 |" in body
    assert "| base `main` | " in body
    assert "| 100.0% | " in body
    assert "**-66.7 points**" in body
    assert "**8 pass → fail**, 0 fail → pass" in body
    assert "significantly worse than the base" in body
    assert "| `wrong_answer` | 8 |" in body or "| `mismatch` | 8 |" in body, body
    assert f"{server.url}/evaluations/{head_id}" in body
    assert f"{server.url}/compare?a={base_id}&b={head_id}" in body
    assert "Gate: pass rate ≥ 80.0%: **missed**" in body
    assert worse_outputs["comment-url"].endswith(f"#issuecomment-{ours[0].id}")
    assert all(request.authorization == f"Bearer {TOKEN}" for request in api.requests)
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == body  # the job's summary shows it too

    better, _ = _action(
        tmp_path, server, github, answers=["no"] * 2 + ["yes"] * 10, event="pull_request", ref="feature"
    )
    assert better.returncode == 0, better.stderr
    ours = [comment for comment in api.comments if "<!-- assay-comment" in comment.body]
    assert len(ours) == 1
    assert (api.posts("POST"), api.posts("PATCH")) == (1, 1)
    assert "| 83.3% | " in ours[0].body
    assert "Gate: pass rate ≥ 80.0%: held" in ours[0].body
    assert len(api.comments) == 106

    headers = {"authorization": f"Bearer {KEY}"}
    suite_id = server.client.get(f"/api/evaluations/{head_id}", headers=headers).json()["data"]["suite_id"]
    history = server.client.get(f"/api/suites/{suite_id}/history", headers=headers).json()["data"]
    assert {base_id, head_id} <= {point["evaluation_id"] for point in history["points"]}
    compared = invoke(
        "compare", str(base_id), str(head_id), "--server", server.url, env={"ASSAY_API_KEY": KEY}
    )
    assert compared.code == 1, compared.stderr  # the gate on the pull request's run against main's


def test_without_a_base_run_or_with_a_refused_token(
    server: AssayProcess, github: AgentServer, tmp_path: Path
) -> None:
    api: GitHubApi = github.app
    # Another suite (one case more), never run on main: the comment says there is no base run.
    done, _ = _action(
        tmp_path, server, github, answers=["yes"] * 13, event="pull_request", ref="lonely", cases=13
    )
    assert done.returncode == 0, done.stderr
    (ours,) = [comment for comment in api.comments if "<!-- assay-comment" in comment.body]
    assert "No base run: the server has no finished run of `main` on this suite" in ours.body
    assert "| base" not in ours.body
    assert "| 100.0% | " in ours.body

    api.token = "another"  # the job's token is refused: exit 2, one line, the token not in it
    refused, _ = _action(
        tmp_path, server, github, answers=["yes"] * CASES, event="pull_request", ref="lonely"
    )
    assert refused.returncode == 2
    assert "GitHub refused GET" in refused.stderr
    assert "HTTP 401" in refused.stderr
    assert "Traceback" not in refused.stderr


EVAL_FILE = """\
suites: [mixed.jsonl]
target: {type: responses, path: answers.jsonl}
rules:
  - when: {kind: number}
    assert: [{grader_id: numeric, name: number}]
  - when: {kind: bool}
    assert: [{grader_id: true-false, name: bool}]
gates:
  min_pass_rate: 0.75
  by_assertion:
    - {assertion: number, min_pass_rate: 1.0}
"""


def _config_action(
    tmp_path: Path, server: AssayProcess, github: AgentServer, *, answers: list[str], ref: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """The action's script with its ``config`` input: an assay.yaml picking graders by metadata, run by
    ``assay eval``, on a pull request's job."""
    folder = tmp_path / f"eval-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "assay.yaml").write_text(EVAL_FILE)
    cases = [("2+2", "4", "number"), ("10/4", "2.5", "number"), ("sky blue?", "true", "bool")]
    cases += [(f"q{n}", "false", "bool") for n in range(5)]
    (folder / "mixed.jsonl").write_text(
        "".join(
            json.dumps(
                {"key": f"c{n}", "input": text, "expected_output": expected, "metadata": {"kind": kind}}
            )
            + "\n"
            for n, (text, expected, kind) in enumerate(cases)
        )
    )
    (folder / "answers.jsonl").write_text(
        "".join(
            json.dumps({"key": f"c{n}", "agent_response": answer}) + "\n" for n, answer in enumerate(answers)
        )
    )
    event_file = folder / "event.json"
    event_file.write_text(
        json.dumps({"pull_request": {"number": 7, "base": {"ref": "main"}, "head": {"ref": ref}}})
    )
    outputs = folder / "outputs"
    outputs.touch()
    env = {
        **os.environ,
        "ASSAY": f"{sys.executable} -m assay.cli",
        "ASSAY_ACTION_CONFIG": str(folder / "assay.yaml"),
        "ASSAY_ACTION_TITLE": "mixed eval",
        "ASSAY_ACTION_SERVER": server.url,
        "ASSAY_API_KEY": KEY,
        "RUNNER_TEMP": str(folder),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": github.url,
        "GITHUB_REPOSITORY": "team/agent",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event_file),
        "GITHUB_SHA": "fedcba9876543210",
        "GITHUB_REF_NAME": "7/merge",
        "GITHUB_HEAD_REF": ref,
    }
    done = subprocess.run(
        ["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_S, check=False
    )
    assert TOKEN not in done.stdout + done.stderr
    pairs = (line.split("=", 1) for line in outputs.read_text().splitlines())
    return done, dict(pairs)


def test_the_config_input_runs_assay_eval_and_stores_and_comments_its_run(
    server: AssayProcess, github: AgentServer, tmp_path: Path
) -> None:
    api: GitHubApi = github.app
    # 7 of 8 pass (87.5% >= 75%), both numbers among them: the file's gates hold.
    held, held_outputs = _config_action(
        tmp_path, server, github, answers=["4", "2.50", "yes", "no", "no", "no", "no", "yes"], ref="yaml"
    )
    assert held.returncode == 0, held.stderr
    assert "gate pass rate: 7/8 passed (87.50%), needs 75.00%: held" in held.stderr
    assert "gate assertion number: 2/2 passed (100.00%), needs 100.00%: held" in held.stderr
    (ours,) = [comment for comment in api.comments if "<!-- assay-comment" in comment.body]
    assert "mixed eval" in ours.body
    assert "| 87.5% | " in ours.body
    assert "| 7 / 8 |" in ours.body

    headers = {"authorization": f"Bearer {KEY}"}
    evaluation_id = int(held_outputs["evaluation-id"])
    stored = server.client.get(f"/api/evaluations/{evaluation_id}", headers=headers).json()["data"]
    assert stored["summary"]["passed"] == 7
    assert stored["summary"]["total_cases"] == 8
    results = server.client.get(f"/api/evaluations/{evaluation_id}/results", headers=headers).json()["data"]
    by_key = {result["key"]: result for result in results["results"]}
    assert by_key["c1"]["passed"] is True  # "2.50": numeric, as the rule says
    assert by_key["c7"]["passed"] is False

    # A wrong number misses the file's gate by assertion: exit 1, after the comment is updated, not doubled.
    missed, _ = _config_action(
        tmp_path, server, github, answers=["5", "2.5", "yes", "no", "no", "no", "no", "no"], ref="yaml"
    )
    assert missed.returncode == 1, missed.stderr
    assert "gate assertion number: 1/2 passed (50.00%), needs 100.00%: MISSED" in missed.stderr
    (ours,) = [comment for comment in api.comments if "<!-- assay-comment" in comment.body]
    assert "| 7 / 8 |" in ours.body  # 7 of 8 again, but the other seven
    assert api.posts("PATCH") == 1


def test_the_config_input_refuses_min_pass_rate(tmp_path: Path) -> None:
    env = {**os.environ, "ASSAY": f"{sys.executable} -m assay.cli", "ASSAY_ACTION_CONFIG": "assay.yaml",
           "ASSAY_ACTION_MIN_PASS_RATE": "0.8", "RUNNER_TEMP": str(tmp_path)}  # fmt: skip
    done = subprocess.run(
        ["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_S, check=False
    )
    assert done.returncode == 2
    assert "the gate is the file's gates" in done.stderr


def test_an_eval_file_of_two_suites_is_stored_and_commented_suite_by_suite(
    server: AssayProcess, github: AgentServer, tmp_path: Path
) -> None:
    api: GitHubApi = github.app
    (tmp_path / "agent.py").write_text(
        "def answer(question):\n    return 'yes' if 'on' in question else 'no'\n"
    )
    for name, questions in (("lights", ["lights on?", "lights off?"]), ("doors", ["door on?", "door shut?"])):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps({"input": q, "expected_output": "true"}) + "\n" for q in questions)
        )
    (tmp_path / "assay.yaml").write_text(
        "suites: [lights.jsonl, doors.jsonl]\n"
        "target: {type: python, callable: 'agent:answer'}\n"
        "grader: {id: true-false}\n"
        "gates: {min_pass_rate: 0.5}\n"
    )
    event_file = tmp_path / "event.json"
    event_file.write_text(
        json.dumps({"pull_request": {"number": 7, "base": {"ref": "main"}, "head": {"ref": "two"}}})
    )
    outputs = tmp_path / "outputs"
    outputs.touch()
    env = {
        **os.environ,
        "ASSAY": f"{sys.executable} -m assay.cli",
        "ASSAY_ACTION_CONFIG": str(tmp_path / "assay.yaml"),
        "ASSAY_ACTION_TITLE": "house",
        "ASSAY_ACTION_SERVER": server.url,
        "ASSAY_API_KEY": KEY,
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": github.url,
        "GITHUB_REPOSITORY": "team/agent",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event_file),
        "GITHUB_SHA": "aaaabbbbcccc",
        "GITHUB_HEAD_REF": "two",
    }
    done = subprocess.run(
        ["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_S, check=False
    )
    assert done.returncode == 0, done.stderr  # 2 of 4 pass: the file's gate of 50 % holds
    found = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    ids = [int(part) for part in found["evaluation-id"].split()]
    assert len(ids) == 2
    headers = {"authorization": f"Bearer {KEY}"}
    passed = [server.client.get(f"/api/evaluations/{i}", headers=headers).json()["data"] for i in ids]
    assert sorted(evaluation["summary"]["passed"] for evaluation in passed) == [1, 1]
    headings = sorted(
        comment.body.splitlines()[1] for comment in api.comments if "<!-- assay-comment" in comment.body
    )
    assert headings == ["### Assay: house (doors)", "### Assay: house (lights)"]  # a comment per suite
