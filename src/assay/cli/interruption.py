"""How ``assay run`` stops on SIGINT and SIGTERM (what Ctrl-C, a CI timeout or ``docker stop`` send).

The first signal drains the run: no new case is sent, the cases in flight get :data:`DRAIN_S` seconds to
finish and are written; a second signal (or the end of that time) abandons them. The summary and the JUnit
report then cover what was graded, and the exit code is 128 + the signal's number (:data:`INTERRUPTED`).
A run without an event loop (recorded answers) has one case in flight at most: it stops after that one.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from assay.cli.console import err

if TYPE_CHECKING:  # asyncio is loaded only by a run that needs an event loop
    from asyncio import AbstractEventLoop

    from assay.services.local_run.run import RunControl

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
        self._loop: AbstractEventLoop | None = None
        self._control: RunControl | None = None
        self._unsaid = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        first = self.signal is None
        if first:
            self.signal = signum
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._drain if first else self._halt)
        elif self._control is not None:
            # A run without an event loop sees its control between cases. Only flags are set here: printing
            # inside a signal handler could re-enter a write the run was making to the same stream.
            if first:
                self._control.drain()
                self._unsaid = True
            else:
                self._control.halt()
        elif not first:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    def _drain(self) -> None:
        if self._control is None:
            return
        self._control.drain()
        if self._loop is not None:
            self._loop.call_later(DRAIN_S, self._control.halt)
        self._say_stopping(
            f"no new case is sent, those in flight get {DRAIN_S:g} s to finish (send it again to stop now)"
        )

    def _say_stopping(self, how: str) -> None:
        name = signal.Signals(self.signal).name if self.signal is not None else "signal"
        err.print(f"{name}: stopping; {how}", markup=False)

    def _halt(self) -> None:
        if self._control is not None:
            self._control.halt()

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
    def running(self, control: RunControl, loop: AbstractEventLoop | None = None) -> Iterator[None]:
        """Stop ``control``'s run on a signal: in ``loop``, the event loop running it, if it has one (the
        handler then only hands the stop to the loop)."""
        self._loop, self._control = loop, control
        if self.signal is not None:  # a signal came before the run began
            self._drain()
        try:
            yield
        finally:
            self._loop = self._control = None
            if self._unsaid:
                self._unsaid = False
                self._say_stopping("no new case was sent after the one being graded")


def report_interrupted(
    signum: int, finished: int, total: int, output: Path | None, server: str | None = None
) -> None:
    """Say what an interrupted run kept and how to finish it; exit 128 + the signal's number."""
    name = signal.Signals(signum).name
    if output is not None:
        rest = f"the results are in {output}; run again with --resume to run the other {total - finished}"
        if server is not None:
            rest += (
                f" (then pushed), or store what it has with `assay push {output} --server {server} --partial`"
            )
    else:
        rest = "no --output was given, so a rerun starts afresh"
    err.print(f"interrupted by {name}: {finished} of {total} cases have a result; {rest}", markup=False)
    raise SystemExit(INTERRUPTED.get(signal.Signals(signum), 128 + signum))
