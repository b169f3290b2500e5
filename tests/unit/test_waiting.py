"""``wait_for``: the suite's one way to wait returns what it waited for, and always ends."""

from __future__ import annotations

import itertools

import pytest

from tests.support.waiting import wait_for


def test_returns_the_first_truthy_value_without_waiting_longer() -> None:
    calls = itertools.count(1)
    assert wait_for(lambda: (n := next(calls)) >= 3 and f"call {n}", 60, every=0.001) == "call 3"
    assert next(calls) == 4  # called no more once it held


def test_a_condition_that_never_holds_fails_naming_it_and_the_last_value() -> None:
    calls = itertools.count(1)
    with pytest.raises(AssertionError, match=r"gave up waiting 0.05 s for the moon; last saw \[\]"):
        wait_for(lambda: [] if next(calls) else [1], 0.05, what="the moon", every=0.01)
    assert next(calls) >= 3  # asked again until the deadline, and once at it


def test_a_predicate_that_raises_ends_the_wait_at_once() -> None:
    calls = itertools.count(1)

    def exited() -> bool:
        next(calls)
        raise RuntimeError("the process exited")

    with pytest.raises(RuntimeError, match="exited"):
        wait_for(exited, 60)
    assert next(calls) == 2


@pytest.mark.parametrize("timeout", [0, -1.0])
def test_a_wait_without_a_deadline_is_refused(timeout: float) -> None:
    with pytest.raises(ValueError, match="positive timeout"):
        wait_for(lambda: True, timeout)
