"""The wire codec of Torrent and Fravan: FlankOptions, FlankAction, FlankLegal, FlankObservation."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import cast

from arbiter_games import GameOptions, MalformedAction, OptionsError
from arbiter_games.hexflank import PASS, SWAP, FlankObservation, FlankRules, Pass, Place, Swap

from . import wire
from .common import COLOUR_FROM_PB, SEAT_FROM_PB, colour_pb, seat_pb
from .v1 import bot_service_pb2 as pb
from .v1 import common_pb2 as cpb
from .v1 import flank_pb2 as fpb

# Tags of the fields written by ``observation_wire`` and ``legal_wire`` (flank.proto's numbers).
_OBS = [wire.tag(number, wire.VARINT) for number in range(14)]  # the varint fields 1 to 13
_BOARD = wire.tag(6, wire.LEN)
_LAST_ACTION = wire.tag(9, wire.LEN)
_EVENTS = wire.tag(14, wire.LEN)
_FLANK = wire.tag(1, wire.LEN)  # Observation.flank, LegalActions.flank, FlankAction.place
_LAST_PASS = wire.tag(2, wire.LEN) + b"\x00"  # FlankAction.pass, an empty FlankPass
_LAST_SWAP = wire.tag(3, wire.LEN) + b"\x00"  # FlankAction.swap, an empty FlankSwap
_CAN_PASS = wire.tag(2, wire.VARINT) + b"\x01"
_CAN_SWAP = wire.tag(3, wire.VARINT) + b"\x01"


#: A placement's point name.
_POINT = attrgetter("point")
#: The most values each of ``observation_wire``'s tables keeps (they stay far below it in play).
_CACHED = 4096


def _last_action(text: str) -> bytes:
    """Field 9 of a FlankObservation (its ``last_action``) for the engine's text of an action."""
    if text == "pass":
        return wire.length_delimited(_LAST_ACTION, _LAST_PASS)
    if text == "swap":
        return wire.length_delimited(_LAST_ACTION, _LAST_SWAP)
    place = wire.length_delimited(_FLANK, wire.text(_FLANK, text))
    return wire.length_delimited(_LAST_ACTION, place)


