"""Builds the target a spec describes."""

from __future__ import annotations

from assay.targets.base import Target
from assay.targets.command import CommandTarget
from assay.targets.http import HttpTarget
from assay.targets.openai import OpenAITarget, api_key
from assay.targets.python_callable import PythonTarget, load_callable
from assay.targets.recorded import RecordedTarget
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
            return HttpTarget(spec, concurrency=concurrency)
        case OpenAITargetSpec():
            return OpenAITarget(spec, concurrency=concurrency)
        case RecordedTargetSpec():
            return RecordedTarget(spec)
        case PythonTargetSpec():
            return PythonTarget(spec)
        case CommandTargetSpec():
            return CommandTarget(spec)


def check_target(spec: TargetSpec) -> None:
    """Refuse, before anything runs, a spec that could not be built; opens nothing (no client, no process)."""
    if isinstance(spec, OpenAITargetSpec):
        api_key(spec)
    elif isinstance(spec, PythonTargetSpec):
        load_callable(spec.callable)
