"""The games as OpenSpiel games (the SDK's optional ``openspiel`` extra).

Importing this module registers three games with ``pyspiel.register_game``:

- ``arbiter_torrent`` (parameter ``size``: 5 to 9, default 7) and ``arbiter_fravan`` (``size`` 5 or
  7, default 7): deterministic, perfect information;
- ``arbiter_surge``: explicit chance nodes for the draws, imperfect information.

Every rule comes from the arbiter's own engines (``arbiter_games``): this module only translates
between OpenSpiel's integer actions and the engines' actions, and builds what a player observes
from ``GameDef.observe(state, seat)``, the function every message of the arbiter to a seat comes
from. Actions use the same enumeration as the PettingZoo environments (``arbiter_training.encoding``),
so a policy trained on one plays in the other. OpenSpiel's player 0 is seat 1, player 1 seat 2.

Surge's chance. The arbiter shuffles each player's 20 stones once, from the match seed (SHA-256
of the seed, a Fisher-Yates shuffle: ``arbiter_games.surge.draw_order``), and a player draws from
the front of that order. The shuffle makes every arrangement of the stones equally likely, so the
next stone drawn is, given the stones drawn so far, each remaining stone with the same chance: a
value ``v`` with probability (stones of value ``v`` left) / (stones left). This module draws the
stones one by one at explicit chance nodes with exactly those probabilities: first Blue's three
and Orange's three of the opening hands, then, just before each placement that refills a hand,
the stone that refills it. The placer does not see it until it has placed (the observations
come from the engine, whose hand shows the refill only after the placement), so drawing it just
before or just after the placement is the same game. Chance action ``v - 1`` draws value ``v``.

Surge's hidden stones. ``SurgeSpielState.resample(player, rng)`` draws a state the player cannot
tell from the real one (for information-set searches such as OpenSpiel's ``ISMCTSBot``), and the
``replay`` methods load a finished arbiter match (Surge's by its revealed seed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar, cast

import numpy as np
import pyspiel
from arbiter_games import GameDef, get_game
from arbiter_games.flank_game import FlankGame
from arbiter_games.hexflank import FlankObservation, geometry, state_from_observation
from arbiter_games.surge import (
    BLUE,
    COLOURS,
    HAND_SIZE,
    ORANGE,
    STONES,
    SURGE,
    PlaceStone,
    SurgeObservation,
    SurgeState,
    draw_order,
)
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from .encoding import Codec, FlankCodec, SurgeCodec

#: The OpenSpiel name of each arbiter game.
GAME_NAMES = {"torrent": "arbiter_torrent", "fravan": "arbiter_fravan", "surge": "arbiter_surge"}
#: Every player's stones: two of each value 1..10.
TOTAL_STONES = len(STONES)
CHANCE_PLAYER = int(pyspiel.PlayerId.CHANCE)
#: Whose stone each of the first chance nodes deals: Blue's opening hand, then Orange's.
DEAL = (0, 0, 0, 1, 1, 1)


def load_game(game: str = "torrent", size: int | None = None) -> Any:
    """The OpenSpiel game of an arbiter game (``size`` for Torrent and Fravan; their default if None)."""
    name = GAME_NAMES.get(game)
    if name is None:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAME_NAMES)}")
    if size is None or game == "surge":
        return pyspiel.load_game(name)
    return pyspiel.load_game(name, {"size": size})


def returns_of(winner_seat: int | None) -> list[float]:
    """+1 for the winner, -1 for the loser, 0 for both in a draw (player 0 is seat 1)."""
    if winner_seat is None:
        return [0.0, 0.0]
    return [1.0, -1.0] if winner_seat == 1 else [-1.0, 1.0]


def _index_of(codec: Codec, seat: int) -> dict[object, int]:
    return {action: i for i, action in enumerate(codec.actions(seat))}


class _Fixed:
    """What every state of one game shares (its definition, its action codec): never copied.

    OpenSpiel clones a Python state by deep-copying each of its attributes.
    """

    __slots__ = ("arbiter_game", "codec", "game", "index")

    def __init__(self, game: Any) -> None:
        self.game = game
        self.arbiter_game: GameDef = game.arbiter_game
        self.codec: Codec = game.codec
        #: Each seat's index of every action (seat 1's, seat 2's).
        self.index = (_index_of(self.codec, 1), _index_of(self.codec, 2))

    def __deepcopy__(self, memo: dict[int, object]) -> _Fixed:
        return self

    def legal_indices(self, seat: int, legal: Sequence[object]) -> list[int]:
        """The indices of the engine's legal actions for ``seat``, ascending (as OpenSpiel wants)."""
        index = self.index[seat - 1]
        return sorted(index[action] for action in legal if action in index)


