"""The ``arbiter`` command."""

from __future__ import annotations

import sys
import time

import click

from . import __version__


@click.group()
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
@click.option("--game", type=click.Choice(["torrent", "fravan", "surge"]), default="torrent", show_default=True)
@click.option("--size", type=int, default=None, help="Board size (Torrent 5-9, Fravan 5 or 7).")
@click.option("--delay", type=float, default=0.15, show_default=True, help="Seconds between moves.")
@click.option("--seed", type=int, default=None, help="Seed for the bots and Surge's draw orders.")
@click.option("--bot1", default="greedy", show_default=True, help="Built-in bot for seat 1 (random, greedy).")
@click.option("--bot2", default="random", show_default=True, help="Built-in bot for seat 2 (random, greedy).")
def demo(game: str, size: int | None, delay: float, seed: int | None, bot1: str, bot2: str) -> None:
    """Watch a game between two built-in bots, rendered in the terminal."""
    from .builtin_bots import make_bot
    from .engines import get_rules
    from .render import render

    rules = get_rules(game)
    options = {"size": size} if size is not None and game != "surge" else {}
    seed_bytes = None if seed is None else seed.to_bytes(32, "big")
    state = rules.new_game(options, seed_bytes)
    bots = {1: make_bot(bot1, rules, seed), 2: make_bot(bot2, rules, None if seed is None else seed + 1)}
    colour = sys.stdout.isatty()
    while rules.outcome(state) is None:
        seat = rules.to_move(state)
        action = bots[seat].choose(rules.observe(state, seat), rules.legal_actions(state))
        state = rules.apply(state, action)
        click.echo(f"\nseat {seat} ({bot1 if seat == 1 else bot2}) plays {rules.format_action(action)}")
        click.echo(render(rules, state, colour=colour))
        if delay:
            time.sleep(delay)
    outcome = rules.outcome(state)
    assert outcome is not None
    if outcome.winner_seat is None:
        click.echo(f"\nDraw ({outcome.reason}); scores {dict(outcome.colour_scores)}")
    else:
        click.echo(
            f"\nSeat {outcome.winner_seat} ({outcome.winner_colour}) wins ({outcome.reason}); "
            f"scores {dict(outcome.colour_scores)}"
        )


if __name__ == "__main__":
    main()
