"""Absence in events: bots that never come forfeit after the grace, withdrawals forfeit the rest,
and an arbiter stopped mid-round and started again on the same store goes on with the same
pairings and loses no finished game. The host enters the bots (so the seeds, hence the pairings,
are known); who is absent is decided by the test, never by timing."""

from __future__ import annotations

import asyncio
import contextlib

from arbiter.events.model import EventStatus, Format
from arbiter_bot.client import Backoff, Session
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_wire import convert
from arbiter_wire.reasons import reason_of
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb

from tests.eventhost.lab import (
    cli,
    enter,
    event_lab,
    prepare,
    shown,
    start,
    status_becomes,
    torrent_event,
)
from tests.ladder.harness import eventually

SPEC = ("torrent", {"size": 5})
BOTS = ["ann", "ben", "cat", "dan"]


def games_of(report: dict) -> dict[frozenset[str], dict]:
    """Each pairing's one game by its two bots."""
    found = {}
    for made in report["rounds"]:
        for pairing in made["pairings"]:
            (game,) = pairing["games"]
            found[frozenset((pairing["seat_1"], pairing["seat_2"]))] = game
    return found


def winner(game: dict) -> str | None:
    return None if game["winner_seat"] is None else game[f"seat_{game['winner_seat']}"]


def test_bots_that_never_come_forfeit_after_the_grace(store_url):
    tokens = prepare(store_url, BOTS, [torrent_event("cup", Format.ROUND_ROBIN)])
    enter(store_url, "cup", BOTS)

    async def scenario() -> dict:
        async with event_lab(store_url, tokens, grace=0.2) as lab:
            # cat and dan never connect.
            present = [
                Session(RandomBot(i), lab.address, tokens[name], SPEC, event="cup")
                for i, name in enumerate(["ann", "ben"])
            ]
            tasks = [asyncio.create_task(session.run()) for session in present]
            await eventually(lambda: all(s.event and s.event.entered for s in present), timeout=30)
            start(store_url, "cup")
            await asyncio.wait_for(asyncio.gather(*tasks), 60)
            await status_becomes(lab.store, "cup", EventStatus.FINISHED)
            return shown(store_url, "cup")

    report = asyncio.run(scenario())
    games = games_of(report)
    assert games[frozenset(("ann", "ben"))]["kind"] == "played"
    for here in ("ann", "ben"):
        for away in ("cat", "dan"):
            game = games[frozenset((here, away))]
            assert game["kind"] == "no_show" and winner(game) == here
    both_away = games[frozenset(("cat", "dan"))]
    assert both_away["kind"] == "double_no_show" and both_away["winner_seat"] is None
    points = {row["bot"]: row["score"] for row in report["standings"]}
    assert points["cat"] == points["dan"] == 0
    assert points["ann"] + points["ben"] == 5  # 2 no-shows each and their game


async def answering_until(bot, kind: str):
    """Read ``bot``'s messages until one of ``kind`` (its payload), answering its turns meanwhile."""
    while True:
        message = await bot.next(timeout=30)
        got = message.WhichOneof("kind")
        if got == kind:
            return getattr(message, kind)
        if got == "turn":
            legal = convert.legal_from_pb(message.turn.legal)
            await bot.move(message.turn.match_id, message.turn.turn_id, legal[0])


