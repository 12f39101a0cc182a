"""Bots (tokens shown once, only their hashes kept) and ladders."""

from __future__ import annotations

import pytest
from arbiter.sessions.auth import hash_token
from arbiter.store import BotRow, StoreError
from arbiter.store.engine import normalise_url
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from sqlalchemy import create_engine, text

from .conftest import T0, ladder


def _bot_columns(url: str) -> list[tuple[object, ...]]:
    engine = create_engine(normalise_url(url))
    with engine.connect() as connection:
        rows = [tuple(row) for row in connection.execute(text("SELECT * FROM bots ORDER BY name"))]
    engine.dispose()
    return rows


def test_a_token_is_shown_once_and_only_its_hash_is_stored(store):
    token = store.add_bot("alpha", owner="ann")
    rows = _bot_columns(store.url)
    assert len(rows) == 1
    assert hash_token(token) in rows[0]
    assert not any(token in str(value) for value in rows[0])
    assert store.authenticate(token) == BotRow("alpha", "ann", True, T0 + 1)
    assert store.authenticate("not-a-token") is None
    assert store.authenticate("") is None


def test_a_bot_name_is_unique_and_well_formed(store):
    store.add_bot("alpha", owner="ann")
    with pytest.raises(StoreError, match="'alpha' exists already"):
        store.add_bot("alpha", owner="bob")
    for bad in ("", "two words", "a=b", "x" * 65):
        with pytest.raises(StoreError, match="bad bot name"):
            store.add_bot(bad, owner="bob")
    assert [bot.name for bot in store.list_bots()] == ["alpha"]


def test_rotating_a_token_invalidates_the_old_one(store):
    old = store.add_bot("alpha", owner="ann")
    new = store.rotate_token("alpha")
    assert new != old
    assert store.authenticate(old) is None
    assert store.authenticate(new).name == "alpha"
    with pytest.raises(StoreError, match="no bot named 'ghost'"):
        store.rotate_token("ghost")


def test_disabled_bots_still_authenticate_and_say_so(store):
    token = store.add_bot("alpha", owner="ann")
    store.add_bot("beta", owner="bob")
    store.set_bot_enabled("alpha", False)
    assert store.authenticate(token).enabled is False
    assert [(bot.name, bot.enabled) for bot in store.list_bots()] == [("alpha", False), ("beta", True)]
    store.set_bot_enabled("alpha", True)
    assert store.authenticate(token).enabled is True
    with pytest.raises(StoreError):
        store.set_bot_enabled("ghost", True)


def test_ladders_round_trip(store):
    surge = ladder(
        "surge-duplicate",
        game="surge",
        options={},
        control=TimeControl(per_decision=2.0),
        policy=MatchPolicy(),
        rated=False,
        duplicate_pairs=True,
        enabled=False,
    )
    torrent = ladder()
    store.add_ladder(torrent)
    store.add_ladder(surge)
    assert store.get_ladder("torrent-blitz") == torrent
    assert store.get_ladder("surge-duplicate") == surge
    assert store.get_ladder("nope") is None
    assert store.list_ladders() == [surge, torrent]
    with pytest.raises(StoreError, match="exists already"):
        store.add_ladder(torrent)
