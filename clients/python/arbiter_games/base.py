"""The one small interface every rules engine implements.

A *seat* is which bot (1 moves first, 2 second); a *colour* is the role a seat
plays (Black/White, Blue/Orange). Seats never change during a game, colours may
(Torrent/Fravan's swap). Engines are pure: no I/O, clocks, logging or network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

SEAT_1 = 1
SEAT_2 = 2
SEATS = (SEAT_1, SEAT_2)


def cut_short(text: str) -> str:
    """``text``, cut short so that a huge input gives a short message."""
    return text if len(text) <= 40 else text[:37] + "..."


def shown_input(value: object) -> str:
    """``repr`` of a bot's input, cut short (also an int past Python's int string conversion limit)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a message must not fail (an int of over 4300 digits raises)
        return f"<{type(value).__name__}>"
    return cut_short(text)


def other_seat(seat: int) -> int:
    """The seat that is not ``seat``."""
    return 3 - seat


class ActionError(ValueError):
    """Base class for an action the engine refuses."""


class MalformedAction(ActionError):
    """The action cannot be parsed at all (e.g. ``E5`` or ``e05`` as a point name)."""


class IllegalAction(ActionError):
    """The action is well formed but not allowed in this position."""


class OptionsError(ValueError):
    """The game options are not valid for this game (e.g. an unsupported board size)."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``winner_seat``/``winner_colour`` are ``None`` for a draw. ``scores`` is keyed
    by seat, ``colour_scores`` by colour name. ``reason`` is a short machine
    word (``two_passes``, ``board_empty``, ``no_change``, ``round_limit`` ...).
    """

    winner_seat: int | None
    winner_colour: str | None
    scores: Mapping[int, int]
    colour_scores: Mapping[str, int]
    reason: str
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_draw(self) -> bool:
        return self.winner_seat is None


S = TypeVar("S")
A = TypeVar("A")
O_co = TypeVar("O_co", covariant=True)


class Rules(Protocol, Generic[S, A, O_co]):
    """What the arbiter, replays, the SDK and bots need from a game.

    ``apply`` never changes the state it is given; ``apply_in_place`` is the
    faster path for search code that owns its state.
    """

    name: str

    def new_game(self, options: Mapping[str, Any] | None = None, seed: bytes | None = None) -> S: ...

    def to_move(self, state: S) -> int | None: ...

    def legal_actions(self, state: S) -> Sequence[A]: ...

    def apply(self, state: S, action: A) -> S: ...

    def apply_in_place(self, state: S, action: A) -> None: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def scores_by_seat(self, state: S) -> dict[int, int]:
        """Each seat's score at this moment (also before the end)."""
        ...

    def observe(self, state: S, seat: int) -> O_co: ...

    def parse_action(self, text: str) -> A: ...

    def format_action(self, action: A) -> str: ...
