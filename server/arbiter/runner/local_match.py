"""`arbiter match`: two bots, N games, through a real local arbiter on a loopback port.

A bot is a built-in name (``random``, ``greedy``, ``mcts``; or an example module such as ``surge_tips``)
played in this process by the SDK, or a shell command that starts an SDK bot: the command gets
``ARBITER_SERVER``, ``ARBITER_TOKEN``, ``ARBITER_GAME``, ``ARBITER_SIZE`` and ``ARBITER_GAMES``
in its environment. Seats alternate from game to game.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import shlex
import shutil
import signal
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.text import MAX_NAME_LENGTH, is_name_character

from ..lobby import Pairing
from ..match.events import MatchEnded, MatchEvent
from ..match.match import Match
from ..node import Arbiter, ArbiterConfig
from ..security.ratelimit import RateLimits
from ..sessions.auth import BotDirectory
from ..transport.server import create_server
from .stats import Tally

BUILTIN = {
    "random": "random_bot",
    "greedy": None,  # greedy_flank for Torrent/Fravan, surge_tips for Surge
    "mcts": None,  # mcts_flank for Torrent/Fravan, ismcts_surge for Surge
    "ismcts": "ismcts_surge",
    "random_bot": "random_bot",
    "greedy_flank": "greedy_flank",
    "surge_tips": "surge_tips",
    "mcts_flank": "mcts_flank",
    "ismcts_surge": "ismcts_surge",
}
#: The example module of a built-in name that depends on the game: (Torrent/Fravan, Surge).
BY_GAME = {"greedy": ("greedy_flank", "surge_tips"), "mcts": ("mcts_flank", "ismcts_surge")}
#: Built-in bots that search until their deadline: each runs in a process of its own (started with
#: the SDK's command line), as it would on a ladder, so that its thinking and the arbiter's work
#: do not share one Python interpreter (and its lock) and the clocks measure the bot alone.
OWN_PROCESS = frozenset({"mcts_flank", "ismcts_surge"})


class RunnerError(Exception):
    """The run cannot go on (a bot command failed to start or died)."""


@dataclass
class RunnerConfig:
    bot_a: str
    bot_b: str
    game: str
    options: dict[str, Any]
    games: int
    control: TimeControl
    policy: MatchPolicy
    records_dir: Path
    concurrency: int = 1
    seed: int | None = None
    #: Seconds each bot has to open its stream to the arbiter before the run gives up.
    connect_timeout: float = 30.0
    #: Games 2k and 2k + 1 (in start order; seats swapped) share one seed (for SPRT pairs).
    paired_seeds: bool = False


@dataclass
class GameResult:
    number: int
    match_id: str
    seat_of_a: int
    winner: str | None
    scores: tuple[int, int]
    reason: str
    faulty: str | None
    detail: str
    #: The game's place in start order, from 0 (``number`` counts games in the order they ended).
    index: int = 0
    #: The match's seed (hex) when the runner chose it (paired seeds), else "".
    seed: str = ""

    @property
    def points_of_a(self) -> float:
        return 1.0 if self.winner == "A" else 0.0 if self.winner == "B" else 0.5


@dataclass
class RunResult:
    tally: Tally
    games: list[GameResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class _WatchedDirectory(BotDirectory):
    """The runner's two bots; notes which of them have connected (authenticated) at least once."""

    def __init__(self) -> None:
        super().__init__()
        self.connected: dict[str, asyncio.Event] = {}

    def add(self, name: str, token_or_hash: str, where: str = "") -> None:
        super().add(name, token_or_hash, where)
        self.connected[name] = asyncio.Event()

    def authenticate(self, token: str | None) -> str | None:
        name = super().authenticate(token)
        if name is not None:
            self.connected[name].set()
        return name


