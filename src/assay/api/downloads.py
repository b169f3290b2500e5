"""File downloads (exports): sent in chunks as they are produced, never assembled whole in memory."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from itertools import chain

from fastapi.responses import StreamingResponse

CHUNK_BYTES = 64 * 1024
"""About the size of each piece sent: lines are gathered up to it rather than sent one by one."""


def chunks(parts: Iterable[bytes], size: int = CHUNK_BYTES) -> Generator[bytes]:
    """``parts`` (lines, rows) regrouped into pieces of about ``size`` bytes."""
    held: list[bytes] = []
    length = 0
    try:
        for part in parts:
            held.append(part)
            length += len(part)
            if length >= size:
                yield b"".join(held)
                held.clear()
                length = 0
    finally:
        close = getattr(parts, "close", None)  # a generator: closed with this one, its query with it
        if close is not None:
            close()
    if held:
        yield b"".join(held)


def file_stem(name: str, fallback: str) -> str:
    """``name`` made safe for a ``Content-Disposition`` file name: ASCII letters, digits, ``-`` and ``_``."""
    stem = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in name)[:100]
    return stem or fallback


def download(
    parts: Iterable[bytes], *, media_type: str, filename: str, still_there: Callable[[], object] | None = None
) -> StreamingResponse:
    """A file download streamed from ``parts``.

    The parts are produced while the response is sent (a sync iterable runs on a worker thread, piece by
    piece), so an export of any size holds one chunk in memory. The first piece is made here, before any
    header is sent: an unknown id fails as an error envelope, and the query that reads the rows has started
    (one statement: one snapshot of them, whatever is deleted while the rest is sent). ``still_there`` is
    called next, and raises when what is exported was deleted before the query started (it read nothing).
    """
    pieces = chunks(parts)
    first = next(pieces, b"")
    if still_there is not None:
        try:
            still_there()
        except BaseException:
            pieces.close()  # its query's cursor too, before the request's session closes
            raise
    return StreamingResponse(
        chain((first,), pieces),
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
