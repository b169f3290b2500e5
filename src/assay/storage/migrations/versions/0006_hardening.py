"""Hardening: the egress policy stored with each evaluation.

``evaluations.egress`` holds the egress policy of the server that accepted the evaluation, so that every
process running it (a worker with other settings too) runs it under that policy.

Revision ID: 0006_hardening
Revises: 0005_workers
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_hardening"
down_revision = "0005_workers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``evaluations.egress``."""
    with op.batch_alter_table("evaluations") as batch:
        batch.add_column(sa.Column("egress", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop ``evaluations.egress``."""
    with op.batch_alter_table("evaluations") as batch:
        batch.drop_column("egress")
