"""ASGI middleware at the edge of the app: security headers, the access log, body size limits, and the
last-resort 500.

Written as plain ASGI (not ``BaseHTTPMiddleware``) to keep the per-request cost low. A middleware refuses a
request by raising an error of :mod:`assay.errors`; :class:`EdgeMiddleware`, outermost, turns it into its
envelope (the app's own handlers never see what happens outside the app).
"""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assay.api.docs import DOCS_PATHS
from assay.api.envelope import database_error_response, error_response, internal_error_response
from assay.errors import AssayError, NotFoundError, PayloadTooLargeError, Problem, ValidationError
from assay.storage.database import loggable

logger = logging.getLogger(__name__)
access_log = logging.getLogger("assay.access")
"""The access log, written here rather than by Uvicorn (``assay serve`` gives this logger Uvicorn's access
handler and format, and Uvicorn's own logger none): the same lines, but none for a successful health check,
which load balancers ask every few seconds and whose line would cost more than its answer."""
QUIET_PATHS = frozenset({"/api/health"})

# A Vite React build needs nothing inline: scripts and styles come from /assets, data from /api.
# Inline style *attributes* set through the DOM by React are not affected by style-src.
APP_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
# The API docs (Swagger UI, ReDoc) run scripts from this origin only; both set inline styles, and ReDoc
# starts a web worker from a blob.
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "frame-ancestors 'none'"
)


def _log_access(scope: Scope, status: int) -> None:
    """Uvicorn's access line for this request (client, method, path and query, HTTP version, status)."""
    if (status == 200 and scope["path"] in QUIET_PATHS) or not access_log.isEnabledFor(logging.INFO):
        return
    client = scope.get("client")
    path = urllib.parse.quote(scope["path"])
    if scope.get("query_string"):
        path += "?" + scope["query_string"].decode("ascii", "replace")
    where = f"{client[0]}:{client[1]}" if client else ""
    access_log.info('%s - "%s %s HTTP/%s" %d', where, scope["method"], path, scope["http_version"], status)


def _security_headers(path: str) -> list[tuple[bytes, bytes]]:
    csp = DOCS_CSP if path in DOCS_PATHS else APP_CSP
    return [
        (b"content-security-policy", csp.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
    ]


_NUL_IN_QUERY = ValidationError.of(Problem(("query",), "a query parameter holds a NUL character (%00)"))


class EdgeMiddleware:
    """Adds security headers to every response; turns any unhandled error into a bare 500 envelope."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = _security_headers(scope["path"])
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = [*message.get("headers", []), *extra]
                _log_access(scope, message["status"])
            await send(message)

        if "\x00" in scope["path"]:
            # No file, route or page has a NUL in its name; file lookups would fail on it with a 500.
            await error_response(NotFoundError("Not found"))(scope, receive, send_with_headers)
            return
        if b"%00" in scope.get("query_string", b""):
            # No parameter means anything with a NUL, and PostgreSQL refuses one in a bound value (a 500).
            await error_response(_NUL_IN_QUERY)(scope, receive, send_with_headers)
            return
        try:
            await self.app(scope, receive, send_with_headers)
        except AssayError as exc:
            if started:
                raise
            await error_response(exc)(scope, receive, send_with_headers)
        except Exception as exc:
            database = None if started else database_error_response(exc)
            if database is not None:  # busy or unreachable: a 503 to retry, not a 500
                await database(scope, receive, send_with_headers)
                return
            # Handled here rather than by Starlette's ServerErrorMiddleware so that the 500 gets the
            # headers too; the trace goes to the log (without the values a database error carries),
            # never to the client.
            logger.error(
                "unhandled error on %s %s", scope.get("method"), scope["path"], exc_info=loggable(exc)
            )
            if started:
                raise
            await internal_error_response()(scope, receive, send_with_headers)


class BodyLimitMiddleware:
    """Refuses bodies over the limit for their path: by ``Content-Length`` up front, else while reading."""

    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        too_large = f"Request body too large (limit {limit} bytes)"
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise PayloadTooLargeError(too_large)
        received = 0

        async def receive_with_limit() -> Message:
            # Raised inside the app while it reads: the envelope handler answers it (FastAPI wraps it in a
            # 400 whose cause it is; see envelope._http_error).
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise PayloadTooLargeError(too_large)
            return message

        await self.app(scope, receive_with_limit, send)
