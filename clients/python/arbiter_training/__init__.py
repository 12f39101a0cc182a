"""Training environments for the Arbiter games (the SDK's optional ``training`` extra).

>>> import arbiter_training
>>> env = arbiter_training.env(game="torrent", size=5)
>>> env.reset(seed=1)
>>> observation, reward, termination, truncation, info = env.last()
>>> int(observation["action_mask"].sum()) > 0
True

``env`` wraps the raw environment as PettingZoo recommends (illegal actions end the game with -1
for the player who made them; out-of-range actions and calls out of order are refused).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from .aec import AGENTS, ArbiterEnv, agent_of, seat_of, surge_seed
from .encoding import Codec, FlankCodec, SurgeCodec, codec_for, policy_action


def raw_env(
    game: str = "torrent", size: int = 7, seed: int | None = None, render_mode: str | None = None
) -> ArbiterEnv:
    """The environment without wrappers."""
    return ArbiterEnv(game=game, size=size, seed=seed, render_mode=render_mode)


def env(game: str = "torrent", size: int = 7, seed: int | None = None, render_mode: str | None = None) -> Any:
    """An AEC environment of ``game`` (``torrent``, ``fravan`` or ``surge``; ``size`` for the first two)."""
    wrapped: Any = raw_env(game=game, size=size, seed=seed, render_mode=render_mode)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


__all__ = [
    "AGENTS",
    "ArbiterEnv",
    "Codec",
    "FlankCodec",
    "SurgeCodec",
    "agent_of",
    "codec_for",
    "env",
    "policy_action",
    "raw_env",
    "seat_of",
    "surge_seed",
]
