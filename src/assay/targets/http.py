"""A target that calls an HTTP endpoint with JSON, and the HTTP session the OpenAI target shares.

The client is aiohttp: measured on this project's machine against a loopback agent at concurrency 64,
httpx managed about 850 requests/s (its pool does work quadratic in its connections per request) and
aiohttp about 6,800, and the runner has to reach 2,000 cases/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp
import orjson
from multidict import CIMultiDictProxy

from assay.targets.base import Target, TargetCase, response_text
from assay.targets.reasons import ErrorReason, TargetCallError, http_reason, timeout_failure
from assay.targets.retry import RetryPolicy
from assay.targets.specs import HttpTargetSpec
from assay.targets.templates import render

_RETRYABLE_STATUS = frozenset({408, 429})
_DETAIL_CHARS = 200


@dataclass(frozen=True, slots=True)
class Reply:
    """A whole HTTP reply, read."""

    status: int
    headers: CIMultiDictProxy[str]
    body: bytes

    @property
    def text(self) -> str:
        """The body as text (undecodable bytes replaced)."""
        return self.body.decode(errors="replace")


class HttpSession:
    """The HTTP client of one evaluation: a keep-alive pool with room for ``concurrency`` calls.

    The aiohttp session is opened on first use, inside the event loop that runs the evaluation.
    """

    def __init__(self, timeout: float, concurrency: int) -> None:
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._limit = concurrency
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=self._limit, limit_per_host=self._limit)
            self._session = aiohttp.ClientSession(connector=connector, timeout=self._timeout)
        return self._session

    async def request(self, method: str, url: str, **kwargs: Any) -> Reply:
        """One request, its body read in full."""
        async with self._open().request(method, url, **kwargs) as response:
            return Reply(response.status, response.headers, await response.read())

    async def aclose(self) -> None:
        """Close the pool."""
        if self._session is not None:
            await self._session.close()


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


def _check_status(reply: Reply) -> None:
    status = reply.status
    if 200 <= status < 300:
        return
    retryable = status in _RETRYABLE_STATUS or status >= 500
    raise TargetCallError(
        http_reason(status, retried=False),
        f"HTTP {status}: {reply.text[:_DETAIL_CHARS]}",
        retryable=retryable,
        retry_after=_retry_after(reply.headers.get("retry-after")) if retryable else None,
    )


async def send(session: HttpSession, method: str, url: str, timeout: float, **kwargs: Any) -> Reply:
    """One request; transport failures and 408/429/5xx raise a retryable :class:`TargetCallError`.

    Header values are never put into a failure's detail: they may be secrets.
    """
    try:
        reply = await session.request(method, url, **kwargs)
    except TimeoutError as exc:
        raise timeout_failure(timeout) from exc
    except aiohttp.ClientError as exc:
        raise TargetCallError("connection_error", type(exc).__name__, retryable=True) from exc
    _check_status(reply)
    return reply


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


def parse_json(reply: Reply) -> Any:
    """The reply's JSON body; ``bad_response`` when it is not JSON."""
    try:
        return orjson.loads(reply.body)
    except orjson.JSONDecodeError as exc:
        raise TargetCallError(
            ErrorReason.BAD_RESPONSE.value, f"reply is not JSON: {reply.text[:_DETAIL_CHARS]!r}"
        ) from exc


class HttpTarget(Target):
    """Sends each case to an HTTP endpoint and reads the answer from its reply."""

    def __init__(self, spec: HttpTargetSpec, *, concurrency: int = 8) -> None:
        super().__init__(RetryPolicy(attempts=spec.max_attempts, timeout=spec.timeout))
        self.spec = spec
        self._session = HttpSession(spec.timeout, concurrency)
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
                "params": {key: response_text(value) or "" for key, value in params.items()},
                "headers": self._headers,
            }
        else:
            request = {"data": orjson.dumps(body), "headers": self._json_headers}
        reply = await send(self._session, spec.method, spec.url, spec.timeout, **request)
        if spec.response_path is None:
            return reply.text
        return response_text(read_path(parse_json(reply), spec.response_path))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._session.aclose()
