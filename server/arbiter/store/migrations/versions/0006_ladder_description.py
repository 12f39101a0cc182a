"""A ladder's description (issue 19 item 18: `arbiter ladders edit NAME --description`), additive.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("ladders") as batch:
        batch.add_column(sa.Column("description", sa.Text(), server_default="", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("ladders") as batch:
        batch.drop_column("description")
