"""Cached replies keep their trajectory: ``reply_cache.trajectory`` holds a bounded copy of the trajectory a
reply carried (its normalised JSON, zlib-compressed; null: none), so a replayed run grades trajectory checks
as the run that stored the reply did.

Revision ID: 0014_reply_trajectories
Revises: 0013_trajectories
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_reply_trajectories"
down_revision = "0013_trajectories"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``reply_cache.trajectory``."""
    with op.batch_alter_table("reply_cache") as batch:
        batch.add_column(sa.Column("trajectory", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    """Drop it."""
    with op.batch_alter_table("reply_cache") as batch:
        batch.drop_column("trajectory")
