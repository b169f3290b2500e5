"""JSON request bodies decoded and validated on a worker thread rather than on the event loop.

FastAPI reads a route's JSON body, decodes it and validates it against the route's model on the event loop,
before a sync route's function is handed to a thread: a 10,000-item grade-batch costs the loop some 25 ms of
CPU (more while other threads compete for the interpreter), during which health checks and live evaluations
wait. :class:`ThreadedBodyRoute` moves that work to a worker thread for large bodies, with the route's own
body field: the OpenAPI document, the values, the errors and their envelope stay FastAPI's.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Coroutine
from typing import Any

from anyio import to_thread
from fastapi import params
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response

from assay.api.envelope import validation_error

OFF_LOOP_BODY_BYTES = 64 * 1024
"""Bodies from this size on are decoded and validated on a worker thread; a smaller one costs the loop well
under a millisecond, less than the hop to a thread (and the wait for a free one) would."""

GRADE_ON_LOOP_MAX_BYTES = 4 * 1024
"""A grade request whose body is smaller is graded on the event loop: with texts and a config this small,
building and running any grader that is not ``cpu_bound`` costs well under a millisecond (bench/README.md),
less than a hop to a worker thread. A larger one (up to the body cap) is graded on a worker thread."""

_BODY_LOC = ("body",)
"""Where FastAPI places the problems of a route's single (not embedded) body."""


class _ParsedBodyRequest(Request):
    """The request as FastAPI gets it: ``json()`` answers the body as ``parse`` makes it (on a worker thread
    when the body is large)."""

    def __init__(self, request: Request, parse: Callable[[bytes], Any]) -> None:
        super().__init__(request.scope, request.receive)
        self._parse = parse
        self.body_bytes = 0
        """The length of the body, once read."""

    async def body(self) -> bytes:
        """The body's bytes, their length noted."""
        body = await super().body()
        self.body_bytes = len(body)
        return body

    async def json(self) -> Any:
        """The body, decoded (and, when large, validated)."""
        if not hasattr(self, "_json"):
            body = await self.body()
            large = len(body) >= OFF_LOOP_BODY_BYTES
            self._json = await to_thread.run_sync(self._parse, body) if large else json.loads(body)
        return self._json


def body_bytes(request: Request) -> int:
    """The length of the JSON body of a request served by a :class:`ThreadedBodyRoute` (its
    ``Content-Length`` otherwise): a route decides from it, before any hop, whether its work is large."""
    if isinstance(request, _ParsedBodyRequest):
        return request.body_bytes
    length = request.headers.get("content-length", "")
    return int(length) if length.isdigit() else 0


class ThreadedBodyRoute(APIRoute):
    """A route whose large JSON body is decoded and validated on a worker thread.

    FastAPI is handed a request whose ``json()`` is the body already validated (a model instance, which
    FastAPI's own validation passes through untouched). Malformed JSON raises the ``JSONDecodeError`` FastAPI
    turns into its usual ``json_invalid`` error; an invalid body raises the envelope's ``VALIDATION_ERROR``
    with the problems FastAPI would list (FastAPI wraps an error raised while it reads a body in a 400 whose
    cause it is, and :mod:`assay.api.envelope` answers the cause). A route whose body is embedded (several
    body parameters) or a form is served as FastAPI serves it.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, given a request whose large JSON body is parsed off the loop."""
        handler = super().get_route_handler()
        parse = self.body_parser()
        if parse is None:
            return handler

        async def parsed_body_handler(request: Request) -> Response:
            return await handler(_ParsedBodyRequest(request, parse))

        return parsed_body_handler

    def body_parser(self) -> Callable[[bytes], Any] | None:
        """Decodes and validates a body as FastAPI would; ``None`` for a body that is not one JSON field."""
        field = self.body_field
        # Not embedded: FastAPI validates the whole body against this one field (its first body parameter).
        single = field is not None and any(field is param for param in self.dependant.body_params)
        if field is None or not single or isinstance(field.field_info, params.Form):
            return None
        body_field = field

        def parse(body: bytes) -> Any:
            value, errors = body_field.validate(json.loads(body), {}, loc=_BODY_LOC)
            if errors:
                raise validation_error(RequestValidationError(errors))
            return value

        return parse


class DirectBodyRoute(ThreadedBodyRoute):
    """A :class:`ThreadedBodyRoute` whose small, valid JSON request calls its endpoint without FastAPI's
    parameter solving, a fifth of a small grade request's CPU time (bench/README.md, issue 30).

    Only for an ``async`` endpoint that takes path parameters, one JSON body and the request, and returns a
    ``Response`` (anything else is refused when the route is made). A request without a query string, with a
    ``Content-Type`` of ``application/json`` and a body under ``OFF_LOOP_BODY_BYTES`` whose path parameters
    and body each validate is answered by calling the endpoint with those values, which is what FastAPI
    would call it with; any other request, an invalid one included, is served by FastAPI as usual (its
    errors, their envelope).
    """

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        dependant = self.dependant
        direct = (
            inspect.iscoroutinefunction(endpoint)
            and dependant.request_param_name is not None
            and len(dependant.body_params) == 1
            and self.body_field is dependant.body_params[0]
            and not (
                dependant.query_params
                or dependant.header_params
                or dependant.cookie_params
                or dependant.dependencies
            )
            and inspect.signature(endpoint, eval_str=True).return_annotation is Response
            and self.body_parser() is not None
        )
        if not direct:
            raise TypeError(
                f"{path}: DirectBodyRoute needs an async endpoint of path parameters, a JSON body "
                "and the request, returning a Response"
            )

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, but the endpoint itself for a small valid JSON request."""
        handler = APIRoute.get_route_handler(self)  # given the request below, whose body it reads once
        parse = self.body_parser()
        assert parse is not None  # checked when made
        endpoint = self.endpoint
        dependant = self.dependant
        request_name = dependant.request_param_name
        body_field = dependant.body_params[0]
        path_fields = [(field.alias, field.name, field) for field in dependant.path_params]

        async def direct_handler(request: Request) -> Response:
            request = _ParsedBodyRequest(request, parse)
            scope = request.scope
            content_type = Headers(scope=scope).get("content-type", "")
            if scope.get("query_string") or content_type.partition(";")[0].strip() != "application/json":
                return await handler(request)
            body = await request.body()
            if len(body) >= OFF_LOOP_BODY_BYTES:
                return await handler(request)
            values: dict[str, Any] = {}
            for alias, name, field in path_fields:
                value, errors = field.validate(scope["path_params"].get(alias), values, loc=("path", alias))
                if errors:
                    return await handler(request)
                values[name] = value
            try:
                decoded = json.loads(body)
            except ValueError:
                return await handler(request)
            value, errors = body_field.validate(decoded, values, loc=_BODY_LOC)
            if errors:
                return await handler(request)
            values[body_field.name] = value
            values[str(request_name)] = request
            response: Response = await endpoint(**values)
            return response

        return direct_handler