class FlankCodec:
    """Messages of one flank game (Torrent or Fravan); both share the flank messages."""

    action_types: tuple[type, ...] = (Place, Pass, Swap)
    observation_type: type = FlankObservation

    def __init__(self, rules: FlankRules, pb_game: cpb.Game) -> None:
        self.rules = rules
        self.game = rules.name
        self.pb_game = pb_game
        #: FlankLegal.points, each point's field once (``legal_wire``).
        self._point_fields = wire.StringFields(1)
        #: ``observation_wire``'s fields 1 to 5 (size, seats, colours) by their values, and its
        #: field 9 (the last action) by the engine's text: both take few values in a game.
        self._heads: dict[tuple[object, ...], bytes] = {}
        self._lasts: dict[str, bytes] = {}
        #: Each point name a move has named, read once (a ``Place`` is never changed: shared).
        self._places: dict[str, Place] = {}

    def options_from_pb(self, spec: cpb.GameSpec) -> dict[str, int]:
        which = spec.WhichOneof("options")
        if which not in (None, "flank"):
            raise OptionsError(f"{self.game} takes FlankOptions")
        return {"size": int(spec.flank.size)} if which == "flank" else {}

    def spec_to_pb(self, options: GameOptions) -> cpb.GameSpec:
        return cpb.GameSpec(game=self.pb_game, flank=cpb.FlankOptions(size=int(options.get("size", 0))))

    def action_to_pb(self, action: object) -> pb.Action:
        if type(action) is Place:
            return pb.Action(flank=fpb.FlankAction(place=fpb.FlankPlace(point=action.point)))
        if type(action) is Pass:
            flank = fpb.FlankAction()
            getattr(flank, "pass").SetInParent()
            return pb.Action(flank=flank)
        if type(action) is Swap:
            return pb.Action(flank=fpb.FlankAction(swap=fpb.FlankSwap()))
        raise MalformedAction(f"not a {self.game} action: {type(action).__name__}")

    def action_from_pb(self, message: pb.Action) -> object:
        which = message.WhichOneof("game")
        if which != "flank":
            raise MalformedAction(f"{self.game} expects Action.flank, got {which or 'nothing'}")
        kind = message.flank.WhichOneof("kind")
        if kind == "place":
            point = message.flank.place.point
            place = self._places.get(point)
            if place is None:
                parsed = self.rules.parse_action(point)  # MalformedAction for bad names
                if not isinstance(parsed, Place):
                    raise MalformedAction("FlankPlace.point must name a point, not 'pass' or 'swap'")
                place = parsed
                if len(self._places) < _CACHED:
                    self._places[point] = place
            return place
        if kind == "pass":
            return PASS
        if kind == "swap":
            return SWAP
        raise MalformedAction("FlankAction has no kind set (place, pass or swap)")

    def legal_to_pb(self, legal: Sequence[object]) -> pb.LegalActions:
        # Placements come first, then PASS and (second action only) SWAP.
        tail = legal[-2:]
        can_pass = any(a is PASS for a in tail)
        can_swap = any(a is SWAP for a in tail)
        # A hot path: the engine lists only placements before them, so no check per element.
        placements = cast("Sequence[Place]", legal[: len(legal) - can_pass - can_swap])
        points = [a.point for a in placements]
        return pb.LegalActions(flank=fpb.FlankLegal(points=points, can_pass=can_pass, can_swap=can_swap))

    def legal_wire(self, legal: Sequence[object]) -> bytes:
        """``legal_to_pb(legal).SerializeToString()``, written directly (the arbiter's hot path)."""
        # As ``legal_to_pb`` reads them (PASS or SWAP among the last two), without a generator.
        count = len(legal)
        last = legal[-1] if count else None
        before = legal[-2] if count > 1 else None
        can_pass = last is PASS or before is PASS
        can_swap = last is SWAP or before is SWAP
        placements = legal[: count - can_pass - can_swap]
        # Each point's field from the table, in C (no Python loop over the placements).
        body = b"".join(map(self._point_fields.__getitem__, map(_POINT, placements)))
        if can_pass:
            body += _CAN_PASS
        if can_swap:
            body += _CAN_SWAP
        return wire.length_delimited(_FLANK, body)

    def legal_from_pb(self, message: pb.LegalActions) -> list[object]:
        out: list[object] = [Place(p) for p in message.flank.points]
        if message.flank.can_pass:
            out.append(PASS)
        if message.flank.can_swap:
            out.append(SWAP)
        return out

    def observation_to_pb(self, obs: object) -> pb.Observation:
        if not isinstance(obs, FlankObservation):
            raise TypeError(f"not a flank observation: {type(obs).__name__}")
        scores = dict(obs.scores)
        last = None
        if obs.last_action is not None:  # the engine's own text: "pass", "swap" or a point name
            text = obs.last_action
            action = PASS if text == "pass" else SWAP if text == "swap" else Place(text)
            last = self.action_to_pb(action).flank
        return pb.Observation(
            flank=fpb.FlankObservation(
                size=obs.size,
                seat=seat_pb(obs.seat),
                colour=colour_pb(obs.colour),
                to_move_seat=seat_pb(obs.to_move_seat),
                to_move_colour=colour_pb(obs.to_move_colour),
                board=obs.board,
                events=obs.events,
                swapped=obs.swapped,
                action_count=obs.action_count,
                last_action=last,
                first_pass_colour=colour_pb(obs.first_pass_colour),
                black_score=scores["black"],
                white_score=scores["white"],
                over=obs.over,
            )
        )

    def observation_wire(self, obs: object) -> bytes:
        """``observation_to_pb(obs).SerializeToString()``, written directly (the arbiter's hot
        path: a Turn carries one)."""
        if not isinstance(obs, FlankObservation):
            raise TypeError(f"not a flank observation: {type(obs).__name__}")
        scores = dict(obs.scores)
        scalar = wire.scalar
        key = (obs.size, obs.seat, obs.colour, obs.to_move_seat, obs.to_move_colour)
        head = self._heads.get(key)
        if head is None:
            head = b"".join(
                (
                    scalar(_OBS[1], obs.size),
                    scalar(_OBS[2], seat_pb(obs.seat)),
                    scalar(_OBS[3], colour_pb(obs.colour)),
                    scalar(_OBS[4], seat_pb(obs.to_move_seat)),
                    scalar(_OBS[5], colour_pb(obs.to_move_colour)),
                )
            )
            if len(self._heads) < _CACHED:
                self._heads[key] = head
        last = b""
        text = obs.last_action  # the engine's own text: "pass", "swap" or a point name
        if text is not None:
            last = self._lasts.get(text, b"")
            if not last:
                last = _last_action(text)
                if len(self._lasts) < _CACHED:
                    self._lasts[text] = last
        body = b"".join(
            (
                head,
                wire.text(_BOARD, obs.board),
                scalar(_OBS[7], obs.swapped),
                scalar(_OBS[8], obs.action_count),
                last,
                scalar(_OBS[10], colour_pb(obs.first_pass_colour)),
                scalar(_OBS[11], scores["black"]),
                scalar(_OBS[12], scores["white"]),
                scalar(_OBS[13], obs.over),
                wire.packed(_EVENTS, obs.events),
            )
        )
        return wire.length_delimited(_FLANK, body)

    def observation_from_pb(self, message: pb.Observation) -> FlankObservation:
        if message.WhichOneof("game") != "flank":
            raise ValueError(f"{self.game} expects Observation.flank")
        o = message.flank
        last = None
        if o.HasField("last_action"):
            kind = o.last_action.WhichOneof("kind")
            last = str(o.last_action.place.point) if kind == "place" else (None if kind is None else kind)
        return FlankObservation(
            game=self.game,
            size=o.size,
            seat=SEAT_FROM_PB[o.seat],
            colour=COLOUR_FROM_PB[o.colour],
            to_move_seat=SEAT_FROM_PB.get(o.to_move_seat),
            to_move_colour=COLOUR_FROM_PB[o.to_move_colour],
            board=o.board,
            events=tuple(o.events),
            swapped=o.swapped,
            action_count=o.action_count,
            last_action=last,
            first_pass_colour=COLOUR_FROM_PB.get(o.first_pass_colour),
            scores=(("black", o.black_score), ("white", o.white_score)),
            over=o.over,
        )
