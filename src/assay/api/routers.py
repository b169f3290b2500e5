"""The API's routers, made alike: every route documents the error envelope and renders JSON as the app does.

:mod:`assay.api.app` serves these routers' own routes, which FastAPI builds once, when their module is
imported (a TypeAdapter per parameter and response); an *included* router's routes are built again for
each app, at its first requests (some 0.2 s of CPU per app, and the API tests start thousands). Serving
them as they are needs them to be what an inclusion into the app would make of them: the app's JSON
rendering (:class:`SafeJSONResponse`), which a route would otherwise only get from the app when included.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from fastapi import APIRouter
from fastapi.routing import APIRoute

from assay.api.envelope import ERROR_RESPONSES
from assay.api.rendering import SafeJSONResponse


def api_router(
    *, prefix: str = "", tags: Sequence[str | Enum], route_class: type[APIRoute] = APIRoute
) -> APIRouter:
    """A router of the API under ``prefix``: its routes list the error envelope's answers and render JSON with
    :class:`SafeJSONResponse` unless a route says otherwise."""
    return APIRouter(
        prefix=prefix,
        tags=list(tags),
        responses=ERROR_RESPONSES,
        route_class=route_class,
        default_response_class=SafeJSONResponse,
    )
