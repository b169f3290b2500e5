"""``POST /api/evals``: the evaluations an ``assay.yaml`` describes, created as the evaluation form creates
them (the same schema, service, checks and egress policy), one per ``server_suite``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pydantic
from fastapi import status

from assay.api.bodies import ThreadedBodyRoute
from assay.api.envelope import Envelope, ok
from assay.api.evaluations import EvaluationServiceDep
from assay.api.routers import api_router
from assay.api.schemas.evals import EvalFileIn, EvalsOut
from assay.api.schemas.evaluations import EvaluationCreate, EvaluationOut
from assay.errors import Problem, ValidationError
from assay.json_types import JsonObject
from assay.services.grading.registry import GraderService

if TYPE_CHECKING:
    from assay.services.eval_file.model import EvalFile

router = api_router(prefix="/api/evals", tags=["evaluations"], route_class=ThreadedBodyRoute)

_LOCAL_ONLY = ("outputs", "gates", "server")
"""Keys only ``assay eval`` reads: reported back as not used."""


def _requests(file: EvalFile, graders: GraderService) -> list[EvaluationCreate]:
    """One evaluation request per suite; ``ValidationError`` (422) listing what a server cannot run."""
    from assay.services.eval_file.model import ServerSuite

    problems: list[Problem] = []
    for index, suite in enumerate(file.suites):
        if not isinstance(suite, ServerSuite):
            problems.append(
                Problem(
                    ("config", "suites", index),
                    f"'{suite}' is a file path, which a server cannot read: give {{server_suite: ID}}",
                )
            )
    if file.assertions is not None or file.rules is not None:
        problems.append(
            Problem(
                ("config", "assert"),
                "store default assertions and rules on the suite (PATCH /api/suites/{id})",
            )
        )
    if file.target.type in ("python", "command", "responses"):
        problems.append(
            Problem(("config", "target", "type"), f"a '{file.target.type}' target runs with assay eval only")
        )
    if problems:
        raise ValidationError(
            f"this assay.yaml cannot run on a server: {problems[0].message}", problems=problems
        )
    grader = file.grader
    config = graders.preset(grader.id, grader.preset) if grader.preset is not None else grader.config
    target: JsonObject = file.target.model_dump(mode="json", exclude_unset=True)
    target.update(
        (key, value)
        for key, value in (("timeout", file.timeout_s), ("max_attempts", file.max_attempts))
        if value is not None
    )
    requests = []
    for suite in file.suites:
        assert isinstance(suite, ServerSuite)  # checked above
        body = {
            "suite_id": suite.server_suite,
            "grader_id": grader.id,
            "grader_config": config,
            "target": target,
            "concurrency": file.concurrency,
            "allow_invalid_expected": file.allow_invalid_expected,
            "reply_cache": file.cache,
            "repeats": file.repeats,
            "prices": {model: price.model_dump() for model, price in file.prices.items()} or None,
        }
        try:
            requests.append(EvaluationCreate.model_validate(body))
        except pydantic.ValidationError as exc:
            found = [Problem(("config", *error["loc"]), error["msg"]) for error in exc.errors()]
            raise ValidationError(
                f"this assay.yaml cannot run on a server: {found[0]}", problems=found
            ) from None
    return requests


@router.post("", status_code=status.HTTP_201_CREATED, summary="Run an assay.yaml's evaluations")
def create_evals(body: EvalFileIn, evaluations: EvaluationServiceDep) -> Envelope[EvalsOut]:
    """Create and start one evaluation per ``server_suite`` of the file, as ``POST /api/evaluations`` would
    (422 for any problem of the file, each naming its line; suite files, default assertions and CLI-only
    targets are refused; a refusal of any suite creates none). Outputs and gates are ``assay eval``'s:
    listed in ``not_used``."""
    from assay.services.eval_file.loading import parse_eval_file  # YAML and the file's model: ~0.1 s

    file, _ = parse_eval_file(body.config, "assay.yaml")
    requests = _requests(file, evaluations.graders)
    new = [request.to_new_evaluation() for request in requests]
    checked = [evaluations.check(request) for request in new]  # all or none: any refusal before any start
    created = [EvaluationOut.of(evaluations.start(*pair)) for pair in zip(new, checked, strict=True)]
    given = file.model_fields_set
    not_used = [key for key in _LOCAL_ONLY if key in given]
    return ok(EvalsOut(evaluations=created, not_used=not_used))
