"""Replies kept as they came, for a test of a target: what the agent sent before an answer was read from it.

Targets hand each reply to :func:`keep_raw`; it keeps them only inside :func:`capturing_raw` (a context
variable, so concurrent evaluations, which never capture, pay one lookup per call and nothing else).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

MAX_RAW_CHARS = 64 * 1024
"""Longest raw reply shown; a longer one is cut (``truncated``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RawReply:
    """One reply as it came: ``source`` says from where (``HTTP 200 from http://…``, ``responses['3']``)."""

    source: str
    text: str | None
    status: int | None = None
    content_type: str | None = None
    truncated: bool = False

    @classmethod
    def of(
        cls, source: str, text: str | None, *, status: int | None = None, content_type: str | None = None
    ) -> RawReply:
        """A reply whose text is cut at :data:`MAX_RAW_CHARS`."""
        truncated = text is not None and len(text) > MAX_RAW_CHARS
        shown = text[:MAX_RAW_CHARS] if text is not None and truncated else text
        return cls(source=source, text=shown, status=status, content_type=content_type, truncated=truncated)


_KEPT: ContextVar[list[RawReply] | None] = ContextVar("assay_raw_replies", default=None)


def keep_raw(make: Callable[[], RawReply]) -> None:
    """Keep the reply ``make`` builds, when replies are being captured (built only then)."""
    kept = _KEPT.get()
    if kept is not None:
        kept.append(make())


@contextmanager
def capturing_raw() -> Iterator[list[RawReply]]:
    """The replies the targets called inside the block keep, in order (redirect hops each one)."""
    kept: list[RawReply] = []
    token = _KEPT.set(kept)
    try:
        yield kept
    finally:
        _KEPT.reset(token)
