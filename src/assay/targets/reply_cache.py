"""A cache of agents' replies, content-addressed: the same target asked the same input gives the stored reply.

A reply's key is the SHA-256 of the target's fingerprint (what can change its reply: kind, URL or model,
templates, prompts; not timeouts or retries, see :meth:`~assay.targets.specs._TargetSpecBase.fingerprint`),
the case's input and its repeat index. Only answers are stored, never an error (a rerun asks again). The
CLI's cache is one SQLite file in a local folder (the standard library's ``sqlite3``: a point read costs
microseconds, and a killed run leaves it consistent).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

DEFAULT_DIR = Path(".assay-cache")
"""Where the CLI keeps its cache unless ``--cache-dir`` or ``ASSAY_CACHE_DIR`` says otherwise."""
FILE_NAME = "replies.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key BLOB PRIMARY KEY,
    output TEXT,
    latency_ms REAL,
    stored_at REAL NOT NULL
) WITHOUT ROWID
"""


def cache_dir(option: Path | None) -> Path:
    """The folder the cache lives in: the option's, else ``ASSAY_CACHE_DIR``'s, else :data:`DEFAULT_DIR`."""
    if option is not None:
        return option
    from_env = os.environ.get("ASSAY_CACHE_DIR")
    return Path(from_env) if from_env else DEFAULT_DIR


def reply_key(fingerprint: str, input_text: str, repeat: int = 0) -> bytes:
    """The key of the reply ``fingerprint``'s target gives ``input_text`` (its ``repeat``-th asking)."""
    digest = hashlib.sha256()
    for part in (fingerprint, str(repeat), input_text):
        encoded = part.encode("utf-8", "surrogatepass")
        digest.update(len(encoded).to_bytes(8, "big"))  # length-prefixed: no two splits hash alike
        digest.update(encoded)
    return digest.digest()


@dataclass(frozen=True, slots=True)
class CachedReply:
    """A stored answer and how long the agent took to give it."""

    output: str | None
    """``None``: the agent answered nothing (a reply, graded as empty; not an error)."""
    latency_ms: float | None


class ReplyStore(Protocol):
    """Where a cached target reads and stores replies: the CLI's file, or a server's shard (its replies read
    from the database at once, the new ones written with the shard's results)."""

    def get(self, key: bytes) -> CachedReply | None:
        """The reply stored under ``key``, if any."""

    def put(self, key: bytes, reply: CachedReply) -> None:
        """Store ``reply`` under ``key`` unless one is stored already."""


@dataclass(frozen=True, slots=True)
class CacheStats:
    """What a cache holds."""

    path: Path
    replies: int
    bytes: int


class ReplyCache:
    """Replies stored in one SQLite file; safe to share between runs (one writer at a time, WAL)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILE_NAME
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a crash may lose the last replies, never corrupt
        self._db.execute(_SCHEMA)

    def get(self, key: bytes) -> CachedReply | None:
        """The reply stored under ``key``, if any."""
        row = self._db.execute("SELECT output, latency_ms FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else CachedReply(row[0], row[1])

    def put(self, key: bytes, reply: CachedReply) -> None:
        """Store ``reply`` under ``key`` (the first stored stays: a cache is not a history)."""
        self._db.execute(
            "INSERT OR IGNORE INTO replies (key, output, latency_ms, stored_at) VALUES (?, ?, ?, ?)",
            (key, reply.output, reply.latency_ms, time.time()),
        )

    def stats(self) -> CacheStats:
        """How many replies the cache holds and their size on disk."""
        (count,) = self._db.execute("SELECT count(*) FROM replies").fetchone()
        size = sum(path.stat().st_size for path in self.path.parent.glob(f"{FILE_NAME}*") if path.is_file())
        return CacheStats(self.path, count, size)

    def clear(self) -> int:
        """Drop every reply; how many there were."""
        (count,) = self._db.execute("SELECT count(*) FROM replies").fetchone()
        self._db.execute("DELETE FROM replies")
        self._db.execute("VACUUM")
        return int(count)

    def close(self) -> None:
        """Close the file."""
        self._db.close()
