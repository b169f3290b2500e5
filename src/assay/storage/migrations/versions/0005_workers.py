"""Workers: the shown target kept apart, summary recounts claimed, runner leases, procrastinate's queue.

On PostgreSQL, evaluations run as procrastinate jobs: its schema (tables ``procrastinate_*``, functions,
triggers) is applied here, at the version of procrastinate that ``pyproject.toml`` pins. A later version
of procrastinate that changes its schema comes with a new revision applying its migration files
(``procrastinate/sql/migrations``) in order, as procrastinate's documentation asks of migration tools.

Revision ID: 0005_workers
Revises: 0004_case_keys
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_workers"
down_revision = "0004_case_keys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``evaluations.target_view`` and ``summary_at``, ``runner_leases``, and (PostgreSQL) the queue."""
    with op.batch_alter_table("evaluations") as batch:
        batch.add_column(sa.Column("target_view", sa.Text(), nullable=True))
        batch.add_column(sa.Column("summary_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "runner_leases",
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("holder", sa.String(200), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_runner_leases"),
    )
    bind = op.get_bind()
    if bind.dialect.name == "postgresql" and not sa.inspect(bind).has_table("procrastinate_jobs"):
        from procrastinate.schema import SchemaManager

        # The schema is plain SQL holding '%' characters: run it as the driver's text, unformatted.
        bind.exec_driver_sql(SchemaManager.get_schema().replace("%", "%%"))


def downgrade() -> None:
    """Drop what ``upgrade`` added (procrastinate's schema stays: it may hold other jobs)."""
    op.drop_table("runner_leases")
    with op.batch_alter_table("evaluations") as batch:
        batch.drop_column("summary_at")
        batch.drop_column("target_view")