class _Engine:
    """The engine's state (and what else a game keeps) behind one attribute of an OpenSpiel state.

    A clone copies the engine's state with the engine's own ``copy``, so that clones share the
    engine's immutable tables and interned actions.
    """

    __slots__ = ("draws", "moves", "placements", "state")

    def __init__(
        self,
        state: Any,
        draws: tuple[list[int], list[int]] | None = None,
        moves: list[object] | None = None,
        placements: list[int] | None = None,
    ) -> None:
        self.state = state
        #: Surge: each player's stones drawn so far, in order (the front of their draw order).
        self.draws: tuple[list[int], list[int]] = ([], []) if draws is None else draws
        #: Surge: every engine action applied so far, forced skips included (for replays).
        self.moves: list[object] = [] if moves is None else moves
        #: Surge: the placements each player made so far.
        self.placements: list[int] = [0, 0] if placements is None else placements

    def __deepcopy__(self, memo: dict[int, object]) -> _Engine:
        state = None if self.state is None else self.state.copy()
        draws = (self.draws[0].copy(), self.draws[1].copy())
        return _Engine(state, draws, self.moves.copy(), self.placements.copy())


# --- Torrent and Fravan ---------------------------------------------------------------------------


def flank_max_game_length(points: int) -> int:
    """The longest Torrent/Fravan game on a board of ``points`` points, in actions.

    Stones are never removed, so at most ``points`` placements; a swap at most once (the second
    action); a pass never follows a pass except the one that ends the game, and none comes
    between the first placement and a swap: at most ``points + 1`` passes with a swap.
    """
    return 2 * points + 2


def flank_observation_text(obs: FlankObservation) -> str:
    """Everything a Torrent/Fravan observation holds, as text (one line per fact)."""
    scores = dict(obs.scores)
    to_move = "nobody (over)" if obs.over else f"seat {obs.to_move_seat} ({obs.to_move_colour})"
    return "\n".join(
        [
            f"{obs.game} size {obs.size}, seat {obs.seat} plays {obs.colour}"
            + (" (after a swap)" if obs.swapped else ""),
            f"board {obs.board}",
            "events " + " ".join(str(e) for e in obs.events),
            f"actions {obs.action_count}, last {obs.last_action or '-'}, "
            f"first pass {obs.first_pass_colour or '-'}",
            f"score black {scores.get('black', 0)} white {scores.get('white', 0)}, to move {to_move}",
        ]
    )


