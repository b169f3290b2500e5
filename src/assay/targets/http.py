"""A target that calls an HTTP endpoint with JSON, and the request helper the OpenAI target shares."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import orjson

from assay.targets.base import Target, TargetCase, response_text
from assay.targets.reasons import ErrorReason, TargetCallError, http_reason, timeout_failure
from assay.targets.retry import RetryPolicy
from assay.targets.specs import HttpTargetSpec
from assay.targets.templates import render

_RETRYABLE_STATUS = frozenset({408, 429})
_DETAIL_CHARS = 200


def make_client(timeout: float, concurrency: int) -> httpx.AsyncClient:
    """One client per evaluation: a connection pool as large as the concurrency, kept alive between calls."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout),
        limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        follow_redirects=True,
    )


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date); ``None`` when absent or bad."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _check_status(response: httpx.Response) -> None:
    status = response.status_code
    if 200 <= status < 300:
        return
    retryable = status in _RETRYABLE_STATUS or status >= 500
    detail = f"HTTP {status}: {response.text[:_DETAIL_CHARS]}"
    raise TargetCallError(
        http_reason(status, retried=False),
        detail,
        retryable=retryable,
        retry_after=_retry_after(response.headers.get("retry-after")) if retryable else None,
    )


async def send(
    client: httpx.AsyncClient, method: str, url: str, timeout: float, **kwargs: Any
) -> httpx.Response:
    """One request; transport failures and 408/429/5xx raise a retryable :class:`TargetCallError`.

    Header values are never put into a failure's detail: they may be secrets.
    """
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.TimeoutException as exc:
        raise timeout_failure(timeout) from exc
    except httpx.TransportError as exc:
        raise TargetCallError("connection_error", type(exc).__name__, retryable=True) from exc
    _check_status(response)
    return response


def read_path(document: Any, path: str) -> Any:
    """The value at a dotted ``path`` (list items by index); ``bad_response`` when it is not there."""
    value = document
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise TargetCallError(ErrorReason.BAD_RESPONSE.value, f"reply has no '{path}'")
    return value


def parse_json(response: httpx.Response) -> Any:
    """The reply's JSON body; ``bad_response`` when it is not JSON."""
    try:
        return orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise TargetCallError(
            ErrorReason.BAD_RESPONSE.value, f"reply is not JSON: {response.text[:_DETAIL_CHARS]!r}"
        ) from exc


class HttpTarget(Target):
    """Sends each case to an HTTP endpoint and reads the answer from its reply."""

    def __init__(
        self, spec: HttpTargetSpec, *, concurrency: int = 8, client: httpx.AsyncClient | None = None
    ) -> None:
        super().__init__(RetryPolicy(attempts=spec.max_attempts, timeout=spec.timeout))
        self.spec = spec
        self._client = client or make_client(spec.timeout, concurrency)
        self._headers = dict(spec.headers)
        self._json_headers = {"content-type": "application/json", **spec.headers}

    async def call(self, case: TargetCase) -> str | None:
        """POST (or the configured method) the rendered template and read the configured path."""
        spec = self.spec
        if spec.body_template is None:
            body: Any = {"input": case.input}
        else:
            body = render(spec.body_template, case)
        if spec.method == "GET":
            params = body if isinstance(body, dict) else {"input": case.input}
            request: dict[str, Any] = {
                "params": {key: response_text(value) for key, value in params.items()},
                "headers": self._headers,
            }
        else:
            request = {"content": orjson.dumps(body), "headers": self._json_headers}
        response = await send(self._client, spec.method, spec.url, spec.timeout, **request)
        if spec.response_path is None:
            return response.text
        return response_text(read_path(parse_json(response), spec.response_path))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()
