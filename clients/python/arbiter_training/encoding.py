"""Fixed action enumerations and observation arrays for the games, from what a seat observes only.

Every array here is computed from one seat's observation (``GameDef.observe(state, seat)``), never
from the state itself, so nothing hidden from that seat (Surge's opponent hand, supply order and
face-down values) can reach it.

Torrent and Fravan (``FlankCodec``): actions ``0 .. n-1`` place on the board's points in board-text
order, ``n`` passes and ``n + 1`` swaps. The observation is, for every point in board-text order,
``[empty, black, white, locked, event]`` followed by ``FLANK_SCALARS``.

Surge Stones (``SurgeCodec``): action ``(value - 1) * 16 + k`` places ``value`` on the seat's
``k``-th home square (in square order; Blue a1, a2, b1, b2, ..., Orange a7, a8, b7, ...). Skip has
no index: when it is the only legal action the environment plays it, as the arbiter does. The
observation is, for every square a1, a2, ..., h8, ``[face-up blue value, face-up orange value,
face-down blue, face-down orange]`` (a face-down value the seat may not see is ``HIDDEN``), then
the counts per value 1..10 of the seat's hand, its supply, Blue's and Orange's removed stones, then
``SURGE_SCALARS``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
from arbiter_games.hexflank import BLACK, PASS, SWAP, FlankObservation, Place, geometry
from arbiter_games.surge import BLUE, SQUARES, PlaceStone, SurgeObservation
from gymnasium import spaces

ObsArray = npt.NDArray[np.int32]
MaskArray = npt.NDArray[np.int8]

#: The bounds of every entry of an observation array (counts, scores, event numbers, rounds).
LOW, HIGH = -1_000_000, 1_000_000

FLANK_CELL = ("empty", "black", "white", "locked", "event")
FLANK_SCALARS = (
    "seat_is_black",
    "to_move_is_seat",
    "to_move_is_black",
    "swapped",
    "action_count",
    "last_action",  # its index in the action enumeration, -1 for none
    "first_pass",  # 0 none, 1 black, 2 white
    "black_score",
    "white_score",
    "over",
)

SURGE_VALUES = tuple(range(1, 11))
SURGE_HOME = 16
#: A face-down stone of the opponent: its value is hidden from this seat.
HIDDEN = 11
SURGE_SCALARS = (
    "seat_is_blue",
    "round",
    "rounds_played",
    "over",
    "your_turn",
    "to_move",  # 0 none, 1 blue, 2 orange
    "first_placer_is_blue",
    "opponent_hand_size",
    "opponent_supply_size",
    "blue_score",
    "orange_score",
)


def _box(length: int) -> spaces.Box:
    return spaces.Box(low=LOW, high=HIGH, shape=(length,), dtype=np.int32)


class Codec:
    """One game's action enumeration and observation encoding (for one seat's view)."""

    n_actions: int
    obs_length: int
    #: Each seat's index of every action (built on first use).
    _indices: dict[int, dict[object, int]]

    def actions(self, seat: int) -> Sequence[object]:
        """The game's action for each index, for ``seat``."""
        raise NotImplementedError

    def encode(self, observation: object) -> ObsArray:
        raise NotImplementedError

    def observation_space(self) -> spaces.Dict:
        return spaces.Dict(
            {
                "observation": _box(self.obs_length),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.n_actions,), dtype=np.int8),
            }
        )

    def action_space(self) -> spaces.Discrete:
        return spaces.Discrete(self.n_actions)

    def mask(self, seat: int, legal: Sequence[object]) -> MaskArray:
        """1 for each index whose action is in ``legal``."""
        index = self._indices.get(seat)
        if index is None:
            index = self._indices[seat] = {action: i for i, action in enumerate(self.actions(seat))}
        out = np.zeros(self.n_actions, dtype=np.int8)
        for action in legal:
            i = index.get(action)
            if i is not None:
                out[i] = 1
        return out


