"""The ``shared_settings`` table: the settings a role's processes recorded, for the others to compare.

One row per role (``server``), overwritten by each process of that role when it starts: the newest server's
settings are the ones a worker is checked against. The values are stored readable (they name secrets, never
hold one) beside their digest, which compares them in one step.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, String, Text, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from assay.storage.database import Base
from assay.storage.types import UTCDateTime, dump_json, utc_now

__all__ = ["RecordedSettings", "SharedSettingsRow", "read_settings", "record_settings"]


class SharedSettingsRow(Base):
    """What one role's newest process recorded of its settings."""

    __tablename__ = "shared_settings"

    role: Mapped[str] = mapped_column(String(50), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64))
    settings: Mapped[str] = mapped_column(Text)
    """JSON object: setting name → value (secret names only, never a value)."""
    recorded_by: Mapped[str] = mapped_column(String(200))
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedSettings:
    """A row read back: the values, their digest, and which process wrote them when."""

    digest: str
    values: dict[str, Any]
    recorded_by: str
    recorded_at: datetime


def read_settings(connection: Connection, role: str) -> RecordedSettings | None:
    """What the newest process of ``role`` recorded; ``None`` when none has."""
    table = SharedSettingsRow
    columns = (table.digest, table.settings, table.recorded_by, table.recorded_at)
    row = connection.execute(select(*columns).where(table.role == role)).one_or_none()
    if row is None:
        return None
    return RecordedSettings(
        digest=row.digest,
        values=json.loads(row.settings),
        recorded_by=row.recorded_by,
        recorded_at=row.recorded_at,
    )


def record_settings(
    connection: Connection, role: str, *, digest: str, values: dict[str, Any], recorded_by: str
) -> None:
    """Write ``values`` as ``role``'s settings, over what another process of that role recorded."""
    columns: dict[str, object] = {
        "digest": digest,
        "settings": dump_json(values),
        "recorded_by": recorded_by[:200],
        "recorded_at": utc_now(),
    }
    rewrite = update(SharedSettingsRow).where(SharedSettingsRow.role == role).values(**columns)
    if getattr(connection.execute(rewrite), "rowcount", 0):
        return
    try:
        with connection.begin_nested():  # another server may insert the first row at the same moment
            connection.execute(insert(SharedSettingsRow).values(role=role, **columns))
    except IntegrityError:
        connection.execute(rewrite)
