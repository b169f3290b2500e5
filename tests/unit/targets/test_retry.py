"""The retry policy: exponential backoff with jitter, Retry-After honoured and capped, 4xx never retried."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from assay.targets.base import Target, TargetCase
from assay.targets.http import _retry_after
from assay.targets.reasons import TargetCallError
from assay.targets.retry import RetryPolicy, call_with_retries

FAST = RetryPolicy(
    attempts=4, timeout=1.0, initial_wait=0.01, max_wait=0.05, jitter=0.01, max_retry_after=0.05
)


def failing(*failures: TargetCallError) -> tuple[list[int], Callable[[], Awaitable[str]]]:
    calls: list[int] = []

    async def call() -> str:
        calls.append(1)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return "ok"

    return calls, call


async def test_retryable_failures_are_retried_until_success() -> None:
    calls, call = failing(*(TargetCallError("http_503", retryable=True) for _ in range(3)))
    assert await call_with_retries(call, FAST) == ("ok", 4)
    assert len(calls) == 4


async def test_giving_up_reports_the_attempts_and_the_final_reason() -> None:
    _, call = failing(*(TargetCallError("http_429", retryable=True) for _ in range(9)))
    with pytest.raises(TargetCallError) as caught:
        await call_with_retries(call, FAST)
    assert (caught.value.attempts, caught.value.final_reason) == (4, "http_429_after_retries")


async def test_a_client_error_is_not_retried() -> None:
    calls, call = failing(TargetCallError("http_400"))
    with pytest.raises(TargetCallError) as caught:
        await call_with_retries(call, FAST)
    assert (len(calls), caught.value.final_reason) == (1, "http_400")


async def test_retry_after_is_capped() -> None:
    _, call = failing(TargetCallError("http_503", retryable=True, retry_after=3600))
    assert await call_with_retries(call, FAST) == ("ok", 2)  # waited 0.05 s, not an hour


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("3", 3.0),
        ("0.5", 0.5),
        ("-2", 0.0),
        ("soon", None),
        (None, None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
    ],
)
def test_retry_after_header_forms(header: str | None, expected: float | None) -> None:
    assert _retry_after(header) == expected


def test_retry_after_http_date_in_the_future() -> None:
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= (_retry_after(soon) or 0) <= 30


async def test_the_total_bound_ends_the_call_whatever_attempts_and_retry_after_are_left() -> None:
    # Retry-After of an hour honoured in full, ten attempts: the total bound alone ends the call
    patient = RetryPolicy(attempts=10, timeout=1.0, max_retry_after=3600, total=0.05)
    calls, call = failing(*(TargetCallError("http_429", retryable=True, retry_after=3600) for _ in range(9)))
    with pytest.raises(TargetCallError) as caught:
        await call_with_retries(call, patient)
    assert caught.value.final_reason == "timeout_after_retries"
    assert "total bound" in caught.value.detail
    assert len(calls) == 1


async def test_a_call_within_the_total_bound_is_unchanged() -> None:
    bounded = RetryPolicy(attempts=4, timeout=1.0, initial_wait=0.01, max_wait=0.05, jitter=0.01, total=30)
    _, call = failing(TargetCallError("http_503", retryable=True))
    assert await call_with_retries(call, bounded) == ("ok", 2)


class _Flaky(Target):
    """Fails its first attempt with a retryable error, then answers; counts its attempts."""

    def __init__(self) -> None:
        super().__init__(FAST)
        self.attempts = 0

    async def call(self, case: TargetCase) -> str | None:
        self.attempts += 1
        if self.attempts == 1:
            raise TargetCallError("http_503", retryable=True)
        return "ok"


async def test_no_retry_is_made_once_the_caller_may_no_longer_call() -> None:
    # A worker frozen past its lease wakes inside a retry's wait: the shard is another's, so no new call.
    allowed = [True]

    def proceed() -> bool:
        answer = allowed[0]
        allowed[0] = False  # the first attempt is allowed, every later one is not
        return answer

    target = _Flaky()
    reply = await target.respond(TargetCase(1, "q", {}), proceed)
    assert target.attempts == 1
    assert reply.error is not None
    assert reply.output is None
    again = _Flaky()
    assert (await again.respond(TargetCase(1, "q", {}))).output == "ok"  # without a fence: retried
    assert again.attempts == 2
