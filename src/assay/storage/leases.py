"""The ``runner_leases`` table: which process may run evaluations on an embedded (SQLite) database.

A lease is one row per name, held by one holder until it expires; the holder renews it (a heartbeat)
well before then. A second server on the same file finds it held and runs nothing; when the holder dies,
its lease expires and another takes it over.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Connection, String, insert, select, update
from sqlalchemy.orm import Mapped, mapped_column

from assay.storage.database import Base
from assay.storage.types import UTCDateTime, utc_now


class LeaseRow(Base):
    """A named lease: who holds it and until when."""

    __tablename__ = "runner_leases"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    holder: Mapped[str] = mapped_column(String(200))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


def take_lease(connection: Connection, name: str, holder: str, *, seconds: float) -> str | None:
    """Take or renew the lease ``name`` for ``seconds``; ``None`` when taken, else who holds it now."""
    now = utc_now()
    until = now + timedelta(seconds=seconds)
    renewed = connection.execute(
        update(LeaseRow)
        .where(LeaseRow.name == name)
        .where((LeaseRow.holder == holder) | (LeaseRow.expires_at < now))
        .values(holder=holder, expires_at=until)
    )
    if getattr(renewed, "rowcount", 0):
        return None
    current = connection.execute(select(LeaseRow.holder).where(LeaseRow.name == name)).scalar()
    if current is not None:
        return current
    connection.execute(insert(LeaseRow).values(name=name, holder=holder, expires_at=until))
    return None


def release_lease(connection: Connection, name: str, holder: str) -> None:
    """Give the lease up (at a clean shutdown), so that another process need not wait for it to expire."""
    connection.execute(
        update(LeaseRow)
        .where(LeaseRow.name == name, LeaseRow.holder == holder)
        .values(expires_at=utc_now() - timedelta(seconds=1))
    )
