"""Conversions between the games' domain objects and the arbiter.v1 messages, for every game.

The arbiter (domain -> wire) and the bot SDK (wire -> domain) both use these, so both sides agree
by construction. Each game's messages have their own codec (``flank_codec``, ``surge_codec``);
this module finds the codec by game name, by action type or by observation type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from arbiter_games import GameOptions, Observation, OptionsError, get_game
from arbiter_games.fravan import FRAVAN
from arbiter_games.torrent import TORRENT

from .common import (
    COLOUR_FROM_PB,
    COLOUR_TO_PB,
    END_REASON_FROM_PB,
    END_REASON_TO_PB,
    SEAT_FROM_PB,
    SEAT_TO_PB,
    colour_from_pb,
    colour_pb,
    duration_pb,
    result_to_pb,
    seat_pb,
    seconds_from_pb,
    seconds_of,
    time_control_from_pb,
    time_control_to_pb,
)
from .flank_codec import FlankCodec
from .surge_codec import SurgeCodec
from .v1 import bot_service_pb2 as pb
from .v1 import common_pb2 as cpb


class GameCodec(Protocol):
    """The messages of one game: its options, actions, legal actions and observations."""

    game: str
    pb_game: cpb.Game
    action_types: tuple[type, ...]
    observation_type: type

    def options_from_pb(self, spec: cpb.GameSpec) -> dict[str, int]: ...

    def spec_to_pb(self, options: GameOptions) -> cpb.GameSpec: ...

    def action_to_pb(self, action: object) -> pb.Action: ...

    def action_from_pb(self, message: pb.Action) -> object: ...

    def legal_to_pb(self, legal: Sequence[object]) -> pb.LegalActions: ...

    def legal_from_pb(self, message: pb.LegalActions) -> list[object]: ...

    def observation_to_pb(self, obs: object) -> pb.Observation: ...

    def observation_from_pb(self, message: pb.Observation) -> Observation: ...

    def legal_wire(self, legal: Sequence[object]) -> bytes:
        """``legal_to_pb(legal).SerializeToString()`` (a codec may write it faster)."""
        ...

    def observation_wire(self, obs: object) -> bytes:
        """``observation_to_pb(obs).SerializeToString()`` (a codec may write it faster)."""
        ...


CODECS: Mapping[str, GameCodec] = {
    "torrent": FlankCodec(TORRENT, cpb.GAME_TORRENT),
    "fravan": FlankCodec(FRAVAN, cpb.GAME_FRAVAN),
    "surge": SurgeCodec(),
}
GAME_TO_PB: dict[str, cpb.Game] = {name: codec.pb_game for name, codec in CODECS.items()}
GAME_FROM_PB = {v: k for k, v in GAME_TO_PB.items()}
_BY_ACTION: dict[type, GameCodec] = {t: c for c in CODECS.values() for t in c.action_types}
_BY_OBSERVATION: dict[type, GameCodec] = {c.observation_type: c for c in CODECS.values()}
_BY_LEGAL = {"flank": CODECS["torrent"], "surge": CODECS["surge"]}


def codec(game: str) -> GameCodec:
    """The codec of a game by name."""
    found = CODECS.get(game)
    if found is None:
        raise OptionsError(f"unknown game {game!r}")
    return found


def spec_from_pb(spec: cpb.GameSpec) -> tuple[str, dict[str, int]]:
    """(game name, normalised options) from a GameSpec; raises OptionsError when it makes no sense."""
    name = GAME_FROM_PB.get(spec.game)
    if name is None:
        raise OptionsError("game must be set (GAME_TORRENT, GAME_FRAVAN or GAME_SURGE)")
    game = get_game(name)
    return name, game.normalise_options(CODECS[name].options_from_pb(spec))


def spec_to_pb(game: str, options: GameOptions) -> cpb.GameSpec:
    return codec(game).spec_to_pb(options)


def action_to_pb(action: object) -> pb.Action:
    found = _BY_ACTION.get(type(action))
    if found is None:
        raise TypeError(f"not an action: {type(action).__name__}")
    return found.action_to_pb(action)


def action_from_pb(game: str, message: pb.Action) -> object:
    """The domain action; raises MalformedAction when the message is not one for ``game``."""
    return codec(game).action_from_pb(message)


def legal_to_pb(game: str, legal: Sequence[object]) -> pb.LegalActions:
    return codec(game).legal_to_pb(legal)


def legal_from_pb(message: pb.LegalActions) -> list[object]:
    found = _BY_LEGAL.get(message.WhichOneof("game") or "")
    return [] if found is None else found.legal_from_pb(message)


def observation_to_pb(obs: object) -> pb.Observation:
    found = _BY_OBSERVATION.get(type(obs))
    if found is None:
        raise TypeError(f"not an observation: {type(obs).__name__}")
    return found.observation_to_pb(obs)


def observation_from_pb(game: str, message: pb.Observation) -> Observation:
    """The domain observation a bot works with (FlankObservation or SurgeObservation)."""
    if message.WhichOneof("game") is None:
        raise ValueError("Observation has no game set")
    return codec(game).observation_from_pb(message)


__all__ = [
    "CODECS",
    "COLOUR_FROM_PB",
    "COLOUR_TO_PB",
    "END_REASON_FROM_PB",
    "END_REASON_TO_PB",
    "GAME_FROM_PB",
    "GAME_TO_PB",
    "SEAT_FROM_PB",
    "SEAT_TO_PB",
    "GameCodec",
    "action_from_pb",
    "action_to_pb",
    "codec",
    "colour_from_pb",
    "colour_pb",
    "duration_pb",
    "legal_from_pb",
    "legal_to_pb",
    "observation_from_pb",
    "observation_to_pb",
    "result_to_pb",
    "seat_pb",
    "seconds_from_pb",
    "seconds_of",
    "spec_from_pb",
    "spec_to_pb",
    "time_control_from_pb",
    "time_control_to_pb",
]
