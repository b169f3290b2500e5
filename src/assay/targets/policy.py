"""What a target may do on this process's behalf: where it may connect, which secrets it may read, and how
large an answer may be. The server builds one from its settings; the CLI, which runs as its user, uses
:meth:`TargetPolicy.unrestricted`."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.targets.egress import EgressPolicy
from assay.targets.reasons import DEFAULT_MAX_ANSWER_BYTES
from assay.targets.secrets import SecretPolicy
from assay.targets.trace_capture import TraceReceiver


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetPolicy:
    """The rules every target of one process follows."""

    egress: EgressPolicy = field(default_factory=EgressPolicy.unrestricted)
    secrets: SecretPolicy = field(default_factory=SecretPolicy.unrestricted)
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    """A longer answer is cut to this many bytes and the case fails with ``answer_too_large``."""
    traces: TraceReceiver | None = field(default=None, compare=False)
    """The server's OTLP receiver, told of every trace a capturing target sends (``None``: no receiver,
    as in the CLI: a target capturing OTLP spans then has none to read)."""

    @classmethod
    def unrestricted(cls, *, max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES) -> TargetPolicy:
        """Any address, any variable: what a user's own command line may do."""
        return cls(max_answer_bytes=max_answer_bytes)
