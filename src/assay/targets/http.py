"""A target that calls an HTTP endpoint with JSON, and the HTTP session the OpenAI target shares.

The client is aiohttp: measured on this project's machine against a loopback agent at concurrency 64,
httpx managed about 850 requests/s (its pool does work quadratic in its connections per request) and
aiohttp about 6,800, and the runner has to reach 2,000 cases/s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import partial
from typing import Any

import aiohttp
import orjson
from multidict import CIMultiDictProxy
from yarl import URL

from assay.graders.trajectory.streaming import STEP_LISTS, outline, streamable
from assay.targets.base import Target, TargetCase, response_text
from assay.targets.egress import EgressPolicy, EgressRefusedError
from assay.targets.heavy_thread import in_heavy_thread
from assay.targets.policy import TargetPolicy
from assay.targets.raw import RawReply, keep_raw
from assay.targets.reasons import (
    DEFAULT_MAX_ANSWER_BYTES,
    ErrorReason,
    TargetCallError,
    http_reason,
    timeout_failure,
)
from assay.targets.redaction import Redactor
from assay.targets.reply_budget import reply_budget
from assay.targets.resolver import connection_resolver
from assay.targets.retry import RetryPolicy
from assay.targets.specs import HttpTargetSpec, TrajectoryOption, secret_names
from assay.targets.templates import fill_secrets, render
from assay.targets.trace_capture import TRACEPARENT, Capture, TraceContext, TraceReceiver, note_capture
from assay.targets.usage import note_usage, read_usage

_RETRYABLE_STATUS = frozenset({408, 429})
_DETAIL_CHARS = 200


MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_KEPT_ACROSS_ORIGINS = frozenset({"content-type", "accept"})
_BODY_OVERHEAD_BYTES = 64 * 1024
"""Room for the JSON around an answer: a reply body may exceed the answer cap by this much."""


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

    Every request goes through the egress policy (the URL before it is sent, each resolved address on
    connecting), follows no redirect by itself, and reads at most the answer cap (plus room for JSON) of a
    body, with the secrets its requests carry taken out (``redactor``) before anything reads it. The aiohttp
    session is opened on first use, inside the event loop that runs the evaluation.
    """

    def __init__(
        self,
        timeout: float,
        concurrency: int,
        *,
        egress: EgressPolicy | None = None,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        redactor: Redactor | None = None,
    ) -> None:
        self.redactor = redactor if redactor is not None else Redactor()
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._limit = concurrency
        self._egress = egress if egress is not None else EgressPolicy.unrestricted()
        self.max_answer_bytes = max_answer_bytes
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=self._limit,
                limit_per_host=self._limit,
                resolver=connection_resolver(self._egress),
                # Each new connection resolves (and is checked) again: a name may not rebind past the policy.
                use_dns_cache=not self._egress.restricted,
            )
            self._session = aiohttp.ClientSession(connector=connector, timeout=self._timeout)
        return self._session

    async def request(self, method: str, url: str, *, body_limit: int | None = None, **kwargs: Any) -> Reply:
        """One request, redirects not followed, its body read up to the cap (``body_limit`` bytes when
        given, else the answer cap plus room for the JSON around it)."""
        self._egress.check_url(url)
        async with self._open().request(method, url, allow_redirects=False, **kwargs) as response:
            if body_limit is None:
                body = await _read_capped(response, self.max_answer_bytes, body_limit, self.redactor)
                return Reply(response.status, response.headers, self.redactor.bytes(body))
            return Reply(response.status, response.headers, await self._read_held(response, body_limit))

    async def _read_held(self, response: aiohttp.ClientResponse, body_limit: int) -> bytes:
        """A body that may carry a trajectory, read within the process's byte budget (``reply_budget``):
        a large one holds its size there until it is let go."""
        budget, held = reply_budget(), 0
        length = response.content_length
        if length is not None and length > LARGE_BODY_BYTES:
            held = await budget.take(length)
        try:
            body = self.redactor.bytes(
                await _read_capped(response, self.max_answer_bytes, body_limit, self.redactor)
            )
        except BaseException:
            if held:
                budget.give_back(held)
            raise
        if len(body) <= LARGE_BODY_BYTES:
            if held:
                budget.give_back(held)
            return body
        if not held:  # of unknown length: its size is known only now
            held = await budget.take(len(body))
        return budget.hold(body, held)

    async def aclose(self) -> None:
        """Close the pool."""
        if self._session is not None:
            await self._session.close()


