"""Hardening: the egress policy stored with each evaluation; on SQLite, ids never used twice.

``evaluations.egress`` holds the egress policy of the server that accepted the evaluation, so that every
process running it (a worker with other settings too) runs it under that policy.

On SQLite, ``suites`` and ``evaluations`` are rebuilt with ``AUTOINCREMENT``: without it SQLite gives the
id of the newest deleted row to the next one, and an old link (``/evaluations/5``, a re-grade by id) opens
another run. (``migrate`` turns foreign keys off meanwhile: dropping the old table must not cascade.)
PostgreSQL's sequences never give an id twice.

Revision ID: 0007_hardening
Revises: 0006_assertions
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_hardening"
down_revision = "0006_assertions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``evaluations.egress``."""
    with op.batch_alter_table("evaluations") as batch:
        batch.add_column(sa.Column("egress", sa.Text(), nullable=True))
    if op.get_bind().dialect.name == "sqlite":
        for table in ("suites", "evaluations"):
            with op.batch_alter_table(table, recreate="always", table_kwargs={"sqlite_autoincrement": True}):
                pass


def downgrade() -> None:
    """Drop ``evaluations.egress``."""
    with op.batch_alter_table("evaluations") as batch:
        batch.drop_column("egress")
