"""The ``arbiter`` command."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import __version__
from .cli_hosting import HostingOptions, hosting_options
from .cli_text import OneLineErrors, fail, say
from .cli_web import account_options, connection_options, spectator_options

if TYPE_CHECKING:
    from .cluster import ClusterMember
    from .runner.local_match import RunnerConfig
    from .store import SqlStore as Store
    from .workers.role import WorkerStart


@contextlib.contextmanager
def held_back_stderr(keep: Any = lambda exc: True) -> Iterator[None]:
    """Hold back what native code (gRPC's core) writes to file descriptor 2 while binding a port.

    gRPC logs its own multi-line report of a failed bind; the CLI says the same in one line. What
    was written is passed on afterwards unless the block raised an exception ``keep`` refuses.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        raised: BaseException | None = None
        try:
            yield
        except BaseException as exc:
            raised = exc
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            if raised is None or keep(raised):
                held.seek(0)
                text = held.read()
                if text:
                    sys.stderr.flush()
                    os.write(2, text)


@click.group(cls=OneLineErrors)
@click.version_option(__version__, prog_name="arbiter")
def main() -> None:
    """Arbiter: timed, rated matches between bots playing Torrent, Fravan and Surge Stones."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def conformance(files: tuple[str, ...]) -> None:
    """Run conformance vector FILES (JSON lines) on the engines.

    Prints one line per failing case and ends with 'N passed, M failed'.
    Exit status: 0 when nothing failed, 1 when a case failed, 2 when the
    files cannot be read or hold no case.
    """
    from .conformance import VectorFileError, run_files

    try:
        results = run_files(files)
    except VectorFileError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if not results:
        click.echo("error: no case found in " + ", ".join(files), err=True)
        sys.exit(2)
    failed = 0
    for result in results:
        if result.failure is not None:
            failed += 1
            click.echo(f"FAIL {result.case_id}: {result.failure}")
    click.echo(f"{len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


@main.command()
@click.option("--delay", type=float, default=0.3, show_default=True, help="Seconds each bot thinks per move.")
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=None,
    help="Play the programme this many times, then end (default: keep playing until Ctrl-C).",
)
@click.option("--once", is_flag=True, help="Play the programme once, then end (--rounds 1).")
@click.option("--port", type=int, default=0, help="Port for the arbiter (default: a free one).")
@click.option("--no-colour", is_flag=True, help="Plain text boards.")
@click.option("--stay", is_flag=True, help="Stay open for guest bots after the programme, until Ctrl-C.")
@click.option(
    "--web",
    "web_address",
    default="127.0.0.1:0",
    show_default=True,
    metavar="HOST:PORT",
    help="Where to serve the web pages (live boards, replays); port 0 picks a free one; 'none': no pages.",
)
def demo(
    delay: float, rounds: int | None, once: bool, port: int, no_colour: bool, stay: bool, web_address: str
) -> None:
    """Start a local arbiter and watch example bots play Torrent, Surge Stones and Fravan over gRPC.

    House bots play a demo ladder meanwhile, for the web pages. It runs until Ctrl-C (or --rounds
    N, --once). It prints a command that connects a bot of your own as a guest: a house bot plays it.
    """
    import asyncio
    import signal

    from .logging_setup import configure_logging
    from .runner.demo import DemoConfig, run_demo
    from .transport.server import BindError, check_port

    if once and rounds not in (None, 1):
        fail("--once and --rounds N are one choice: give one of them", 2)
    if once:
        rounds = 1
    try:
        check_port(port)
    except BindError as exc:
        fail(str(exc), 2)
    configure_logging("warning", json=False)
    from .cli_web import parse_address

    web = None if web_address == "none" else parse_address(web_address)
    config = DemoConfig(port=port, delay=delay, rounds=rounds, colour=not no_colour, stay=stay, web=web)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def on_signal(sig: signal.Signals) -> None:
            stop.set()
            loop.remove_signal_handler(sig)  # a second Ctrl-C stops at once

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal, sig)
        await run_demo(
            config, stop=stop, binding=lambda: held_back_stderr(keep=lambda e: not isinstance(e, BindError))
        )

    try:
        asyncio.run(run())
    except OSError as exc:  # BindError, or the web pages' port
        fail(str(exc))
    except KeyboardInterrupt:
        click.echo("\nstopped")


def _bot_start_options(func: Any) -> Any:
    """--seed and --connect-timeout, shared by the commands that start bots (match, tournament)."""
    func = click.option(
        "--connect-timeout",
        type=float,
        default=30.0,
        show_default=True,
        help="Seconds a bot has to connect before the run gives up.",
    )(func)
    return click.option("--seed", type=int, default=None, help="Seed for built-in bots.")(func)


def _policy_options(func: Any) -> Any:
    func = click.option(
        "--on-illegal",
        type=click.Choice(["forfeit", "reject"]),
        default="forfeit",
        show_default=True,
        help="An illegal or malformed action loses (forfeit) or may be answered again (reject).",
    )(func)
    func = click.option(
        "--on-timeout",
        type=click.Choice(["loss", "default_action"]),
        default="loss",
        show_default=True,
        help="A timeout loses, or the arbiter plays a default action (pass, else a random legal one).",
    )(func)
    func = click.option("--per-decision", type=float, default=None, help="Cap on one decision, seconds.")(
        func
    )
    func = click.option(
        "--increment", type=float, default=1.0, show_default=True, help="Fischer increment, seconds."
    )(func)
    func = click.option(
        "--base", type=float, default=60.0, show_default=True, help="Game clock per seat, seconds (0: none)."
    )(func)
    return func


def _time_control(base: float, increment: float, per_decision: float | None) -> Any:
    from arbiter_games.timecontrol import TimeControl

    try:
        return TimeControl(base=base or None, increment=increment if base else 0.0, per_decision=per_decision)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


@main.command()
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0 for all)."
)
@click.option("--port", type=int, default=50051, show_default=True, help="Port (0 picks a free one).")
@click.option(
    "--bot", "bot_specs", multiple=True, metavar="NAME=TOKEN", help="A bot and its token (repeatable)."
)
@click.option(
    "--tokens-file",
    type=click.Path(exists=True, dir_okay=False),
    help="File of NAME=TOKEN or NAME=sha256:HEX lines (see 'arbiter token').",
)
@click.option(
    "--records",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write one JSON record per finished match into this folder (none unless given; "
    "with a store, every record is kept there too: arbiter matches export).",
)
@click.option(
    "--grace", type=float, default=10.0, show_default=True, help="Seconds running matches get on stop."
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"], case_sensitive=False),
    default="info",
    show_default=True,
    help="Log events at this level and above (debug adds every move).",
)
@click.option(
    "--database",
    default=None,
    envvar="ARBITER_DATABASE",
    metavar="URL",
    help="The store: sqlite:///FILE or postgresql://..., or 'none' to keep nothing (no ladders)"
    " ($ARBITER_DATABASE) [default: sqlite:///arbiter.db here]",
)
@click.option(
    "--web",
    "web_address",
    default=None,
    metavar="HOST:PORT",
    help="Also serve the web pages (ladders, bots, replays, live matches) at HOST:PORT (docs/web.md).",
)
@click.option(
    "--live-delay",
    "live_delay",
    multiple=True,
    metavar="[LADDER=]N",
    help="With --web: spectators see running matches N moves late (every ladder, or one; repeatable).",
)
@click.option(
    "--web-in-process",
    is_flag=True,
    help="With --web: serve the pages inside the arbiter's process, not in a process of their own"
    " (docs/web.md).",
)
@spectator_options
@connection_options
@account_options
@click.option(
    "--guests-play",
    is_flag=True,
    default=False,
    help="With --web: guests may play connected ladder bots, unrated, over /api/play (docs/web.md).",
)
@click.option(
    "--advertise",
    default=None,
    metavar="HOST:PORT",
    help="Join a cluster of nodes on one PostgreSQL database; bots are sent to this node at"
    " HOST:PORT (docs/cluster.md).",
)
@click.option(
    "--lease",
    type=float,
    default=5.0,
    show_default=True,
    help="With --advertise: seconds a node's lease lasts.",
)
@click.option(
    "--heartbeat",
    type=float,
    default=1.0,
    show_default=True,
    help="With --advertise: seconds between heartbeats (each renews the lease).",
)
@click.option(
    "--processes",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes sharing --port (one per core, say); matches are hosted where both"
    " bots are (docs/processes.md).",
)
@click.option(
    "--process-host",
    default=None,
    metavar="HOST",
    help="With --processes: the address each worker's own port is bound to and named by in"
    " redirects [default: --host, or 127.0.0.1 for 0.0.0.0 or ::].",
)
@click.option("--worker-index", type=int, default=None, hidden=True)
@click.option("--worker-state", type=click.Path(file_okay=False), default=None, hidden=True)
@_policy_options
@hosting_options
def serve(  # noqa: C901 - one command's checks in a row, each a one-line error; read top to bottom
    hosting: HostingOptions,
    database: str | None,
    web_address: str | None,
    host: str,
    port: int,
    bot_specs: tuple[str, ...],
    tokens_file: str | None,
    records: str | None,
    grace: float,
    log_level: str,
    base: float,
    increment: float,
    per_decision: float | None,
    on_timeout: str,
    on_illegal: str,
    live_delay: tuple[str, ...],
    web_in_process: bool,
    web_max_spectators: int,
    web_max_spectators_per_address: int,
    web_header_timeout: float,
    web_max_connections: int,
    web_max_connections_per_address: int,
    signup: str,
    web_secret_file: str | None,
    guests_play: bool,
    advertise: str | None,
    lease: float,
    heartbeat: float,
    processes: int,
    process_host: str | None,
    worker_index: int | None,
    worker_state: str | None,
) -> None:
    """Run the arbiter: bots connect, seek matches and play (Ctrl-C stops gracefully)."""
    import asyncio
    import signal

    from arbiter_games.policy import MatchPolicy

    from .logging_setup import configure_logging
    from .node import ArbiterConfig
    from .security.tls import plaintext_warning
    from .sessions.auth import BotDirectory, TokenError
    from .transport.server import BindError, check_port, create_server

    try:
        check_port(port)
    except BindError as exc:
        fail(str(exc), 2)
    if process_host is not None and processes == 1 and worker_index is None:
        fail("--process-host is for --processes N (N of 2 or more)", 2)
    if processes > 1:
        if advertise is not None:
            fail("--processes cannot be used with --advertise: a node of a cluster is one process", 2)
        from .workers.supervisor import supervise

        sys.exit(supervise(processes, host, port, grace))
    worker = _worker(worker_index, worker_state, host, process_host)
    configure_logging(log_level)
    if worker is not None:
        from .workers.role import tag_logs

        tag_logs(worker.index)  # every log line says which worker
    bots = BotDirectory()
    try:
        bots.add_specs(bot_specs)
        if tokens_file:
            bots.load_file(tokens_file)
    except TokenError as exc:
        fail(str(exc), 2)
    except OSError as exc:
        fail(f"cannot read the tokens file {tokens_file}: {exc.strerror or exc}", 2)
    from .cli_ladder import store_for_serve
    from .store import SqlStore, StoreError

    store: SqlStore | None = None
    if database != "none":
        try:
            store = store_for_serve(database)
        except StoreError as exc:
            fail(str(exc))
    if not len(bots) and (store is None or not store.list_bots()):
        if store is not None:
            store.close()
        fail(
            "no bots: give --bot NAME=TOKEN or --tokens-file FILE, or register bots with `arbiter bots add`",
            2,
        )
    if store is not None and len(bots):
        from .ladder.adapters import token_shared_with_store

        try:
            shared = token_shared_with_store(bots, store)
        except StoreError as exc:
            store.close()
            fail(str(exc))
        if shared is not None:
            store.close()
            fail(f"{shared}: a token names one bot", 2)
    config = ArbiterConfig(
        bots=bots,
        default_control=_time_control(base, increment, per_decision),
        policy=MatchPolicy(on_timeout=on_timeout, on_illegal=on_illegal),
        records_dir=Path(records) if records is not None else None,
        rate_limits=hosting.rate_limits,
        connections=hosting.connections,
        credential_check=hosting.credential_check,
        max_matches_per_bot=hosting.max_matches_per_bot,
        event_grace=hosting.event_grace,
    )
    from .cli_web import parse_address, parse_delays, read_secret
    from .node import Arbiter

    web_at = parse_address(web_address) if web_address else None
    web_secret = read_secret(web_secret_file) if web_at is not None else None
    if worker is not None and worker.index > 0:
        web_at = None  # the web pages are worker 0's
    if web_at is not None and store is None:
        fail("--web needs a store (the pages show its ladders): drop --database none", 2)
    if guests_play and web_address is None:
        fail("--guests-play needs --web (guests play over the web port)", 2)
    delays = parse_delays(live_delay)
    member = _cluster_member(store, advertise, lease, heartbeat)  # registered in run()

    async def run() -> None:
        import structlog

        from .web.guard import WebLimits
        from .web.serving import PagesOptions, ServedPages

        # Before "listening on": a SIGTERM right after that line stops gracefully too.
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        pages = None
        if web_at is not None and store is not None:
            limits = WebLimits.of(web_header_timeout, web_max_connections, web_max_connections_per_address)
            pages = ServedPages(
                store,
                PagesOptions(*web_at, limits, delays[0], delays[1], web_max_spectators,
                             web_max_spectators_per_address, web_in_process or guests_play, log_level,
                             signup=signup, secret=web_secret),
            )  # fmt: skip
        arbiter = Arbiter(config, store=store, listeners=[pages.hub] if pages is not None else [])
        if worker is not None:
            arbiter.workers = worker.role(arbiter, f"{host}:{port}")
        if member is not None:
            _register(member)
            arbiter.join_cluster(member, _lost_lease)
            arbiter.start_cluster()  # heartbeats from now on: the lease runs while the server starts
        with held_back_stderr(keep=lambda exc: not isinstance(exc, BindError)):
            server = await create_server(
                config,
                host,
                port,
                arbiter=arbiter,
                tls=hosting.tls,
                shared_port=worker is not None,
                private_host=worker.bind_host if worker is not None else None,
            )
        # The first line on standard output, so that a script (or a test) that asked for
        # --port 0 learns the port; the JSON log on standard error says it too ("serving").
        click.echo(f"listening on {server.address}")
        warning = plaintext_warning(host, hosting.tls)
        if warning is not None:
            click.echo(warning, err=True)
        metrics_at = hosting.metrics
        if worker is not None and metrics_at is not None and metrics_at[1]:
            metrics_at = (metrics_at[0], metrics_at[1] + worker.index)  # worker I: the port + I
        metrics = (
            arbiter.metrics.serve(*metrics_at, request_timeout=hosting.metrics_timeout)
            if metrics_at is not None
            else None
        )
        if metrics is not None:
            click.echo(f"metrics on http://{metrics.address}/metrics")
        if pages is not None:
            sessions = arbiter.sessions
            other = config.connections.max_connections or 0
            joined = arbiter.ladders.joined_by if arbiter.ladders is not None else None
            people = arbiter.people if guests_play else None
            address = await pages.start(sessions.connected, sessions.sessions.keys, other, joined, people)
            click.echo(f"web pages on {address}")
        if worker is not None and arbiter.workers is not None:
            # The supervisor waits for this line (the last one a worker prints).
            arbiter.workers.serving(f"{worker.advertised_host}:{server.private_port}")
            click.echo(f"worker {worker.index} at {worker.advertised_host}:{server.private_port}")
        log = structlog.get_logger("arbiter")
        log.info(
            "serving",
            address=server.address,
            database=store.url if store is not None else "none (nothing is kept)",
            bots=bots.names(),  # from --bot and --tokens-file
            bots_in_store=len(store.list_bots()) if store is not None else 0,
            ladders=[ladder.name for ladder in store.list_ladders()] if store is not None else [],
            time_control=config.default_control.describe(),
        )
        await stop.wait()
        log.info("stopping", grace=grace, running_matches=len(server.arbiter.hosting.matches))
        await server.stop(grace)
        if pages is not None:
            await pages.stop()
        if metrics is not None:
            metrics.stop()
        log.info("stopped")

    try:
        asyncio.run(run())
    except OSError as exc:  # BindError, or the web pages' port
        fail(str(exc))
    finally:
        if store is not None:
            store.close()


def _worker(index: int | None, state: str | None, host: str, process_host: str | None) -> WorkerStart | None:
    """A worker of ``--processes N`` (the supervisor gives ``--worker-index`` and ``--worker-state``)."""
    if index is None or state is None:
        return None
    from .workers.role import WorkerStart

    return WorkerStart(index, Path(state), process_host or host)


def _cluster_member(
    store: Store | None, advertise: str | None, lease: float, heartbeat: float
) -> ClusterMember | None:
    """``--advertise``: this node's registration in the cluster (made now, before serving)."""
    if advertise is None:
        return None
    from .cli_web import parse_address
    from .cluster import ClusterMember, ClusterSettings, NotPostgres

    parse_address(advertise)  # HOST:PORT or a one-line error
    if store is None:
        fail("--advertise needs the cluster's PostgreSQL database: drop --database none", 2)
    try:
        return ClusterMember(store, ClusterSettings(advertise, lease, heartbeat))
    except (NotPostgres, ValueError) as exc:
        fail(str(exc), 2)


def _register(member: ClusterMember) -> None:
    from .store import StoreError

    try:
        member.register()
    except StoreError as exc:
        fail(str(exc))


def _lost_lease() -> None:
    """Another node took this node's registration over (its lease had run out): its matches are
    hosted there now and every write from here is refused, so this process stops at once."""
    print("this node's lease was lost and its matches taken over: stopping", file=sys.stderr, flush=True)
    os._exit(3)


@main.command("match")
@click.argument("bot_a")
@click.argument("bot_b")
@click.option(
    "--game",
    type=click.Choice(["torrent", "fravan", "surge"]),
    default="torrent",
    show_default=True,
    help="The game played.",
)
@click.option(
    "--size",
    type=int,
    default=None,
    help="Board size for Torrent (5-9) or Fravan (5, 7); default 7. Not for Surge.",
)
@click.option("--games", type=int, default=20, show_default=True, help="Games to play (the seats alternate).")
@click.option("--concurrency", type=int, default=1, show_default=True, help="Games played at the same time.")
@click.option(
    "--records",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for records [records/match-TIME].",
)
@_bot_start_options
@click.option(
    "--sprt",
    type=(float, float),
    default=None,
    metavar="ELO0 ELO1",
    help="Sequential test: play pairs until H1 (A is ELO1 better) or H0 (ELO0) is accepted, at most --games.",
)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT: false positive rate.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT: false negative rate.")
@_policy_options
def match_command(
    bot_a: str,
    bot_b: str,
    game: str,
    size: int | None,
    games: int,
    concurrency: int,
    records: str | None,
    seed: int | None,
    connect_timeout: float,
    sprt: tuple[float, float] | None,
    alpha: float,
    beta: float,
    base: float,
    increment: float,
    per_decision: float | None,
    on_timeout: str,
    on_illegal: str,
) -> None:
    """Play GAMES games between BOT_A and BOT_B through a real local arbiter, alternating seats.

    With --sprt ELO0 ELO1 the games are played in pairs (seats swapped, one seed per pair) until
    the sequential test is decided: exit status 0 when H1 is accepted (BOT_A is better), 1 for H0,
    2 when --games (with --sprt 1000 unless given) came first (3 when the run fails).

    A bot is a built-in name (random, greedy, mcts, ismcts, greedy_flank, surge_tips, mcts_flank,
    ismcts_surge; see docs/bots.md) or a shell command that starts an SDK bot; the command finds
    the arbiter's address and its token in the environment (ARBITER_SERVER, ARBITER_TOKEN; also
    ARBITER_GAME, ARBITER_SIZE, ARBITER_GAMES). Example:

      arbiter match greedy "python -m arbiter_bot.examples.random_bot" --game torrent --size 7 --games 20
    """
    import asyncio
    from datetime import datetime
    from pathlib import Path

    from arbiter_games.policy import MatchPolicy

    from .logging_setup import configure_logging
    from .runner.local_match import LocalRunner, RunnerConfig, RunnerError
    from .runner.report import Reporter

    if sprt is not None and click.get_current_context().get_parameter_source("games") is DEFAULT:
        games = SPRT_GAMES
    if games < 1:
        fail(f"--games must be at least 1, got {games}", 2)
    if sprt is not None and games < 2:
        fail(f"--games must be at least 2 (one pair) with --sprt, got {games}", 2)
    _check_run_options(concurrency, connect_timeout)
    _check_bots([bot_a, bot_b], game)
    options = _game_options(game, size)
    folder = Path(records) if records else Path("records") / datetime.now().strftime("match-%Y%m%d-%H%M%S")
    config = RunnerConfig(
        bot_a=bot_a,
        bot_b=bot_b,
        game=game,
        options=options,
        games=games,
        control=_time_control(base, increment, per_decision),
        policy=MatchPolicy(on_timeout=on_timeout, on_illegal=on_illegal),
        records_dir=folder,
        concurrency=concurrency,
        seed=seed,
        connect_timeout=connect_timeout,
    )
    configure_logging("error")
    if sprt is not None:
        config.games -= config.games % 2  # whole pairs
        config.paired_seeds = True
        sys.exit(_run_sprt(config, sprt, alpha, beta))
    reporter = Reporter(config)
    runner = LocalRunner(config, on_game=reporter.game_finished)
    try:
        with reporter:
            result = asyncio.run(runner.run())
    except RunnerError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    reporter.summary(result, runner.names)


#: The most games of an SPRT run when --games is not given.
SPRT_GAMES = 1000
DEFAULT = click.core.ParameterSource.DEFAULT


def _check_run_options(concurrency: int, connect_timeout: float) -> None:
    if concurrency < 1:
        fail(f"--concurrency must be at least 1, got {concurrency}", 2)
    if not connect_timeout > 0:
        fail(f"--connect-timeout must be more than 0 seconds, got {connect_timeout:g}", 2)


def _check_bots(bots: list[str], game: str) -> None:
    """Each bot can play ``game``, before anything starts (one error line, status 2)."""
    from .runner.local_match import bot_problem

    for spec in bots:
        problem = bot_problem(spec, game)
        if problem is not None:
            fail(problem, 2)


def _game_options(game: str, size: int | None) -> dict[str, int]:
    """The game's options from --size (a one-line error, status 2, for a size it does not offer)."""
    from arbiter_games import get_game

    options: dict[str, int] = {}
    if size is not None:
        size_option = next((o for o in get_game(game).options if o.name == "size"), None)
        if size_option is None:
            fail(f"--size: {game} has no board size", 2)
        if size not in size_option.choices:
            sizes = ", ".join(map(str, size_option.choices))
            fail(f"--size: {game} is played on sizes {sizes}, not {size}", 2)
        options["size"] = size
    return options


def _run_sprt(config: RunnerConfig, elos: tuple[float, float], alpha: float, beta: float) -> int:
    """Play SPRT pairs; the exit status: 0 H1 accepted, 1 H0 accepted, 2 inconclusive, 3 an error."""
    import asyncio

    from .runner.local_match import LocalRunner, RunnerError
    from .runner.report import SprtReporter
    from .runner.sprt import Sprt, Verdict

    try:
        test = Sprt(elos[0], elos[1], alpha, beta)
    except ValueError as exc:
        fail(f"--sprt: {exc}", 2)
    runner = LocalRunner(config)
    reporter = SprtReporter(test, runner)
    runner.on_game = reporter.game_finished
    click.echo(
        f"SPRT [{elos[0]:g}, {elos[1]:g}] alpha {alpha:g} beta {beta:g}: bounds "
        f"{test.bounds.lower:+.2f} .. {test.bounds.upper:+.2f}, at most {config.games // 2} pairs"
    )
    try:
        result = asyncio.run(runner.run())
    except RunnerError as exc:
        fail(str(exc), 3)  # not 1: that says H0
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    reporter.summary(result, runner.names)
    return {Verdict.H1: 0, Verdict.H0: 1, Verdict.CONTINUE: 2}[reporter.verdict]


@main.command()
@click.argument("bots", nargs=-1, required=True)
@click.option(
    "--format",
    "form",
    type=click.Choice(["round-robin", "gauntlet"]),
    default="round-robin",
    show_default=True,
    help="Every pair plays (round-robin), or the first bot plays each other.",
)
@click.option(
    "--game",
    type=click.Choice(["torrent", "fravan", "surge"]),
    default="torrent",
    show_default=True,
    help="The game played.",
)
@click.option("--size", type=int, default=None, help="Board size for Torrent (5-9) or Fravan (5, 7).")
@click.option("--games", type=int, default=10, show_default=True, help="Games per pairing.")
@click.option("--concurrency", type=int, default=1, show_default=True, help="Games played at the same time.")
@click.option(
    "--records",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for records [records/tournament-TIME].",
)
@_bot_start_options
@click.option("--json", "as_json", is_flag=True, help="The result as JSON on stdout (progress on stderr).")
@_policy_options
def tournament(
    bots: tuple[str, ...],
    form: str,
    game: str,
    size: int | None,
    games: int,
    concurrency: int,
    records: str | None,
    seed: int | None,
    connect_timeout: float,
    as_json: bool,
    base: float,
    increment: float,
    per_decision: float | None,
    on_timeout: str,
    on_illegal: str,
) -> None:
    """Play a tournament between BOTS (built-in names or commands, as for `arbiter match`).

    Every pairing plays GAMES games with alternating seats through a local arbiter; at the end a
    crosstable (points of the row against the column) and ratings (the whole-history Bradley-Terry
    fit the ladder uses). Example:

      arbiter tournament greedy random "python -m my_bot" --format round-robin --games 20
    """
    import asyncio
    import json
    from datetime import datetime
    from pathlib import Path

    from arbiter_games.policy import MatchPolicy
    from rich.console import Console

    from .logging_setup import configure_logging
    from .runner.local_match import RunnerConfig, RunnerError
    from .runner.report import TournamentReporter
    from .runner.tournament import Tournament

    if len(bots) < 2:
        fail(f"a tournament needs at least two bots, got {len(bots)}", 2)
    if games < 1:
        fail(f"--games must be at least 1, got {games}", 2)
    _check_run_options(concurrency, connect_timeout)
    _check_bots(list(bots), game)
    folder = (
        Path(records) if records else Path("records") / datetime.now().strftime("tournament-%Y%m%d-%H%M%S")
    )
    config = RunnerConfig(
        bot_a="",
        bot_b="",
        game=game,
        options=_game_options(game, size),
        games=games,
        control=_time_control(base, increment, per_decision),
        policy=MatchPolicy(on_timeout=on_timeout, on_illegal=on_illegal),
        records_dir=folder,
        concurrency=concurrency,
        seed=seed,
        connect_timeout=connect_timeout,
    )
    configure_logging("error")
    event = Tournament(list(bots), form, config)
    reporter = TournamentReporter(event, Console(stderr=True) if as_json else None)
    event.on_game, event.on_pairing = reporter.game_finished, reporter.pairing_started
    try:
        with reporter:
            table = asyncio.run(event.run())
    except RunnerError as exc:
        fail(str(exc), 1)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps({"game": game, "options": config.options, "format": form, **table.as_json()}))
    else:
        reporter.summary(table)