async def _read_capped(
    response: aiohttp.ClientResponse,
    max_answer_bytes: int,
    body_limit: int | None = None,
    redactor: Redactor | None = None,
) -> bytes:
    limit = max_answer_bytes + _BODY_OVERHEAD_BYTES if body_limit is None else body_limit
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(64 * 1024):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            whole = b"".join(chunks)
            cut = (redactor.bytes(whole) if redactor else whole)[: min(max_answer_bytes, limit)]
            cap = (
                f"ASSAY_MAX_ANSWER_BYTES is {max_answer_bytes:,}"
                if body_limit is None
                else "the cap of this call"
            )
            raise TargetCallError(
                ErrorReason.ANSWER_TOO_LARGE.value,
                f"reply body over {limit:,} bytes ({cap})",
                output=cut.decode(errors="ignore"),
            )
    return b"".join(chunks)


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


async def send(
    session: HttpSession,
    method: str,
    url: str,
    timeout: float,
    *,
    follow_redirects: bool = False,
    body_limit: int | None = None,
    **kwargs: Any,
) -> Reply:
    """One request; transport failures and 408/429/5xx raise a retryable :class:`TargetCallError`.

    A redirect is an ``http_redirect`` error unless ``follow_redirects``; then each hop is sent again
    through the policy, and headers other than the content type are dropped when the origin changes (they
    may hold secrets meant for the first one). Header values are never put into a failure's detail.
    """
    for _ in range(MAX_REDIRECTS + 1):
        reply = await _send_once(session, method, url, timeout, body_limit=body_limit, **kwargs)
        keep_raw(partial(_raw, reply, url))
        location = reply.headers.get("location")
        if reply.status not in _REDIRECTS or location is None:
            _check_status(reply)
            return reply
        if not follow_redirects:
            raise TargetCallError(
                ErrorReason.HTTP_REDIRECT.value,
                f"HTTP {reply.status} redirect not followed (set follow_redirects to follow it)",
            )
        method, url, kwargs = _next_hop(reply.status, method, url, location, kwargs)
    raise TargetCallError(ErrorReason.HTTP_REDIRECT.value, f"more than {MAX_REDIRECTS} redirects")


async def _send_once(
    session: HttpSession, method: str, url: str, timeout: float, *, body_limit: int | None, **kwargs: Any
) -> Reply:
    try:
        return await session.request(method, url, body_limit=body_limit, **kwargs)
    except EgressRefusedError as exc:
        raise TargetCallError(ErrorReason.EGRESS_REFUSED.value, exc.rule) from exc
    except TimeoutError as exc:
        raise timeout_failure(timeout) from exc
    except aiohttp.ClientConnectorError as exc:
        if isinstance(exc.os_error, EgressRefusedError):
            raise TargetCallError(ErrorReason.EGRESS_REFUSED.value, exc.os_error.rule) from exc
        raise TargetCallError("connection_error", connect_failure(url, exc), retryable=True) from exc
    except aiohttp.InvalidURL as exc:
        raise TargetCallError(ErrorReason.EGRESS_REFUSED.value, f"not a valid URL: {exc}") from exc
    except aiohttp.ClientError as exc:
        detail = f"{_first_lower(str(exc) or type(exc).__name__)} ({type(exc).__name__}) from {url}"
        raise TargetCallError("connection_error", detail[:_DETAIL_CHARS], retryable=True) from exc


def _raw(reply: Reply, url: str) -> RawReply:
    """The reply as a test of the target shows it (headers left out: the status and type say enough)."""
    return RawReply.of(
        f"HTTP {reply.status} from {url}",
        reply.text,
        status=reply.status,
        content_type=reply.headers.get("content-type"),
    )


def _first_lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _os_cause(error: OSError) -> str:
    """What went wrong, as the OS says it: ``connection refused``, ``name or service not known``."""
    if error.errno is not None and error.errno > 0:
        return _first_lower(os.strerror(error.errno))  # asyncio's own "Connect call failed (...)" says less
    return _first_lower(error.strerror or str(error) or type(error).__name__)


