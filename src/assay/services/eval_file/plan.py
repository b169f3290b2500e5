"""An ``assay.yaml``'s model made ready to run: paths found, grader built, assertions read, target spec made.

Everything is checked before anything runs, and every problem is listed at once, each on its line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from assay.domain import SuiteAssertions
from assay.errors import AssayError, Loc, Problem
from assay.graders import GraderInterface
from assay.graders.composite.assertions import InvalidAssertionsError, read_suite_assertions
from assay.services.eval_file.loading import EvalFileError, placed
from assay.services.eval_file.model import EvalFile, ResponsesFileTarget, ServerSuite
from assay.services.grading.registry import GraderService
from assay.targets import TargetSpec

__all__ = ["EvalPlan", "plan_eval"]


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalPlan:
    """What an ``assay.yaml`` runs, checked: its suite files, grader, default assertions, target, outputs."""

    file: EvalFile
    folder: Path
    """The ``assay.yaml``'s folder, which its paths are relative to."""
    suites: tuple[Path, ...]
    server_suites: tuple[int, ...]
    grader: GraderInterface
    defaults: SuiteAssertions | None
    spec: TargetSpec | None
    """The target; ``None`` for recorded answers in a file (:attr:`responses`)."""
    responses: Path | None
    results: Path | None
    junit: Path | None


def plan_eval(file: EvalFile, folder: Path, *, source: str, root: yaml.Node | None) -> EvalPlan:
    """The plan of ``file`` (read from ``source`` in ``folder``); :class:`EvalFileError` listing every
    problem: a suite or answers file missing, a grader unknown or misconfigured, assertions that cannot
    grade."""
    problems: list[Problem] = []

    def add(loc: Loc, message: str) -> None:
        problems.append(placed(source, root, loc, message))

    suites: list[Path] = []
    server_suites: list[int] = []
    for index, suite in enumerate(file.suites):
        if isinstance(suite, ServerSuite):
            server_suites.append(suite.server_suite)
            continue
        path = folder / suite
        if not path.is_file():
            add(("suites", index), f"the suite file {path} does not exist")
        suites.append(path)
    grader = _grader(file, add)
    defaults: SuiteAssertions | None = None
    try:
        defaults = read_suite_assertions(file.assertions, file.threshold, file.rules)
    except InvalidAssertionsError as exc:
        for problem in exc.problems:
            add(problem.parts, problem.message)
    spec: TargetSpec | None = None
    responses: Path | None = None
    target = file.target
    if isinstance(target, ResponsesFileTarget):
        responses = folder / target.path
        if not responses.is_file():
            add(("target", "path"), f"the answers file {responses} does not exist")
        if len(file.suites) != 1:
            add(("target",), "a responses file answers one suite: give one suite, or one eval file each")
    elif target.type == "evaluation":
        add(("target", "type"), "an 'evaluation' target re-grades a server's evaluation: run it there")
    else:
        update = {
            key: value
            for key, value in (("timeout", file.timeout_s), ("max_attempts", file.max_attempts))
            if value is not None
        }
        spec = target.model_copy(update=update)  # in the bounds the target's own fields have
    if problems or grader is None:
        raise EvalFileError.listing(source, problems)
    outputs = file.outputs
    return EvalPlan(
        file=file,
        folder=folder,
        suites=tuple(suites),
        server_suites=tuple(server_suites),
        grader=grader,
        defaults=None if defaults is None or defaults.empty else defaults,
        spec=spec,
        responses=responses,
        results=folder / outputs.results if outputs.results is not None else None,
        junit=folder / outputs.junit if outputs.junit is not None else None,
    )


def _grader(file: EvalFile, add: Callable[[Loc, str], None]) -> GraderInterface | None:
    """The evaluation's grader built from ``file.grader``; ``None`` (its problems added) when it cannot be."""
    choice = file.grader
    graders = GraderService()
    config: dict[str, Any] | None = choice.config
    where: Loc = ("grader", "id")
    try:
        graders.get(choice.id)
        if choice.preset is not None:
            where = ("grader", "preset")
            config = graders.preset(choice.id, choice.preset)
        where = ("grader", "config")
        return graders.build(choice.id, config, where=where)
    except AssayError as exc:
        for problem in exc.problems or [Problem(where, exc.message)]:
            # A config's problems are placed by their own path; the id's and the preset's on their key.
            add(problem.loc if where[-1] == "config" else where, problem.message)
        return None
