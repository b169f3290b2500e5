"""Repeats: an evaluation asks its target about every case ``repeats`` times, one result per (case, repeat).

``evaluations.repeats`` (default 1) says how many times; ``results.repeat`` (0-based, default 0) which asking
a result is of. The results' unique key and their ordering index gain the repeat, so that resuming writes a
(case, repeat) at most once, as it wrote a case before.

Revision ID: 0010_repeats
Revises: 0009_reply_cache
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_repeats"
down_revision = "0009_reply_cache"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``evaluations.repeats`` and ``results.repeat``; key and order results by (case, repeat)."""
    with op.batch_alter_table("evaluations") as batch:
        batch.add_column(sa.Column("repeats", sa.Integer(), nullable=False, server_default="1"))
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("repeat", sa.Integer(), nullable=False, server_default="0"))
        batch.drop_constraint("uq_results_evaluation_id", type_="unique")
        batch.create_unique_constraint("uq_results_evaluation_id", ["evaluation_id", "case_id", "repeat"])
        batch.drop_index("ix_results_evaluation_id_position")
        batch.create_index("ix_results_evaluation_id_position", ["evaluation_id", "position", "repeat"])


def downgrade() -> None:
    """Keep repeat 0 of every result, and drop the columns."""
    op.execute("DELETE FROM results WHERE repeat > 0")
    with op.batch_alter_table("results") as batch:
        batch.drop_index("ix_results_evaluation_id_position")
        batch.create_index("ix_results_evaluation_id_position", ["evaluation_id", "position"])
        batch.drop_constraint("uq_results_evaluation_id", type_="unique")
        batch.create_unique_constraint("uq_results_evaluation_id", ["evaluation_id", "case_id"])
        batch.drop_column("repeat")
    with op.batch_alter_table("evaluations") as batch:
        batch.drop_column("repeats")
