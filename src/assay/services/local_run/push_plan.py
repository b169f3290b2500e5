"""What ``assay push`` (and ``assay run --server``) sends a server: a finished results file as a suite and an
evaluation of it over the recorded answers.

The suite is matched by content: its name is the run's suite name and a digest of its cases, so the same
cases pushed again land in the same suite (and its history), and changed cases in another. The evaluation
is created through the API's own ``recorded`` target: the server grades the recorded answers with the run's
grader and config, so a pushed run is an evaluation like any other (history, compare, grid, UI). A case
whose agent failed has no answer (the server records ``no_recorded_response``); a judge's verdicts are the
server's own (it asks the judge again, with its key). Where the run
came from (commit, branch, CI run URL from GitHub Actions' variables) goes into the evaluation's name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from assay.errors import NotFoundError, ValidationError
from assay.services.local_run.result_file import read_header, read_records

NAME_CHARS = 200
"""The longest suite or evaluation name the API takes."""


@dataclass(frozen=True, slots=True)
class PushedCase:
    """A case as the suite API takes it."""

    input: str
    expected_output: str
    key: str | None


@dataclass(frozen=True, slots=True)
class PushPlan:
    """The suite and the evaluation a results file becomes on a server."""

    suite_name: str
    cases: list[PushedCase]
    grader_id: str
    grader_config: dict[str, object]
    responses: dict[str, str | None]
    evaluation_name: str


def provenance(environ: Mapping[str, str]) -> str:
    """Where the run came from, from GitHub Actions' variables (empty outside a CI job)."""
    parts = []
    branch = environ.get("GITHUB_HEAD_REF") or environ.get("GITHUB_REF_NAME")
    sha = environ.get("GITHUB_SHA", "")[:12]
    if branch or sha:
        parts.append(f"{branch or '?'}@{sha}" if sha else branch or "")
    run_id, repository = environ.get("GITHUB_RUN_ID"), environ.get("GITHUB_REPOSITORY")
    if run_id and repository:
        server = environ.get("GITHUB_SERVER_URL", "https://github.com")
        parts.append(f"{server}/{repository}/actions/runs/{run_id}")
    return " ".join(parts)


def push_plan(path: Path, environ: Mapping[str, str]) -> PushPlan:
    """The plan of pushing the finished run in ``path``; ``ValidationError`` for a file that is not one."""
    if not path.is_file():
        raise NotFoundError(f"cannot read {path}: no such results file")
    header = read_header(path)
    if header is None:
        raise ValidationError(f"{path} has no header line: push a results file written by this assay run")
    records = sorted(read_records(path), key=lambda record: record["number"])
    numbers = [record["number"] for record in records]
    if numbers != list(range(1, header.suite_cases + 1)) or not records:
        raise ValidationError(
            f"{path} does not hold one result per case of its suite (an unfinished run?): finish it with "
            "--resume before pushing it"
        )
    keyed = records[0]["key"] is not None
    cases = [PushedCase(r["input"], r["expected_output"], r["key"]) for r in records]
    digest = hashlib.sha256(orjson.dumps([[c.key, c.input, c.expected_output] for c in cases])).hexdigest()
    suite = header.suite_name or path.stem
    responses = {(r["key"] if keyed else str(r["number"])): r["agent_response"] for r in records}
    where = provenance(environ)
    name = f"assay run {where}" if where else f"assay run {path.name}"
    return PushPlan(
        suite_name=f"{suite[: NAME_CHARS - 13]}-{digest[:12]}",
        cases=cases,
        grader_id=header.grader_id,
        grader_config=header.config,
        responses=responses,
        evaluation_name=name[:NAME_CHARS],
    )
