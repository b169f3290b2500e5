"""Test suites and their cases.

Revision ID: 0001_suites
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_suites"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``suites`` and ``cases``."""
    op.create_table(
        "suites",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_suites"),
        sa.UniqueConstraint("name", name="uq_suites_name"),
    )
    op.create_table(
        "cases",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("suite_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.Column("expected_output", sa.Text(), nullable=False),
        sa.Column("metadata", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_cases"),
        sa.ForeignKeyConstraint(
            ["suite_id"], ["suites.id"], name="fk_cases_suite_id_suites", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("suite_id", "position", name="uq_cases_suite_id"),
    )


def downgrade() -> None:
    """Drop ``cases`` and ``suites``."""
    op.drop_table("cases")
    op.drop_table("suites")
