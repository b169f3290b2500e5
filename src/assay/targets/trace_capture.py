"""What a call tells about the agent's trajectory: the trace id it was sent, and the reply's trajectory part.

Every call of a target that captures trajectories carries a W3C ``traceparent`` header with a fresh trace id
(one per attempt, so spans of an abandoned attempt never mix with the answer's). The target notes what it
captured (:func:`note_capture`) inside the call; :class:`~assay.targets.base.Target` keeps the note of the
attempt that answered (:func:`collecting_captures`), as it does the usage, so no ``call`` changes shape.
Reading the trajectory (its dialect) is the runner's business, after the reply: the spans of an OTLP trace
may still be on their way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

TRACEPARENT = "traceparent"


@dataclass(frozen=True, slots=True)
class TakenTrace:
    """A trace's spans as one OTLP JSON document, or why there is none."""

    document: dict[str, Any] | None
    problem: str | None


class TraceReceiver(Protocol):
    """Where the spans agents export arrive (the server's OTLP receiver): told of each trace a call sends,
    so that it keeps that trace's spans and no other's, and asked for them after the reply."""

    def expect(self, trace_id: str, parent_span_id: str) -> None:
        """Keep the spans of ``trace_id`` from now on."""

    async def take(self, trace_id: str, grace_s: float) -> TakenTrace:
        """The spans of ``trace_id`` (waiting ``grace_s`` at most for the trace's root span)."""


@dataclass(frozen=True, slots=True)
class TraceContext:
    """One call's trace: its 32-hex-digit id and the ``traceparent`` header value that carries it."""

    trace_id: str
    span_id: str
    """The parent span id sent: the agent's root span names it as its parent."""

    @property
    def header(self) -> str:
        """The ``traceparent`` value (version 00, sampled)."""
        return f"00-{self.trace_id}-{self.span_id}-01"

    @classmethod
    def fresh(cls) -> TraceContext:
        """A new trace (random ids; the all-zero id W3C forbids has odds of 2**-128)."""
        return cls(os.urandom(16).hex(), os.urandom(8).hex())  # what secrets.token_hex does, lighter to load


@dataclass(frozen=True, slots=True)
class Capture:
    """What one answered call captured: its trace, and from the reply the trajectory's JSON value
    (``document``) or why there is none (``problem``). ``from_reply`` is false for an OTLP capture, whose
    trajectory is the spans received under ``trace``'s id, waited for ``grace_s`` at most."""

    trace: TraceContext
    from_reply: bool
    dialect: str = "auto"
    document: Any = None
    problem: str | None = None
    grace_s: float = 0.0


_NOTED: ContextVar[list[Capture] | None] = ContextVar("assay_capture", default=None)


def note_capture(capture: Capture) -> None:
    """Record what the call being made captured (kept only inside :func:`collecting_captures`)."""
    noted = _NOTED.get()
    if noted is not None:
        noted.append(capture)


@contextmanager
def collecting_captures() -> Iterator[list[Capture]]:
    """The captures noted by the calls made inside the block, in order."""
    noted: list[Capture] = []
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)
