"""The reply cache and the agent's usage: replies by content key, which evaluations use the cache, which
results came from it, and the tokens each reply said it spent.

``reply_cache`` holds replies by the SHA-256 of the target's reply-changing settings, the input and the repeat
index; ``evaluations.reply_cache`` says how an evaluation uses it (``off``, ``record``, ``replay``);
``results.cached`` marks a result whose reply came from it; ``results.input_tokens``, ``output_tokens`` and
``usage_model`` hold what the agent's reply said it spent (null: unknown).

Revision ID: 0009_reply_cache
Revises: 0008_shared_settings
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_reply_cache"
down_revision = "0008_shared_settings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``reply_cache``; add ``evaluations.reply_cache`` and ``results.cached``."""
    op.create_table(
        "reply_cache",
        sa.Column("key", sa.LargeBinary(32), primary_key=True),
        sa.Column("output", sa.Text(), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("stored_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("evaluations") as batch:
        batch.add_column(sa.Column("reply_cache", sa.String(10), nullable=False, server_default="off"))
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("cached", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("input_tokens", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("output_tokens", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("usage_model", sa.String(200), nullable=True))


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("results") as batch:
        for column in ("usage_model", "output_tokens", "input_tokens", "cached"):
            batch.drop_column(column)
    with op.batch_alter_table("evaluations") as batch:
        batch.drop_column("reply_cache")
    op.drop_table("reply_cache")