def test_a_bot_that_withdraws_forfeits_the_games_it_had_not_started(store_url):
    tokens = prepare(store_url, BOTS, [torrent_event("cup", Format.ROUND_ROBIN)])
    enter(store_url, "cup", BOTS)  # round 1: ann - dan, ben - cat

    async def scenario() -> tuple[dict, list]:
        async with event_lab(store_url, tokens) as lab:
            others = [
                Session(RandomBot(i), lab.address, tokens[name], SPEC, event="cup")
                for i, name in enumerate(["ann", "ben", "cat"])
            ]
            tasks = [asyncio.create_task(session.run()) for session in others]
            dan = await lab.connect("dan")
            await dan.send(enter_event=pb.EnterEvent(event="cup"))
            assert (await dan.expect("event_entered")).seed == 4
            await eventually(lambda: all(s.event and s.event.entered for s in others), timeout=30)
            start(store_url, "cup")
            # dan's round-1 game starts; dan withdraws in it, then plays it to its end.
            started = await dan.expect("match_started", timeout=30)
            await dan.send(withdraw_event=pb.WithdrawEvent(event="cup"))
            withdrawn = await answering_until(dan, "event_withdrawn")
            assert withdrawn.event == "cup" and not withdrawn.removed
            (ended,) = await dan.play(1, timeout=30, known=[started.match_id])
            await asyncio.wait_for(asyncio.gather(*tasks), 60)
            await status_becomes(lab.store, "cup", EventStatus.FINISHED)
            # Withdrawn: entering again is refused.
            await dan.send(enter_event=pb.EnterEvent(event="cup"))
            refused = await dan.expect("event_rejected", skip=("turn", "match_ended", "event_ended"))
            return shown(store_url, "cup"), [ended, reason_of(refused.status)]

    report, (ended, reason) = asyncio.run(scenario())
    assert reason == "EVENT_CLOSED"
    games = games_of(report)
    first = games[frozenset(("ann", "dan"))]
    assert first["kind"] == "played"  # the game it was playing went on
    for other in ("ben", "cat"):
        game = games[frozenset((other, "dan"))]
        assert game["kind"] == "no_show" and winner(game) == other
    dan = next(row for row in report["standings"] if row["bot"] == "dan")
    assert dan["withdrawn"] and dan["games"] == 3
    assert next(e for e in report["entrants"] if e["bot"] == "dan")["withdrawn"]
    assert ended.match_id  # its result reached it


def test_the_host_withdrawing_a_bot_with_the_cli_forfeits_its_games(store_url):
    tokens = prepare(store_url, BOTS, [torrent_event("cup", Format.ROUND_ROBIN)])
    enter(store_url, "cup", BOTS)

    async def scenario() -> dict:
        async with event_lab(store_url, tokens) as lab:  # a grace of 60 s: dan is waited for
            others = [
                Session(RandomBot(i), lab.address, tokens[name], SPEC, event="cup")
                for i, name in enumerate(["ann", "ben", "cat"])
            ]
            tasks = [asyncio.create_task(session.run()) for session in others]
            await eventually(lambda: all(s.event and s.event.entered for s in others), timeout=30)
            start(store_url, "cup")
            await eventually(lambda: lab.store.event_history("cup").rounds, timeout=30)
            cli(store_url, "events", "entrants", "cup", "--remove", "dan")
            await asyncio.wait_for(asyncio.gather(*tasks), 60)
            await status_becomes(lab.store, "cup", EventStatus.FINISHED)
            return shown(store_url, "cup")

    report = asyncio.run(scenario())
    games = games_of(report)
    for other in ("ann", "ben", "cat"):
        game = games[frozenset((other, "dan"))]
        assert game["kind"] == "no_show" and winner(game) == other


def test_an_arbiter_stopped_mid_round_goes_on_with_the_same_pairings(store_url):
    tokens = prepare(store_url, BOTS, [torrent_event("cup", Format.ROUND_ROBIN)])
    enter(store_url, "cup", BOTS)  # round 1: ann - dan (board 1), ben - cat (board 2)

    async def scenario() -> tuple[dict, dict, set[str]]:
        backoff = Backoff(initial=0.05, maximum=0.2)
        async with event_lab(store_url, tokens) as lab:
            port = lab.server.port
            quick = {
                name: Session(RandomBot(i), lab.address, tokens[name], SPEC, event="cup", backoff=backoff)
                for i, name in enumerate(["ann", "dan"])
            }
            tasks = [asyncio.create_task(session.run()) for session in quick.values()]
            # ben and cat enter and never answer: board 2 stays in play.
            stuck = [await lab.connect(name) for name in ("ben", "cat")]
            for bot in stuck:
                await bot.send(enter_event=pb.EnterEvent(event="cup"))
                await bot.expect("event_entered")
            await eventually(lambda: all(s.event and s.event.entered for s in quick.values()), timeout=30)
            start(store_url, "cup")
            await eventually(lambda: lab.store.event_history("cup").games_of(1, 1), timeout=30)
            for bot in stuck:
                await bot.expect("match_started", timeout=30)
            before = shown(store_url, "cup")
            first_ids = {event.facts.match_id for event in lab.watch.ended}
            await lab.stop(0.1)  # board 2's match is aborted: no result
        async with event_lab(store_url, tokens, port=port) as again:
            late = [
                Session(RandomBot(7 + i), again.address, tokens[name], SPEC, event="cup")
                for i, name in enumerate(["ben", "cat"])
            ]
            tasks += [asyncio.create_task(session.run()) for session in late]
            await asyncio.wait_for(asyncio.gather(*tasks), 90)
            await status_becomes(again.store, "cup", EventStatus.FINISHED)
            return before, shown(store_url, "cup"), first_ids

    before, after, first_ids = asyncio.run(scenario())
    assert len(before["rounds"]) == 1
    (board_1, board_2) = before["rounds"][0]["pairings"]
    assert (board_1["seat_1"], board_1["seat_2"], board_2["seat_1"], board_2["seat_2"]) == (
        "ann",
        "dan",
        "ben",
        "cat",
    )
    assert len(board_1["games"]) == 1 and not board_2["games"]
    # The same round 1, its finished game kept as it was, and board 2 played again.
    assert after["rounds"][0]["pairings"][0] == board_1
    assert after["rounds"][0]["pairings"][1]["games"][0]["kind"] == "played"
    assert after["status"] == "finished" and len(after["rounds"]) == 3
    assert all(len(p["games"]) == 1 for r in after["rounds"] for p in r["pairings"])
    assert first_ids  # board 1's match ended before the stop


