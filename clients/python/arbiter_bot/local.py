"""Play bots against each other offline, with the engines and no server (for testing and tuning).

    python -m arbiter_bot.local --game surge --bot1 surge_tips --bot2 random_bot --games 200

Each turn's observation and legal actions go through the same protobuf conversion as on the wire,
so a bot sees exactly what it would see from the arbiter. Surge skips are played for the bots, as
the arbiter does. There are no clocks.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import random
import secrets
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arbiter_games import GAMES, get_game
from arbiter_wire import convert

from .bot import Bot, TurnContext


@dataclass(frozen=True)
class LocalResult:
    """The result of one offline match: winner seat (``None`` for a draw), scores by seat, actions."""

    winner_seat: int | None
    scores: Mapping[int, int]
    reason: str
    actions: tuple[str, ...]


def play_local(
    bot1: Bot,
    bot2: Bot,
    game: str,
    options: Mapping[str, Any] | None = None,
    seed: bytes | None = None,
    wire: bool = True,
    match_id: str = "local",
) -> LocalResult:
    """One match, ``bot1`` in seat 1. With ``wire`` the bots get protobuf round-tripped inputs.

    A bot's action that the rules refuse raises the engine's ``IllegalAction``/``MalformedAction``.
    """
    rules = get_game(game)
    opts = dict(options or {})
    state = rules.new_game(opts, seed)
    bots = {1: bot1, 2: bot2}
    names = {1: getattr(bot1, "name", "bot1"), 2: getattr(bot2, "name", "bot2")}
    actions: list[str] = []
    turn_id = 0
    while rules.outcome(state) is None:
        seat = rules.to_move(state)
        assert seat is not None, "a game that is not over has a seat to move"
        legal = rules.legal_actions(state)
        forced = rules.forced_action(state, legal)
        if forced is not None:
            action: Any = forced
        else:
            turn_id += 1
            observation = rules.observe(state, seat)
            legal_for_bot: Sequence[Any] = legal
            if wire:
                observation = convert.observation_from_pb(game, convert.observation_to_pb(observation))
                legal_for_bot = convert.legal_from_pb(convert.legal_to_pb(game, legal))
            context = TurnContext(
                match_id=match_id,
                turn_id=turn_id,
                game=game,
                options=opts,
                seat=seat,
                colour=observation.colour,
                opponent_name=names[3 - seat],
                clocks={1: None, 2: None},
                decision_limit=None,
            )
            action = bots[seat].choose(observation, legal_for_bot, context)
            if isinstance(action, str):
                action = rules.parse_action(action)
        actions.append(rules.format_action(action))
        rules.apply_in_place(state, action)
    outcome = rules.outcome(state)
    assert outcome is not None
    return LocalResult(outcome.winner_seat, dict(outcome.scores), outcome.reason, tuple(actions))


@dataclass
class Tally:
    """Wins, draws and losses of the first bot over a series."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Wins plus half the draws, as a fraction of the games."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def compare(
    make_a: Callable[[int], Bot],
    make_b: Callable[[int], Bot],
    game: str,
    options: Mapping[str, Any] | None = None,
    games: int = 200,
    seed: int = 0,
    wire: bool = False,
) -> Tally:
    """Play ``games`` matches of bot A against bot B, alternating seats; A's tally.

    ``make_a(i)``/``make_b(i)`` build the bots of match ``i`` (seed their generators with it).
    Surge seeds come from ``seed`` so a series is reproducible.
    """
    rng = random.Random(seed)
    tally = Tally()
    for i in range(games):
        match_seed = rng.randbytes(32)
        a, b = make_a(i), make_b(i)
        a_seat = 1 if i % 2 == 0 else 2
        first, second = (a, b) if a_seat == 1 else (b, a)
        result = play_local(first, second, game, options, seed=match_seed, wire=wire, match_id=f"local-{i}")
        if result.winner_seat is None:
            tally.draws += 1
        elif result.winner_seat == a_seat:
            tally.wins += 1
        else:
            tally.losses += 1
    return tally


class BotLoadError(Exception):
    """A ``--bot1``/``--bot2`` that names no bot (its message is one line for the user)."""


def example_names() -> list[str]:
    """The example bots' module names (``random_bot``, ``surge_tips`` ...)."""
    from . import examples

    return sorted(
        info.name
        for info in pkgutil.iter_modules(examples.__path__)
        if hasattr(importlib.import_module(f"{examples.__name__}.{info.name}"), "make_bot")
    )


def load_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by name: an example's module name (``random_bot``), or any importable module (found
    from the current folder too) as ``module`` or ``module:factory``; the factory (default
    ``make_bot``) is called with the seed if it takes an argument. BotLoadError when it names no bot."""
    module_name, _, factory_name = name.partition(":")
    module_name = module_name.strip()
    if not module_name:
        raise BotLoadError(f"no bot named {name!r}: give a module, or module:factory")
    example = f"{__package__}.examples.{module_name}"
    candidates = [module_name] if "." in module_name else [example, module_name]
    module = None
    for candidate in candidates:
        try:
            module = importlib.import_module(candidate)
            break
        except ModuleNotFoundError as exc:
            if exc.name is None or not candidate.startswith(exc.name):
                raise  # the module exists but imports something missing: show the real error
    if module is None:
        raise BotLoadError(
            f"unknown bot {module_name!r}: no example and no module of that name "
            f"(examples: {', '.join(example_names())}; your own: a module on the path, "
            "as module or module:factory)"
        )
    factory = getattr(module, factory_name or "make_bot", None)
    if factory is None or not callable(factory):
        raise BotLoadError(f"module {module.__name__} has no {factory_name or 'make_bot'}() that makes a bot")
    try:
        takes_seed = bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        takes_seed = True
    bot = factory(seed) if takes_seed else factory()
    if not isinstance(bot, Bot):
        raise BotLoadError(f"{name} made a {type(bot).__name__}, not an arbiter_bot Bot")
    return bot


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arbiter_bot.local", description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=GAMES, default="surge")
    parser.add_argument("--size", type=int, default=None, help="Torrent/Fravan board size")
    parser.add_argument(
        "--bot1",
        default="surge_tips",
        help="an example's name (random_bot, greedy_flank, surge_tips ...), or your own module "
        "(found from the current folder) as module or module:factory (default factory: make_bot)",
    )
    parser.add_argument("--bot2", default="random_bot", help="the same, for the other bot")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=None, help="series seed (random when omitted)")
    parser.add_argument("--wire", action="store_true", help="round-trip every turn through protobuf")
    args = parser.parse_args(argv)
    takes_size = any(option.name == "size" for option in get_game(args.game).options)
    options = {"size": args.size} if args.size and takes_size else {}
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    try:  # both named bots exist, before any game
        load_bot(args.bot1, seed)
        load_bot(args.bot2, seed)
    except BotLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    tally = compare(
        lambda i: load_bot(args.bot1, seed + 2 * i),
        lambda i: load_bot(args.bot2, seed + 2 * i + 1),
        args.game,
        options,
        games=args.games,
        seed=seed,
        wire=args.wire,
    )
    elapsed = time.perf_counter() - started
    print(
        f"{args.bot1} vs {args.bot2} ({args.game}, {tally.games} games, seed {seed}): "
        f"{tally.wins} won, {tally.draws} drawn, {tally.losses} lost; score {tally.score:.1%} "
        f"({elapsed:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
