"""The shard fence: a process stops calling as soon as it may no longer hold the shards it runs.

Other processes take a process for dead when it has been silent for ``stalled_s`` (no heartbeat: a lost
lease on SQLite, a stalled job on PostgreSQL) and run its shards again. A process that was only frozen
(SIGSTOP, a suspended VM, a loop blocked that long) must not wake up and go on calling beside the one that
took over: the evaluation would have twice its concurrency in flight. The fence counts *epochs*: every
look that finds more than ``stalled_s`` since the previous one starts a new epoch, and a shard may call
only while the epoch it started in lasts. A ticker looks every heartbeat, so a live process never sees
such a gap; a process that was stopped sees it at its first look after waking, before any further call.
"""

from __future__ import annotations

import time


class Fence:
    """Epochs of this process's continuous life, as seen by its monotonic clock (which runs on while the
    process is stopped)."""

    def __init__(self, stalled_s: float) -> None:
        self._stalled_s = stalled_s
        self._last = time.monotonic()
        self._epoch = 0

    def epoch(self) -> int:
        """The epoch now (a new one after a gap longer than ``stalled_s``); every call is a look."""
        now = time.monotonic()
        if now - self._last > self._stalled_s:
            self._epoch += 1
        self._last = now
        return self._epoch

    def holds(self, epoch: int) -> bool:
        """Whether ``epoch`` still lasts: nothing that ran in it may have been taken over."""
        return self.epoch() == epoch
