"""Bearer-key protection of ``/api`` (except ``/api/health``) and of the OTLP receiver ``/v1/traces``, on
only when ``ASSAY_API_KEY`` is set."""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from assay.errors import UnauthorizedError

OPEN_PATHS = frozenset({"/api/health"})
OTLP_PATH = "/v1/traces"
"""Agents' exporters send the key as a header (``OTEL_EXPORTER_OTLP_HEADERS``)."""


def is_protected(path: str) -> bool:
    """Whether a request to ``path`` needs the key."""
    return ((path == "/api" or path.startswith("/api/")) and path not in OPEN_PATHS) or path == OTLP_PATH


class ApiKeyMiddleware:
    """Lets a protected request through only with ``Authorization: Bearer <key>``.

    A middleware rather than a dependency so that every ``/api`` route, including ones added later and
    unknown ones (which answer 401, not 404, so that the route map is not disclosed), is covered.
    """

    def __init__(self, app: ASGIApp, api_key: str) -> None:
        self.app = app
        self.expected = api_key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and is_protected(scope["path"]):
            scheme, _, token = Headers(scope=scope).get("authorization", "").partition(" ")
            given = token.strip().encode("utf-8", "replace")
            # compare_digest takes the same time wherever the first difference is.
            if not (scheme.lower() == "bearer" and hmac.compare_digest(given, self.expected)):
                # Answered by the edge middleware outside this one, with WWW-Authenticate.
                raise UnauthorizedError("Missing or invalid API key (send 'Authorization: Bearer <key>')")
        await self.app(scope, receive, send)
