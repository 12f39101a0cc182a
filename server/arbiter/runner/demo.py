"""`arbiter demo`: a real arbiter on a local port with example bots playing, drawn in the terminal.

The bots are the SDK's example bots, connected over gRPC like any other bot; they wait
``delay`` seconds before each answer so that a person can follow the games. A guest bot token
is printed so that a newcomer can connect a bot of their own to the same arbiter.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from arbiter_games.timecontrol import TimeControl
from rich.console import Console

from ..match.events import ActionApplied, MatchEnded, MatchEvent
from ..node import Arbiter, ArbiterConfig
from ..sessions.auth import BotDirectory
from ..transport.server import create_server

#: (game, options, bot in seat-1 role, bot in seat-2 role)
PROGRAMME = [
    ("torrent", {"size": 5}, "greedy_flank", "random_bot"),
    ("surge", {}, "surge_tips", "random_bot"),
    ("fravan", {"size": 5}, "greedy_flank", "greedy_flank"),
]


@dataclass
class DemoConfig:
    host: str = "127.0.0.1"
    port: int = 0
    delay: float = 0.3
    rounds: int = 1
    colour: bool = True


def _slow(bot: Any, delay: float) -> Any:
    """An SDK bot that thinks ``delay`` seconds longer (the demo's pace)."""
    from arbiter_bot.bot import Bot

    class SlowBot(Bot):
        name = bot.name

        def choose(self, observation: Any, legal: Any, context: Any) -> Any:
            time.sleep(delay)
            return bot.choose(observation, legal, context)

        def on_match_start(self, info: Any) -> None:
            bot.on_match_start(info)

        def on_match_end(self, summary: Any) -> None:
            bot.on_match_end(summary)

    return SlowBot()


async def run_demo(config: DemoConfig, console: Console | None = None) -> list[MatchEnded]:
    from arbiter_bot.bot import Bot
    from arbiter_bot.client import run_bot
    from arbiter_bot.local import load_bot

    console = console or Console(highlight=False)
    bots = BotDirectory()
    names = ["demo-1", "demo-2"]
    for name in names:
        bots.add(name, f"{name}-token")
    bots.add("guest", "guest-token")
    finished: list[MatchEnded] = []
    moves: dict[str, int] = {}

    def progress(event: ActionApplied) -> None:
        facts = event.facts
        number = moves[facts.match_id] = moves.get(facts.match_id, 0) + 1
        who = facts.bots[event.seat]
        extra = " (automatic)" if event.auto else ""
        console.print(
            f"\n[bold]{facts.game.title}[/bold] move {number}: seat {event.seat} ({who}) plays "
            f"[bold]{event.text}[/bold]{extra}"
        )
        console.print(facts.game.render_text(event.state, colour=config.colour), markup=False)

    def ended(event: MatchEnded) -> None:
        finished.append(event)
        end = event.end
        bots = event.facts.bots
        winner = f"seat {end.winner_seat} ({bots[end.winner_seat]})" if end.winner_seat else "nobody (draw)"
        console.print(
            f"\n[bold green]{event.facts.game.title} over[/bold green]: {winner} wins by {end.reason}, "
            f"scores {dict(end.scores)}\n"
        )

    def follow(event: MatchEvent) -> None:
        if isinstance(event, ActionApplied):
            progress(event)
        elif isinstance(event, MatchEnded):
            ended(event)

    arbiter_config = ArbiterConfig(bots=bots, default_control=TimeControl(base=120.0, increment=2.0))
    arbiter = Arbiter(arbiter_config, listeners=[follow])
    server = await create_server(arbiter_config, config.host, config.port, arbiter=arbiter)
    console.print(
        f"[bold]Arbiter demo[/bold] listening on {server.address} (gRPC, service arbiter.v1.BotService)"
    )
    console.print("Connect a bot of your own while it runs, for example:")
    console.print(
        f"  python -m arbiter_bot.examples.random_bot --server {server.address} --token guest-token "
        "--game torrent --size 5\n",
        markup=False,
    )
    try:
        for _ in range(config.rounds):
            for game, options, first, second in PROGRAMME:
                players: list[Bot] = [load_bot(first), load_bot(second)]
                tasks = [
                    asyncio.create_task(
                        run_bot(
                            _slow(bot, config.delay),
                            server.address,
                            f"{name}-token",
                            (game, options),
                            games=1,
                        )
                    )
                    for bot, name in zip(players, names, strict=True)
                ]
                await asyncio.gather(*tasks)
                names.reverse()  # the other bot starts the next game
    finally:
        await server.stop(grace=1.0)
    return finished
