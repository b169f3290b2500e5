"""A cache of agents' replies, content-addressed: the same target asked the same input gives the stored reply.

A reply's key is the SHA-256 of the target's fingerprint (what can change its reply: kind, URL or model,
templates, prompts; not timeouts or retries, see :meth:`~assay.targets.specs._TargetSpecBase.fingerprint`),
the case's input and its repeat index. Only answers are stored, never an error (a rerun asks again). The
CLI's cache is one SQLite file in a local folder (the standard library's ``sqlite3``: a point read costs
microseconds, and a killed run leaves it consistent).

A reply that carried a trajectory is stored with a copy of it (its normalised JSON, zlib-compressed, at most
:data:`MAX_TRAJECTORY_BYTES`), so a replay grades trajectory checks as the run that stored it did; a reply
whose trajectory did not read or is larger is not stored (a rerun asks again, a replay misses it).
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
    stored_at REAL NOT NULL,
    trajectory BLOB
) WITHOUT ROWID
"""
MAX_TRAJECTORY_BYTES = 1024 * 1024
"""The largest compressed trajectory a cached reply keeps (about 5-10 MB of steps' JSON)."""
MAX_TRAJECTORY_JSON = 64 * 1024 * 1024
"""The most a stored trajectory may inflate to when read back (a cache file is not trusted blindly)."""


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
    """A stored answer, how long the agent took to give it, and the trajectory it carried."""

    output: str | None
    """``None``: the agent answered nothing (a reply, graded as empty; not an error)."""
    latency_ms: float | None
    trajectory: bytes | None = None
    """The reply's trajectory, packed by :func:`pack_trajectory`; ``None``: it carried none."""


def pack_trajectory(trajectory: object) -> bytes | None:
    """A read trajectory as a cached reply keeps it (its normalised JSON, compressed); ``None`` when it is
    larger than :data:`MAX_TRAJECTORY_BYTES` compressed."""
    import zlib

    import orjson

    from assay.graders.trajectory.record import Trajectory, to_json

    if not isinstance(trajectory, Trajectory):
        return None
    packed = zlib.compress(orjson.dumps(to_json(trajectory)), 6)
    return packed if len(packed) <= MAX_TRAJECTORY_BYTES else None


def unpack_trajectory(packed: bytes) -> object:
    """The trajectory :func:`pack_trajectory` packed: a ``Trajectory``, or the ``TrajectoryProblem`` saying
    why it does not read (every trajectory check then reports it)."""
    import zlib

    import orjson

    from assay.graders.trajectory.record import TrajectoryProblem, from_json

    try:
        inflater = zlib.decompressobj()
        document = inflater.decompress(packed, MAX_TRAJECTORY_JSON)
        if inflater.unconsumed_tail:
            raise ValueError(f"it inflates past {MAX_TRAJECTORY_JSON:,} bytes")
        return from_json(orjson.loads(document))
    except (ValueError, zlib.error) as problem:  # orjson's decode error is a ValueError
        return TrajectoryProblem(reason=f"the cached trajectory does not read: {problem}")


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
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(replies)")}
        if "trajectory" not in columns:  # a file written before replies kept their trajectory
            self._db.execute("ALTER TABLE replies ADD COLUMN trajectory BLOB")

    def get(self, key: bytes) -> CachedReply | None:
        """The reply stored under ``key``, if any."""
        query = "SELECT output, latency_ms, trajectory FROM replies WHERE key = ?"
        row = self._db.execute(query, (key,)).fetchone()
        return None if row is None else CachedReply(row[0], row[1], row[2])

    def put(self, key: bytes, reply: CachedReply) -> None:
        """Store ``reply`` under ``key`` (the first stored stays: a cache is not a history)."""
        self._db.execute(
            "INSERT OR IGNORE INTO replies (key, output, latency_ms, stored_at, trajectory)"
            " VALUES (?, ?, ?, ?, ?)",
            (key, reply.output, reply.latency_ms, time.time(), reply.trajectory),
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
