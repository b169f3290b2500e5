"""Results keep their verdict's reason code (``details.reason_code``), which listings filter by.

Revision ID: 0003_result_reason_code
Revises: 0002_evaluations
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_result_reason_code"
down_revision = "0002_evaluations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``results.reason_code`` (empty for results stored before it)."""
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("reason_code", sa.String(40), nullable=True))


def downgrade() -> None:
    """Drop ``results.reason_code``."""
    with op.batch_alter_table("results") as batch:
        batch.drop_column("reason_code")
