"""A person's seat (issue 23): a guest plays a connected bot through the same hosting and match code.

A person's match is an ordinary ``Match`` started by ``MatchHosting``: the same referee, clocks
and hidden information as a bot's. What the person is shown is what a bot's seat gets: the seat's
``game.observe``, the legal actions of its pending turn, the server's clock reading. An answer goes
through ``MatchHosting.answer``, so it is judged by ``Match.submit`` (an illegal one is refused with
the engine's reason).

Pairing: a person plays a bot joined to a ladder of the asked game and options, in a slot the
bot has free there (``LadderHost.lend_slot``): the bot has said by joining which game it plays and
how many matches at once, and the ladder's scheduler keeps to that count. The match itself is not
the ladder's: unrated, never counted in the ladder's standings.
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arbiter_games import ActionError, OptionsError, get_game
from arbiter_games.policy import ILLEGAL_REJECT, MatchPolicy
from arbiter_games.timecontrol import TimeControl

from ..hosting.host import MatchHosting
from ..ladder.host import LadderHost
from ..match.events import MatchEvent, MoveRefused, Refusal
from ..match.match import Match, MatchSetup
from .registry import PERSON_PREFIX

#: Persons' matches running at once on this arbiter, and per client address.
PEOPLE_LIMIT = 64
PER_ADDRESS_LIMIT = 2
#: The version a person's seat plays as (the store keeps a version per seat).
PERSON_VERSION = "person"


class PlayRefused(Exception):
    """A request of a person the arbiter does not take; ``status``: the HTTP status it maps to."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message


@dataclass
class PersonSeat:
    """One person's seat in one match, and the secret that proves it is theirs."""

    match_id: str
    seat: int
    name: str
    bot: str
    token: str
    address: str
    refusals: list[MoveRefused] = field(default_factory=list)


def person_name() -> str:
    """A fresh name for a guest's seat: never a bot's name (a bot's starts with a letter or digit)."""
    return PERSON_PREFIX + secrets.token_hex(4)