def test_entering_is_refused_with_a_reason(store_url):
    events = [
        torrent_event("open", Format.ROUND_ROBIN, max_entrants=2),
        torrent_event("invited", Format.SWISS, invite_only=True),
        torrent_event("going", Format.ROUND_ROBIN),
    ]
    tokens = prepare(store_url, ["ann", "ben", "cat"], events)

    async def scenario() -> list:
        async with event_lab(store_url, tokens) as lab:
            ann, ben, cat = [await lab.connect(name) for name in ("ann", "ben", "cat")]

            async def ask(bot, **request) -> str:
                await bot.send(**request)
                while True:
                    message = await bot.next()
                    kind = message.WhichOneof("kind")
                    if kind == "event_rejected":
                        return reason_of(message.event_rejected.status) or ""
                    if kind in ("event_entered", "event_withdrawn", "event_ended"):
                        return kind

            flank_7 = pb.EnterEvent(event="open")
            flank_7.spec.game = cpb.GAME_TORRENT  # size 7: not this event's game
            flank_7.spec.flank.size = 7
            answers = [
                await ask(ann, enter_event=pb.EnterEvent(event="nowhere")),
                await ask(ann, enter_event=flank_7),
                await ask(ann, enter_event=pb.EnterEvent(event="open")),
                await ask(ann, enter_event=pb.EnterEvent(event="open")),  # again: the same entry
                await ask(ben, enter_event=pb.EnterEvent(event="open")),
                await ask(cat, enter_event=pb.EnterEvent(event="open")),
                await ask(cat, enter_event=pb.EnterEvent(event="invited")),
                await ask(cat, withdraw_event=pb.WithdrawEvent(event="open")),
                await ask(ben, withdraw_event=pb.WithdrawEvent(event="open")),
            ]
            start(store_url, "going")
            answers.append(await ask(cat, enter_event=pb.EnterEvent(event="going")))
            return answers

    answers = asyncio.run(scenario())
    assert answers == [
        "EVENT_NOT_FOUND",
        "GAME_NOT_ACCEPTED",
        "event_entered",
        "event_entered",
        "event_entered",
        "EVENT_FULL",
        "INVITE_ONLY",
        "BAD_REQUEST",  # cat is not entered in it
        "event_withdrawn",
        "EVENT_CLOSED",  # started: no new entry
    ]


def test_an_example_bot_enters_with_the_event_option(store_url, monkeypatch):
    """The example bots' command line: --event NAME (or ARBITER_EVENT) enters it and stops once it
    is over, logging the entry and the end."""
    from arbiter_bot.cli import parse_options

    options = parse_options(["--token", "t", "--event", "cup"], env={})
    assert options.event == "cup" and options.ladder is None
    assert parse_options(["--token", "t"], env={"ARBITER_EVENT": "spring"}).event == "spring"
    with contextlib.suppress(SystemExit):
        parse_options(["--token", "t", "--event", "cup", "--ladder", "l"], env={})
        raise AssertionError("--event with --ladder must be refused")
