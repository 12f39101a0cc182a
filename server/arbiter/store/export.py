"""Every finished match of a ladder as NDJSON, read page by page in finishing order (the web's
``/api/ladders/NAME/matches.ndjson`` and ``arbiter matches export --format ndjson``)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from .sql import SqlStore

#: Matches read from the store at once.
PAGE = 200


def ndjson_lines(store: SqlStore, ladder: str, after: int = 0, limit: int | None = None) -> Iterator[str]:
    """One JSON line per finished match of ``ladder`` that finished after number ``after``:
    ``{"sequence": N, "match_id": ID, "ladder": NAME, "record": {...}}``, at most ``limit``."""
    sent = 0
    while limit is None or sent < limit:
        rows = store.finished_records(ladder, after, PAGE)
        for number, match_id, record in rows:
            after = number
            if record is None:
                continue
            line = {"sequence": number, "match_id": match_id, "ladder": ladder, "record": record}
            yield json.dumps(line, separators=(",", ":")) + "\n"
            sent += 1
            if limit is not None and sent >= limit:
                return
        if len(rows) < PAGE:
            return
