"""Per-case assertions: a case's own list (and threshold), a suite's defaults and rules by metadata.

Revision ID: 0006_assertions
Revises: 0005_workers
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_assertions"
down_revision = "0005_workers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``cases.assertions`` and ``suites.assertions`` (JSON text, NULL for none)."""
    op.add_column("cases", sa.Column("assertions", sa.Text(), nullable=True))
    op.add_column("suites", sa.Column("assertions", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop them."""
    op.drop_column("suites", "assertions")
    op.drop_column("cases", "assertions")
