"""The wire codec of Surge Stones: SurgeOptions, SurgeAction, SurgeLegal, SurgeObservation."""

from __future__ import annotations

from collections.abc import Sequence

from arbiter_games import GameOptions, MalformedAction, OptionsError
from arbiter_games.surge import SKIP, SURGE, PlaceStone, Skip, SurgeObservation

from .common import COLOUR_FROM_PB, SEAT_FROM_PB, colour_pb, seat_pb
from .v1 import bot_service_pb2 as pb
from .v1 import common_pb2 as cpb
from .v1 import surge_pb2 as spb


class SurgeCodec:
    """Messages of Surge Stones."""

    game = "surge"
    pb_game = cpb.GAME_SURGE
    action_types: tuple[type, ...] = (PlaceStone, Skip)
    observation_type: type = SurgeObservation

    def options_from_pb(self, spec: cpb.GameSpec) -> dict[str, int]:
        if spec.WhichOneof("options") not in (None, "surge"):
            raise OptionsError("Surge takes SurgeOptions")
        return {}

    def spec_to_pb(self, options: GameOptions) -> cpb.GameSpec:
        return cpb.GameSpec(game=cpb.GAME_SURGE, surge=cpb.SurgeOptions())

    def action_to_pb(self, action: object) -> pb.Action:
        if type(action) is PlaceStone:
            return pb.Action(
                surge=spb.SurgeAction(place=spb.SurgePlace(value=action.value, square=action.square))
            )
        if type(action) is Skip:
            return pb.Action(surge=spb.SurgeAction(skip=spb.SurgeSkip()))
        raise MalformedAction(f"not a surge action: {type(action).__name__}")

    def action_from_pb(self, message: pb.Action) -> object:
        which = message.WhichOneof("game")
        if which != "surge":
            raise MalformedAction(f"surge expects Action.surge, got {which or 'nothing'}")
        kind = message.surge.WhichOneof("kind")
        if kind == "place":
            place = message.surge.place
            if place.value < 0:  # no text form: "-1@c2" cannot be read
                raise MalformedAction(f"stone value {place.value} is not a number of a stone (1 to 10)")
            return SURGE.parse_action(f"{place.value}@{place.square}")
        if kind == "skip":
            return SKIP
        raise MalformedAction("SurgeAction has no kind set (place or skip)")

    def legal_to_pb(self, legal: Sequence[object]) -> pb.LegalActions:
        values: list[int] = []
        squares: list[str] = []
        for a in legal:
            if type(a) is PlaceStone:
                if a.value not in values:
                    values.append(a.value)
                if a.square not in squares:
                    squares.append(a.square)
        return pb.LegalActions(surge=spb.SurgeLegal(values=sorted(values), squares=squares))

    def legal_from_pb(self, message: pb.LegalActions) -> list[object]:
        if not message.surge.values or not message.surge.squares:
            return [SKIP]
        return [PlaceStone(v, s) for v in message.surge.values for s in message.surge.squares]

    def observation_to_pb(self, obs: object) -> pb.Observation:
        if not isinstance(obs, SurgeObservation):
            raise TypeError(f"not a Surge observation: {type(obs).__name__}")
        return pb.Observation(
            surge=spb.SurgeObservation(
                seat=seat_pb(obs.seat),
                colour=colour_pb(obs.colour),
                round=obs.round,
                rounds_played=obs.rounds_played,
                over=obs.over,
                your_turn=obs.your_turn,
                to_move=colour_pb(obs.to_move),
                first_placer=colour_pb(obs.first_placer),
                face_up=[spb.SurgeStone(square=s, colour=colour_pb(c), value=v) for s, c, v in obs.face_up],
                face_down=[
                    spb.SurgeStone(square=s, colour=colour_pb(c), value=v or 0) for s, c, v in obs.face_down
                ],
                hand=obs.hand,
                supply=obs.supply,
                opponent_hand_size=obs.opponent_hand_size,
                opponent_supply_size=obs.opponent_supply_size,
                blue_score=obs.blue_score,
                orange_score=obs.orange_score,
                removed_blue=obs.removed_blue,
                removed_orange=obs.removed_orange,
            )
        )

    def legal_wire(self, legal: Sequence[object]) -> bytes:
        """``legal_to_pb(legal)`` serialised (Surge's Turns are small: no faster path)."""
        return self.legal_to_pb(legal).SerializeToString()

    def observation_wire(self, obs: object) -> bytes:
        """``observation_to_pb(obs)`` serialised."""
        return self.observation_to_pb(obs).SerializeToString()

    def observation_from_pb(self, message: pb.Observation) -> SurgeObservation:
        if message.WhichOneof("game") != "surge":
            raise ValueError("surge expects Observation.surge")
        s = message.surge
        return SurgeObservation(
            seat=SEAT_FROM_PB[s.seat],
            colour=COLOUR_FROM_PB[s.colour],
            round=s.round,
            rounds_played=s.rounds_played,
            over=s.over,
            your_turn=s.your_turn,
            to_move=COLOUR_FROM_PB.get(s.to_move),
            first_placer=COLOUR_FROM_PB[s.first_placer],
            face_up=tuple((st.square, COLOUR_FROM_PB[st.colour], st.value) for st in s.face_up),
            face_down=tuple((st.square, COLOUR_FROM_PB[st.colour], st.value or None) for st in s.face_down),
            hand=tuple(s.hand),
            supply=tuple(s.supply),
            opponent_hand_size=s.opponent_hand_size,
            opponent_supply_size=s.opponent_supply_size,
            blue_score=s.blue_score,
            orange_score=s.orange_score,
            removed_blue=tuple(s.removed_blue),
            removed_orange=tuple(s.removed_orange),
        )
