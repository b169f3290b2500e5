"""Targets: what answers a case (HTTP, OpenAI-compatible, recorded, Python callable, shell command)."""

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
