"""What ``arbiter events show`` prints: an event's report (JSON) and the same as text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from arbiter_games import get_game

from .cli_events import utc_time
from .events.formats import total_rounds
from .events.model import History, points_between
from .events.standings import TIE_BREAKS, crosstable, standings
from .store.events import EntryRow, EventRow


def event_report(row: EventRow, entries: Sequence[EntryRow], history: History) -> dict[str, Any]:
    """The event, its entrants, rounds (pairings, each game's result), standings and crosstable,
    computed from what the store keeps."""
    config = row.config
    entrants = [entry.bot for entry in entries]
    withdrawn = {entry.bot for entry in entries if entry.withdrawn_at is not None}
    rounds = []
    for made in history.rounds:
        pairings = []
        for board, pairing in enumerate(made.pairings, start=1):
            games = history.games_of(made.number, board)
            pairings.append(
                {
                    "board": board,
                    "seat_1": pairing.seat_1,
                    "seat_2": pairing.seat_2,
                    "points": [points_between(games, pairing.seat_1), points_between(games, pairing.seat_2)]
                    if games
                    else None,
                    "games": [
                        {
                            "seat_1": g.seat_1,
                            "seat_2": g.seat_2,
                            "winner_seat": g.winner,
                            "kind": g.kind.value,
                        }
                        for g in games
                    ],
                }
            )
        rounds.append({"number": made.number, "pairings": pairings, "byes": list(made.byes)})
    return {
        "name": config.name,
        "status": row.status.value,
        "format": config.format.value,
        "game": config.game,
        "options": dict(config.options),
        "time_control": config.control.as_dict(),
        "rounds_planned": total_rounds(config, len(entrants)),
        "games_per_pairing": config.games_per_pairing,
        "duplicate_pairs": config.duplicate_pairs,
        "starts_at": config.starts_at,
        "entry_closes_at": config.entry_closes_at,
        "max_entrants": config.max_entrants,
        "invite_only": config.invite_only,
        "rated": config.rated,
        "duration": config.duration,
        "tie_breaks": list(TIE_BREAKS[config.format]),
        "entrants": [
            {"bot": e.bot, "seed": e.seed, "withdrawn": e.withdrawn_at is not None} for e in entries
        ],
        "rounds": rounds,
        "standings": [asdict(s) for s in standings(config, entrants, history, withdrawn)],
        "crosstable": crosstable(entrants, history),
    }


def _points(value: float) -> str:
    """1, ½, 1½ ..."""
    whole, half = int(value), value - int(value) >= 0.5
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)


def event_text(report: dict[str, Any]) -> str:
    """The report as the terminal shows it."""
    lines = [_heading(report)]
    lines.append("entrants (seed order):" if report["entrants"] else "entrants: none yet")
    for entry in report["entrants"]:
        lines.append(f"  {entry['seed']:>3} {entry['bot']}{' (withdrawn)' if entry['withdrawn'] else ''}")
    for made in report["rounds"]:
        lines.append(f"round {made['number']}:")
        for pairing in made["pairings"]:
            points = pairing["points"]
            score = f"{_points(points[0])}-{_points(points[1])}" if points is not None else "to play"
            forfeits = sum(game["kind"] != "played" for game in pairing["games"])
            extra = f" ({forfeits} no-show)" if forfeits else ""
            lines.append(
                f"  board {pairing['board']}: {pairing['seat_1']} - {pairing['seat_2']}  {score}{extra}"
            )
        for bot in made["byes"]:
            lines.append(f"  bye: {bot}")
    if report["rounds"]:
        lines.extend(_standings(report))
        lines.extend(_crosstable(report))
    return "\n".join(lines)


def _heading(report: dict[str, Any]) -> str:
    game = get_game(report["game"]).describe(report["options"])
    control = report["time_control"]
    clock = f"{control['base'] or 0:g}s+{control['increment']:g}s"
    if control["per_decision"] is not None:
        clock += f", max {control['per_decision']:g}s per decision"
    facts = [report["format"], game, clock, f"{report['games_per_pairing']} game(s) a pairing"]
    if report["duplicate_pairs"]:
        facts.append("duplicate pairs")
    facts.append("rated" if report["rated"] else "unrated")
    status = [f"status {report['status']}"]
    if report["starts_at"] is not None:
        status.append(f"starts {utc_time(report['starts_at'])}")
    if report["entry_closes_at"] is not None:
        status.append(f"entries close {utc_time(report['entry_closes_at'])}")
    if report["duration"] is not None:
        status.append(f"window {report['duration']:g} s")
    planned = report["rounds_planned"]
    status.append(f"rounds {len(report['rounds'])} of {planned}" if planned is not None else "an arena")
    count = f"{len(report['entrants'])} entrant(s)"
    if report["max_entrants"] is not None:
        count += f" of at most {report['max_entrants']}"
    if report["invite_only"]:
        count += ", invite only"
    status.append(count)
    return f"event {report['name']}: {', '.join(facts)}\n{'; '.join(status)}"


def _standings(report: dict[str, Any]) -> list[str]:
    breaks = report["tie_breaks"]
    names = {"buchholz": "buchholz", "sonneborn_berger": "s-b", "direct": "direct", "wins": "wins"}
    header = f"  {'place':>5} {'bot':<20} {'points':>6}" + "".join(f" {names[b]:>8}" for b in breaks)
    lines = [
        "standings (tie-breaks: " + (", ".join(breaks) or "rounds won") + "):",
        header + "   w-d-l  byes",
    ]
    for row in report["standings"]:
        cells = "".join(f" {row[b]:>8g}" for b in breaks)
        mark = " (withdrawn)" if row["withdrawn"] else ""
        lines.append(
            f"  {row['place']:>5} {row['bot']:<20} {row['score']:>6g}{cells}"
            f"   {row['wins']}-{row['draws']}-{row['losses']}  {row['byes']:>4}{mark}"
        )
    return lines


def _crosstable(report: dict[str, Any]) -> list[str]:
    bots = [row["bot"] for row in report["standings"]]
    if len(bots) > 24:
        return ["crosstable: in --json (more than 24 entrants)"]
    width = max(4, *(len(str(index)) + 1 for index in range(1, len(bots) + 1)))
    lines = ["crosstable (points of the row's bot against the column's, by place order):"]
    lines.append(f"  {'':>3} {'':<20}" + "".join(f"{index:>{width}}" for index in range(1, len(bots) + 1)))
    table = report["crosstable"]
    for index, bot in enumerate(bots, start=1):
        cells = []
        for other in bots:
            scored = table.get(bot, {}).get(other)
            cells.append("x" if other == bot else "." if scored is None else _points(scored))
        lines.append(f"  {index:>3} {bot:<20}" + "".join(f"{cell:>{width}}" for cell in cells))
    return lines
