"""A route whose request without a query string skips FastAPI's parameter solving.

FastAPI solves a route's parameters for every request: for a listing with ``limit`` and ``skip`` query
parameters that is a quarter of the route's CPU time, though nearly every request sends neither (the UI and
pipelines ask for the first page). :class:`QueryDefaultsRoute` calls such a request's endpoint directly with
the parameters' defaults; a request with a query string is served by FastAPI as usual (its bounds, its 422).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response


class QueryDefaultsRoute(APIRoute):
    """A ``GET`` route answered without solving its parameters when the request has no query string.

    Only for an ``async`` endpoint that takes the request and query parameters with defaults, and returns a
    ``Response``: with no query string, FastAPI would give each its default, which calling the endpoint with
    ``request`` alone does too. Any other route is refused when it is made (a route that changed shape must
    not be answered with missing arguments).
    """

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        dependant = self.dependant
        takes_only_queries = not (
            dependant.path_params
            or dependant.header_params
            or dependant.cookie_params
            or dependant.body_params
            or dependant.dependencies
        )
        all_default = all(not param.field_info.is_required() for param in dependant.query_params)
        if not (takes_only_queries and all_default and dependant.request_param_name):
            raise TypeError(f"{path}: QueryDefaultsRoute needs a request and query parameters with defaults")

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, but the endpoint itself for a request without a query string."""
        handler = super().get_route_handler()
        endpoint = self.endpoint
        request_name = self.dependant.request_param_name
        assert request_name is not None  # checked when made

        async def defaults_handler(request: Request) -> Response:
            if request.scope.get("query_string"):
                return await handler(request)
            response: Response = await endpoint(**{request_name: request})
            return response

        return defaults_handler