@main.command()
@click.argument("name")
def token(name: str) -> None:
    """Make a new token for bot NAME: give the token to the bot, the hash line to the arbiter.

    NAME is 1 to 64 printable characters without spaces or '=', not starting with '#'.
    """
    from .sessions.auth import TokenError, check_bot_name, hash_token, new_token

    try:
        check_bot_name(name)
    except TokenError as exc:
        fail(str(exc), 2)

    secret = new_token()
    click.echo(f"token for the bot:        {secret}")
    click.echo(f"line for --tokens-file:   {name}={hash_token(secret)}")


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--quiet", is_flag=True, help="Only check; print no boards.")
def replay(files: tuple[str, ...], quiet: bool) -> None:
    """Replay match records through the engine, check them, and print the boards.

    FILES are record files or folders (each folder's *.json records). One file: its boards (unless
    --quiet), result and check. Several: one line per record, then how many were ok. Exit status:
    0 when every record checked out, 1 when one disagrees with the engine, 2 when one cannot be
    read or is no complete record.
    """
    paths: list[Path] = []
    for name in files:
        path = Path(name)
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                fail(f"{name}: no *.json record in this folder", 2)
            paths.extend(found)
        else:
            paths.append(path)
    if len(paths) == 1:
        sys.exit(_replay_one(paths[0], quiet))
    statuses = [_replay_one(path, quiet=True, brief=True) for path in paths]
    bad = sum(1 for status in statuses if status)
    say(f"{len(statuses) - bad} of {len(statuses)} records ok" + (f", {bad} failed" if bad else ""))
    sys.exit(max(statuses))


