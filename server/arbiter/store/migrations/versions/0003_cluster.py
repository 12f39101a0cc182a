"""Several nodes on one database: node registrations with their lease and epoch, the node that
hosts each ladder, the key of join tokens, and each match's owner epoch (additive only).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def _time(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "cluster_nodes",
        sa.Column("epoch", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("address", sa.String(length=200), nullable=False),
        sa.Column("state", sa.String(length=32), nullable=False),
        _time("started_at"),
        _time("heartbeat_at"),
        _time("lease_expires"),
        sa.Column("taken_by", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "state IN ('active', 'draining', 'stopped', 'dead')", name=op.f("ck_cluster_nodes_state")
        ),
        sa.PrimaryKeyConstraint("epoch", name=op.f("pk_cluster_nodes")),
    )
    op.create_index(op.f("ix_cluster_nodes_state"), "cluster_nodes", ["state"])
    op.create_table(
        "ladder_hosts",
        sa.Column("ladder", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        _time("claimed_at"),
        sa.ForeignKeyConstraint(["ladder"], ["ladders.name"], name=op.f("fk_ladder_hosts_ladder_ladders")),
        sa.ForeignKeyConstraint(
            ["epoch"], ["cluster_nodes.epoch"], name=op.f("fk_ladder_hosts_epoch_cluster_nodes")
        ),
        sa.PrimaryKeyConstraint("ladder", name=op.f("pk_ladder_hosts")),
    )
    op.create_index(op.f("ix_ladder_hosts_epoch"), "ladder_hosts", ["epoch"])
    op.create_table(
        "cluster_secret",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("secret", sa.String(length=128), nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_cluster_secret_one_row")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cluster_secret")),
    )
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("owner_epoch", sa.Integer(), nullable=True))
        batch.create_index(batch.f("ix_matches_owner_epoch"), ["owner_epoch"])


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_index(batch.f("ix_matches_owner_epoch"))
        batch.drop_column("owner_epoch")
    op.drop_table("cluster_secret")
    op.drop_index(op.f("ix_ladder_hosts_epoch"), table_name="ladder_hosts")
    op.drop_table("ladder_hosts")
    op.drop_index(op.f("ix_cluster_nodes_state"), table_name="cluster_nodes")
    op.drop_table("cluster_nodes")
