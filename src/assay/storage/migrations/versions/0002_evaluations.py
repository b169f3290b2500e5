"""Evaluations and their results.

Revision ID: 0002_evaluations
Revises: 0001_suites
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_evaluations"
down_revision = "0001_suites"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``evaluations`` and ``results``."""
    op.create_table(
        "evaluations",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("suite_id", sa.Integer(), nullable=False),
        sa.Column("grader_id", sa.String(200), nullable=False),
        sa.Column("grader_config", sa.Text(), nullable=False),
        sa.Column("grader_version", sa.String(100), nullable=False),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("concurrency", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_evaluations"),
        sa.ForeignKeyConstraint(
            ["suite_id"], ["suites.id"], name="fk_evaluations_suite_id_suites", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_evaluations_status", "evaluations", ["status"])
    op.create_index("ix_evaluations_suite_id_status", "evaluations", ["suite_id", "status"])
    op.create_table(
        "results",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("evaluation_id", sa.Integer(), nullable=False),
        sa.Column("case_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.Column("expected_output", sa.Text(), nullable=False),
        sa.Column("agent_response", sa.Text(), nullable=True),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("match_status", sa.String(40), nullable=True),
        sa.Column("details", sa.Text(), nullable=True),
        sa.Column("error", sa.String(100), nullable=True),
        sa.Column("error_detail", sa.Text(), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_results"),
        sa.ForeignKeyConstraint(
            ["evaluation_id"],
            ["evaluations.id"],
            name="fk_results_evaluation_id_evaluations",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("evaluation_id", "case_id", name="uq_results_evaluation_id"),
    )
    op.create_index("ix_results_evaluation_id_position", "results", ["evaluation_id", "position"])


def downgrade() -> None:
    """Drop ``results`` and ``evaluations``."""
    op.drop_table("results")
    op.drop_table("evaluations")
