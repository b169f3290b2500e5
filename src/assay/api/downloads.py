"""File downloads (exports): sent in chunks as they are produced, never assembled whole in memory."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from fastapi.responses import StreamingResponse

CHUNK_BYTES = 64 * 1024
"""About the size of each piece sent: lines are gathered up to it rather than sent one by one."""


def chunks(parts: Iterable[bytes], size: int = CHUNK_BYTES) -> Iterator[bytes]:
    """``parts`` (lines, rows) regrouped into pieces of about ``size`` bytes."""
    held: list[bytes] = []
    length = 0
    for part in parts:
        held.append(part)
        length += len(part)
        if length >= size:
            yield b"".join(held)
            held.clear()
            length = 0
    if held:
        yield b"".join(held)


def file_stem(name: str, fallback: str) -> str:
    """``name`` made safe for a ``Content-Disposition`` file name: ASCII letters, digits, ``-`` and ``_``."""
    stem = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in name)[:100]
    return stem or fallback


def download(parts: Iterable[bytes], *, media_type: str, filename: str) -> StreamingResponse:
    """A file download streamed from ``parts``.

    The parts are produced while the response is sent (a sync iterable runs on a worker thread, piece by
    piece), so an export of any size holds one chunk in memory. Check what can fail (an unknown id) before
    calling this: once the first piece is sent the status is 200.
    """
    return StreamingResponse(
        chunks(parts),
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
