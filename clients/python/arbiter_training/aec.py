"""The games as PettingZoo AEC environments: agents ``player_1``/``player_2`` are seats 1 and 2."""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar

import numpy as np
from arbiter_games import GameDef, get_game
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .encoding import Codec, codec_for

AGENTS = ("player_1", "player_2")


def agent_of(seat: int) -> str:
    return AGENTS[seat - 1]


def seat_of(agent: str) -> int:
    return AGENTS.index(agent) + 1


def surge_seed(seed: int) -> bytes:
    """The 32-byte Surge seed of an integer seed: SHA-256 of its decimal text."""
    return hashlib.sha256(str(seed).encode()).digest()


class ArbiterEnv(AECEnv):  # type: ignore[misc]
    """One game (Torrent of one size, Fravan of one size, or Surge Stones) as an AEC environment.

    Actions are indices into the game's fixed enumeration (``arbiter_training.encoding``); each
    observation is ``{"observation": int32 array, "action_mask": int8 array}`` built from what the
    seat observes. Rewards are +1/-1 (0 for a draw) when the game ends, 0 before. Surge's forced
    skips are played by the environment, as the arbiter plays them.
    """

    #: What every environment's ``metadata`` holds; each adds its name (``arbiter_torrent-7_v0``).
    BASE_METADATA: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "is_parallelizable": False}
    metadata: dict[str, Any]

    def __init__(
        self, game: str = "torrent", size: int = 7, seed: int | None = None, render_mode: str | None = None
    ) -> None:
        super().__init__()
        self.game: GameDef = get_game(game)
        raw_options = {"size": size} if self.game.options else {}
        self.options: dict[str, int] = self.game.normalise_options(raw_options)
        self.codec: Codec = codec_for(game, self.options.get("size", 0))
        self.metadata = {**self.BASE_METADATA, "name": f"arbiter_{self.game.describe(self.options)}_v0"}
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes}, not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self._observation_space = self.codec.observation_space()
        self._action_space = self.codec.action_space()
        self._default_seed = seed
        self.np_random, _ = seeding.np_random(seed)
        self.state: object = None
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    # --- the game ---------------------------------------------------------------------------
    def _game_seed(self) -> bytes | None:
        if not self.game.has_chance:
            return None
        return surge_seed(int(self.np_random.integers(0, 2**63 - 1)))

    def _play_forced(self) -> None:
        while self.game.outcome(self.state) is None:
            forced = self.game.forced_action(self.state, self.game.legal_actions(self.state))
            if forced is None:
                return
            self.game.apply_in_place(self.state, forced)

    def _legal_mask(self, agent: str) -> np.ndarray[Any, np.dtype[np.int8]]:
        seat = seat_of(agent)
        if self.state is None or self.game.to_move(self.state) != seat:
            return np.zeros(self.codec.n_actions, dtype=np.int8)
        return self.codec.mask(seat, self.game.legal_actions(self.state))

    def observe(self, agent: str) -> dict[str, Any]:
        observation = self.codec.encode(self.game.observe(self.state, seat_of(agent)))
        return {"observation": observation, "action_mask": self._legal_mask(agent)}

    # --- AEC --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None and self._default_seed is not None:
            seed, self._default_seed = self._default_seed, None
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
            game_seed = surge_seed(seed) if self.game.has_chance else None
        else:
            game_seed = self._game_seed()
        self.state = self.game.new_game(self.options, game_seed)
        self._play_forced()
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select()

    def _select(self) -> None:
        seat = self.game.to_move(self.state)
        if seat is not None:
            self.agent_selection = agent_of(seat)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must play an action (None is for agents that are done)")
        seat = seat_of(agent)
        index = int(action)
        if not 0 <= index < self.codec.n_actions or not self._legal_mask(agent)[index]:
            raise ValueError(f"action {index} is not legal for {agent}")
        self.game.apply_in_place(self.state, self.codec.actions(seat)[index])
        self._play_forced()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {name: 0.0 for name in self.agents}
        outcome = self.game.outcome(self.state)
        if outcome is not None:
            for name in self.agents:
                won = outcome.winner_seat
                self.rewards[name] = 0.0 if won is None else (1.0 if seat_of(name) == won else -1.0)
                self.terminations[name] = True
                self.infos[name] = {"reason": outcome.reason, "scores": dict(outcome.scores)}
            self.agent_selection = agent_of(3 - seat)
        else:
            self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        text = self.game.render_text(self.state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
