"""The spans agents export to Assay's OTLP receiver, kept by trace id until the run that sent the trace
takes them.

Only traces a run announced (:meth:`SpanStore.expect`, as its target sends their ``traceparent``) are kept;
spans of any other trace are refused (counted in the OTLP answer's ``rejectedSpans``), so a stranger cannot
fill the store. What is kept is bounded: spans and bytes per trace, bytes over all traces (the rest
refused), traces announced (the oldest dropped) and time (a trace nobody took is dropped ``ttl_s`` after
it was announced). Every method
is quick and runs on the event loop; nothing here waits on I/O.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from assay.targets.trace_capture import TakenTrace

MAX_SPANS_PER_TRACE = 100_000


class _Scope(BaseModel):
    model_config = ConfigDict(extra="ignore")
    scope: dict[str, Any] | None = None
    spans: list[dict[str, Any]] = Field(default_factory=list)


class _Resource(BaseModel):
    model_config = ConfigDict(extra="ignore")
    resource: dict[str, Any] | None = None
    scopeSpans: list[_Scope] = Field(default_factory=list)  # noqa: N815 (OTLP's JSON name)


class ExportRequest(BaseModel):
    """An OTLP/HTTP JSON ``ExportTraceServiceRequest`` (spans kept as the JSON they came as)."""

    model_config = ConfigDict(extra="ignore")
    resourceSpans: list[_Resource] = Field(default_factory=list)  # noqa: N815 (OTLP's JSON name)


class BadExportError(ValueError):
    """A body that is not an OTLP JSON export request."""


def parse_export(body: bytes) -> ExportRequest:
    """The export request in ``body``; :class:`BadExportError` saying what is wrong otherwise."""
    try:
        return ExportRequest.model_validate_json(body)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise BadExportError(f"not an OTLP JSON export request: {where}: {first['msg']}") from None


@dataclass(frozen=True, slots=True)
class StoreLimits:
    """How much the store keeps (see the module's notes)."""

    max_trace_bytes: int = 64 * 1024 * 1024
    max_total_bytes: int = 128 * 1024 * 1024
    max_spans_per_trace: int = MAX_SPANS_PER_TRACE
    max_traces: int = 10_000
    """Traces announced and not yet taken; past it the oldest is dropped (a call that failed leaves its
    trace to nobody)."""
    ttl_s: float = 600.0


@dataclass(slots=True)
class _Trace:
    parent_span_id: str
    expires: float
    fragments: list[tuple[dict[str, Any] | None, dict[str, Any] | None, list[dict[str, Any]]]] = field(
        default_factory=list
    )
    spans: int = 0
    size: int = 0
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the span the agent made under Assay's parent (its root) arrives: the trace is complete."""
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class Accepted:
    """What one export request added: spans kept, and spans refused with why (the first reason)."""

    accepted: int
    rejected: int
    reason: str | None


class SpanStore:
    """Spans by trace id, for the traces announced and not yet taken (bounded: see the module's notes)."""

    def __init__(self, limits: StoreLimits | None = None) -> None:
        self.limits = limits or StoreLimits()
        self._traces: OrderedDict[str, _Trace] = OrderedDict()  # in order of expiry (one ttl for all)
        self._size = 0

    @property
    def size(self) -> int:
        """Bytes of spans held, about (each span counted at its share of its request's body)."""
        return self._size

    def expect(self, trace_id: str, parent_span_id: str) -> None:
        """Keep the spans of ``trace_id`` that arrive from now on (for ``ttl_s`` at most)."""
        self._expire()
        while len(self._traces) >= self.limits.max_traces:
            self._forget(next(iter(self._traces)))
        self._traces[trace_id] = _Trace(parent_span_id, time.monotonic() + self.limits.ttl_s)

    def add(self, request: ExportRequest, body_size: int) -> Accepted:
        """Keep the spans of announced traces in ``request`` (``body_size`` bytes), within the limits."""
        self._expire()
        total = sum(len(scope.spans) for resource in request.resourceSpans for scope in resource.scopeSpans)
        share = body_size // max(1, total) + 1
        accepted = rejected = 0
        reason: str | None = None
        for resource in request.resourceSpans:
            for scope in resource.scopeSpans:
                kept: dict[str, list[dict[str, Any]]] = {}
                for span in scope.spans:
                    trace_id = span.get("traceId")
                    trace = self._traces.get(trace_id) if isinstance(trace_id, str) else None
                    problem = self._refusal(trace, share)
                    if problem is not None or trace is None or not isinstance(trace_id, str):
                        rejected += 1
                        reason = reason or problem
                        if trace is not None and trace.refused is None:
                            trace.refused = problem
                        continue
                    kept.setdefault(trace_id, []).append(span)
                    trace.spans += 1
                    trace.size += share
                    self._size += share
                    accepted += 1
                    if span.get("parentSpanId") == trace.parent_span_id:
                        trace.ended.set()
                for trace_id, spans in kept.items():
                    self._traces[trace_id].fragments.append((resource.resource, scope.scope, spans))
        return Accepted(accepted, rejected, reason)

    def _refusal(self, trace: _Trace | None, share: int) -> str | None:
        limits = self.limits
        if trace is None:
            return "spans of a trace Assay did not send (or one already taken or expired)"
        if trace.spans >= limits.max_spans_per_trace:
            return f"a trace holds at most {limits.max_spans_per_trace:,} spans"
        if trace.size + share > limits.max_trace_bytes:
            return f"a trace holds at most {limits.max_trace_bytes:,} bytes of spans"
        if self._size + share > limits.max_total_bytes:
            return f"the receiver holds at most {limits.max_total_bytes:,} bytes of spans"
        return None

    async def take(self, trace_id: str, grace_s: float) -> TakenTrace:
        """The spans of ``trace_id`` once its root span arrived, or after ``grace_s`` with what came; the
        trace is forgotten then. A trace with no span, or one whose spans were refused, is a problem."""
        trace = self._traces.get(trace_id)
        if trace is None:
            return TakenTrace(None, f"did not arrive: trace {trace_id} was not announced or has expired")
        if not trace.ended.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(trace.ended.wait(), grace_s)
        self._forget(trace_id)
        if trace.refused is not None:
            return TakenTrace(None, f"was refused by the OTLP receiver (trace {trace_id}): {trace.refused}")
        if not trace.spans:
            return TakenTrace(None, f"did not arrive: no spans of trace {trace_id} within {grace_s:g} s")
        return TakenTrace(_document(trace), None)

    def forget(self, trace_id: str) -> None:
        """Drop a trace (its call failed: nobody will take it)."""
        self._forget(trace_id)

    def _forget(self, trace_id: str) -> None:
        trace = self._traces.pop(trace_id, None)
        if trace is not None:
            self._size -= trace.size

    def _expire(self) -> None:
        now = time.monotonic()
        while self._traces:
            trace_id, trace = next(iter(self._traces.items()))
            if trace.expires > now:
                return
            self._forget(trace_id)


def _document(trace: _Trace) -> dict[str, Any]:
    """The trace's spans as one OTLP JSON export document (fragments in the order they came)."""
    resource_spans = [
        {"resource": resource or {}, "scopeSpans": [{"scope": scope or {}, "spans": spans}]}
        for resource, scope, spans in trace.fragments
    ]
    return {"resourceSpans": resource_spans}
