"""Indexes for a bot's page (issue 18 item 6), three per seat, so that every read of the page is
an index range (index only) whatever the bot's number of matches:

- ``ix_matches_seat_N_bot_sequence`` (bot, finishing order): a page of its matches, its running
  matches (no finishing order yet);
- ``ix_matches_seat_N_results``: every column its counts read, in their grouping order (a
  streaming GROUP BY, no sort);
- ``ix_matches_seat_N_rated`` (bot, ladder, version, rated, status, finishing order): the last
  rated match of each stretch of the rating history, one seek each.

They replace the single-column seat indexes of 0001 (a prefix of each new one).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def _columns(seat: int) -> dict[str, list[str]]:
    """Each new index of ``seat``, by name (as in ``schema.Match``, written out here: a migration
    does not change with the models)."""
    bot, version, other = f"seat_{seat}_bot", f"seat_{seat}_version", f"seat_{3 - seat}_bot"
    return {
        f"ix_matches_seat_{seat}_bot_sequence": [bot, "sequence"],
        f"ix_matches_seat_{seat}_results": [
            bot, "ladder", version, other, "status", "winner_seat", "faulty_seat", "termination", "rated",
        ],
        f"ix_matches_seat_{seat}_rated": [bot, "ladder", version, "rated", "status", "sequence"],
    }  # fmt: skip


def upgrade() -> None:
    for seat in (1, 2):
        for name, columns in _columns(seat).items():
            op.create_index(name, "matches", columns)
        op.drop_index(f"ix_matches_seat_{seat}_bot", table_name="matches")


def downgrade() -> None:
    for seat in (1, 2):
        op.create_index(f"ix_matches_seat_{seat}_bot", "matches", [f"seat_{seat}_bot"])
        for name in _columns(seat):
            op.drop_index(name, table_name="matches")
