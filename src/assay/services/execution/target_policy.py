"""The target policy of a server, from its settings: egress rules, readable secrets, the answer cap."""

from __future__ import annotations

from assay.config import Settings
from assay.errors import Problem, SettingsError
from assay.targets import EgressPolicy, SecretPolicy, TargetPolicy


def target_policy(settings: Settings) -> TargetPolicy:
    """What the server's targets may do; a malformed ``ASSAY_TARGET_ALLOW`` is a :class:`SettingsError`
    (a typo must stop the server rather than silently allow nothing)."""
    try:
        egress = EgressPolicy.for_server(
            allow=settings.target_allow,
            listen_host=settings.listen_host,
            listen_port=settings.listen_port,
            has_api_key=settings.api_key is not None,
        )
    except ValueError as exc:
        raise SettingsError.of(Problem((), str(exc))) from None
    return TargetPolicy(
        egress=egress,
        secrets=SecretPolicy.for_server(settings.target_secrets),
        max_answer_bytes=settings.max_answer_bytes,
    )
