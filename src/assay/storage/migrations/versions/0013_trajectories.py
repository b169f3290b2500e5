"""Trajectories: agents' steps stored compressed in chunks apart from the results, and a summary per result.

``trajectory_chunks`` holds consecutive steps of one result's trajectory (zlib of a JSON array), by
evaluation, case and chunk number, with the index of its first step; ``results.trajectory_summary`` the
trajectory's summary as JSON (steps, tool calls, tool names with counts, usage, seconds; null: none).

Revision ID: 0013_trajectories
Revises: 0012_conversations
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_trajectories"
down_revision = "0012_conversations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``trajectory_chunks``; add ``results.trajectory_summary``."""
    op.create_table(
        "trajectory_chunks",
        sa.Column(
            "evaluation_id",
            sa.Integer(),
            sa.ForeignKey("evaluations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("case_id", sa.Integer(), primary_key=True),
        sa.Column("chunk", sa.Integer(), primary_key=True),
        sa.Column("first_step", sa.Integer(), nullable=False),
        sa.Column("steps", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("trajectory_summary", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("results") as batch:
        batch.drop_column("trajectory_summary")
    op.drop_table("trajectory_chunks")
