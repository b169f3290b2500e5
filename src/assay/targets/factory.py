"""Builds the target a spec describes (each kind imported on demand: the HTTP client costs 0.15 s to load)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from assay.errors import Problem, ValidationError
from assay.targets.base import Target, TargetReply
from assay.targets.egress import EgressRefusedError
from assay.targets.policy import TargetPolicy
from assay.targets.specs import (
    CommandTargetSpec,
    EvaluationTargetSpec,
    HttpTargetSpec,
    OpenAITargetSpec,
    PythonTargetSpec,
    RecordedTargetSpec,
    TargetSpec,
    secret_names,
)

if TYPE_CHECKING:
    from assay.targets.replay import TrajectoryLoader


def build_target(
    spec: TargetSpec,
    *,
    concurrency: int = 8,
    policy: TargetPolicy | None = None,
    stored_replies: Mapping[int, TargetReply] | None = None,
    stored_trajectories: TrajectoryLoader | None = None,
) -> Target:
    """A ready target under ``policy`` (by default the CLI's: unrestricted); ``ValidationError`` when it
    cannot be built (a secret that is not available, an unknown callable).

    ``stored_replies`` (by case id) are what an ``evaluation`` target replays; the caller reads them, and
    gives ``stored_trajectories`` to read back the trajectories they carried.
    """
    policy = policy if policy is not None else TargetPolicy.unrestricted()
    match spec:
        case HttpTargetSpec():
            from assay.targets.http import HttpTarget

            return HttpTarget(spec, concurrency=concurrency, policy=policy)
        case OpenAITargetSpec():
            from assay.targets.openai import OpenAITarget

            return OpenAITarget(spec, concurrency=concurrency, policy=policy)
        case RecordedTargetSpec():
            from assay.targets.recorded import RecordedTarget

            return RecordedTarget.of(spec, max_answer_bytes=policy.max_answer_bytes)
        case EvaluationTargetSpec():
            from assay.targets.replay import ReplayTarget

            if stored_replies is None:
                raise ValidationError("an evaluation target needs the stored replies of its evaluation")
            return ReplayTarget(stored_replies, stored_trajectories)
        case PythonTargetSpec():
            from assay.targets.python_callable import PythonTarget

            return PythonTarget(spec)
        case CommandTargetSpec():
            from assay.targets.command import CommandTarget

            return CommandTarget(spec)


def check_target(spec: TargetSpec, policy: TargetPolicy | None = None) -> None:
    """Refuse, before anything runs, a spec that could not be built or whose URL the egress policy refuses
    as written (a literal address, a metadata name, credentials); opens nothing (no client, no process)."""
    policy = policy if policy is not None else TargetPolicy.unrestricted()
    policy.secrets.values(secret_names(spec), where=("target",))
    for field_name, url in _urls(spec):
        try:
            policy.egress.check_url(url)
        except EgressRefusedError as exc:
            raise ValidationError.of(Problem(("target", spec.type, field_name), exc.rule)) from None
    if isinstance(spec, PythonTargetSpec):
        from assay.targets.python_callable import load_callable

        load_callable(spec.callable)


def _urls(spec: TargetSpec) -> list[tuple[str, str]]:
    if isinstance(spec, HttpTargetSpec):
        return [("url", spec.url)]
    if isinstance(spec, OpenAITargetSpec):
        return [("base_url", spec.base_url)]
    return []
