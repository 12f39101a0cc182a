"""Seeks paired across a cluster: one row per open seek of a bot connected to a cluster node,
claimed (with its opponent's) by the node that hosts their match (additive only).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

CLAIM = (
    "(claimed_by IS NULL AND match_id IS NULL AND seat IS NULL)"
    " OR (claimed_by IS NOT NULL AND match_id IS NOT NULL AND seat IN (1, 2))"
)


def upgrade() -> None:
    op.create_table(
        "cluster_seeks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("seek_id", sa.Text(), nullable=False),
        sa.Column("bot", sa.String(length=64), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("pairing_key", sa.Text(), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.Integer(), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("match_id", sa.String(length=64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.CheckConstraint(CLAIM, name=op.f("ck_cluster_seeks_claim")),
        sa.ForeignKeyConstraint(
            ["epoch"], ["cluster_nodes.epoch"], name=op.f("fk_cluster_seeks_epoch_cluster_nodes")
        ),
        sa.ForeignKeyConstraint(
            ["claimed_by"], ["cluster_nodes.epoch"], name=op.f("fk_cluster_seeks_claimed_by_cluster_nodes")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cluster_seeks")),
        sa.UniqueConstraint("match_id", "seat", name=op.f("uq_cluster_seeks_match_id_seat")),
    )
    op.create_index(op.f("ix_cluster_seeks_pairing_key"), "cluster_seeks", ["pairing_key"])
    op.create_index(op.f("ix_cluster_seeks_bot"), "cluster_seeks", ["bot"])
    op.create_index(op.f("ix_cluster_seeks_epoch"), "cluster_seeks", ["epoch"])


def downgrade() -> None:
    op.drop_index(op.f("ix_cluster_seeks_epoch"), table_name="cluster_seeks")
    op.drop_index(op.f("ix_cluster_seeks_bot"), table_name="cluster_seeks")
    op.drop_index(op.f("ix_cluster_seeks_pairing_key"), table_name="cluster_seeks")
    op.drop_table("cluster_seeks")
