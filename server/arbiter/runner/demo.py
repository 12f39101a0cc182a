"""`arbiter demo`: a real arbiter on a local port with example bots playing, drawn in the terminal.

The bots are the SDK's example bots, connected over gRPC like any other bot; they wait
``delay`` seconds before each answer so that a person can follow the games. A guest token and a
command that starts an example bot with it are printed: a house bot seeks the guest's game (Torrent,
size 5, the arbiter's default time control) for as long as the demo runs, so a guest gets a game.
The programme's own bots seek another time control, so that they only ever meet each other.

Beside the programme, four house bots play a ladder (``demo``, Torrent 5) in a throwaway store,
so that the web pages have standings, bot pages and a rating chart to show. The demo runs until
it is stopped (Ctrl-C); ``rounds`` plays the programme that many times and then ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from arbiter_games import get_game
from arbiter_games.timecontrol import TimeControl
from rich.console import Console

from ..ladder.model import LadderConfig
from ..match.events import ActionApplied, MatchEnded, MatchEvent, MatchFacts
from ..node import Arbiter, ArbiterConfig
from ..sessions.auth import BotDirectory
from ..transport.server import create_server

#: (game, options, bot in seat-1 role, bot in seat-2 role)
PROGRAMME = [
    ("torrent", {"size": 5}, "greedy_flank", "random_bot"),
    ("surge", {}, "surge_tips", "random_bot"),
    ("fravan", {"size": 5}, "greedy_flank", "greedy_flank"),
]
#: The programme's bots seek this time control, which no guest asks for by default.
PROGRAMME_CONTROL = TimeControl(base=300.0, increment=3.0)
#: The arbiter's default time control: what the guest command (and the house bot) seek.
GUEST_CONTROL = TimeControl(base=120.0, increment=2.0)
GUEST = "guest"
GUEST_TOKEN = "guest-token"
HOUSE = "house"
#: The house bot and the game it seeks for the guest.
HOUSE_BOT = "greedy_flank"
GUEST_GAME = ("torrent", {"size": 5})
#: The ladder the house bots keep playing, so that the pages have standings to show.
DEMO_LADDER = LadderConfig(
    name="demo", game="torrent", options={"size": 5}, control=TimeControl(base=60.0, increment=1.0)
)
#: The demo ladder's bots: (name, example bot); each has an owner of its own, so their games are rated.
LADDER_BOTS = [
    ("flank-ada", "greedy_flank"),
    ("flank-bo", "greedy_flank"),
    ("random-cy", "random_bot"),
    ("random-di", "random_bot"),
]
#: The ladder bots think at least this long per move, so that the ladder does not take a core.
LADDER_MIN_DELAY = 0.1
#: The summary lists at most this many results (the latest).
SUMMARY_LINES = 20
#: Said on every web page of the demo.
WEB_NOTICE = (
    "This is the Arbiter demo: it runs on this machine until you press Ctrl-C in its terminal, "
    "and its store is thrown away then."
)


@dataclass
class DemoConfig:
    host: str = "127.0.0.1"
    port: int = 0
    delay: float = 0.3
    #: Play the programme this many times, then end; None: keep playing until stopped.
    rounds: int | None = None
    colour: bool = True
    #: Stay open for guests after the programme, until stopped (Ctrl-C).
    stay: bool = False
    #: Also serve the web pages (live boards, replays) at (host, port); port 0 picks a free one.
    web: tuple[str, int] | None = None


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


def guest_command(address: str) -> str:
    """A command that starts an example bot as the guest, from any shell (an absolute interpreter)."""
    game, options = GUEST_GAME
    return (
        f"{shlex.quote(sys.executable)} -m arbiter_bot.examples.random_bot --server {address} "
        f"--token {GUEST_TOKEN} --game {game} --size {options['size']} --games 1"
    )


def scores_line(facts: MatchFacts, scores: Mapping[int, int], colours: Mapping[int, str]) -> str:
    """``blue demo-1 12, orange demo-2 7``: each seat's colour, bot and score."""
    return ", ".join(f"{colours[seat]} {facts.bots[seat]} {scores.get(seat, 0)}" for seat in (1, 2))


