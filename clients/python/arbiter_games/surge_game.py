"""The game definition of Surge Stones: chance from a committed seed, hidden hands and face-down stones."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .game import SeedCheck, TypedGame
from .surge import BLUE, ORANGE, SKIP, SURGE, PlaceStone, Skip, SurgeAction, SurgeObservation, SurgeState
from .surge import render_text as surge_render_text
from .surge_seed import SeedRecorder


@dataclass(frozen=True, slots=True)
class SurgePublicView:
    """A Surge position as a spectator sees it: what both seats know.

    ``face_down`` names the square and owner of a stone placed this round and not yet revealed,
    never its value; hands are shown by their sizes only, supplies by their sizes only.
    """

    round: int
    rounds_played: int
    over: bool
    to_move: str | None
    first_placer: str
    face_up: tuple[tuple[str, str, int], ...]
    face_down: tuple[tuple[str, str], ...]
    hand_sizes: tuple[tuple[str, int], ...]
    supply_sizes: tuple[tuple[str, int], ...]
    blue_score: int
    orange_score: int
    removed_blue: tuple[int, ...]
    removed_orange: tuple[int, ...]


class SurgeGame(TypedGame[SurgeState, SurgeAction, SurgeObservation]):
    """Surge Stones: no options; both draw orders come from the match's seed."""

    name = "surge"
    title = "Surge Stones"
    has_chance = True
    hidden_information = True
    colours = (BLUE, ORANGE)

    def __init__(self) -> None:
        super().__init__(SURGE, (PlaceStone, Skip))

    def forced_action(self, state: object, legal: Sequence[object]) -> object | None:
        """A player who cannot place skips: the arbiter plays the skip without asking."""
        return SKIP if len(legal) == 1 and legal[0] is SKIP else None

    def public_view(self, state: object) -> SurgePublicView:
        # Built from the two seats' own observations, so it holds only what both of them know.
        blue, orange = self.observe(state, 1), self.observe(state, 2)
        return SurgePublicView(
            round=blue.round,
            rounds_played=blue.rounds_played,
            over=blue.over,
            to_move=blue.to_move,
            first_placer=blue.first_placer,
            face_up=blue.face_up,
            face_down=tuple((square, owner) for square, owner, _ in blue.face_down),
            hand_sizes=((BLUE, len(blue.hand)), (ORANGE, len(orange.hand))),
            supply_sizes=((BLUE, len(blue.supply)), (ORANGE, len(orange.supply))),
            blue_score=blue.blue_score,
            orange_score=blue.orange_score,
            removed_blue=blue.removed_blue,
            removed_orange=blue.removed_orange,
        )

    def seed_check(self, match_id: str, commitment: str, colour: str) -> SeedCheck:
        return SeedRecorder(match_id, commitment, colour)

    def render_text(self, state: object, colour: bool = False) -> str:
        if not isinstance(state, SurgeState):
            raise TypeError(f"not a Surge state: {type(state).__name__}")
        return surge_render_text(state)


SURGE_GAME = SurgeGame()
