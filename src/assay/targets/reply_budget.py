"""A byte budget for the large replies that carry trajectories, shared by every lane and loop of a process.

A reply carrying a trajectory (megabytes) is held from the moment its body is read until its trajectory is
read; with many calls in flight, those bodies, not the steps, made the server's memory grow with the
concurrency. A call takes the body's size from the budget before reading it (its ``Content-Length``; a
body of unknown length takes its size once read), waiting while the budget is spent, and gives it back when
the last reference to the body goes (:class:`HeldBytes`), whoever drops it: the
heavy-work thread that read the trajectory, or an error path that never got to it. A body larger than the
whole budget waits until nothing else is held, then goes alone.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections import deque
from dataclasses import dataclass

REPLY_BUDGET_BYTES = 32 * 1024 * 1024
"""Bytes of large trajectory-carrying replies held at once in a process (six of 5 MB)."""
STALL_S = 30.0
"""A wait longer than this takes its bytes over the budget (a read of 5 MB takes a fraction of a second)."""


class HeldBytes(bytes):
    """A reply's body whose size is held in a :class:`ByteBudget` while it lives (bytes take no weak
    reference, so the size is given back by ``__del__``, when the last reference goes)."""

    budget: ByteBudget
    size: int

    def __del__(self) -> None:
        self.budget.give_back(self.size)


@dataclass(slots=True)
class _Waiter:
    size: int
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]


class ByteBudget:
    """Bytes taken and given back by calls on any thread or event loop, granted in arrival order."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._used = 0
        self._lock = threading.Lock()
        self._waiting: deque[_Waiter] = deque()

    @property
    def used(self) -> int:
        """The bytes held now."""
        return self._used

    def _fits(self, size: int) -> bool:
        return self._used == 0 or self._used + size <= self.limit

    async def take(self, size: int) -> int:
        """Wait until ``size`` bytes (at most the whole budget) are free, and hold them; gives the bytes
        held, to :meth:`give_back` (or :meth:`hold`). After ``STALL_S`` of waiting the bytes are taken
        over the budget: a body kept alive by mistake (by a kept traceback) must not stop every call."""
        size = min(size, self.limit)
        loop = asyncio.get_running_loop()
        with self._lock:
            if not self._waiting and self._fits(size):
                self._used += size
                return size
            waiter = _Waiter(size, loop, loop.create_future())
            self._waiting.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), STALL_S)
        except TimeoutError:
            with self._lock:
                if waiter in self._waiting:  # else granted meanwhile: counted already
                    self._waiting.remove(waiter)
                    self._used += size
        except asyncio.CancelledError:
            with self._lock:
                granted = waiter not in self._waiting
                if not granted:
                    self._waiting.remove(waiter)
            if granted:  # granted before (or while) the call was cancelled: nobody keeps the bytes
                self.give_back(size)
            raise
        return size

    def give_back(self, size: int) -> None:
        """Return ``size`` bytes (from any thread) and grant them to the waiters they now fit."""
        with self._lock:
            self._used -= size
            while self._waiting and self._fits(self._waiting[0].size):
                waiter = self._waiting.popleft()
                self._used += waiter.size
                waiter.loop.call_soon_threadsafe(self._grant, waiter)

    @staticmethod
    def _grant(waiter: _Waiter) -> None:
        if not waiter.future.done():
            waiter.future.set_result(None)

    def hold(self, body: bytes, size: int) -> HeldBytes:
        """``body`` as :class:`HeldBytes` whose ``size`` taken bytes are given back when it is let go."""
        held = HeldBytes(body)
        held.budget, held.size = self, size
        return held


@functools.cache
def reply_budget() -> ByteBudget:
    """The process's budget for large trajectory-carrying replies."""
    return ByteBudget(REPLY_BUDGET_BYTES)
