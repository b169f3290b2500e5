"""Schemas of the eval-file routes: an ``assay.yaml`` run by the server, and a stored evaluation's own."""

from __future__ import annotations

from pydantic import Field

from assay.api.schemas.common import RequestModel, ResponseModel
from assay.api.schemas.evaluations import EvaluationOut
from assay.services.eval_file import MAX_EVAL_FILE_BYTES


class EvalFileIn(RequestModel):
    """An ``assay.yaml`` to run here (docs/eval-file.md); its suites must be ``{server_suite: ID}``."""

    config: str = Field(min_length=1, max_length=MAX_EVAL_FILE_BYTES, description="The assay.yaml text")


class EvalFileOut(ResponseModel):
    """An evaluation's settings as the equivalent ``assay.yaml`` text."""

    config: str


class EvalsOut(ResponseModel):
    """The evaluations an ``assay.yaml`` created, one per suite, and its keys a server does not use."""

    evaluations: list[EvaluationOut]
    not_used: list[str] = Field(
        description="Keys of the file that only `assay eval` reads (outputs, gates, server, timeouts of a "
        "CLI target): given, but not used here"
    )