class _RunnerArbiter(Arbiter):
    """The arbiter of a run: notes each match's start order and, for pairs, gives it its seed."""

    def __init__(self, config: ArbiterConfig, listeners: list[Any], paired_seeds: bool) -> None:
        super().__init__(config, listeners=listeners)
        self.paired_seeds = paired_seeds
        self.salt = secrets.token_bytes(16)
        #: match id -> (start index, seed hex or "").
        self.started: dict[str, tuple[int, str]] = {}

    def pair_seed(self, index: int) -> bytes:
        return hashlib.sha256(self.salt + str(index // 2).encode()).digest()

    def start_pairing(self, pairing: Pairing) -> Match:
        index = len(self.started)
        if not self.paired_seeds:
            match = super().start_pairing(pairing)
            self.started[match.id] = (index, "")
            return match
        seed = self.pair_seed(index)
        match = self.start_match(self.pairing_setup(pairing, seed))
        self.started[match.id] = (index, seed.hex())
        return match


def is_builtin(spec: str) -> bool:
    return spec in BUILTIN


#: The games each game-specific example plays (the rest play every game).
PLAYS = {
    "greedy_flank": ("torrent", "fravan"),
    "mcts_flank": ("torrent", "fravan"),
    "surge_tips": ("surge",),
    "ismcts_surge": ("surge",),
}


def bot_problem(spec: str, game: str) -> str | None:
    """Why ``spec`` cannot play ``game`` (None when it can): a built-in name for another game, or a
    command whose program does not exist (a misspelt built-in name, most likely)."""
    if is_builtin(spec):
        module = _builtin_module(spec, game)
        plays = PLAYS.get(module)
        if plays is not None and game not in plays:
            return f"built-in bot {spec!r} plays {' and '.join(plays)}, not {game}"
        return None
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        return f"bot command {spec!r} cannot be read: {exc}"
    if not words:
        return "an empty bot name"
    program = words[0]
    if "/" in program:
        if not Path(program).exists():
            return f"bot command {spec!r}: no program {program}"
        return None
    if shutil.which(program) is None:
        known = ", ".join(BUILTIN)
        return f"unknown bot {spec!r}; built-in bots: {known} (or a shell command that starts a bot)"
    return None


def _builtin_module(spec: str, game: str) -> str:
    module = BUILTIN[spec]
    if module is None:
        flank, surge = BY_GAME[spec]
        module = surge if game == "surge" else flank
    return module


def label(spec: str) -> str:
    """A short name for a bot: the built-in name, the module after ``-m``, or the program's name."""
    if is_builtin(spec):
        return spec
    words = shlex.split(spec) or [spec]
    if "-m" in words[:-1]:
        return words[words.index("-m") + 1].rsplit(".", 1)[-1]
    program = words[0].rsplit("/", 1)[-1]
    # An interpreter (python my_bot.py, node dist/bot.js, npx tsx bot.ts): the script's name.
    rest = words[1:]
    while program in LAUNCHERS and rest:
        program, rest = rest[0].rsplit("/", 1)[-1], rest[1:]
    if program.startswith("python") or program in INTERPRETERS:
        scripts = [word for word in rest if not word.startswith("-") and word != "run"]
        if scripts:
            program = scripts[0].rsplit("/", 1)[-1]
    stem, dot, extension = program.rpartition(".")
    return stem if dot and stem and extension in SCRIPT_EXTENSIONS else program


#: Programs that start another program named next (``npx tsx bot.ts``).
LAUNCHERS = frozenset({"npx", "env", "exec", "uv", "poetry", "pipenv", "run"})
#: Programs that run a script named among their arguments.
INTERPRETERS = frozenset(
    {"node", "nodejs", "deno", "bun", "tsx", "ts-node", "ruby", "perl", "sh", "bash", "java"}
)
SCRIPT_EXTENSIONS = frozenset({"py", "js", "mjs", "cjs", "ts", "rb", "pl", "sh", "jar"})


class LocalRunner:
    """Runs the games and reports each finished one to ``on_game``."""

    def __init__(
        self, config: RunnerConfig, on_game: Callable[[GameResult, Tally], None] | None = None
    ) -> None:
        self.config = config
        self.on_game = on_game
        self.tokens = {"A": secrets.token_urlsafe(16), "B": secrets.token_urlsafe(16)}
        self.names = {"A": _bot_name("A", config.bot_a), "B": _bot_name("B", config.bot_b)}
        if self.names["A"] == self.names["B"]:
            self.names["B"] += "-2"
        self.result = RunResult(Tally())
        self.done = asyncio.Event()
        self.processes: list[asyncio.subprocess.Process] = []
        self.arbiter: _RunnerArbiter | None = None

    def stop(self) -> None:
        """End the run after this game (from ``on_game``): no new game starts, running ones are abandoned."""
        self.done.set()
        if self.arbiter is not None:
            self.arbiter.config.max_matches = self.arbiter.hosting.started

    def _on_event(self, event: MatchEvent) -> None:
        if isinstance(event, MatchEnded):
            self._on_match_end(event)

    def _on_match_end(self, event: MatchEnded) -> None:
        if self.done.is_set():
            return  # a match aborted as the run stops early: not one of its games
        end = event.end
        bots = event.facts.bots
        seat_of = {("A" if name == self.names["A"] else "B"): seat for seat, name in bots.items()}
        by_seat = {seat: key for key, seat in seat_of.items()}
        winner = by_seat.get(end.winner_seat) if end.winner_seat else None
        faulty = by_seat.get(end.faulty_seat) if end.faulty_seat else None
        scores = (end.scores.get(seat_of["A"], 0), end.scores.get(seat_of["B"], 0))
        tally = self.result.tally
        tally.add(winner, scores, end.reason, faulty)
        match_id = event.facts.match_id
        index, seed = self.arbiter.started.get(match_id, (tally.games - 1, "")) if self.arbiter else (0, "")
        game = GameResult(
            tally.games, match_id, seat_of["A"], winner, scores, end.reason, faulty, end.detail, index, seed
        )
        self.result.games.append(game)
        if self.on_game is not None:
            self.on_game(game, tally)
        if tally.games >= self.config.games:
            self.done.set()

    async def run(self) -> RunResult:  # noqa: C901 - start, watch and stop both bots in one place
        cfg = self.config
        bots = _WatchedDirectory()
        for key in ("A", "B"):
            bots.add(self.names[key], self.tokens[key])
        arbiter_config = ArbiterConfig(
            bots=bots,
            default_control=cfg.control,
            policy=cfg.policy,
            records_dir=cfg.records_dir,
            max_matches=cfg.games,
            # Two of our own bots on loopback: a fast match starts many seeks a minute, on purpose.
            rate_limits=RateLimits.off(),
        )
        arbiter = _RunnerArbiter(arbiter_config, [self._on_event], cfg.paired_seeds)
        self.arbiter = arbiter
        server = await create_server(arbiter_config, "127.0.0.1", 0, arbiter=arbiter)
        tasks: list[asyncio.Task[Any]] = []
        try:
            watchers: list[asyncio.Task[Any]] = []
            for key, spec in (("A", cfg.bot_a), ("B", cfg.bot_b)):
                tasks.append(asyncio.create_task(self._run_bot(key, spec, server.address)))
                connected = bots.connected[self.names[key]]
                watchers.append(asyncio.create_task(self._await_connect(key, spec, connected)))
            done_wait = asyncio.create_task(self.done.wait())
            pending: set[asyncio.Task[Any]] = {done_wait, *tasks, *watchers}
            while not self.done.is_set():
                finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    if task is done_wait:
                        continue
                    error = task.exception() if not task.cancelled() else None
                    if isinstance(error, RunnerError):
                        raise error
                    if error is not None:
                        raise RunnerError(str(error)) from error
                if not any(t in pending for t in tasks) and not self.done.is_set():
                    # Both bots stopped on their own; the games that are left cannot be played.
                    raise RunnerError("both bots stopped before all games were played")
        finally:
            for task in (*tasks, *watchers):
                task.cancel()
            for process in self.processes:
                _signal_group(process, signal.SIGTERM)
            for process in self.processes:
                try:
                    await asyncio.wait_for(process.wait(), 5)
                except TimeoutError:
                    _signal_group(process, signal.SIGKILL)
            await asyncio.gather(*tasks, *watchers, return_exceptions=True)
            await server.stop(grace=0.5)
        return self.result

    async def _await_connect(self, key: str, spec: str, connected: asyncio.Event) -> None:
        """RunnerError when the bot has not opened its stream within the connect timeout."""
        timeout = self.config.connect_timeout
        try:
            await asyncio.wait_for(connected.wait(), timeout)
        except TimeoutError:
            in_process = is_builtin(spec) and self._builtin_command(key, spec) is None
            where = "" if in_process else f"; its output is in {self._log_path(key)}"
            raise RunnerError(
                f"bot {key} ({spec!r}) did not connect within {timeout:g} s (see --connect-timeout){where}"
            ) from None

    def _log_path(self, key: str) -> Path:
        return self.config.records_dir / f"bot-{key}.log"

    def _builtin_command(self, key: str, spec: str) -> str | None:
        """The shell command that starts a built-in bot played in its own process, else None."""
        cfg = self.config
        if not is_builtin(spec):
            return None
        module = _builtin_module(spec, cfg.game)
        if module not in OWN_PROCESS:
            return None
        words = [sys.executable, "-m", f"arbiter_bot.examples.{module}", "--log-level", "warning"]
        words += ["--max-concurrent", str(cfg.concurrency)]
        if cfg.seed is not None:
            words += ["--seed", str(cfg.seed * 2 + (key == "B"))]
        return shlex.join(words)

    async def _run_bot(self, key: str, spec: str, address: str) -> None:
        cfg = self.config
        command = self._builtin_command(key, spec)
        if command is not None:
            spec = command
        elif is_builtin(spec):
            from arbiter_bot.client import run_bot
            from arbiter_bot.local import load_bot

            seed = None if cfg.seed is None else cfg.seed * 2 + (key == "B")
            bot = load_bot(_builtin_module(spec, cfg.game), seed)
            await run_bot(
                bot,
                address,
                self.tokens[key],
                (cfg.game, cfg.options),
                games=None,
                max_concurrent=cfg.concurrency,
            )
            return
        env = dict(os.environ)
        env.update(
            ARBITER_SERVER=address,
            ARBITER_TOKEN=self.tokens[key],
            ARBITER_GAME=cfg.game,
            ARBITER_GAMES=str(cfg.games),
        )
        if "size" in cfg.options:
            env["ARBITER_SIZE"] = str(cfg.options["size"])
        cfg.records_dir.mkdir(parents=True, exist_ok=True)
        log_path = self._log_path(key)
        with open(log_path, "ab") as log_file:  # noqa: ASYNC230 - once per bot, before it starts
            try:
                # In a process group of its own, so that stopping it stops what the shell started.
                process = await asyncio.create_subprocess_shell(
                    spec,
                    env=env,
                    stdout=log_file,
                    stderr=asyncio.subprocess.STDOUT,
                    stdin=asyncio.subprocess.DEVNULL,
                    start_new_session=True,
                )
            except OSError as exc:
                raise RunnerError(f"bot {key}: cannot start {spec!r}: {exc}") from exc
            self.processes.append(process)
            code = await process.wait()
        if not self.done.is_set():
            raise RunnerError(
                f"bot {key} ({spec!r}) exited with status {code} early; its output is in {log_path}"
            )


def _signal_group(process: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    """Send ``sig`` to a bot command's process group (the shell and what it started)."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def _bot_name(key: str, spec: str) -> str:
    """``A-random_bot``: a valid bot name made from the label (other characters become ``_``)."""
    text = "".join(c if is_name_character(c) else "_" for c in unicodedata.normalize("NFC", label(spec)))
    return f"{key}-{text}"[:MAX_NAME_LENGTH]


def python_command(module: str) -> str:
    """A shell command running an example bot module with this interpreter (for tests and docs)."""
    return f"{shlex.quote(sys.executable)} -m {module}"
