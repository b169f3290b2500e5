"""The ``reply_cache`` table: agents' replies by content key (:mod:`assay.targets.reply_cache`), shared by
every evaluation on the database that asks for the cache.

A key is a SHA-256 digest; the first reply stored under it stays (``ON CONFLICT DO NOTHING``), so two
workers answering the same case at once store one. Only answers are stored, never errors; a reply that
carried a trajectory keeps a bounded copy of it (``trajectory``: its normalised JSON, compressed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Connection, Float, LargeBinary, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from assay.storage.database import Base
from assay.storage.types import SafeText, UTCDateTime, utc_now

KEY_BYTES = 32


class ReplyCacheRow(Base):
    """One cached reply: the answer (``None``: the agent answered nothing) and the agent's latency."""

    __tablename__ = "reply_cache"

    key: Mapped[bytes] = mapped_column(LargeBinary(KEY_BYTES), primary_key=True)
    output: Mapped[str | None] = mapped_column(SafeText, nullable=True)
    latency_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    stored_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utc_now)
    trajectory: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    """The trajectory the reply carried, packed (``assay.targets.reply_cache.pack_trajectory``)."""


StoredReply = tuple[str | None, float | None, bytes | None]
"""``(output, latency_ms, trajectory)`` of a cached reply."""


def cached_replies(session: Session, keys: Iterable[bytes]) -> dict[bytes, StoredReply]:
    """``(output, latency_ms, trajectory)`` of each of ``keys`` the cache holds (one query per 500 keys)."""
    wanted = list(dict.fromkeys(keys))
    found: dict[bytes, StoredReply] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        query = select(
            ReplyCacheRow.key, ReplyCacheRow.output, ReplyCacheRow.latency_ms, ReplyCacheRow.trajectory
        ).where(ReplyCacheRow.key.in_(chunk))
        for key, output, latency_ms, trajectory in session.execute(query):
            found[bytes(key)] = (output, latency_ms, None if trajectory is None else bytes(trajectory))
    return found


def store_replies(connection: Connection, replies: Sequence[tuple[bytes, StoredReply]]) -> None:
    """Store ``(key, (output, latency_ms, trajectory))`` replies, in the caller's transaction; a key stored
    already keeps its first reply."""
    if not replies:
        return
    insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    now = utc_now()
    rows = [
        {"key": key, "output": output, "latency_ms": latency, "stored_at": now, "trajectory": trajectory}
        for key, (output, latency, trajectory) in replies
    ]
    connection.execute(insert(ReplyCacheRow).on_conflict_do_nothing(index_elements=["key"]), rows)


def count_replies(session: Session) -> int:
    """How many replies the cache holds."""
    return int(session.execute(select(func.count()).select_from(ReplyCacheRow)).scalar_one())


def clear_replies(connection: Connection) -> int:
    """Drop every cached reply; how many there were."""
    return int(getattr(connection.execute(delete(ReplyCacheRow)), "rowcount", 0) or 0)
