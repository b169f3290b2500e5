"""The one way a test waits: ``wait_for(predicate, timeout)``, which always ends.

Every wait in the suite has a deadline, so that a test whose condition never comes fails and names what it
waited for, instead of hanging CI. The timeout is a ceiling, not a measurement: set it well above what the
wait takes on a loaded machine (tests that pass only within a tight time are timing luck, not tests).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

POLL_S = 0.02
"""How long to sleep between two calls of the predicate by default."""


def wait_for(
    predicate: Callable[[], T],
    timeout: float,
    *,
    what: str = "",
    every: float = POLL_S,
) -> T:
    """Call ``predicate`` until it returns something truthy, and return that.

    Raises ``AssertionError`` naming ``what`` (and the last value seen) when ``timeout`` seconds pass
    first; the predicate is called once more at the deadline, so a slow machine that reaches the condition
    just in time still passes. An exception raised by the predicate ends the wait at once (a process that
    exited will not start answering: say so rather than wait).
    """
    if timeout <= 0:
        raise ValueError(f"a wait needs a positive timeout, not {timeout}")
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            seen = repr(value)
            if len(seen) > 500:
                seen = seen[:500] + "…"
            raise AssertionError(
                f"gave up waiting {timeout:g} s for {what or repr(predicate)}; last saw {seen}"
            )
        time.sleep(min(every, remaining))