class FlankSpielObserver:
    """A seat's observation of a Torrent/Fravan state, as OpenSpiel's ``make_py_observer`` returns.

    ``tensor`` is the PettingZoo environment's observation array (``FlankCodec.encode``) as
    float32; the string is :func:`flank_observation_text`. Nothing is hidden in these games.
    """

    def __init__(self, codec: FlankCodec, game: GameDef, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.codec = codec
        self.game = game
        self.tensor = np.zeros(codec.obs_length, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: Any, player: int) -> None:
        self.tensor[:] = self.codec.encode(self.game.observe(state.engine.state, player + 1))

    def string_from(self, state: Any, player: int) -> str:
        observation = self.game.observe(state.engine.state, player + 1)
        if not isinstance(observation, FlankObservation):
            raise TypeError(f"not a Torrent/Fravan observation: {type(observation).__name__}")
        return flank_observation_text(observation)


class FlankSpielState(pyspiel.State):  # type: ignore[misc]
    """A Torrent or Fravan position in OpenSpiel; the engine's state is ``engine.state``."""

    def __init__(self, game: FlankSpielGame) -> None:
        super().__init__(game)
        self.fixed: _Fixed = game.fixed
        self.engine = _Engine(game.arbiter_game.new_game({"size": game.size}))

    @property
    def arbiter_game(self) -> GameDef:
        return self.fixed.arbiter_game

    @property
    def codec(self) -> FlankCodec:
        return cast(FlankCodec, self.fixed.codec)

    def current_player(self) -> int:
        seat = self.arbiter_game.to_move(self.engine.state)
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat - 1

    def _legal_actions(self, player: int) -> list[int]:
        seat = self.arbiter_game.to_move(self.engine.state)
        if seat is None or seat != player + 1:
            return []
        return self.fixed.legal_indices(seat, self.arbiter_game.legal_actions(self.engine.state))

    def _apply_action(self, action: int) -> None:
        # OpenSpiel checks legality before this (apply_action_with_legality_check); the engine
        # refuses an illegal action itself anyway.
        self.arbiter_game.apply_in_place(self.engine.state, self.codec.actions(1)[action])

    def _action_to_string(self, player: int, action: int) -> str:
        return self.arbiter_game.format_action(self.codec.actions(1)[action])

    def is_terminal(self) -> bool:
        return self.arbiter_game.outcome(self.engine.state) is not None

    def returns(self) -> list[float]:
        outcome = self.arbiter_game.outcome(self.engine.state)
        return [0.0, 0.0] if outcome is None else returns_of(outcome.winner_seat)

    def __str__(self) -> str:
        return self.arbiter_game.render_text(self.engine.state)


class FlankSpielGame(pyspiel.Game):  # type: ignore[misc]
    """Torrent or Fravan of one size (the ``size`` parameter) as an OpenSpiel game."""

    arbiter_name: ClassVar[str]
    game_type: ClassVar[Any]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        arbiter_game = get_game(self.arbiter_name)
        if not isinstance(arbiter_game, FlankGame):
            raise TypeError(f"{self.arbiter_name} is not a Torrent/Fravan game")
        params = dict(params or {})
        self.arbiter_game: GameDef = arbiter_game
        self.size: int = arbiter_game.normalise_options({"size": int(params.get("size", 0))})["size"]
        self.codec = FlankCodec(self.size)
        points = len(geometry(self.size).names)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.n_actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=flank_max_game_length(points),
        )
        super().__init__(self.game_type, info, {"size": self.size})
        self.fixed = _Fixed(self)

    def new_initial_state(self) -> FlankSpielState:
        return FlankSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return FlankSpielObserver(self.codec, self.arbiter_game, params)
        # A perfect-recall view of a perfect-information game: its history of actions.
        return IIGObserverForPublicInfoGame(iig_obs_type, params)

    def state_from_observation(self, observation: FlankObservation) -> FlankSpielState:
        """The position a bot observes (in ``Bot.choose``) as a state to search from.

        The state has no history: ``history()`` and the information state string start there.
        """
        if observation.size != self.size or observation.game != self.arbiter_name:
            raise ValueError(f"a {observation.game} {observation.size} observation is not {self}")
        arbiter_game = self.arbiter_game
        assert isinstance(arbiter_game, FlankGame)
        state = self.new_initial_state()
        state.engine = _Engine(state_from_observation(arbiter_game.flank_rules, observation))
        return state

    def engine_action(self, action: int) -> object:
        """The engine's action (``Place``, ``PASS``, ``SWAP``) of an OpenSpiel action."""
        return self.codec.actions(1)[action]

    def replay(self, actions: Sequence[str]) -> FlankSpielState:
        """The state after a match's actions, in the rules' text (``MatchSummary.actions``)."""
        state = self.new_initial_state()
        for text in actions:
            state.apply_action(self.fixed.index[0][self.arbiter_game.parse_action(text)])
        return state


def _flank_game_type(name: str) -> Any:
    arbiter_game = get_game(name)
    (size_option,) = arbiter_game.options
    return pyspiel.GameType(
        short_name=GAME_NAMES[name],
        long_name=f"Arbiter {arbiter_game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"size": size_option.default},
    )


class TorrentSpielGame(FlankSpielGame):
    arbiter_name = "torrent"
    game_type = _flank_game_type("torrent")


class FravanSpielGame(FlankSpielGame):
    arbiter_name = "fravan"
    game_type = _flank_game_type("fravan")


# --- Surge Stones ---------------------------------------------------------------------------------


def surge_max_game_length() -> int:
    """Decisions in the longest Surge game: every placement uses a stone, 20 per player.

    Skips are forced (the arbiter plays them without asking), so they are not decisions here.
    """
    return 2 * TOTAL_STONES


def _stone(colour: str, value: int | None) -> str:
    letter = "B" if colour == BLUE else "O"
    return f"{letter}{'?' if value is None else value}"


