"""Shared by the search bots (``mcts_flank``, ``ismcts_surge``): how long to think, and their command line.

Not a bot itself. :func:`think_deadline` turns a bot's own per-move budget and the turn's clock
facts (:class:`~arbiter_bot.bot.TurnContext`) into the ``time.monotonic()`` moment the search must
stop; :func:`run_search_cli` is the SDK's command line plus ``--think SECONDS``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from ..bot import Bot, TurnContext
from ..cli import BotOptions, run_cli

#: The per-move budget when none is given: long enough that the arbiter's limits decide.
DEFAULT_THINK = 1.0


def safety_margin(limit: float) -> float:
    """Seconds kept back from a decision limit of ``limit`` seconds for the answer's way back.

    The arbiter measures from sending the turn to receiving the move, so the reply's trip, the
    SDK's threads and a busy machine all come out of the limit: 50 ms plus 10% of it, but never
    more than 60% of it (measured on a loaded machine, where 30 ms were not enough at 0.1 s).
    """
    return min(0.6 * limit, 0.05 + 0.1 * limit)


def think_seconds(context: TurnContext, budget: float, moves_left: int) -> float:
    """Seconds to think on this turn: the least of ``budget``, a share of the clock, the limit.

    The share of the game clock is what is left divided by ``moves_left`` (the bot's estimate of
    its decisions still to come), plus most of the increment; the decision limit (the per-move
    cap or the clock itself, whichever is less) loses :func:`safety_margin`. Never below 1 ms.
    """
    seconds = budget
    clock = context.clocks.get(context.seat)
    if clock is not None:
        control = context.info.time_control if context.info is not None else None
        increment = control.increment if control is not None else 0.0
        share = clock / max(1, moves_left) + 0.8 * increment
        seconds = min(seconds, share, 0.5 * clock)
    if context.decision_limit is not None:
        seconds = min(seconds, context.decision_limit - safety_margin(context.decision_limit))
    return max(0.001, seconds)


def think_deadline(context: TurnContext, budget: float, moves_left: int) -> float:
    """The ``time.monotonic()`` moment this turn's search must stop (from when the turn arrived)."""
    start = min(context.received_at, time.monotonic())
    return start + think_seconds(context, budget, moves_left)


def hard_deadline(context: TurnContext) -> float:
    """The ``time.monotonic()`` moment past which no work may go on: the decision limit less its
    :func:`safety_margin` (infinity when the decision is untimed).

    A search finishes the work that makes its move at least as good as a one-ply choice before
    this, even when its own budget (:func:`think_deadline`) is spent already.
    """
    limit = context.decision_limit
    if limit is None:
        return float("inf")
    start = min(context.received_at, time.monotonic())
    return start + max(0.001, limit - safety_margin(limit))


def run_search_cli(
    make_bot: Callable[[BotOptions, float], Bot],
    argv: Sequence[str] | None,
    description: str | None,
    games: Sequence[str],
) -> int:
    """The SDK's command line (see ``arbiter_bot.cli``) plus ``--think SECONDS`` (the per-move budget)."""
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--think", type=float, default=DEFAULT_THINK)
    known, rest = extra.parse_known_args(argv)
    if known.think <= 0:
        extra.error("--think must be more than 0 seconds")
    text = (description or "") + (
        "\n\nOne more option: --think SECONDS, the most this bot thinks per move "
        f"(default {DEFAULT_THINK:g}); it thinks less when the clock or the per-decision limit asks for it."
    )
    return run_cli(lambda options: make_bot(options, known.think), rest, description=text, games=games)