def result_line(event: MatchEnded) -> str:
    """One line of the summary: who beat whom, the score and why the game ended."""
    facts, end = event.facts, event.end
    bots, scores = facts.bots, end.scores
    title = facts.game.title
    if end.reason == "aborted":
        return f"{title}: {bots[1]} vs {bots[2]} aborted ({end.detail or 'stopped'})"
    if end.winner_seat is None:
        return f"{title}: {bots[1]} and {bots[2]} drew {scores.get(1, 0)}-{scores.get(2, 0)} ({end.reason})"
    win = end.winner_seat
    lose = 3 - win
    return (
        f"{title}: {bots[win]} ({event.colours[win]}) beat {bots[lose]} ({event.colours[lose]}) "
        f"{scores.get(win, 0)}-{scores.get(lose, 0)} ({end.reason})"
    )


async def run_demo(
    config: DemoConfig,
    console: Console | None = None,
    stop: asyncio.Event | None = None,
    binding: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
) -> list[MatchEnded]:
    """Play the programme (``rounds`` times), then end, or with ``stay`` wait for ``stop``.

    ``stop`` (set on Ctrl-C by the command) ends the demo at any moment; a summary of the games
    played, the guest's included, ends the output either way. ``binding()`` surrounds the start of
    the server (the command holds back gRPC's own report of a failed bind there). With ``web``
    the web pages show the demo's matches too (from a throwaway store).
    """
    console = console or Console(highlight=False)
    stop = stop or asyncio.Event()
    bots = BotDirectory()
    names = ["demo-1", "demo-2"]
    for name in names:
        bots.add(name, f"{name}-token")
    bots.add(HOUSE, f"{HOUSE}-token")
    bots.add(GUEST, GUEST_TOKEN)
    finished: list[MatchEnded] = []
    laddered: list[MatchEnded] = []
    moves: dict[str, int] = {}

    def progress(event: ActionApplied) -> None:
        facts = event.facts
        if facts.ladder is not None:
            return  # the ladder's games are for the web pages, not the terminal
        number = moves[facts.match_id] = moves.get(facts.match_id, 0) + 1
        who = facts.bots[event.seat]
        extra = " (automatic)" if event.auto else ""
        console.print(
            f"\n[bold]{facts.game.title}[/bold] move {number}: seat {event.seat} ({who}) plays "
            f"[bold]{event.text}[/bold]{extra}"
        )
        console.print(facts.game.render_text(event.state, colour=config.colour), markup=False, soft_wrap=True)
        game = facts.game
        colours = {seat: game.observe(event.state, seat).colour for seat in (1, 2)}
        console.print(
            "scores: " + scores_line(facts, game.scores_by_seat(event.state), colours), markup=False
        )

    def ended(event: MatchEnded) -> None:
        if event.facts.ladder is not None:
            laddered.append(event)
            return
        finished.append(event)
        end = event.end
        bots = event.facts.bots
        winner = f"seat {end.winner_seat} ({bots[end.winner_seat]})" if end.winner_seat else "nobody (draw)"
        console.print(
            f"\n[bold green]{event.facts.game.title} over[/bold green]: {winner} wins by {end.reason}; "
            f"scores: {scores_line(event.facts, end.scores, event.colours)}\n"
        )

    def follow(event: MatchEvent) -> None:
        if isinstance(event, ActionApplied):
            progress(event)
        elif isinstance(event, MatchEnded):
            ended(event)

    arbiter_config = ArbiterConfig(bots=bots, default_control=GUEST_CONTROL)
    with contextlib.ExitStack() as cleanup:
        await _run(config, console, stop, binding, arbiter_config, follow, finished, laddered, names, cleanup)
    return finished