def _replay_one(path: Path, quiet: bool, brief: bool = False) -> int:
    """Replay one record; its exit status. ``brief``: one line for it (several files)."""
    from .match.replay import RecordError, load_record
    from .match.replay import replay as run_replay

    try:
        record = load_record(path)
        report = run_replay(record)
    except RecordError as exc:
        message = str(exc) if str(exc).startswith(str(path)) else f"{path}: {exc}"
        if not brief:
            fail(message, 2)
        say(f"error: {message}")
        return 2
    if brief:
        problems = f"{len(report.problems)} problem(s): {report.problems[0]}" if report.problems else "ok"
        say(f"{path}: {report.game}, {len(report.actions)} actions: {problems}")
        return 0 if report.ok else 1
    one, two = report.seats
    say(f"{report.rules.title}{_options_text(record.get('options'))}: seat 1 {one} vs seat 2 {two}")
    if not quiet:
        for number, (text, state) in enumerate(zip(report.actions, report.states[1:], strict=True), 1):
            say(f"\n{number}. {text}")
            say(report.rules.render_text(state))
    say(f"\nresult: {_result_text(record['result'], {1: one, 2: two})}")
    for problem in report.problems:
        say(f"problem: {problem}")
    say("record checked: ok" if report.ok else f"record checked: {len(report.problems)} problem(s)")
    return 0 if report.ok else 1


def _options_text(options: object) -> str:
    """`` (size 5)``: a record's game options as words ("" for none)."""
    if not isinstance(options, dict) or not options:
        return ""
    return " (" + ", ".join(f"{key} {value}" for key, value in options.items()) + ")"


def _result_text(result: dict[str, Any], bots: dict[int, str]) -> str:
    """``two_passes: seat 1 (alice) won 49-11``: a record's result in words."""
    scores = result.get("scores") if isinstance(result.get("scores"), dict) else {}
    assert isinstance(scores, dict)
    points = {seat: scores.get(str(seat), scores.get(seat, 0)) for seat in (1, 2)}
    winner = result.get("winner_seat")
    if winner in (1, 2):
        loser = 3 - winner
        told = f"seat {winner} ({bots[winner]}) won {points[winner]}-{points[loser]}"
    else:
        told = f"no winner, {points[1]}-{points[2]}"
    return f"{result.get('reason')}: {told}"


def _register_store_commands() -> None:
    from . import cli_accounts, cli_events, cli_ladder, cli_web

    cli_ladder.register(main)
    cli_accounts.register(main)
    cli_events.register(main)
    cli_web.register(main)


_register_store_commands()

if __name__ == "__main__":
    main()
