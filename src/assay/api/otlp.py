"""``POST /v1/traces``: the OTLP/HTTP receiver agents export their spans to (JSON only; see docs/security.md).

Spans are kept only for the traces Assay's own calls sent (``traceparent``), within the span store's caps
(:mod:`assay.services.execution.span_store`); the body is capped like any request and parsed on a worker
thread, so a flood neither grows memory past the caps nor holds the event loop. Protobuf bodies are refused
with 415. The answer is OTLP's own ``ExportTraceServiceResponse`` (an exporter reads it), errors the envelope.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import Field

from assay.api.envelope import ErrorEnvelope
from assay.api.routers import api_router
from assay.api.schemas.common import ResponseModel
from assay.errors import Problem, UnsupportedMediaTypeError, ValidationError
from assay.services.execution.span_store import BadExportError, SpanStore, parse_export

PATH = "/v1/traces"

router = api_router(tags=["traces"])

_EXPORT_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "description": "OTLP/HTTP JSON ExportTraceServiceRequest",
                "properties": {"resourceSpans": {"type": "array", "items": {"type": "object"}}},
            }
        }
    },
}
"""The body, declared by hand: it is read as bytes (parsed off the loop), not by FastAPI."""
_UNSUPPORTED: dict[int | str, dict[str, Any]] = {
    415: {
        "model": ErrorEnvelope,
        "description": "Not OTLP JSON: protobuf or compressed (`UNSUPPORTED_MEDIA_TYPE`)",
    }
}


class PartialSuccess(ResponseModel):
    """Spans refused, and why (the first reason)."""

    rejectedSpans: int = 0  # noqa: N815 (OTLP's JSON name)
    errorMessage: str = ""  # noqa: N815 (OTLP's JSON name)


class ExportTraceResponse(ResponseModel):
    """OTLP's answer to an export: empty when every span was kept."""

    partialSuccess: PartialSuccess | None = Field(default=None)  # noqa: N815 (OTLP's JSON name)


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").partition(";")[0].strip().lower()


@router.post(
    PATH,
    summary="Receive OpenTelemetry spans (OTLP/HTTP JSON)",
    response_model=ExportTraceResponse,
    responses=_UNSUPPORTED,
    openapi_extra={"requestBody": _EXPORT_BODY},
)
async def receive_traces(request: Request) -> JSONResponse:
    """Keep the spans of the traces Assay sent; OTLP protobuf is refused (send JSON: ``http/json``)."""
    media = _media_type(request)
    if media != "application/json":
        raise UnsupportedMediaTypeError(
            f"only OTLP/HTTP JSON is read (content-type application/json), not {media or 'no content-type'}: "
            "set OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json"
        )
    if request.headers.get("content-encoding", "identity").lower() != "identity":
        raise UnsupportedMediaTypeError(
            "compressed bodies are not read: set OTEL_EXPORTER_OTLP_COMPRESSION=none"
        )
    body = await request.body()  # capped by the body-limit middleware
    store: SpanStore = request.app.state.span_store
    try:
        export = await anyio.to_thread.run_sync(parse_export, body)
    except BadExportError as exc:
        raise ValidationError.of(Problem(("body",), str(exc))) from None
    accepted = store.add(export, len(body))
    if not accepted.rejected:
        return JSONResponse({})
    partial = PartialSuccess(rejectedSpans=accepted.rejected, errorMessage=accepted.reason or "")
    return JSONResponse({"partialSuccess": partial.model_dump()})