class HumanSeats:
    """The persons' seats of this node: start a match against a bot, read it, answer its turns.
    A listener of the node's bus (``MoveRefused``: the refusals of a person's answers)."""

    def __init__(
        self,
        hosting: MatchHosting,
        ladders: LadderHost | None,
        connected: Callable[[str], bool],
        version_of: Callable[[str], str],
        policy: MatchPolicy,
    ) -> None:
        self.hosting = hosting
        self.ladders = ladders
        self.connected = connected
        self.version_of = version_of
        #: A person's misclick is refused and the turn stays open (for both seats of the match).
        self.policy = dataclasses.replace(policy, on_illegal=ILLEGAL_REJECT)
        self.seats: dict[str, PersonSeat] = {}

    # --- starting -----------------------------------------------------------------------------
    def start(
        self,
        bot: str,
        game: str,
        options: Mapping[str, int],
        control: TimeControl,
        address: str = "",
        seat: int | None = None,
    ) -> PersonSeat:
        """Start a match of a guest against ``bot``; raises PlayRefused."""
        try:
            normalised = get_game(game).normalise_options(options)
        except OptionsError as exc:  # an unknown game too
            raise PlayRefused(400, "BAD_REQUEST", str(exc)) from None
        if not control.timed:
            raise PlayRefused(400, "BAD_REQUEST", "a person's match needs a base time (untimed could stall)")
        if seat not in (None, 1, 2):
            raise PlayRefused(400, "BAD_REQUEST", "seat is 1 or 2")
        running = [s for s in self.seats.values() if self._running(s)]
        if len(running) >= PEOPLE_LIMIT:
            raise PlayRefused(429, "RESOURCE_EXHAUSTED", f"at most {PEOPLE_LIMIT} persons' matches at once")
        if sum(1 for s in running if s.address == address) >= PER_ADDRESS_LIMIT:
            raise PlayRefused(
                429, "RESOURCE_EXHAUSTED", f"at most {PER_ADDRESS_LIMIT} matches at once from one address"
            )
        if not self.connected(bot):
            raise PlayRefused(409, "BOT_NOT_CONNECTED", f"bot {bot[:40]!r} is not connected")
        ladder = None if self.ladders is None else self.ladders.lend_slot(bot, game, normalised)
        if ladder is None:
            raise PlayRefused(
                409,
                "NO_FREE_SLOT",
                f"bot {bot[:40]!r} has no free slot on a ladder of {game} with these options",
            )
        mine = seat if seat is not None else secrets.choice((1, 2))
        name = person_name()
        seats = {mine: name, 3 - mine: bot}
        setup = MatchSetup(
            game,
            dict(normalised),
            seats,
            control,
            self.policy,
            versions={mine: PERSON_VERSION, 3 - mine: self.version_of(bot)},
            slot_ladder=ladder,
        )
        match = self.hosting.start(setup)
        person = PersonSeat(match.id, mine, name, bot, secrets.token_urlsafe(24), address)
        self.seats[match.id] = person
        return person

    def _running(self, person: PersonSeat) -> bool:
        match = self.hosting.find(person.name, person.match_id)
        return match is not None and match.end is None

    # --- the seat -----------------------------------------------------------------------------
    def seat(self, match_id: str, token: str | None) -> tuple[PersonSeat, Match]:
        """The seat of ``match_id`` whose secret is ``token``; raises PlayRefused (404 for a wrong
        token too: another person's match is not told apart from none)."""
        person = self.seats.get(match_id)
        if person is None or not token or not hmac.compare_digest(person.token, token):
            raise PlayRefused(404, "NOT_FOUND", f"no match {match_id[:40]!r} of yours")
        match = self.hosting.find(person.name, match_id)
        if match is None:
            raise PlayRefused(404, "NOT_FOUND", f"match {match_id[:40]!r} is gone")
        return person, match

    def view(self, match_id: str, token: str | None) -> dict[str, Any]:
        person, match = self.seat(match_id, token)
        return seat_view(person, match)

    def move(self, match_id: str, token: str | None, action: str, turn_id: int | None) -> dict[str, Any]:
        """Answer the seat's turn with ``action`` (its text); the new view, or PlayRefused with the
        match's reason (400: illegal or malformed; 409: not this seat's turn, or over)."""
        person, match = self.seat(match_id, token)
        pending = match.pending
        if turn_id is None:
            if match.end is not None or pending is None or pending.seat != person.seat:
                raise PlayRefused(409, Refusal.NOT_YOUR_TURN.value, "it is not your turn")
            turn_id = pending.turn_id
        parsed: object | ActionError
        try:
            parsed = match.game.parse_action(action)
        except ActionError as exc:
            parsed = exc
        person.refusals.clear()
        self.hosting.answer(match, person.name, turn_id, parsed)
        if person.refusals:
            refused = person.refusals[-1]
            bad = refused.reason in (Refusal.ILLEGAL_ACTION, Refusal.MALFORMED_ACTION)
            raise PlayRefused(400 if bad else 409, refused.reason.value, refused.message)
        return seat_view(person, match)

    # --- the listener -------------------------------------------------------------------------
    def __call__(self, event: MatchEvent) -> None:
        if isinstance(event, MoveRefused):
            person = self.seats.get(event.facts.match_id)
            if person is not None and person.seat == event.seat:
                person.refusals.append(event)


def observation_json(observation: object) -> dict[str, Any]:
    """An observation (every game's is a dataclass) as JSON-ready values: its fields by name."""
    if not dataclasses.is_dataclass(observation) or isinstance(observation, type):
        raise TypeError(f"not an observation: {type(observation).__name__}")
    return dataclasses.asdict(observation)


def seat_view(person: PersonSeat, match: Match) -> dict[str, Any]:
    """What the person's seat is shown now: exactly what a bot's seat gets (its observation, its
    pending turn's legal actions, the server's clocks), as JSON-ready values."""
    game = match.game
    observation = game.observe(match.state, person.seat)
    pending = match.pending
    mine = pending is not None and pending.seat == person.seat and not match.suspended
    end = match.end
    result = None
    if end is not None:
        result = {
            "reason": end.reason,
            "winner_seat": end.winner_seat,
            "you_won": None if end.winner_seat is None else end.winner_seat == person.seat,
            "scores": {str(seat): score for seat, score in end.scores.items()},
            "detail": end.detail,
        }
    return {
        "match_id": match.id,
        "game": game.name,
        "options": dict(match.options),
        "seat": person.seat,
        "colour": observation.colour,
        "bot": person.bot,
        "observation": observation_json(observation),
        "to_move": None if pending is None else pending.seat,
        "turn_id": pending.turn_id if mine and pending is not None else None,
        "legal": [game.format_action(a) for a in pending.legal] if mine and pending is not None else [],
        "clocks": {str(seat): left for seat, left in match.clock_reading().items()},
        "over": end is not None,
        "result": result,
    }
