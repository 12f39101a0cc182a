"""What a bot author writes against: the ``Bot`` base class and the small records it is handed.

A bot implements one method, :meth:`Bot.choose`. Observations and actions are the engines' own
domain objects (``arbiter_games.hexflank`` for Torrent/Fravan, ``arbiter_games.surge`` for
Surge Stones), so a bot can rebuild a position and search it with the same rules the arbiter runs.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arbiter_games.timecontrol import TimeControl as TimeControl

#: Timeout policies as words (``TimeoutPolicy`` on the wire).
TIMEOUT_LOSS = "loss"
TIMEOUT_DEFAULT_ACTION = "default_action"
#: Illegal-action policies as words (``IllegalActionPolicy`` on the wire).
ILLEGAL_FORFEIT = "forfeit"
ILLEGAL_REJECT = "reject"


@dataclass(frozen=True)
class MatchInfo:
    """A match as announced by ``MatchStarted`` (given to :meth:`Bot.on_match_start`).

    ``colour`` is the colour now: at the start, or after a swap when the match is resumed (every
    turn's context says the current one). ``clocks`` maps seat to seconds left (``None``: no game
    clock). ``seed_commitment`` is the Surge seed's SHA-256 (empty for other games).
    ``observation`` is the position as the bot may see it when the message was sent (after a
    reconnect while the opponent thinks, the only way to learn it before the next turn).
    """

    match_id: str
    game: str
    options: Mapping[str, Any]
    seat: int
    colour: str | None
    opponent_name: str
    time_control: TimeControl
    seed_commitment: str
    resumed: bool
    timeout_policy: str
    illegal_action_policy: str
    clocks: Mapping[int, float | None]
    observation: Any = None


@dataclass(frozen=True)
class Rejection:
    """A refused move (``MoveRejected``): why, and whether the same turn may be answered again."""

    match_id: str
    turn_id: int
    reason: str
    code: int
    message: str
    may_retry: bool
    action: Any = None


@dataclass(frozen=True)
class TurnContext:
    """Facts about the decision beyond the observation.

    ``clocks`` maps seat to seconds left when the turn was sent (``None``: no game clock);
    ``decision_limit`` is the most this decision may take in seconds (``None``: untimed);
    ``received_at`` is the ``time.monotonic()`` moment the turn arrived. ``rejections`` lists the
    earlier refusals of this same turn (only with the ``reject`` policy), oldest first.
    """

    match_id: str
    turn_id: int
    game: str
    options: Mapping[str, Any]
    seat: int
    colour: str | None
    opponent_name: str
    clocks: Mapping[int, float | None]
    decision_limit: float | None
    received_at: float = field(default_factory=time.monotonic)
    rejections: tuple[Rejection, ...] = ()
    info: MatchInfo | None = None

    @property
    def deadline(self) -> float | None:
        """The ``time.monotonic()`` moment by which the answer must reach the arbiter (no margin)."""
        return None if self.decision_limit is None else self.received_at + self.decision_limit

    def time_left(self) -> float | None:
        """Seconds left for this decision now (``None`` when untimed); network time not included."""
        deadline = self.deadline
        return None if deadline is None else deadline - time.monotonic()


#: Match outcomes from the bot's point of view.
WIN = "win"
LOSS = "loss"
DRAW = "draw"
ABORTED = "aborted"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class MatchSummary:
    """How a match ended, from this bot's point of view (given to :meth:`Bot.on_match_end`).

    ``outcome`` is ``win``, ``loss``, ``draw``, ``aborted`` (the arbiter stopped the match) or
    ``unknown`` (the match ended while the bot was disconnected, so no result reached it).
    ``scores`` maps seat to score. ``reason`` is the end reason as a word (``two_passes``,
    ``board_empty``, ``timeout``, ``illegal_action`` ...). ``seed_verified`` is ``None`` except in
    Surge, where it says whether the revealed seed matched the commitment and every draw this bot
    saw; ``seed_problems`` lists what did not match.
    """

    match_id: str
    game: str
    options: Mapping[str, Any]
    seat: int
    opponent_name: str
    outcome: str
    winner_seat: int | None = None
    winner_colour: str | None = None
    colour: str | None = None
    scores: Mapping[int, int] = field(default_factory=dict)
    reason: str = "unknown"
    detail: str = ""
    faulty_seat: int | None = None
    final_observation: Any = None
    actions: tuple[str, ...] = ()
    seed: str = ""
    seed_verified: bool | None = None
    seed_problems: tuple[str, ...] = ()

    @property
    def my_score(self) -> int | None:
        return self.scores.get(self.seat)

    @property
    def opponent_score(self) -> int | None:
        return self.scores.get(3 - self.seat)


class Bot:
    """Base class of a bot: override :meth:`choose`; the hooks are optional.

    ``choose`` runs in a worker thread so that the connection keeps flowing while the bot thinks;
    with ``max_concurrent > 1`` it may run for several matches at once (from several threads), so
    keep per-match state keyed by ``context.match_id``. The hooks run one at a time, in order.
    """

    #: A name for logs; the arbiter knows the bot by its token, not by this.
    name: str = "bot"

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        """Return the action to play.

        ``observation`` is a ``FlankObservation`` or ``SurgeObservation``; ``legal`` lists the
        legal actions (``Place``/``PASS``/``SWAP`` or ``PlaceStone``). Returning something not in
        ``legal`` is allowed: the arbiter judges it under the match's illegal-action policy. An
        action's text form (``"g7"``, ``"pass"``, ``"7@c2"``) is accepted too; text that is not an
        action at all (``"PASS"``, ``"7@C2"``) is handled like an error raised by ``choose``.
        """
        raise NotImplementedError("a bot must implement choose(observation, legal, context)")

    def on_match_start(self, info: MatchInfo) -> None:
        """A match begins (or, after a reconnect of a fresh process, resumes: ``info.resumed``)."""

    def on_match_end(self, summary: MatchSummary) -> None:
        """A match ended."""

    def on_move_rejected(self, rejection: Rejection) -> None:
        """The arbiter refused a move (logged by the SDK either way)."""
