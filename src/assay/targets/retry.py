"""One retry policy for every target: per-attempt timeout, exponential backoff with jitter, Retry-After."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from assay.targets.reasons import TargetCallError, timeout_failure

if TYPE_CHECKING:  # tenacity is imported at the first retry: most runs never retry
    from tenacity import RetryCallState

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How long one call may take and how failed calls are retried.

    Attributes:
        attempts: tries in all, the first included (1 = never retry).
        timeout: seconds one attempt may take.
        initial_wait: backoff before the first retry; doubles each time, plus up to ``jitter`` seconds.
        max_wait: cap of one backoff.
        jitter: random seconds added to each backoff so clients do not retry in step.
        max_retry_after: cap on a server's ``Retry-After``, so one header cannot stall a run for hours.
        total: seconds the whole call may take, every attempt and wait included (``None``: no bound but
            ``attempts``); when it runs out, the call fails as a timeout, however many attempts were left.
    """

    attempts: int = 4
    timeout: float = 30.0
    initial_wait: float = 0.5
    max_wait: float = 20.0
    jitter: float = 0.5
    max_retry_after: float = 60.0
    total: float | None = None


class _WaitHonouringRetryAfter:
    """Exponential backoff with jitter, but never shorter than the server's ``Retry-After``."""

    def __init__(self, policy: RetryPolicy, *, retries_done: int = 0) -> None:
        from tenacity.wait import wait_exponential_jitter

        self._backoff = wait_exponential_jitter(
            multiplier=policy.initial_wait * 2**retries_done, max=policy.max_wait, jitter=policy.jitter
        )
        self._cap = policy.max_retry_after

    def __call__(self, retry_state: RetryCallState) -> float:
        wait = self._backoff(retry_state)
        outcome = retry_state.outcome
        failure = outcome.exception() if outcome is not None else None
        if isinstance(failure, TargetCallError) and failure.retry_after is not None:
            wait = max(wait, min(failure.retry_after, self._cap))
        return wait

    def first(self, failure: TargetCallError) -> float:
        """The wait after a failed first attempt (made outside tenacity)."""
        wait = min(self._backoff.multiplier + random.uniform(0, self._backoff.jitter), self._backoff.max)
        if failure.retry_after is not None:
            wait = max(wait, min(failure.retry_after, self._cap))
        return wait


def _is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, TargetCallError) and exc.retryable


async def _attempt(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> T:
    import asyncio  # here, not above: a run that never calls a target (recorded answers) needs no event loop

    try:
        async with asyncio.timeout(policy.timeout):
            return await call()
    except TimeoutError as exc:
        raise timeout_failure(policy.timeout) from exc


async def call_with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> tuple[T, int]:
    """``call()``'s value and the attempts it took; raises the last :class:`TargetCallError` on giving up,
    or a timeout that is not retried once ``policy.total`` seconds have passed.
    """
    if policy.total is None:
        return await _with_retries(call, policy)
    import asyncio

    try:
        async with asyncio.timeout(policy.total):
            return await _with_retries(call, policy)
    except TimeoutError as exc:
        raise TargetCallError(
            "timeout", f"no reply within the total bound of {policy.total:g} s", retryable=True
        ) from exc


async def _with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> tuple[T, int]:
    """``call()`` under ``policy``'s attempts, per-attempt timeout and backoff.

    ``call`` signals a failed attempt by raising :class:`TargetCallError`; only retryable ones are retried.
    The first attempt is made directly: building tenacity's machinery costs ~35 µs, too much to pay for
    every case when nearly all succeed at once.
    """
    try:
        return await _attempt(call, policy), 1
    except TargetCallError as failure:
        if not failure.retryable or policy.attempts <= 1:
            raise
        import asyncio

        await asyncio.sleep(_WaitHonouringRetryAfter(policy).first(failure))
    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.attempts - 1),
        wait=_WaitHonouringRetryAfter(policy, retries_done=1),
        retry=retry_if_exception(_is_retryable),
        reraise=True,
    )
    attempts = 1
    try:
        async for attempt in retrying:
            with attempt:
                attempts += 1
                return await _attempt(call, policy), attempts
    except TargetCallError as failure:
        failure.attempts = attempts
        raise
    raise AssertionError("unreachable: tenacity either returns, retries or re-raises")  # pragma: no cover
