"""Case keys: the user's own name for a case (a file's ``id`` field), unique in its suite, kept by results.

Revision ID: 0004_case_keys
Revises: 0003_result_reason_code
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_case_keys"
down_revision = "0003_result_reason_code"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``cases.case_key`` (unique per suite when set) and ``results.case_key``."""
    op.add_column("cases", sa.Column("case_key", sa.String(200), nullable=True))
    # A unique index, not a constraint: SQLite adds one without copying the table, and NULLs stay distinct.
    op.create_index("uq_cases_suite_id_case_key", "cases", ["suite_id", "case_key"], unique=True)
    op.add_column("results", sa.Column("case_key", sa.String(200), nullable=True))


def downgrade() -> None:
    """Drop the keys."""
    op.drop_column("results", "case_key")
    op.drop_index("uq_cases_suite_id_case_key", table_name="cases")
    op.drop_column("cases", "case_key")
