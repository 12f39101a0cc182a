"""Indexes for the web pages' reads: the latest matches (all, a ladder's), each bot version's last
game on a ladder (a few index entries per row of the standings), a ladder's failed matches. Few,
since every index costs each match's writes.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

INDEXES = {
    "ix_matches_started_at": ["started_at"],
    "ix_matches_ladder_started_at": ["ladder", "started_at"],
    "ix_matches_ladder_seat_1_bot_seat_1_version_ended_at": [
        "ladder", "seat_1_bot", "seat_1_version", "ended_at",
    ],
    "ix_matches_ladder_seat_2_bot_seat_2_version_ended_at": [
        "ladder", "seat_2_bot", "seat_2_version", "ended_at",
    ],
    "ix_matches_ladder_faulty_seat": ["ladder", "faulty_seat"],
}  # fmt: skip


def upgrade() -> None:
    for name, columns in INDEXES.items():
        op.create_index(name, "matches", columns)


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name="matches")
