"""Cost: what a judge's calls spent per result, and the price table an evaluation's cost is counted with.

``results.judge_usage`` (JSON text) holds the tokens each of the grader's calls said it spent, by model,
and how many calls said nothing (null: no call was made); ``evaluations.prices`` (JSON text) the price
table fixed when the evaluation was created (null: none, its cost is not counted).

Revision ID: 0011_cost
Revises: 0009_reply_cache
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_cost"
down_revision = "0010_repeats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``results.judge_usage`` and ``evaluations.prices``."""
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("judge_usage", sa.Text(), nullable=True))
    with op.batch_alter_table("evaluations") as batch:
        batch.add_column(sa.Column("prices", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("evaluations") as batch:
        batch.drop_column("prices")
    with op.batch_alter_table("results") as batch:
        batch.drop_column("judge_usage")
