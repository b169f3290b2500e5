"""How ``assay run`` stops on SIGINT and SIGTERM (what Ctrl-C, a CI timeout or ``docker stop`` send).

The first signal drains the run: no new case is sent, the cases in flight get :data:`DRAIN_S` seconds to
finish and are written; a second signal (or the end of that time) abandons them. The summary and the JUnit
report then cover what was graded, and the exit code is 128 + the signal's number (:data:`INTERRUPTED`).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from assay.cli.console import err
from assay.services.local_run import RunControl

DRAIN_S = 5.0
"""Seconds the cases in flight get to finish once a run is asked to stop (a CI job's grace is often 10 s)."""
INTERRUPTED = {signal.SIGINT: 130, signal.SIGTERM: 143}
"""Exit code of a run a signal stopped: 128 + its number, as a shell reports a process the signal ended.
Neither a verdict (0, 1: the gate was not reached) nor a bug (3); its results are kept for ``--resume``."""


class Stopper:
    """SIGINT and SIGTERM during a run: the first drains it (no new case; those in flight get :data:`DRAIN_S`
    seconds), a second abandons the cases in flight. Once the run is over the report is still written; a
    second signal then ends the process at once."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._control: RunControl | None = None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        first = self.signal is None
        if first:
            self.signal = signum
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._drain if first else self._halt)
        elif not first:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    def _drain(self) -> None:
        if self._control is None or self._loop is None:
            return
        self._control.drain()
        self._loop.call_later(DRAIN_S, self._control.halt.set)
        name = signal.Signals(self.signal).name if self.signal is not None else "signal"
        err.print(
            f"{name}: stopping; no new case is sent, those in flight get {DRAIN_S:g} s to finish "
            "(send it again to stop now)",
            markup=False,
        )

    def _halt(self) -> None:
        if self._control is not None:
            self._control.halt.set()

    @contextmanager
    def watching(self) -> Iterator[None]:
        """Handle SIGINT and SIGTERM inside the block; the handlers before it come back after it."""
        previous = {sig: signal.signal(sig, self) for sig in INTERRUPTED}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    @contextmanager
    def running(self, control: RunControl) -> Iterator[None]:
        """Stop ``control``'s run on a signal (inside the event loop running it)."""
        self._loop, self._control = asyncio.get_running_loop(), control
        if self.signal is not None:  # a signal came before the run began
            self._drain()
        try:
            yield
        finally:
            self._loop = self._control = None


def report_interrupted(signum: int, finished: int, total: int, output: Path | None) -> None:
    """Say what an interrupted run kept and how to finish it; exit 128 + the signal's number."""
    name = signal.Signals(signum).name
    if output is not None:
        rest = f"the results are in {output}; run again with --resume to run the other {total - finished}"
    else:
        rest = "no --output was given, so a rerun starts afresh"
    err.print(f"interrupted by {name}: {finished} of {total} cases have a result; {rest}", markup=False)
    raise SystemExit(INTERRUPTED.get(signal.Signals(signum), 128 + signum))
