"""Builds the target a spec describes (each kind imported on demand: the HTTP client costs 0.15 s to load)."""

from __future__ import annotations

from assay.targets.base import Target
from assay.targets.specs import (
    CommandTargetSpec,
    HttpTargetSpec,
    OpenAITargetSpec,
    PythonTargetSpec,
    RecordedTargetSpec,
    TargetSpec,
)


def build_target(spec: TargetSpec, *, concurrency: int = 8) -> Target:
    """A ready target; ``ValidationError`` when it cannot be built (unset API key, unknown callable)."""
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