def surge_observation_text(obs: SurgeObservation) -> str:
    """Everything a Surge observation holds, as text: the board rows 8 to 1, then the facts.

    A face-up stone is ``B7``/``O7``; a face-down stone is in lower case, ``b7`` for one's own
    and ``o?`` (or ``b?``) for the opponent's, whose value this seat does not see.
    """
    cells = {square: _stone(colour, value) for square, colour, value in obs.face_up}
    cells.update({square: _stone(owner, value).lower() for square, owner, value in obs.face_down})
    rows = [" ".join(cells.get(f"{f}{r}", ".") for f in "abcdefgh") for r in range(8, 0, -1)]
    state = "over" if obs.over else ("your turn" if obs.your_turn else f"to move {obs.to_move or '-'}")
    return "\n".join(
        [
            f"seat {obs.seat} plays {obs.colour}; round {obs.round} ({obs.rounds_played} played), "
            f"first placer {obs.first_placer}; {state}",
            "board " + "/".join(rows),
            f"hand {list(obs.hand)} supply {list(obs.supply)}; "
            f"opponent hand {obs.opponent_hand_size} supply {obs.opponent_supply_size}",
            f"score blue {obs.blue_score} orange {obs.orange_score}; "
            f"removed blue {list(obs.removed_blue)} orange {list(obs.removed_orange)}",
        ]
    )


def deal_observation(draws: Sequence[Sequence[int]], seat: int) -> SurgeObservation:
    """What ``seat`` knows while the opening hands are dealt: its hand once its three stones are in.

    The arbiter shows a seat its opening hand sorted, never the order its three stones came in, so
    neither does this: the hand appears, sorted, once the third stone is dealt. The opponent's
    hand is shown by its size, as always.
    """
    p = seat - 1
    own = sorted(draws[p]) if len(draws[p]) >= HAND_SIZE else []
    left = Counter(STONES)
    left.subtract(own)
    return SurgeObservation(
        seat=seat,
        colour=COLOURS[p],
        round=1,
        rounds_played=0,
        over=False,
        your_turn=False,
        to_move=None,
        first_placer=BLUE,
        face_up=(),
        face_down=(),
        hand=tuple(own),
        supply=tuple(sorted(left.elements())),
        opponent_hand_size=len(draws[1 - p]),
        opponent_supply_size=TOTAL_STONES - len(draws[1 - p]),
        blue_score=0,
        orange_score=0,
        removed_blue=(),
        removed_orange=(),
    )


def remaining(drawn: Sequence[int]) -> Counter[int]:
    """The stones a player has not drawn yet, as a multiset."""
    left = Counter(STONES)
    left.subtract(drawn)
    return +left


def draw_probabilities(drawn: Sequence[int]) -> list[tuple[int, float]]:
    """The chance outcomes of a player's next draw: ``(value - 1, probability)``, by value.

    Each stone not drawn yet is equally likely to come next (the draw order is a uniform shuffle).
    """
    left = remaining(drawn)
    total = sum(left.values())
    return [(value - 1, count / total) for value, count in sorted(left.items())]


# --- Surge: sampling what a player cannot see -----------------------------------------------------

Hand = tuple[int, ...]  # a hand as a sorted tuple of values
#: One step of a player's stones, in the order they happen: ("place", value), ("place", None) for
#: a stone still face down, and ("draw", None) for the stone that then joins the hand.
Step = tuple[str, int | None]
#: What the sampler follows: the hand, and the value of the stone face down (0 for none).
_Hidden = tuple[Hand, int]


@lru_cache(maxsize=1)
def _opening_hands() -> dict[_Hidden, float]:
    """Every opening hand and its chance: stones taken three at a time from two of each value."""
    counts: Counter[Hand] = Counter(tuple(sorted(c)) for c in combinations(STONES, HAND_SIZE))
    total = sum(counts.values())
    return {(hand, 0): n / total for hand, n in counts.items()}


def _without(hand: Hand, value: int) -> Hand:
    out = list(hand)
    out.remove(value)
    return tuple(out)


