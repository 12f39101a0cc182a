"""Accounts for bot owners on the web pages (issue 22, first part; docs/accounts.md), additive:
accounts (a name, a password hash, disabled, admin), invite codes (hashed, with uses left and an
expiry), the key that signs session cookies, and each bot's optional account.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("disabled", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("admin", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("session_epoch", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name", name=op.f("uq_accounts_name")),
        sa.UniqueConstraint("name_key", name=op.f("uq_accounts_name_key")),
    )
    op.create_table(
        "invites",
        sa.Column("code_hash", sa.String(length=80), nullable=False),
        sa.Column("uses_left", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("code_hash", name=op.f("pk_invites")),
    )
    op.create_table(
        "web_secret",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("secret", sa.String(length=128), nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_web_secret_one_row")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_secret")),
    )
    with op.batch_alter_table("bots") as batch:
        batch.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_bots_account_id_accounts"), "accounts", ["account_id"], ["id"])
        batch.create_index(op.f("ix_bots_account_id"), ["account_id"])


def downgrade() -> None:
    with op.batch_alter_table("bots") as batch:
        batch.drop_index(op.f("ix_bots_account_id"))
        batch.drop_constraint(op.f("fk_bots_account_id_accounts"), type_="foreignkey")
        batch.drop_column("account_id")
    op.drop_table("web_secret")
    op.drop_table("invites")
    op.drop_table("accounts")