class FlankCodec(Codec):
    """Torrent or Fravan of one size: every point in board-text order, then pass, then swap."""

    def __init__(self, size: int) -> None:
        self._indices = {}
        self.size = size
        self.names = tuple(geometry(size).names)
        self.points = len(self.names)
        self._actions: tuple[object, ...] = (*(Place(name) for name in self.names), PASS, SWAP)
        self._text_index = {**{name: i for i, name in enumerate(self.names)}, "pass": self.points}
        self._text_index["swap"] = self.points + 1
        self.n_actions = self.points + 2
        self.obs_length = self.points * len(FLANK_CELL) + len(FLANK_SCALARS)

    def actions(self, seat: int) -> Sequence[object]:
        return self._actions

    def encode(self, observation: object) -> ObsArray:
        if not isinstance(observation, FlankObservation):
            raise TypeError(f"not a Torrent/Fravan observation: {type(observation).__name__}")
        obs = observation
        cells = obs.board.replace("/", "")
        grid = np.zeros((self.points, len(FLANK_CELL)), dtype=np.int32)
        for i, ch in enumerate(cells):
            grid[i, 0] = ch == "."
            grid[i, 1] = ch in "Bb"
            grid[i, 2] = ch in "Ww"
            grid[i, 3] = ch in "bw"
        grid[:, 4] = obs.events
        scores = dict(obs.scores)
        last = -1 if obs.last_action is None else self._text_index.get(obs.last_action, -1)
        first_pass = {None: 0, BLACK: 1}.get(obs.first_pass_colour, 2)
        scalars = [
            obs.colour == BLACK,
            obs.to_move_seat == obs.seat,
            obs.to_move_colour == BLACK,
            obs.swapped,
            obs.action_count,
            last,
            first_pass,
            scores.get("black", 0),
            scores.get("white", 0),
            obs.over,
        ]
        return np.concatenate([grid.reshape(-1), np.asarray(scalars, dtype=np.int32)])


def _counts(values: Sequence[int]) -> list[int]:
    return [values.count(v) for v in SURGE_VALUES]


class SurgeCodec(Codec):
    """Surge Stones: value 1..10 x the seat's 16 home squares (160 placements; skip is automatic)."""

    n_actions = len(SURGE_VALUES) * SURGE_HOME
    obs_length = len(SQUARES) * 4 + 4 * len(SURGE_VALUES) + len(SURGE_SCALARS)

    def __init__(self) -> None:
        self._indices = {}
        homes = (
            tuple(f + str(r) for f in "abcdefgh" for r in (1, 2)),
            tuple(f + str(r) for f in "abcdefgh" for r in (7, 8)),
        )
        self._actions = tuple(
            tuple(PlaceStone(v, square) for v in SURGE_VALUES for square in home) for home in homes
        )
        self._square = {name: i for i, name in enumerate(SQUARES)}

    def actions(self, seat: int) -> Sequence[object]:
        return self._actions[seat - 1]

    def encode(self, observation: object) -> ObsArray:
        if not isinstance(observation, SurgeObservation):
            raise TypeError(f"not a Surge observation: {type(observation).__name__}")
        obs = observation
        board = np.zeros((len(SQUARES), 4), dtype=np.int32)
        for square, colour, value in obs.face_up:
            board[self._square[square], 0 if colour == BLUE else 1] = value
        for square, owner, hidden_or_value in obs.face_down:
            board[self._square[square], 2 if owner == BLUE else 3] = (
                HIDDEN if hidden_or_value is None else hidden_or_value
            )
        counts = (
            _counts(obs.hand) + _counts(obs.supply) + _counts(obs.removed_blue) + _counts(obs.removed_orange)
        )
        scalars = [
            obs.colour == BLUE,
            obs.round,
            obs.rounds_played,
            obs.over,
            obs.your_turn,
            {None: 0, BLUE: 1}.get(obs.to_move, 2),
            obs.first_placer == BLUE,
            obs.opponent_hand_size,
            obs.opponent_supply_size,
            obs.blue_score,
            obs.orange_score,
        ]
        return np.concatenate(
            [board.reshape(-1), np.asarray(counts, dtype=np.int32), np.asarray(scalars, dtype=np.int32)]
        )


def codec_for(game: str, size: int) -> Codec:
    if game == "surge":
        return SurgeCodec()
    return FlankCodec(size)


def policy_action(
    codec: Codec, policy: Callable[[ObsArray, MaskArray], int], observation: object, legal: Sequence[object]
) -> object:
    """The action a trained policy picks in a live match: the bridge from the SDK to the env's indices.

    ``observation`` and ``legal`` are what a bot's ``choose`` gets; ``policy`` maps the encoded
    observation and the action mask to an index, as it did in training. When no index is legal
    (Surge's skip, which the arbiter plays itself anyway) the first legal action is returned.
    """
    seat = getattr(observation, "seat", None)
    if not isinstance(seat, int):
        raise TypeError(f"not an observation: {type(observation).__name__}")
    mask = codec.mask(seat, legal)
    if not mask.any():
        return legal[0]
    index = int(policy(codec.encode(observation), mask))
    if not 0 <= index < codec.n_actions or not mask[index]:
        raise ValueError(f"the policy picked action {index}, which is not legal")
    return codec.actions(seat)[index]
