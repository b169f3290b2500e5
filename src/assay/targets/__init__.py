"""Targets: what answers a case (HTTP, OpenAI-compatible, recorded, Python callable, shell command).

Names are loaded on first use (PEP 562): a run over recorded answers needs :class:`Target` and its records,
not the spec models (pydantic) nor the retry machinery's event loop, which cost more to load than such a
run of a few hundred cases takes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.lazy_names import LazyNames

if TYPE_CHECKING:
    from assay.targets.base import Target, TargetCase, TargetReply
    from assay.targets.egress import EgressPolicy
    from assay.targets.factory import build_target, check_target
    from assay.targets.policy import TargetPolicy
    from assay.targets.reasons import ErrorReason
    from assay.targets.retry import RetryPolicy
    from assay.targets.secrets import SecretPolicy
    from assay.targets.specs import (
        API_TARGET_TYPES,
        CommandTargetSpec,
        EvaluationTargetSpec,
        HttpTargetSpec,
        OpenAITargetSpec,
        PythonTargetSpec,
        RecordedTargetSpec,
        TargetSpec,
        parse_target_spec,
    )

_HOMES = {
    "base": ("Target", "TargetCase", "TargetReply"),
    "egress": ("EgressPolicy",),
    "factory": ("build_target", "check_target"),
    "policy": ("TargetPolicy",),
    "reasons": ("ErrorReason",),
    "retry": ("RetryPolicy",),
    "secrets": ("SecretPolicy",),
    "specs": (
        "API_TARGET_TYPES",
        "CommandTargetSpec",
        "EvaluationTargetSpec",
        "HttpTargetSpec",
        "OpenAITargetSpec",
        "PythonTargetSpec",
        "RecordedTargetSpec",
        "TargetSpec",
        "parse_target_spec",
    ),
}

__all__ = [
    "API_TARGET_TYPES",
    "CommandTargetSpec",
    "EgressPolicy",
    "ErrorReason",
    "EvaluationTargetSpec",
    "HttpTargetSpec",
    "OpenAITargetSpec",
    "PythonTargetSpec",
    "RecordedTargetSpec",
    "RetryPolicy",
    "SecretPolicy",
    "Target",
    "TargetCase",
    "TargetPolicy",
    "TargetReply",
    "TargetSpec",
    "build_target",
    "check_target",
    "parse_target_spec",
]

_LAZY = LazyNames(
    globals(),
    {name: f"{__name__}.{module}" for module, names in _HOMES.items() for name in names},
    __all__,
)


def __getattr__(name: str) -> Any:
    return _LAZY.load(name)


def __dir__() -> list[str]:
    return _LAZY.names()
