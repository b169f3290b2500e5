"""Builds the target a spec describes (each kind imported on demand: the HTTP client costs 0.15 s to load)."""

from __future__ import annotations

from collections.abc import Mapping

from assay.errors import ValidationError
from assay.targets.base import Target, TargetReply
from assay.targets.specs import (
    CommandTargetSpec,
    EvaluationTargetSpec,
    HttpTargetSpec,
    OpenAITargetSpec,
    PythonTargetSpec,
    RecordedTargetSpec,
    TargetSpec,
)


def build_target(
    spec: TargetSpec, *, concurrency: int = 8, stored_replies: Mapping[int, TargetReply] | None = None
) -> Target:
    """A ready target; ``ValidationError`` when it cannot be built (unset API key, unknown callable).

    ``stored_replies`` (by case id) are what an ``evaluation`` target replays; the caller reads them.
    """
    match spec:
        case HttpTargetSpec():
            from assay.targets.http import HttpTarget

            return HttpTarget(spec, concurrency=concurrency)
        case OpenAITargetSpec():
            from assay.targets.openai import OpenAITarget

            return OpenAITarget(spec, concurrency=concurrency)
        case RecordedTargetSpec():
            from assay.targets.recorded import RecordedTarget

            return RecordedTarget(spec)
        case EvaluationTargetSpec():
            from assay.targets.replay import ReplayTarget

            if stored_replies is None:
                raise ValidationError("an evaluation target needs the stored replies of its evaluation")
            return ReplayTarget(stored_replies)
        case PythonTargetSpec():
            from assay.targets.python_callable import PythonTarget

            return PythonTarget(spec)
        case CommandTargetSpec():
            from assay.targets.command import CommandTarget

            return CommandTarget(spec)


def check_target(spec: TargetSpec) -> None:
    """Refuse, before anything runs, a spec that could not be built; opens nothing (no client, no process)."""
    if isinstance(spec, OpenAITargetSpec):
        from assay.targets.openai import api_key

        api_key(spec)
    elif isinstance(spec, PythonTargetSpec):
        from assay.targets.python_callable import load_callable

        load_callable(spec.callable)
