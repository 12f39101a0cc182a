"""The time to pair a Swiss round: 256 entrants over 9 rounds of random results.

    python bench/events.py [--entrants 256] [--rounds 9] [--seed 1] [--draws 0.2]

Pairs each round with the event code the hosting uses (``arbiter.events.formats.next_round``),
then draws a random result for every pairing (a draw with probability ``--draws``, else either
seat wins), and prints each round's pairing time, the slowest and the median, against the
target (under 1 s a round for 256 entrants), and what the pairings kept: rematches, second byes,
seats past one either way, and the pairs with unequal scores.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / d) for d in ("server", "clients/python")]

from arbiter.events.formats import next_round  # noqa: E402
from arbiter.events.model import EventConfig, Format, Game, History, Round  # noqa: E402
from arbiter.events.tally import tally  # noqa: E402
from arbiter_games.timecontrol import TimeControl  # noqa: E402

TARGET_SECONDS = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--draws", type=float, default=0.2)
    args = parser.parse_args()
    config = EventConfig(
        name="bench", game="torrent", options={}, control=TimeControl(base=10.0), format=Format.SWISS,
        rounds=args.rounds,
    )  # fmt: skip
    entrants = [f"bot-{index:03d}" for index in range(1, args.entrants + 1)]
    chance = random.Random(args.seed)
    history = History()
    times: list[float] = []
    print(f"Swiss pairing: {args.entrants} entrants, {args.rounds} rounds, random results (seed {args.seed})")
    while True:
        started = time.perf_counter()
        made = next_round(config, entrants, history)
        elapsed = time.perf_counter() - started
        if not isinstance(made, Round):
            break
        times.append(elapsed)
        games = dict(history.games)
        for table, pairing in enumerate(made.pairings, start=1):
            roll = chance.random()
            winner = None if roll < args.draws else 1 if roll < (1 + args.draws) / 2 else 2
            games[(made.number, table)] = (Game(pairing.seat_1, pairing.seat_2, winner),)
        unequal = _unequal(entrants, history, made)
        history = History((*history.rounds, made), games)
        print(
            f"  round {made.number}: paired in {elapsed:.3f} s ({len(made.pairings)} pairings,"
            f" {len(made.byes)} bye, {unequal} pairs with unequal scores)"
        )
    _report(entrants, history, times)


def _unequal(entrants: list[str], history: History, made: Round) -> int:
    accounts = tally(entrants, history, 1.0)
    return sum(accounts[p.seat_1].score != accounts[p.seat_2].score for p in made.pairings)


def _report(entrants: list[str], history: History, times: list[float]) -> None:
    accounts = tally(entrants, history, 1.0)
    met = [frozenset(pairing.bots) for _, _, pairing in history.pairings()]
    rematches = len(met) - len(set(met))
    second_byes = sum(max(0, account.byes - 1) for account in accounts.values())
    off_seats = sum(abs(account.seat_balance) > 1 for account in accounts.values())
    slowest = max(times)
    print(f"pairing time per round: median {statistics.median(times):.3f} s, slowest {slowest:.3f} s")
    print(f"target under {TARGET_SECONDS:.0f} s a round: {'met' if slowest < TARGET_SECONDS else 'NOT met'}")
    print(
        f"rematches {rematches}, second byes {second_byes}, bots with seats past one either way {off_seats}"
    )


if __name__ == "__main__":
    main()
