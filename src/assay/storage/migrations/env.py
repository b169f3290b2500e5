"""Alembic environment: runs on the connection that :func:`assay.storage.database.migrate` passes in."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from assay.storage.database import Base, is_assay_name


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        compare_type=True,
        include_name=is_assay_name,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through assay.storage.database.migrate(engine)")
_run(connection)
