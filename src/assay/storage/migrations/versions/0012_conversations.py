"""Conversations: a case's chat messages as input and its scripted turns (docs/conversations.md).

``cases.conversation`` holds ``{"messages"?, "turns"?}`` as JSON text (``SafeJSON``), null for a case whose
input is one string; ``cases.input`` keeps the conversation's text for lists, search and names.

Revision ID: 0012_conversations
Revises: 0009_reply_cache
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_conversations"
down_revision = "0011_cost"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``cases.conversation``."""
    op.add_column("cases", sa.Column("conversation", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop it."""
    with op.batch_alter_table("cases") as batch:
        batch.drop_column("conversation")
