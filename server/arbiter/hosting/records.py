"""Writes each finished match's JSON record to a folder, off the event loop (one writer thread)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import structlog

from ..match.events import MatchEnded, MatchEvent

log = structlog.get_logger("arbiter")


def write_record(directory: Path, record: Mapping[str, Any]) -> Path:
    """Write ``record`` as ``GAME-ID.json`` atomically (a temporary file, then a rename)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{record['game']}-{record['match_id']}.json"
    tmp = path.with_suffix(".json.tmp")
    # Compact, so that the C encoder writes it (an indented dump runs the pure-Python encoder,
    # which holds the interpreter lock long enough to delay the event loop).
    tmp.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


class RecordWriter:
    """A listener: records go to a single worker thread, in the order matches end."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="records")
        self.pending: set[Future[Path]] = set()

    def __call__(self, event: MatchEvent) -> None:
        if isinstance(event, MatchEnded):
            future = self.executor.submit(write_record, self.directory, event.record)
            self.pending.add(future)
            future.add_done_callback(self._done)

    def _done(self, future: Future[Path]) -> None:
        self.pending.discard(future)
        error = future.exception()
        if error is not None:
            log.error("record_not_written", error=str(error))

    def close(self) -> None:
        """Wait for the records still being written."""
        self.executor.shutdown(wait=True)
