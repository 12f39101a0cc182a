"""Events played for real: SDK example bots enter over the protocol (``event=NAME``), the arbiter
pairs the rounds, plays the games and keeps the results; the bots stop once the event is over.

A round robin of 4 and a Swiss of 7 (a bye each round) are played to their end on SQLite and
PostgreSQL. What the bots are told at the end (place and points, from the host's standings) must
equal ``arbiter events show --json`` computed from the stored results, and each stored result must
be the finished match it names.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from arbiter.events.model import EventStatus, Format
from arbiter_bot.client import Session
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_wire.v1 import bot_service_pb2 as pb

from tests.eventhost.lab import event_lab, prepare, shown, start, status_becomes, torrent_event
from tests.ladder.harness import Lab, eventually

SPEC = ("torrent", {"size": 5})


def sessions(lab: Lab, bots: list[str], event: str) -> dict[str, Session]:
    return {
        name: Session(RandomBot(seed), lab.address, lab.tokens[name], SPEC, event=event)
        for seed, name in enumerate(bots)
    }


async def play_event(store_url: str, form: Format, bots: list[str], **changes: Any) -> tuple[dict, dict]:
    """Every bot enters by itself; once all are in, the host starts the event; the bots play it
    to its end. The event's report, and what each bot was told at the end."""
    tokens = prepare(store_url, bots, [torrent_event("cup", form, **changes)])
    async with event_lab(store_url, tokens) as lab:
        players = sessions(lab, bots, "cup")
        tasks = [asyncio.create_task(session.run()) for session in players.values()]
        await eventually(lambda: len(lab.store.entrants("cup")) == len(bots), timeout=30)
        start(store_url, "cup")
        await asyncio.wait_for(asyncio.gather(*tasks), 120)
        await status_becomes(lab.store, "cup", EventStatus.FINISHED)
        report = shown(store_url, "cup")
        _check_results_are_the_matches(lab, report)
        told = {}
        for name, session in players.items():
            assert session.event is not None and session.event.entered is not None
            told[name] = session.event.ended
        return report, told


def _check_results_are_the_matches(lab: Lab, report: dict) -> None:
    ended = {event.facts.match_id: event for event in lab.watch.ended}
    stored = {row.match_id: row for row in lab.store.matches(limit=10_000)}
    for made in report["rounds"]:
        for pairing in made["pairings"]:
            assert len(pairing["games"]) == 1
    history = lab.store.event_history("cup")
    with lab.store.transaction() as session:
        from arbiter.store.schema import EventResult

        rows = list(session.query(EventResult).filter(EventResult.event == "cup"))
    assert len(rows) == sum(len(r.pairings) for r in history.rounds)
    for row in rows:
        assert row.kind == "played" and row.match_id in ended
        match = stored[row.match_id]
        assert match.status == "finished"
        assert (match.seat_1.bot, match.seat_2.bot) == (row.seat_1, row.seat_2)
        assert match.winner_seat == row.winner_seat
        assert ended[row.match_id].facts.event is not None


def _check_told(report: dict, told: dict[str, pb.EventEnded]) -> None:
    for standing in report["standings"]:
        ended = told[standing["bot"]]
        assert ended.status == pb.EVENT_STATUS_FINISHED
        assert (ended.place, ended.points) == (standing["place"], standing["score"])
        assert ended.entrants == len(report["entrants"])


def test_a_round_robin_of_four_is_played_to_its_end(store_url):
    bots = ["ann", "ben", "cat", "dan"]
    report, told = asyncio.run(play_event(store_url, Format.ROUND_ROBIN, bots))
    assert report["status"] == "finished" and len(report["rounds"]) == 3
    pairs = [frozenset((p["seat_1"], p["seat_2"])) for r in report["rounds"] for p in r["pairings"]]
    assert sorted(pairs, key=sorted) == sorted(
        {frozenset((a, b)) for a in bots for b in bots if a < b}, key=sorted
    )
    # Seeds are the entry order; the Berger table of 4 from them.
    seeds = [entry["bot"] for entry in sorted(report["entrants"], key=lambda e: e["seed"])]
    first = report["rounds"][0]["pairings"]
    assert [(p["seat_1"], p["seat_2"]) for p in first] == [(seeds[0], seeds[3]), (seeds[1], seeds[2])]
    assert sum(s["score"] for s in report["standings"]) == 6
    _check_told(report, told)


def test_a_swiss_of_seven_has_a_bye_each_round(store_url):
    bots = ["b1", "b2", "b3", "b4", "b5", "b6", "b7"]
    report, told = asyncio.run(play_event(store_url, Format.SWISS, bots))
    assert report["status"] == "finished" and len(report["rounds"]) == 3  # ceil(log2 7)
    byes = [bot for made in report["rounds"] for bot in made["byes"]]
    assert len(byes) == 3 and len(set(byes)) == 3
    pairs = Counter(frozenset((p["seat_1"], p["seat_2"])) for r in report["rounds"] for p in r["pairings"])
    assert len(pairs) == 9 and max(pairs.values()) == 1  # no pair met twice
    for made in report["rounds"]:
        seated = [bot for p in made["pairings"] for bot in (p["seat_1"], p["seat_2"])] + made["byes"]
        assert sorted(seated) == bots
    # A bye is worth a won pairing: 3 byes + 9 games.
    assert sum(s["score"] for s in report["standings"]) == 12
    _check_told(report, told)
