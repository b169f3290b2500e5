"""Where the CLI writes: results to stdout, people-facing messages to stderr.

Rich is imported only when something needs it (a table or a progress bar on a terminal, markup): a plain
line is written as it is, so a command that prints only lines, or runs off a terminal, starts without it.
"""

from __future__ import annotations

import os
import sys
from functools import cached_property
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console

    from assay.cli.tables import PlainTable


_CONTROL = dict.fromkeys((0x07, 0x08, 0x0B, 0x0C, 0x0D))
"""Bell, backspace, vertical tab, form feed, carriage return: dropped from a line, as Rich drops them (a
quoted value cannot rewrite what a terminal shows)."""


class Stream:
    """stdout or stderr: :meth:`print` writes a plain line itself and hands anything else to Rich."""

    def __init__(self, *, stderr: bool) -> None:
        self.stderr = stderr

    @property
    def file(self) -> TextIO:
        """The stream as it is now (looked up on each use, as Rich does: a test may have replaced it)."""
        return sys.stderr if self.stderr else sys.stdout

    @cached_property
    def rich(self) -> Console:
        """Rich's console on this stream, made on first use."""
        from rich.console import Console

        return Console(stderr=self.stderr, highlight=False, soft_wrap=True)

    @property
    def is_terminal(self) -> bool:
        """Whether this stream is a terminal, as Rich decides it (Rich is asked only when it might say so:
        a TTY, or ``FORCE_COLOR`` / ``TTY_COMPATIBLE`` set)."""
        isatty = getattr(self.file, "isatty", None)
        try:
            tty = bool(isatty()) if isatty is not None else False
        except ValueError:  # a closed file
            tty = False
        if not tty and "FORCE_COLOR" not in os.environ and "TTY_COMPATIBLE" not in os.environ:
            return False
        return self.rich.is_terminal

    def print(self, value: Any = "", *, markup: bool | None = None, soft_wrap: bool | None = None) -> None:
        """A string with ``markup=False`` is written as one line; anything else (a Rich renderable, markup)
        goes through Rich."""
        if isinstance(value, str) and markup is False:
            file = self.file
            file.write(value.translate(_CONTROL) + "\n")
            file.flush()  # as Rich does: lines on stdout and stderr keep their order in one log
            return
        self.rich.print(value, markup=markup, soft_wrap=soft_wrap)

    def table(self, table: PlainTable) -> None:
        """A table: Rich's on a terminal, aligned plain text otherwise (CI logs; Rich is not loaded)."""
        if self.is_terminal:
            self.rich.print(table.rich())
        else:
            self.print(table.text(), markup=False)


out = Stream(stderr=False)
err = Stream(stderr=True)


def percent(value: float | None, digits: int = 2) -> str:
    """A rate as a percentage with ``digits`` decimals, as the commands print one; "-" when there is none."""
    return "-" if value is None else f"{value:.{digits}%}"