def _step_moves(hidden: _Hidden, placed: Counter[int], step: Step) -> list[tuple[_Hidden, float, int]]:
    """Where one step leads from ``hidden``: (what follows, its chance or weight, the stone)."""
    hand, down = hidden
    kind, value = step
    if kind == "draw":
        pool = Counter(STONES) - placed - Counter(hand) - Counter([down] if down else [])
        total = sum(pool.values())
        return [((tuple(sorted((*hand, v))), down), n / total, v) for v, n in sorted(pool.items())]
    if value is not None:
        return [((_without(hand, value), down), 1.0, value)] if value in hand else []
    # A face-down placement: any stone of the hand, each as likely (the player's choice is unknown).
    return [((_without(hand, v), v), hand.count(v) / len(hand), v) for v in sorted(set(hand))]


@lru_cache(maxsize=64)
def _filter(steps: tuple[Step, ...]) -> tuple[list[dict[_Hidden, float]], list[Counter[int]]]:
    """The forward pass: after each step, every (hand, face-down stone) and its weight; and the
    stones placed before each step. Kept for the last few step lists (a search resamples one
    position many times). The caller must not change what it returns."""
    forward: list[dict[_Hidden, float]] = [_opening_hands()]
    placed_before: list[Counter[int]] = []
    placed: Counter[int] = Counter()
    for step in steps:
        placed_before.append(placed.copy())
        nxt: dict[_Hidden, float] = {}
        for hidden, weight in forward[-1].items():
            for after, p, _ in _step_moves(hidden, placed, step):
                nxt[after] = nxt.get(after, 0.0) + weight * p
        if not nxt:
            raise ValueError("no draw history fits these placements")
        forward.append(nxt)
        if step[0] == "place" and step[1] is not None:
            placed[step[1]] += 1
    return forward, placed_before


def _step_back(hidden: _Hidden, placed: Counter[int], step: Step) -> list[tuple[_Hidden, float, int]]:
    """Where one step can have come from to reach ``hidden``: (before, its chance, the stone)."""
    hand, down = hidden
    kind, value = step
    if kind == "draw":
        out = []
        for v in sorted(set(hand)):
            before = (_without(hand, v), down)
            out += [(before, p, stone) for _, p, stone in _step_moves(before, placed, step) if stone == v]
        return out
    if value is not None:
        return [((tuple(sorted((*hand, value))), down), 1.0, value)]
    before_hand = tuple(sorted((*hand, down)))
    return [((before_hand, 0), before_hand.count(down) / len(before_hand), down)]


def sample_hidden_stones(steps: Sequence[Step], rng: Any) -> tuple[Hand, list[int]]:
    """A draw history of one player that fits everything seen of it, drawn with its true chance.

    ``steps`` are the player's steps after its opening hand, in the order they happen (each
    placement, with its value or ``None`` while face down, then the stone that refills the hand).
    Returns the opening hand in a random order and, for each step, the stone placed or drawn.
    Exact forward filtering, backward sampling over the player's hand (at most three stones, so a
    few hundred hands at each step): every draw history that fits is drawn with probability
    proportional to the chance of its draws (and a face-down stone is any stone of the hand, each
    as likely, since the player's choice is unknown).
    """
    forward, placed_before = _filter(tuple(steps))
    last = list(forward[-1])
    hidden = rng.choices(last, [forward[-1][h] for h in last])[0]
    stones: list[int] = []
    for n in range(len(steps) - 1, -1, -1):
        options = [
            (before, forward[n].get(before, 0.0) * p, stone)
            for before, p, stone in _step_back(hidden, placed_before[n], steps[n])
        ]
        hidden, _, stone = rng.choices(options, [w for _, w, _ in options])[0]
        stones.append(stone)
    opening = list(hidden[0])
    rng.shuffle(opening)
    return tuple(opening), stones[::-1]


