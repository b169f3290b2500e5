"""The response envelope of every API answer (docs/decisions.md#the-envelope), and the handlers that put
every error into it."""

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
from assay.api.schemas.common import ProblemOut
from assay.errors import (
    AssayError,
    BusyError,
    ConflictError,
    HttpError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    Problem,
    UnauthorizedError,
    UnavailableError,
    ValidationError,
)
from assay.storage.database import is_busy, is_unreachable, loggable

logger = logging.getLogger(__name__)

T = TypeVar("T")

# The error-tree class of each error the framework raises itself (an unknown route, a wrong method), by
# HTTP status; any other 4xx is an HttpError carrying its status, any 5xx the base (INTERNAL_ERROR).
FRAMEWORK_ERRORS: dict[int, type[AssayError]] = {
    400: ValidationError,
    401: UnauthorizedError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: ValidationError,
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
    problems: list[ProblemOut] = Field(
        default_factory=list, description="Each problem found, with where it is (validation errors)"
    )


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


def rendered(data: BaseModel, status_code: int = 200) -> Response:
    """A successful envelope around ``data``, rendered to bytes where this is called.

    FastAPI turns a returned model into JSON on the event loop; a large one (a page of results, a batch of
    verdicts) returned from a sync route is rendered here instead, on the route's worker thread. The route
    still declares its ``response_model`` (and its ``status_code``, passed here too) for the OpenAPI document.
    """
    body = {"success": True, "data": data.model_dump(mode="json"), "error": None}
    return SafeJSONResponse(body, status_code=status_code)


def error_response(error: AssayError, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The failed envelope of an error of the tree: its code, status, message and problems."""
    problems = [ProblemOut.of(problem) for problem in error.problems]
    body = ErrorEnvelope(error=ErrorBody(code=error.code, message=error.message, problems=problems))
    if isinstance(error, UnauthorizedError):
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    elif isinstance(error, MethodNotAllowedError) and error.allowed:
        headers = {**(headers or {}), "Allow": ", ".join(error.allowed)}
    return SafeJSONResponse(body.model_dump(mode="json"), status_code=error.http_status, headers=headers)


def _loc(loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    # "body" is where every body field is; query and path parameters keep their "query" / "path".
    parts = loc[1:] if loc[:1] == ("body",) else loc
    return tuple(part if isinstance(part, int) else str(part) for part in parts)


def validation_error(exc: RequestValidationError) -> ValidationError:
    """The request's validation failure as the tree's error, each problem at its place in the request."""
    errors = exc.errors()
    if any(error.get("type") == "json_invalid" for error in errors):
        detail = next(e for e in errors if e.get("type") == "json_invalid").get("ctx", {}).get("error", "")
        return ValidationError.of(
            Problem((), f"Malformed JSON body: {detail}" if detail else "Malformed JSON body")
        )
    problems = [Problem(_loc(tuple(error.get("loc", ()))), error.get("msg", "invalid")) for error in errors]
    listed = [str(problem) if problem.loc else f"body: {problem.message}" for problem in problems]
    shown = "; ".join(listed[:3]) + (f"; and {len(listed) - 3} more" if len(listed) > 3 else "")
    return ValidationError(f"Invalid request: {shown}", problems=problems)


async def _assay_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AssayError)
    return error_response(exc)


async def _request_validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(validation_error(exc))


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only the first route's)."""
    allowed = []
    for method in ("DELETE", "GET", "PATCH", "POST", "PUT"):
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] is Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    return allowed


def framework_error(status: int, detail: object) -> AssayError:
    """The tree's error for an HTTP error the framework raised (status and detail as Starlette has them)."""
    # Starlette's default detail is the bare status phrase; ours reads better. A specific detail wins.
    text = detail if isinstance(detail, str) else ""
    message = (text if text and text != HTTPStatus(status).phrase else _HTTP_MESSAGES.get(status, text)) or (
        "Request failed"
    )
    if status == 400:  # FastAPI's "error parsing the body" (e.g. not UTF-8): malformed, as bad JSON is
        return ValidationError("Malformed request body")
    error_class = FRAMEWORK_ERRORS.get(status)
    if error_class is not None:
        return error_class(message)
    return AssayError("Internal server error") if status >= 500 else HttpError(message, http_status=status)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if isinstance(exc.__cause__, AssayError):
        # Raised while FastAPI read the body (the body limit's PayloadTooLargeError): FastAPI wraps any
        # such error in a 400 "error parsing the body"; the cause is the answer.
        return error_response(exc.__cause__)
    error = framework_error(exc.status_code, exc.detail)
    if isinstance(error, MethodNotAllowedError):
        error.allowed = _allowed_methods(request)
    return error_response(error, headers=exc.headers)


def database_error_response(exc: BaseException) -> JSONResponse | None:
    """The 503 for a database that is busy (SQLite) or cannot be reached (PostgreSQL down or restarting),
    as health says it; ``None`` for any other error."""
    if is_busy(exc):
        return busy_response()
    if is_unreachable(exc):
        logger.warning("the database cannot be reached: %s", loggable(exc))
        unavailable = UnavailableError("The database cannot be reached; nothing was changed, try again later")
        return error_response(unavailable, headers={"Retry-After": "5"})
    return None


def busy_response() -> JSONResponse:
    """The 503 envelope for a request that met SQLite held by another writer past the busy timeout."""
    busy = BusyError("The database is busy with another write; nothing was changed, try again")
    return error_response(busy, headers={"Retry-After": "1"})


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    database = database_error_response(exc)
    if database is not None:
        return database
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=loggable(exc))
    return internal_error_response()


def internal_error_response() -> JSONResponse:
    """The 500 envelope: says that something failed, never what or where."""
    return error_response(AssayError("Internal server error"))


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
        503: "The database is busy (`BUSY`) or cannot be reached (`UNAVAILABLE`); nothing changed, retry",
    }.items()
}
"""The error envelope, declared for every operation of the OpenAPI spec."""