def connect_failure(url: str, exc: aiohttp.ClientConnectorError) -> str:
    """A failed connection as a user reads it: the cause and the URL (``connection refused to http://…``)."""
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return f"cannot resolve {exc.host} ({_os_cause(exc.os_error)}) for {url}"
    if isinstance(exc, aiohttp.ClientSSLError):
        return f"TLS handshake failed with {url}: {exc}"[:_DETAIL_CHARS]
    return f"{_os_cause(exc.os_error)} to {url}"


def _next_hop(
    status: int, method: str, url: str, location: str, kwargs: dict[str, Any]
) -> tuple[str, str, dict[str, Any]]:
    """Method, URL and request options of the hop a redirect points to (as browsers follow them)."""
    current = URL(url)
    target = current.join(URL(location))
    if target.scheme not in ("http", "https"):
        raise TargetCallError(
            ErrorReason.HTTP_REDIRECT.value, f"redirect to a {target.scheme or 'relative'} URL"
        )
    options = dict(kwargs)
    if status == 303 or (status in (301, 302) and method == "POST"):
        method = "GET"
        options.pop("data", None)
    if target.origin() != current.origin():
        headers = options.get("headers") or {}
        options["headers"] = {
            key: value for key, value in headers.items() if key.lower() in _KEPT_ACROSS_ORIGINS
        }
    return method, str(target), options


_ABSENT = object()


def find_path(document: Any, path: str) -> Any:
    """The value at a dotted ``path`` (list items by index), or :data:`_ABSENT`."""
    value = document
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _ABSENT
    return value


def read_path(document: Any, path: str) -> Any:
    """The value at a dotted ``path`` (list items by index); ``bad_response`` when it is not there."""
    value = find_path(document, path)
    if value is _ABSENT:
        raise TargetCallError(ErrorReason.BAD_RESPONSE.value, f"reply has no '{path}'")
    return value


def parse_json(reply: Reply) -> Any:
    """The reply's JSON body; ``bad_response`` when it is not JSON."""
    try:
        return orjson.loads(memoryview(reply.body))  # a held body is a bytes subclass, which orjson refuses
    except orjson.JSONDecodeError as exc:
        raise TargetCallError(
            ErrorReason.BAD_RESPONSE.value, f"reply is not JSON: {reply.text[:_DETAIL_CHARS]!r}"
        ) from exc


def trace_headers(
    option: TrajectoryOption | None, headers: dict[str, str], receiver: TraceReceiver | None
) -> tuple[dict[str, str], TraceContext | None]:
    """``headers`` with a fresh ``traceparent`` when the target captures trajectories (a trace per call);
    the receiver, for OTLP capture, is told of the trace before the call is sent."""
    if option is None:
        return headers, None
    trace = TraceContext.fresh()
    if option.source == "otlp" and receiver is not None:
        receiver.expect(trace.trace_id, trace.span_id)
    return {**headers, TRACEPARENT: trace.header}, trace


def capture_body_limit(option: TrajectoryOption | None) -> int | None:
    """The cap of a reply body: the trajectory's own when the reply carries one, else the answer's."""
    return option.max_bytes if option is not None and option.source == "reply" else None


def note_trajectory(option: TrajectoryOption | None, trace: TraceContext | None, document: Any) -> None:
    """Note what this call captured: the reply's part at the option's path, or the trace of its spans."""
    if option is None or trace is None:
        return
    if option.source == "otlp":
        note_capture(Capture(trace, from_reply=False, dialect="otlp", grace_s=option.grace_s))
        return
    found = find_path(document, option.path) if option.path else document
    if found is _ABSENT:
        problem = f"is not in the reply: it has no '{option.path}' (the trajectory's path)"
        note_capture(Capture(trace, from_reply=True, dialect=option.dialect, problem=problem))
    else:
        note_capture(Capture(trace, from_reply=True, dialect=option.dialect, document=found))


LARGE_BODY_BYTES = 256 * 1024
"""A reply body past this is parsed on the heavy-work thread: megabytes of JSON take tens of ms."""


async def parse_large_json(reply: Reply) -> Any:
    """:func:`parse_json`, on the heavy-work thread for a large body (one carrying a trajectory, mostly)."""
    if len(reply.body) <= LARGE_BODY_BYTES:
        return parse_json(reply)
    return await in_heavy_thread(parse_json, reply)


def _crosses(path: str, trajectory_path: str) -> bool:
    """Whether a value read at ``path`` may lie inside the trajectory's list of steps (or be it)."""
    parts, inside = path.split("."), trajectory_path.split(".") if trajectory_path else []
    if parts[: len(inside)] != inside:
        return False
    below = parts[len(inside) :]
    return not below or below[0] in STEP_LISTS or below[0].isdigit()


