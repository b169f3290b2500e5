"""Shared settings: what the servers' settings are where a worker must agree with them.

``shared_settings`` holds one row per role (``server``): the settings that must match across processes
(secret names, never values; the answer cap; heartbeat and stalled times), as JSON with their digest,
written by every server when it starts. ``assay worker`` compares its own with them and refuses to start
when they disagree.

Revision ID: 0008_shared_settings
Revises: 0007_hardening
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_shared_settings"
down_revision = "0007_hardening"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``shared_settings``."""
    op.create_table(
        "shared_settings",
        sa.Column("role", sa.String(50), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("settings", sa.Text(), nullable=False),
        sa.Column("recorded_by", sa.String(200), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("role", name="pk_shared_settings"),
    )


def downgrade() -> None:
    """Drop ``shared_settings``."""
    op.drop_table("shared_settings")
