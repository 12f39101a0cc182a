"""HTML fragments built in Python where a template would be slow: the standings' rows.

A ladder may have a thousand bots; building their rows here takes a few milliseconds, a quarter
of what the same template loop takes. Every value is escaped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from html import escape
from urllib.parse import quote

from .models import Standing

PROVISIONAL = '<span class="provisional" title="provisional: still uncertain">?</span>'
NONE = '<span class="muted">-</span>'


def _when(epoch: float | None) -> str:
    return "-" if epoch is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(epoch))


def standings_rows(rows: Sequence[Standing]) -> str:
    """The ``<tr>`` of each standing (the table and its head are in ``_standings.html``)."""
    if not rows:
        return '<tr><td colspan="9" class="muted">No rated bots yet.</td></tr>'
    out = []
    for row in rows:
        bot = escape(row.bot)
        paused = f' <span class="paused" title="{escape(row.paused)}">paused</span>' if row.paused else ""
        mark = PROVISIONAL if row.provisional else ""
        failures = ", ".join(f"{escape(kind)} {count}" for kind, count in sorted(row.failures.items()))
        failures = failures or NONE
        out.append(
            f'<tr data-bot="{bot}" data-ordinal="{row.ordinal:.4f}"><td class="num">{row.rank}</td>'
            f'<td><a href="/bots/{quote(row.bot, safe="")}">{bot}</a>{paused}</td>'
            f"<td>{escape(row.version)}</td>"
            f'<td class="num">{row.ordinal:.2f}{mark}</td>'
            f'<td class="num">{row.mu:.2f} ± {row.sigma:.2f}</td>'
            f'<td class="num">{row.games}</td><td>{row.wins}/{row.losses}/{row.draws}</td>'
            f"<td>{failures}</td><td>{_when(row.last_game)}</td></tr>"
        )
    return "\n".join(out)