async def _run(  # noqa: C901 - the demo's script, in the order a newcomer sees it
    config: DemoConfig,
    console: Console,
    stop: asyncio.Event,
    binding: Callable[[], AbstractContextManager[Any]],
    arbiter_config: ArbiterConfig,
    follow: Callable[[MatchEvent], None],
    finished: list[MatchEnded],
    laddered: list[MatchEnded],
    names: list[str],
    cleanup: contextlib.ExitStack,
) -> None:
    import tempfile
    from pathlib import Path

    from arbiter_bot.bot import Bot
    from arbiter_bot.client import run_bot
    from arbiter_bot.local import load_bot

    from ..store import SqlStore

    # A throwaway SQLite store: the demo ladder's standings, and the matches the web pages show.
    folder = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="arbiter-demo-")))
    store = SqlStore(f"sqlite:///{folder / 'demo.db'}")
    cleanup.callback(store.close)
    store.upgrade()
    store.add_ladder(DEMO_LADDER)
    ladder_tokens = {name: store.add_bot(name, owner=f"{name}'s owner") for name, _ in LADDER_BOTS}
    for name in (*names, HOUSE, GUEST):
        # Known to the store too (their results and mail are kept there); their tokens stay the
        # demo's own, which the arbiter checks first.
        store.add_bot(name, owner="demo")
    web = None
    if config.web is not None:
        from ..web.app import WebServer, create_app
        from ..web.live import LiveHub

        hub = LiveHub()
        arbiter = Arbiter(arbiter_config, listeners=[follow, hub], store=store)
        web = WebServer(create_app(store, hub, arbiter.sessions.connected, notice=WEB_NOTICE), *config.web)
    else:
        arbiter = Arbiter(arbiter_config, listeners=[follow], store=store)
    with binding():
        server = await create_server(arbiter_config, config.host, config.port, arbiter=arbiter)
    console.print(
        f"[bold]Arbiter demo[/bold] listening on {server.address} (gRPC, service arbiter.v1.BotService)"
    )
    if web is not None:
        await web.start()
        console.print(f"Watch on the web: {web.address}/live (boards as they are played, then replays)")
    console.print("Connect a bot of your own while it runs: in another terminal, run")
    console.print(f"  {guest_command(server.address)}", markup=False, soft_wrap=True)
    game, options = GUEST_GAME
    title = get_game(game).title
    if config.rounds is None:
        lasts = "The demo runs until you press Ctrl-C."
    elif config.stay:
        lasts = "The demo stays open after its programme until you press Ctrl-C."
    else:
        lasts = (
            f"The demo ends after {_rounds(config.rounds)} of its programme (--stay keeps it open until "
            "Ctrl-C); a bot still connected then keeps trying to reconnect until you stop it (Ctrl-C)."
        )
    console.print(
        f"It plays one game of {title} (size {options['size']}) against the house bot ({HOUSE_BOT}); "
        f"--games 0 keeps it playing. {lasts}",
        markup=False,
    )
    bots_line = ", ".join(name for name, _ in LADDER_BOTS)
    where = f" (standings: {web.address}/ladders/{DEMO_LADDER.name})" if web is not None else ""
    console.print(
        f"House bots ({bots_line}) play the {DEMO_LADDER.name} ladder meanwhile{where}.\n", markup=False
    )

    async def programme() -> None:
        played = 0
        while config.rounds is None or played < config.rounds:
            played += 1
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
                            time_control=PROGRAMME_CONTROL,
                        )
                    )
                    for bot, name in zip(players, names, strict=True)
                ]
                try:
                    await asyncio.gather(*tasks)
                finally:
                    for task in tasks:
                        task.cancel()
                names.reverse()  # the other bot starts the next game

    async def until_stopped(seconds: float) -> bool:
        """Wait ``seconds`` or until ``stop``; whether the demo was stopped."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds)
        return stop.is_set()

    house = asyncio.create_task(
        run_bot(
            _slow(load_bot(HOUSE_BOT), config.delay), server.address, f"{HOUSE}-token", GUEST_GAME, games=None
        )
    )
    ladder_pace = max(config.delay, LADDER_MIN_DELAY)
    ladder_bots = [
        asyncio.create_task(
            run_bot(
                _slow(load_bot(kind), ladder_pace),
                server.address,
                ladder_tokens[name],
                games=None,
                ladder=DEMO_LADDER.name,
            )
        )
        for name, kind in LADDER_BOTS
    ]
    playing = asyncio.create_task(programme())
    stopped = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({playing, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if playing.done():
            playing.result()  # a programme bot's error ends the demo
            if config.stay:
                console.print(
                    "The programme is over; the demo stays open for your bot. Press Ctrl-C to stop it.",
                    markup=False,
                )
                await stopped
            elif arbiter.hosting.running_ids(GUEST):
                console.print("The programme is over; waiting for the guest's game to end (Ctrl-C stops).")
                while arbiter.hosting.running_ids(GUEST) and not await until_stopped(0.2):
                    pass
    finally:
        for task in (playing, stopped, house, *ladder_bots):
            task.cancel()
        await asyncio.gather(playing, stopped, house, *ladder_bots, return_exceptions=True)
        await server.stop(grace=1.0)
        if web is not None:
            await web.stop()
    console.print(f"\n[bold]Demo over[/bold]: {len(finished)} games played")
    shown = finished[-SUMMARY_LINES:]
    if len(shown) < len(finished):
        console.print(f"  ({len(finished) - len(shown)} earlier games not listed)", markup=False)
    for event in shown:
        console.print(f"  {result_line(event)}", markup=False)
    console.print(f"The {DEMO_LADDER.name} ladder: {len(laddered)} games played", markup=False)


def _rounds(rounds: int) -> str:
    return "one round" if rounds == 1 else f"{rounds} rounds"
