"""Sends the calls graders ask for (a model judge's) through the targets' HTTP code, under the same policy.

A grader's call goes where an agent's would: the egress policy checks the URL and every resolved address,
redirects are not followed, the key is read by name through the secret policy (on a server:
``ASSAY_SECRET_*`` or ``ASSAY_TARGET_SECRETS`` only), each attempt has a timeout, retryable failures are
retried with backoff honouring ``Retry-After``, and the reply body is capped. The key's value is sent in the
``Authorization`` header only: it is taken out of anything handed back (a body or an error's detail that
echoes it), so it cannot reach a verdict's details, the database or a log.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import TYPE_CHECKING

import orjson

from assay.errors import Loc, Problem, ValidationError
from assay.graders.contract.calls import CallReply, CallTransport, Endpoint, OutboundCall
from assay.targets.egress import EgressRefusedError
from assay.targets.policy import TargetPolicy
from assay.targets.reasons import ErrorReason, TargetCallError
from assay.targets.redaction import Redactor
from assay.targets.retry import RetryPolicy, call_with_retries
from assay.targets.usage import JudgeSpend, Usage, read_reply_usage

if TYPE_CHECKING:
    from assay.targets.http import HttpSession

__all__ = ["GraderCalls", "SpendCounter", "check_endpoint"]

SESSION_TIMEOUT_S = 600.0
"""The pool's own limit; each attempt has the endpoint's (shorter) timeout."""


def check_endpoint(endpoint: Endpoint, policy: TargetPolicy, *, where: Loc = ("grader", "config")) -> None:
    """Refuse, before any call, an endpoint whose key is not available or whose URL the egress policy
    refuses as written (a ``ValidationError`` naming the config field, as for a target)."""
    if endpoint.api_key_env is not None:
        policy.secrets.value(endpoint.api_key_env, where=(*where, endpoint.key_field))
    try:
        policy.egress.check_url(endpoint.url)
    except EgressRefusedError as exc:
        raise ValidationError.of(Problem((*where, endpoint.url_field), exc.rule)) from None


class GraderCalls:
    """The transport of graders' calls for one run (or one server): a keep-alive pool of ``concurrency``.

    Use it as an async context manager so the pool is closed. The HTTP client (aiohttp, ~0.1 s to import)
    is loaded by the first call: a server holds one of these from its start, and most never call a judge.
    """

    def __init__(self, policy: TargetPolicy | None = None, *, concurrency: int = 8) -> None:
        self._policy = policy if policy is not None else TargetPolicy.unrestricted()
        self._concurrency = concurrency
        self._session: HttpSession | None = None

    def _pool(self) -> HttpSession:
        if self._session is None:
            from assay.targets.http import HttpSession

            self._session = HttpSession(
                SESSION_TIMEOUT_S,
                self._concurrency,
                egress=self._policy.egress,
                max_answer_bytes=self._policy.max_answer_bytes,
            )
        return self._session

    async def send(self, call: OutboundCall) -> CallReply:
        """POST the call's body; never raises but for cancellation (failures are a reply's ``error``)."""
        started = time.perf_counter()
        endpoint = call.endpoint
        key: str | None = None
        try:
            if endpoint.api_key_env is not None:
                key = self._policy.secrets.value(endpoint.api_key_env, where=(endpoint.key_field,))
            data = orjson.dumps(call.body)
        except ValidationError as exc:
            reason = ErrorReason.SECRET_UNAVAILABLE.value
            return CallReply(error=reason, error_detail=exc.message, latency_ms=_ms(started))
        except (TypeError, orjson.JSONEncodeError) as exc:
            reason = ErrorReason.BAD_REQUEST.value
            return CallReply(error=reason, error_detail=str(exc), latency_ms=_ms(started))
        headers = {"content-type": "application/json"}
        if key is not None:
            headers["authorization"] = f"Bearer {key}"
        redact = Redactor.of([key])  # the pool is shared by endpoints of different keys: one per call
        retry = RetryPolicy(
            attempts=endpoint.max_attempts, timeout=endpoint.timeout, total=endpoint.max_total_seconds
        )
        from assay.targets.http import send

        session = self._pool()
        try:
            reply, attempts = await call_with_retries(
                lambda: send(
                    session,
                    "POST",
                    endpoint.url,
                    endpoint.timeout,
                    body_limit=endpoint.max_reply_bytes,
                    data=data,
                    headers=headers,
                ),
                retry,
            )
        except TargetCallError as failure:
            return CallReply(
                error=failure.final_reason,
                error_detail=redact.text(failure.detail) or None,
                latency_ms=_ms(started),
                attempts=failure.attempts,
            )
        except Exception as exc:  # a bug in the HTTP code must fail one answer, not the run
            return CallReply(
                error=ErrorReason.TARGET_ERROR.value,
                error_detail=redact.text(f"{type(exc).__name__}: {exc}"),
                latency_ms=_ms(started),
            )
        return CallReply(
            status=reply.status, body=redact.bytes(reply.body), latency_ms=_ms(started), attempts=attempts
        )

    async def aclose(self) -> None:
        """Close the pool (if a call opened one)."""
        if self._session is not None:
            await self._session.aclose()

    async def __aenter__(self) -> GraderCalls:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 3)


class SpendCounter:
    """A transport that notes what each call it passes on said it spent (the calls grading one case): the
    judge's spend is counted where every call goes through, whichever grader or composite asked for it."""

    __slots__ = ("_calls", "_unknown", "_usages")

    def __init__(self, calls: CallTransport) -> None:
        self._calls = calls
        self._usages: list[Usage] = []
        self._unknown = 0

    async def send(self, call: OutboundCall) -> CallReply:
        """Send through the wrapped transport; read the reply's ``usage`` (a failed call spent unknown)."""
        reply = await self._calls.send(call)
        usage = None
        if reply.error is None and reply.body:
            usage = read_reply_usage(reply.body, model=call.body.get("model"))
        if usage is None:
            self._unknown += 1
        else:
            self._usages.append(usage)
        return reply

    def spend(self) -> JudgeSpend | None:
        """What the calls sent so far spent; ``None`` when none was sent."""
        if not self._usages and not self._unknown:
            return None
        return JudgeSpend(tuple(self._usages), self._unknown)