def outlines(option: TrajectoryOption | None, paths: tuple[str | None, ...]) -> bool:
    """Whether a reply is outlined (``graders.trajectory.streaming``) rather than parsed whole: it carries
    the trajectory at a path without list indices, and no other value read from it lies in the steps."""
    return (
        option is not None
        and option.source == "reply"
        and streamable(option.path)
        and not any(path is not None and _crosses(path, option.path) for path in paths)
    )


def _outline(reply: Reply, path: str) -> Any:
    try:
        return outline(reply.body, path or None)
    except ValueError:  # not JSON, or JSON ijson refuses (an integer past 64 bits): parsed whole, as before
        return parse_json(reply)


async def parse_reply(reply: Reply, option: TrajectoryOption | None, paths: tuple[str | None, ...]) -> Any:
    """The reply's JSON (:func:`parse_large_json`); a large one carrying a trajectory is outlined instead:
    its steps stay in the body's text, read one at a time by the trajectory's reader, so a reply of
    megabytes never becomes tens of megabytes of objects, nor one call that holds the interpreter long.
    ``paths`` are the values read from the reply besides the trajectory (the answer, the usage)."""
    if len(reply.body) <= LARGE_BODY_BYTES or option is None or not outlines(option, paths):
        return await parse_large_json(reply)
    return await in_heavy_thread(_outline, reply, option.path)


class HttpTarget(Target):
    """Sends each case to an HTTP endpoint and reads the answer from its reply."""

    def __init__(
        self, spec: HttpTargetSpec, *, concurrency: int = 8, policy: TargetPolicy | None = None
    ) -> None:
        policy = policy if policy is not None else TargetPolicy.unrestricted()
        retry = RetryPolicy(attempts=spec.max_attempts, timeout=spec.timeout)
        # Secrets are read now, kept in memory for this run only, never stored or shown (nor echoed back).
        self._secrets = policy.secrets.values(secret_names(spec), where=("target",))
        redactor = Redactor.of(self._secrets.values())
        super().__init__(retry, max_answer_bytes=policy.max_answer_bytes, redactor=redactor)
        self.spec = spec
        egress, cap = policy.egress, policy.max_answer_bytes
        self._session = HttpSession(
            spec.timeout, concurrency, egress=egress, max_answer_bytes=cap, redactor=redactor
        )
        self._headers = {key: fill_secrets(value, self._secrets) for key, value in spec.headers.items()}
        self._json_headers = {"content-type": "application/json", **self._headers}
        self.traces = policy.traces

    async def call(self, case: TargetCase) -> str | None:
        """POST (or the configured method) the rendered template and read the configured path."""
        spec = self.spec
        if spec.body_template is None:  # a conversation's messages beside its text (docs/conversations.md)
            body: Any = (
                {"input": case.input}
                if case.messages is None
                else {"input": case.input, "messages": case.chat()}
            )
        else:
            body = render(spec.body_template, case, self._secrets)
        if spec.method == "GET":
            params = body if isinstance(body, dict) else {"input": case.input}
            request: dict[str, Any] = {
                "params": {key: response_text(value) or "" for key, value in params.items()},
                "headers": self._headers,
            }
        else:
            request = {"data": orjson.dumps(body), "headers": self._json_headers}
        request["headers"], trace = trace_headers(spec.trajectory, request["headers"], self.traces)
        follow = spec.follow_redirects
        limit = capture_body_limit(spec.trajectory)
        reply = await send(
            self._session,
            spec.method,
            spec.url,
            spec.timeout,
            follow_redirects=follow,
            body_limit=limit,
            **request,
        )
        if spec.response_path is None:
            note_trajectory(spec.trajectory, trace, None)
            return reply.text
        document = await parse_reply(reply, spec.trajectory, (spec.response_path, spec.usage_path, "model"))
        del reply  # an outlined trajectory holds the body's bytes until it is read; nothing else does
        note_trajectory(spec.trajectory, trace, document)
        if spec.usage_path is not None:
            found = find_path(document, spec.usage_path)  # absent: read_usage says unknown
            model = document.get("model") if isinstance(document, dict) else None
            note_usage(read_usage(found, model=model))
        return response_text(read_path(document, spec.response_path))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._session.aclose()
