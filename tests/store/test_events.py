"""Events in the store (SQLite and PostgreSQL): an event's configuration back as it went in, its
entrants in seed order, rounds and results kept once, and its history giving the same standings."""

from __future__ import annotations

from dataclasses import replace

import pytest
from arbiter.events import swiss
from arbiter.events.model import EventStatus, Format, Game, History, Pairing, ResultKind, Round
from arbiter.events.standings import standings
from arbiter.store import SqlStore, StoreError

from tests.events.helpers import config, played

SIX = list("ABCDEF")


def _running(store: SqlStore, name: str = "cup", entrants=SIX, **changes) -> None:
    store.add_event(_config(name, **changes))
    for bot in entrants:
        if store.get_bot(bot) is None:
            store.add_bot(bot, owner="")
        store.add_entrant(name, bot)
    store.set_event_status(name, EventStatus.RUNNING)


def _config(name: str, **changes):
    return replace(config(changes.pop("form", Format.SWISS), **changes), name=name)


def test_an_event_comes_back_as_it_went_in(store):
    made = _config(
        "weekly",
        form=Format.KNOCKOUT,
        games_per_pairing=3,
        starts_at=1_900_000_000.0,
        entry_closes_at=1_899_999_000.0,
        max_entrants=16,
        invite_only=True,
        rated=False,
    )
    store.add_event(made)
    row = store.get_event("weekly")
    assert row is not None and row.config == made and row.status is EventStatus.SCHEDULED
    arena = _config("blitz", form=Format.ARENA, duration=120.0)
    store.add_event(arena)
    assert [event.config.name for event in store.list_events()] == ["blitz", "weekly"]
    assert store.get_event("nothing") is None
    with pytest.raises(StoreError, match="exists already"):
        store.add_event(made)
    with pytest.raises(StoreError, match="bad event name"):
        store.add_event(_config("has space"))


def test_status_moves(store):
    store.add_event(_config("cup"))
    assert store.set_event_status("cup", EventStatus.RUNNING) is EventStatus.SCHEDULED
    assert store.set_event_status("cup", EventStatus.CANCELLED) is EventStatus.RUNNING
    with pytest.raises(StoreError, match="is cancelled: it cannot become running"):
        store.set_event_status("cup", EventStatus.RUNNING)
    with pytest.raises(StoreError, match="no event named"):
        store.set_event_status("other", EventStatus.RUNNING)


def test_entrants_in_seed_order_a_full_event_and_withdrawals(store):
    store.add_event(_config("cup", max_entrants=3))
    for bot in ("zed", "amy", "bob", "cat"):
        store.add_bot(bot, owner="")
    for bot in ("zed", "amy", "bob"):
        store.add_entrant("cup", bot)
    with pytest.raises(StoreError, match="full"):
        store.add_entrant("cup", "cat")
    with pytest.raises(StoreError, match="entered in event 'cup' already"):
        store.add_entrant("cup", "amy")
    with pytest.raises(StoreError, match="no bot named"):
        store.add_entrant("cup", "ghost")
    assert store.remove_entrant("cup", "amy") is True  # before the start: the entry goes
    store.add_entrant("cup", "cat")
    assert [(e.bot, e.seed) for e in store.entrants("cup")] == [("zed", 1), ("bob", 3), ("cat", 4)]
    store.set_event_status("cup", EventStatus.RUNNING)
    with pytest.raises(StoreError, match="entries are closed"):
        store.add_entrant("cup", "amy")
    assert store.remove_entrant("cup", "bob") is False  # running: withdrawn, kept
    entries = {e.bot: e for e in store.entrants("cup")}
    assert entries["bob"].withdrawn_at is not None and entries["zed"].withdrawn_at is None
    with pytest.raises(StoreError, match="withdrawn"):
        store.remove_entrant("cup", "bob")


def test_rounds_and_results_are_kept_once_and_give_the_same_standings(store):
    _running(store)
    history = History()
    for winners in ((1, 2, None), (None, 1, 2), (2, 1, None)):
        made = swiss.next_round(SIX, history, 3)
        assert isinstance(made, Round)
        assert store.add_round("cup", made) is True
        assert store.add_round("cup", made) is False  # the same round again: nothing
        outcome = {p.bots: w for p, w in zip(made.pairings, winners, strict=True)}
        history = played(history, made, lambda a, b: outcome[(a, b)])  # noqa: B023 - called at once
        for board in range(1, len(made.pairings) + 1):
            (game,) = history.games_of(made.number, board)
            assert store.record_game("cup", made.number, board, 1, game) is True
            assert store.record_game("cup", made.number, board, 1, game) is False
    kept = store.event_history("cup")
    assert kept == history
    event = config(Format.SWISS, rounds=3)
    assert standings(event, SIX, kept) == standings(event, SIX, history)
    # The standings in the docs' example, recomputed from the store.
    assert [row.bot for row in standings(event, SIX, kept)] == ["B", "E", "A", "D", "C", "F"]


def test_a_different_round_or_result_is_refused(store):
    _running(store, entrants=list("ABCD"))
    first = Round(1, (Pairing("A", "C"), Pairing("B", "D")))
    store.add_round("cup", first)
    with pytest.raises(StoreError, match="another round 1"):
        store.add_round("cup", Round(1, (Pairing("A", "B"), Pairing("C", "D"))))
    with pytest.raises(StoreError, match="the next is 2"):
        store.add_round("cup", Round(3, (Pairing("A", "B"),)))
    store.record_game("cup", 1, 1, 1, Game("A", "C", 1))
    with pytest.raises(StoreError, match="another result"):
        store.record_game("cup", 1, 1, 1, Game("A", "C", 2))
    with pytest.raises(StoreError, match="is A - C"):
        store.record_game("cup", 1, 1, 2, Game("A", "B", 2))
    with pytest.raises(StoreError, match="no board 3"):
        store.record_game("cup", 1, 3, 1, Game("A", "C", 2))
    store.record_game("cup", 1, 2, 1, Game("D", "B", 1, ResultKind.NO_SHOW))
    assert store.event_history("cup").games_of(1, 2) == (Game("D", "B", 1, ResultKind.NO_SHOW),)


def test_byes_are_kept_and_a_bot_paired_in_an_event_is_not_removed(store):
    _running(store, entrants=list("ABC"))
    store.add_round("cup", Round(1, (Pairing("A", "B"),), ("C",)))
    assert store.event_history("cup").rounds[0].byes == ("C",)
    for bot in ("A", "C"):
        with pytest.raises(StoreError, match="was paired in event 'cup'"):
            store.remove_bot(bot)
    store.add_bot("newcomer", owner="")
    store.add_event(_config("later"))
    store.add_entrant("later", "newcomer")
    store.remove_bot("newcomer")  # never paired: its entry goes with it
    assert store.entrants("later") == []


def test_a_round_needs_a_running_event(store):
    store.add_event(_config("cup"))
    with pytest.raises(StoreError, match="is scheduled: it plays no round"):
        store.add_round("cup", Round(1, ()))
