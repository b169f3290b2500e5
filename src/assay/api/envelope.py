"""The response envelope of every API answer (D15), and the handlers that put every error into it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, Generic, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from assay.api.rendering import SafeJSONResponse
from assay.errors import AssayError, BusyError
from assay.storage.database import is_busy, loggable

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Codes for errors that the framework raises itself, by HTTP status.
_HTTP_CODES = {
    400: "VALIDATION_ERROR",
    401: "UNAUTHORIZED",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    409: "CONFLICT",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "VALIDATION_ERROR",
}
_HTTP_MESSAGES = {
    404: "Not found",
    405: "Method not allowed",
    413: "Request body too large",
}


class ErrorBody(BaseModel):
    """What went wrong: a stable machine code, a message for people and, for validation, every problem."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(examples=["NOT_FOUND"])
    message: str
    problems: list[str] = Field(default_factory=list, description="Each problem found (validation errors)")


class Envelope(BaseModel, Generic[T]):
    """``{"success", "data", "error"}``: the shape of every response."""

    success: bool = True
    data: T | None = None
    error: ErrorBody | None = None


class ErrorEnvelope(BaseModel):
    """The envelope of a failed request."""

    success: bool = Field(default=False, json_schema_extra={"const": False})
    data: None = None
    error: ErrorBody


def ok(data: T) -> Envelope[T]:
    """A successful envelope around ``data``."""
    return Envelope[T](success=True, data=data, error=None)


def rendered(data: BaseModel) -> Response:
    """A successful envelope around ``data``, rendered to bytes where this is called.

    FastAPI turns a returned model into JSON on the event loop; a large one (a page of results, a batch of
    verdicts) returned from a sync route is rendered here instead, on the route's worker thread. The route
    still declares its ``response_model`` for the OpenAPI document.
    """
    return SafeJSONResponse({"success": True, "data": data.model_dump(mode="json"), "error": None})


def error_response(
    status: int,
    code: str,
    message: str,
    problems: list[str] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """A failed envelope as a response."""
    body = ErrorEnvelope(error=ErrorBody(code=code, message=message, problems=problems or []))
    return SafeJSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


def _location(loc: tuple[Any, ...]) -> str:
    parts = [str(part) for part in loc if part not in ("body",)]
    return ".".join(parts) or "body"


def _validation_problems(exc: RequestValidationError) -> tuple[str, list[str]]:
    errors = exc.errors()
    if any(error.get("type") == "json_invalid" for error in errors):
        detail = next(e for e in errors if e.get("type") == "json_invalid").get("ctx", {}).get("error", "")
        message = f"Malformed JSON body: {detail}" if detail else "Malformed JSON body"
        return message, [message]
    problems = [
        f"{_location(tuple(error.get('loc', ())))}: {error.get('msg', 'invalid')}" for error in errors
    ]
    shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
    return f"Invalid request: {shown}", problems


async def _assay_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AssayError)
    headers = {"WWW-Authenticate": "Bearer"} if exc.http_status == 401 else None
    return error_response(exc.http_status, exc.code, exc.message, exc.problems, headers)


async def _request_validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    message, problems = _validation_problems(exc)
    return error_response(422, "VALIDATION_ERROR", message, problems)


def _allowed_methods(request: Request) -> str:
    """Every method some route serves at this path (Starlette names only the first route's)."""
    allowed = []
    for method in ("DELETE", "GET", "PATCH", "POST", "PUT"):
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] is Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    return ", ".join(allowed)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    headers = dict(exc.headers or {})
    if status == 405 and (allowed := _allowed_methods(request)):
        headers["Allow"] = allowed
    code = _HTTP_CODES.get(status, "INTERNAL_ERROR" if status >= 500 else "HTTP_ERROR")
    # Starlette's default detail is the bare status phrase; ours reads better. A specific detail wins.
    detail = exc.detail if isinstance(exc.detail, str) else ""
    message = detail if detail and detail != HTTPStatus(status).phrase else _HTTP_MESSAGES.get(status, detail)
    if status == 400:  # FastAPI's "error parsing the body" (e.g. not UTF-8): malformed, as bad JSON is
        status, message = 422, "Malformed request body"
    return error_response(status, code, message or "Request failed", headers=headers)


def busy_response() -> JSONResponse:
    """The 503 envelope for a request that met SQLite held by another writer past the busy timeout."""
    busy = BusyError("The database is busy with another write; nothing was changed, try again")
    return error_response(busy.http_status, busy.code, busy.message, headers={"Retry-After": "1"})


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    if is_busy(exc):
        return busy_response()
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=loggable(exc))
    return internal_error_response()


def internal_error_response() -> JSONResponse:
    """The 500 envelope: says that something failed, never what or where."""
    return error_response(500, "INTERNAL_ERROR", "Internal server error")


def install_error_handlers(app: FastAPI) -> None:
    """Turn every error, ours and the framework's, into the envelope."""
    app.add_exception_handler(AssayError, _assay_error)
    app.add_exception_handler(RequestValidationError, _request_validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)


CONFLICT_RESPONSE: dict[int | str, dict[str, Any]] = {
    409: {
        "model": ErrorEnvelope,
        "description": "Conflicts with what is stored, e.g. a taken name (`CONFLICT`)",
    }
}
"""Declared by the operations that can conflict."""

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorEnvelope, "description": description}
    for status, description in {
        401: "Missing or wrong API key (`UNAUTHORIZED`)",
        404: "Not found (`NOT_FOUND`)",
        405: "Method not allowed (`METHOD_NOT_ALLOWED`)",
        413: "Request body too large (`PAYLOAD_TOO_LARGE`)",
        422: "Invalid request: query, path, body or grader config (`VALIDATION_ERROR`)",
        500: "Unexpected server error (`INTERNAL_ERROR`)",
        503: "The database is busy with another write; nothing changed, retry (`BUSY`)",
    }.items()
}
"""The error envelope, declared for every operation of the OpenAPI spec."""
