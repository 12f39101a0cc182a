"""The seam between open seeks and matches: a Matchmaker turns seeks into pairings.

Hosting owns the matches; a matchmaker only says who plays whom, in which seat. The ladder's
rating-aware scheduler will be another implementation of the same protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from arbiter_games.timecontrol import TimeControl


@dataclass(frozen=True)
class SeekKey:
    """Seeks pair when these agree. ``options`` are normalised, so equal games have equal keys."""

    game: str
    options: tuple[tuple[str, int], ...]
    control: TimeControl

    @classmethod
    def of(cls, game: str, options: Mapping[str, int], control: TimeControl) -> SeekKey:
        return cls(game, tuple(sorted(options.items())), control)


@dataclass(frozen=True)
class Seek:
    bot: str
    seek_id: str
    key: SeekKey


@dataclass(frozen=True)
class Pairing:
    """Two seeks that become one match: ``seats[1]`` moves first."""

    key: SeekKey
    seats: Mapping[int, Seek]
    #: The match's id when the pairing chose it already (a cluster's claim records it); else
    #: hosting makes one.
    match_id: str | None = None


class Matchmaker(Protocol):
    def add(self, seek: Seek, may_pair: bool = True) -> list[Pairing]:
        """Take a seek; the pairings it completes (none while ``may_pair`` is false)."""
        ...

    def remove_bot(self, bot: str) -> None:
        """Drop every open seek of ``bot`` (it left)."""
        ...

    def open_seeks(self, bot: str) -> int: ...

    def waiting(self, key: SeekKey) -> int:
        """How many seeks wait for a match of this key."""
        ...

    def clear(self) -> None: ...