class SurgeSpielObserver:
    """A seat's view of a Surge state: exactly what ``observe(state, seat)`` gives that seat.

    The default observer (``perfect_recall=False``) gives the seat's current observation: the
    string :func:`surge_observation_text`, the tensor ``SurgeCodec.encode`` as float32 (the
    opponent's face-down value is ``HIDDEN``, their hand and supply only as sizes). With
    ``perfect_recall=True`` (the information state) the string is the seat's whole record: every
    observation it had, in order, with its own actions between them. Only a seat's own view is
    offered (``private_info`` ``SINGLE_PLAYER``, ``public_info`` on); tensors only without perfect
    recall.
    """

    def __init__(self, codec: SurgeCodec, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError("arbiter_surge offers a seat's own view only (public and its private info)")
        self.codec = codec
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(0 if self.perfect_recall else codec.obs_length, np.float32)
        self.dict = {} if self.perfect_recall else {"observation": self.tensor}

    def set_from(self, state: Any, player: int) -> None:
        if self.perfect_recall:
            raise ValueError("arbiter_surge has no information state tensor (use the string)")
        self.tensor[:] = self.codec.encode(state.observation(player + 1))

    def string_from(self, state: Any, player: int) -> str:
        if self.perfect_recall:
            return "\n--\n".join(state.record(player))
        return surge_observation_text(state.observation(player + 1))


class SurgeSpielState(pyspiel.State):  # type: ignore[misc]
    """A Surge game in OpenSpiel: the engine's state plus the stones drawn so far.

    The engine is always built from draw orders that start with the stones drawn at chance nodes
    (the rest of each order, not drawn yet, in any arrangement: no placement has read it, and an
    observation shows a supply only as a multiset). A draw rebuilds it and replays the moves.
    """

    def __init__(self, game: SurgeSpielGame) -> None:
        super().__init__(game)
        self.fixed: _Fixed = game.fixed
        self.engine = _Engine(None)
        #: Each seat's record (see :meth:`record`), once it has been asked for.
        self.log: tuple[list[str], list[str]] | None = None

    @property
    def arbiter_game(self) -> GameDef:
        return self.fixed.arbiter_game

    @property
    def codec(self) -> SurgeCodec:
        return cast(SurgeCodec, self.fixed.codec)

    # --- the engine -------------------------------------------------------------------------
    def drawing_player(self) -> int | None:
        """The player whose next stone a chance node draws now, or None (a decision or the end)."""
        draws = self.engine.draws
        if len(draws[0]) < HAND_SIZE:
            return 0
        if len(draws[1]) < HAND_SIZE:
            return 1
        state = self.engine.state
        seat = self.arbiter_game.to_move(state)
        if seat is None:
            return None
        p = seat - 1
        # The engine takes the next stone of p's order into p's hand after this placement.
        engine_drawn = min(TOTAL_STONES, HAND_SIZE + self.engine.placements[p])
        return p if len(draws[p]) == engine_drawn < TOTAL_STONES else None

    def drawn(self, player: int) -> tuple[int, ...]:
        """The stones ``player`` (0 Blue, 1 Orange) has drawn so far, in order (hand, board and gone)."""
        return tuple(self.engine.draws[player])

    def _rebuild(self) -> None:
        """The engine's state from the draws so far, with every move so far replayed."""
        draws = self.engine.draws
        orders = [list(d) + sorted(remaining(d).elements()) for d in draws]
        state: SurgeState = SURGE.new_game_from_orders(orders[0], orders[1])
        for move in self.engine.moves:
            self.arbiter_game.apply_in_place(state, move)
        self.engine.state = state

    def _play_forced(self) -> None:
        game, state = self.arbiter_game, self.engine.state
        while game.outcome(state) is None:
            forced = game.forced_action(state, game.legal_actions(state))
            if forced is None:
                return
            game.apply_in_place(state, forced)
            self.engine.moves.append(forced)

    def observation(self, seat: int) -> SurgeObservation:
        """What ``seat`` observes now (while the opening hands are drawn: its stones so far)."""
        if self.engine.state is None:
            return deal_observation(self.engine.draws, seat)
        observation = self.arbiter_game.observe(self.engine.state, seat)
        assert isinstance(observation, SurgeObservation)
        return observation

    def _log_observations(self) -> None:
        if self.log is None:
            return
        for p in (0, 1):
            text = surge_observation_text(self.observation(p + 1))
            if not self.log[p] or self.log[p][-1] != text:
                self.log[p].append(text)

    def record(self, player: int) -> list[str]:
        """What ``player`` has seen, in order: each observation that differs from the one before,
        with its own placements (``you played 7@c2``) between them. Perfect recall, and nothing else.

        Kept from the first time it is asked for on (the history is replayed once then), so a
        search that never asks pays nothing for it.
        """
        if self.log is None:
            replay = self.fixed.game.new_initial_state()
            replay.log = ([], [])
            replay._log_observations()
            for action in self.history():
                replay.apply_action(action)
            self.log = replay.log
        assert self.log is not None
        return self.log[player]

    # --- OpenSpiel --------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.engine.state is not None and self.arbiter_game.outcome(self.engine.state) is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.drawing_player() is not None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.arbiter_game.to_move(self.engine.state)
        assert seat is not None
        return seat - 1

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = self.drawing_player()
        if p is None:
            raise ValueError("not a chance node")
        return draw_probabilities(self.engine.draws[p])

    def _legal_actions(self, player: int) -> list[int]:
        if self.current_player() != player:
            return []
        return self.fixed.legal_indices(player + 1, self.arbiter_game.legal_actions(self.engine.state))

    def _apply_action(self, action: int) -> None:
        p = self.drawing_player()
        if p is not None:
            value = action + 1
            if remaining(self.engine.draws[p])[value] == 0:
                raise ValueError(f"{COLOURS[p]} has no stone {value} left to draw")
            self.engine.draws[p].append(value)
            if len(self.engine.draws[1]) >= HAND_SIZE:
                self._rebuild()
                self._play_forced()
        else:
            seat = self.arbiter_game.to_move(self.engine.state)
            assert seat is not None
            legal = self.arbiter_game.legal_actions(self.engine.state)
            placement = self.codec.actions(seat)[action]
            if placement not in legal:
                raise ValueError(f"action {action} is not legal for seat {seat}")
            move = legal[legal.index(placement)]  # the engine's own (interned) action object
            self.arbiter_game.apply_in_place(self.engine.state, move)
            self.engine.moves.append(move)
            self.engine.placements[seat - 1] += 1
            if self.log is not None:
                self.log[seat - 1].append(f"you played {self.arbiter_game.format_action(move)}")
            self._play_forced()
        self._log_observations()

    def resample(self, player: int, rng: Any = None) -> SurgeSpielState:
        """A state ``player`` cannot tell from this one, drawn with its chance given what it saw.

        The opponent's hidden stones (its draws, its hand, a stone of it still face down) are
        sampled by :func:`sample_hidden_stones`; everything ``player`` saw stays as it was. For
        OpenSpiel's ``ISMCTSBot``: ``bot.set_resampler(lambda state, p: state.resample(p, rng))``.
        ``rng`` is a ``random.Random`` (a new one if None).
        """
        import random

        if not self.is_player_node() or self.current_player() != player:
            raise ValueError(f"resample a state where player {player} is to place")
        rng = rng or random.Random()
        opponent = 1 - player
        history = [(item.player, item.action) for item in self.full_history()]
        hidden_square = self._face_down_square(opponent)
        steps, where = self._steps_of(opponent, history, hidden_square is not None)
        opening, stones = sample_hidden_stones(steps, rng)
        actions = [action for _, action in history]
        opening_at = [i for i, owner in enumerate(DEAL) if owner == opponent]
        for i, value in zip(opening_at, opening, strict=True):
            actions[i] = value - 1
        for i, step, value in zip(where, steps, stones, strict=True):
            if step[0] == "draw":
                actions[i] = value - 1
            elif step[1] is None:
                assert hidden_square is not None
                actions[i] = self.fixed.index[opponent][PlaceStone(value, hidden_square)]
        state = self.fixed.game.new_initial_state()
        for action in actions:
            state.apply_action(action)
        resampled: SurgeSpielState = state
        return resampled

    def _steps_of(
        self, owner: int, history: Sequence[tuple[int, int]], face_down: bool
    ) -> tuple[list[Step], list[int]]:
        """``owner``'s steps after its opening hand, as they happen, and their indices in ``history``.

        Each placement comes first, then the stone that refills the hand (which this model draws
        at the chance node just before the placement). With ``face_down``, the owner's last
        placement is still face down: its value is left out.
        """
        # A chance node after the deal draws for the player who places next (see drawing_player).
        owners: list[int] = []
        upcoming = self.current_player()
        for who, _ in reversed(history):
            owners.append(upcoming if who == CHANCE_PLAYER else who)
            if who != CHANCE_PLAYER:
                upcoming = who
        owners.reverse()
        last = max((i for i, (who, _) in enumerate(history) if who == owner), default=-1)
        steps: list[Step] = []
        where: list[int] = []
        refill: int | None = None
        for i in range(len(DEAL), len(history)):
            who, action = history[i]
            if owners[i] != owner:
                continue
            if who == CHANCE_PLAYER:
                refill = i
                continue
            placement = self.codec.actions(owner + 1)[action]
            assert isinstance(placement, PlaceStone)
            steps.append(("place", None if face_down and i == last else placement.value))
            where.append(i)
            if refill is not None:
                steps.append(("draw", None))
                where.append(refill)
                refill = None
        return steps, where

    def _face_down_square(self, owner: int) -> str | None:
        """The square of ``owner``'s stone placed face down this round, if there is one now."""
        if self.engine.state is None:
            return None
        seen = self.observation(2 - owner)  # as the other seat sees it
        return next((square for square, colour, _ in seen.face_down if colour == COLOURS[owner]), None)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {action + 1}"
        placement = self.codec.actions(player + 1)[action]
        assert isinstance(placement, PlaceStone)
        return self.arbiter_game.format_action(placement)

    def is_terminal(self) -> bool:
        return self.engine.state is not None and self.arbiter_game.outcome(self.engine.state) is not None

    def returns(self) -> list[float]:
        if self.engine.state is None:
            return [0.0, 0.0]
        outcome = self.arbiter_game.outcome(self.engine.state)
        return [0.0, 0.0] if outcome is None else returns_of(outcome.winner_seat)

    def __str__(self) -> str:
        draws = self.engine.draws
        drawn = f"drawn blue {draws[0]} orange {draws[1]}"
        if self.engine.state is None:
            return f"dealing; {drawn}"
        return f"{self.arbiter_game.render_text(self.engine.state)}\n{drawn}"


class SurgeSpielGame(pyspiel.Game):  # type: ignore[misc]
    """Surge Stones as an OpenSpiel game (no parameters)."""

    game_type = pyspiel.GameType(
        short_name=GAME_NAMES["surge"],
        long_name="Arbiter Surge Stones",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        if params:
            raise ValueError(f"arbiter_surge takes no parameters, got {sorted(params)}")
        self.arbiter_game: GameDef = get_game("surge")
        self.codec = SurgeCodec()
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.n_actions,
            max_chance_outcomes=len(set(STONES)),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=surge_max_game_length(),
        )
        super().__init__(self.game_type, info, {})
        self.fixed = _Fixed(self)

    def new_initial_state(self) -> SurgeSpielState:
        return SurgeSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> SurgeSpielObserver:
        return SurgeSpielObserver(self.codec, iig_obs_type, params)

    def engine_action(self, seat: int, action: int) -> object:
        """The engine's ``PlaceStone`` of an OpenSpiel action of ``seat``."""
        return self.codec.actions(seat)[action]

    def replay(self, seed: bytes, actions: Sequence[str]) -> SurgeSpielState:
        """The state after an arbiter match: its revealed seed gives the draws, then its actions.

        ``seed`` is the match seed (``bytes.fromhex(MatchSummary.seed)``); ``actions`` are the
        match's actions in the rules' text, skips included (the state plays those itself). Each
        chance node takes the stone the seed's draw order puts there.
        """
        orders = (draw_order(seed, BLUE), draw_order(seed, ORANGE))
        state = self.new_initial_state()
        moves = [text for text in actions if text != "skip"]
        while True:
            drawer = state.drawing_player()
            if drawer is not None:
                state.apply_action(orders[drawer][len(state.drawn(drawer))] - 1)
                continue
            if not moves or state.is_terminal():
                break
            seat = state.current_player() + 1
            placement = self.arbiter_game.parse_action(moves.pop(0))
            state.apply_action(self.fixed.index[seat - 1][placement])
        if moves:
            raise ValueError(f"the game ended with actions left: {moves}")
        return state


for _cls in (TorrentSpielGame, FravanSpielGame):
    pyspiel.register_game(_cls.game_type, _cls)
pyspiel.register_game(SurgeSpielGame.game_type, SurgeSpielGame)

__all__ = [
    "GAME_NAMES",
    "FlankSpielGame",
    "FlankSpielObserver",
    "FlankSpielState",
    "FravanSpielGame",
    "SurgeSpielGame",
    "SurgeSpielObserver",
    "SurgeSpielState",
    "TorrentSpielGame",
    "deal_observation",
    "draw_probabilities",
    "flank_max_game_length",
    "flank_observation_text",
    "load_game",
    "remaining",
    "returns_of",
    "sample_hidden_stones",
    "surge_max_game_length",
    "surge_observation_text",
]
