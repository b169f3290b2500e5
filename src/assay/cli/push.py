"""``assay push RESULTS --server URL``: a finished results file of ``assay run`` stored as an evaluation of
the server's suite (see :mod:`assay.services.local_run.push_plan`); ``assay run --server`` pushes its own."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import orjson

from assay.cli.console import err, out
from assay.cli.options import PATH
from assay.errors import AssayError, SettingsError
from assay.json_types import JsonObject

CHUNK_CASES = 1000
CHUNK_BYTES = 512 * 1024
"""Cases and bytes of cases per request: a request's body stays under the server's cap (ASSAY_MAX_BODY_BYTES,
1 MiB by default) however much metadata and assertions its cases carry."""
WAIT_S = 300.0
POLL_S = 0.2
_FINISHED = ("completed", "failed", "cancelled")


def _chunks(cases: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """The cases in requests of at most :data:`CHUNK_CASES` cases and about :data:`CHUNK_BYTES` of JSON."""
    chunk: list[dict[str, Any]] = []
    size = 0
    for case in cases:
        case_size = len(orjson.dumps(case))
        if chunk and (len(chunk) >= CHUNK_CASES or size + case_size > CHUNK_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(case)
        size += case_size
    yield chunk


def _suite_id(server: str, name: str, cases: list[dict[str, Any]], assertions: JsonObject | None) -> int:
    """The server's suite of this name (its name carries its cases' digest), created when it has none."""
    from assay.cli.server_client import call

    chunks = _chunks(cases)
    try:
        created = call(server, "POST", "/suites", {"name": name, "cases": next(chunks), **(assertions or {})})
    except AssayError as exc:
        if "CONFLICT" not in exc.message:
            raise
        return _find_suite(server, name)
    suite_id: int = created["id"]
    for chunk in chunks:
        call(server, "POST", f"/suites/{suite_id}/cases", {"cases": chunk})
    return suite_id


def _find_suite(server: str, name: str) -> int:
    from assay.cli.server_client import call

    skip = 0
    while True:
        page = call(server, "GET", f"/suites?limit=100&skip={skip}")
        for suite in page["suites"]:
            if suite["name"] == name:
                found: int = suite["id"]
                return found
        skip += len(page["suites"])
        if not page["suites"] or skip >= page["total"]:
            raise SettingsError(f"the server said suite {name!r} exists but does not list it")


def push_results(server: str, path: Path, suite_file: Path | None = None, *, partial: bool = False) -> int:
    """Store the run in ``path`` as an evaluation on ``server``, wait for it to finish; its id."""
    from assay.cli.server_client import call
    from assay.services.local_run.push_plan import push_plan

    plan = push_plan(path, os.environ, suite_file, partial=partial)
    if plan.warning is not None:
        err.print(f"warning: {plan.warning}", markup=False)
    cases = [case.as_json() for case in plan.cases]
    suite_id = _suite_id(server, plan.suite_name, cases, plan.suite_assertions)
    evaluation = call(
        server,
        "POST",
        "/evaluations",
        {
            "suite_id": suite_id,
            "grader_id": plan.grader_id,
            "grader_config": plan.grader_config,
            "target": {"type": "recorded", "responses": plan.responses},
            "name": plan.evaluation_name,
            "allow_invalid_expected": True,  # the run's own choice was made when it ran
        },
    )
    evaluation_id: int = evaluation["id"]
    deadline = time.monotonic() + WAIT_S
    while evaluation["status"] not in _FINISHED and time.monotonic() < deadline:
        time.sleep(POLL_S)
        evaluation = call(server, "GET", f"/evaluations/{evaluation_id}")
    err.print(
        f"pushed to {server}: evaluation {evaluation_id} ({evaluation['status']}) of suite {suite_id} "
        f"'{plan.suite_name}'",
        markup=False,
    )
    return evaluation_id


@click.command("push")
@click.argument("results", type=PATH)
@click.option("--server", required=True, help="The Assay server (key from ASSAY_API_KEY)")
@click.option(
    "--suite",
    "suite_file",
    type=PATH,
    help="The suite file the run read (default: the one its header names), for its cases' metadata and "
    "assertions",
)
@click.option(
    "--partial",
    is_flag=True,
    help="Push a run without a result for every case (killed, or run in part): the others get no answer",
)
def push(*, results: Path, server: str, suite_file: Path | None, partial: bool) -> None:
    """Store a finished results file of `assay run` as an evaluation on a server (its suite created or
    matched by content), so it shows in the suite's history, compare and the UI; prints its id."""
    out.print(str(push_results(server, results, suite_file, partial=partial)), markup=False)
