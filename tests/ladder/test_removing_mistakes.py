"""Removing mistakes (issue 19 item 18): `bots remove` (only a bot that never played),
`ladders remove` (only a ladder that never had a match), `ladders archive` / `reopen` (no new
match on a running arbiter; standings and matches stay) and `ladders edit --description`."""

from __future__ import annotations

import asyncio
import re

from arbiter.cli import main
from arbiter.node import ArbiterConfig
from arbiter.store import SqlStore
from arbiter.web.app import create_app
from arbiter_wire.reasons import reason_of
from click.testing import CliRunner
from fastapi.testclient import TestClient
from google.rpc import code_pb2

from .harness import TORRENT_5, ladder_lab

LADDER = TORRENT_5.name


def arbiter(url: str, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, [*args, "--database", url])
    assert result.exit_code == code, result.output
    return result.output


def _played_once(store_url: str) -> None:
    """ann and ben play one match on t5 (a second may start and be aborted at the end); cat is
    registered and never plays."""

    async def scenario() -> None:
        async with ladder_lab(store_url, ["ann", "ben", "cat"]) as lab:
            ann, ben = await lab.connect("ann"), await lab.connect("ben")
            for bot in (ann, ben):
                await bot.join(LADDER)
            await lab.watch.until(lambda w: len(w.started) == 1)
            await asyncio.gather(ann.play(), ben.play())

    asyncio.run(scenario())


def test_a_bot_that_never_played_is_removed_and_one_that_played_is_kept(store_url):
    _played_once(store_url)
    said = arbiter(store_url, "bots", "remove", "ann", code=1)
    assert re.search(r"has played [12] match\(es\)", said) and "arbiter bots disable ann" in said
    assert arbiter(store_url, "bots", "remove", "cat") == "bot cat removed\n"
    listed = arbiter(store_url, "bots", "list").splitlines()[1:]
    assert [line.split()[0] for line in listed] == ["ann", "ben"]
    assert "no bot named 'cat'" in arbiter(store_url, "bots", "remove", "cat", code=1)
    # The name is free again: a new bot may take it.
    assert "bot cat added" in arbiter(store_url, "bots", "add", "cat")


def test_a_ladder_with_matches_is_archived_not_removed(store_url):
    _played_once(store_url)
    arbiter(store_url, "ladders", "add", "oops", "--game", "surge")
    said = arbiter(store_url, "ladders", "remove", LADDER, code=1)
    assert re.search(r"has [12] match\(es\)", said) and f"arbiter ladders archive {LADDER}" in said
    assert arbiter(store_url, "ladders", "remove", "oops") == "ladder oops removed\n"
    assert "archived" in arbiter(store_url, "ladders", "archive", LADDER)
    listed = arbiter(store_url, "ladders", "list").splitlines()[1:]
    assert len(listed) == 1 and listed[0].split()[0] == LADDER and listed[0].endswith(", archived")
    # The archived ladder keeps its standings and matches, on the web too.
    store = SqlStore(store_url)
    try:
        client = TestClient(create_app(store))
        page = client.get(f"/api/ladders/{LADDER}").json()
        assert page["ladder"]["enabled"] is False and len(page["standings"]) == 2
        assert "archived" in client.get(f"/ladders/{LADDER}").text
        assert client.get("/api/ladders/oops").status_code == 404
    finally:
        store.close()
    arbiter(store_url, "ladders", "reopen", LADDER)
    assert not arbiter(store_url, "ladders", "list").splitlines()[1].endswith(", archived")


def test_a_description_is_set_shown_and_checked(store_url):
    store = SqlStore(store_url)
    store.upgrade()
    store.close()
    arbiter(store_url, "ladders", "add", LADDER, "--game", "torrent", "--size", "5")
    arbiter(store_url, "ladders", "edit", LADDER, "--description", "Torrent 5 for the <b>course</b> final")
    store = SqlStore(store_url)
    try:
        config = store.get_ladder(LADDER)
        assert config is not None and config.description == "Torrent 5 for the <b>course</b> final"
        html = TestClient(create_app(store)).get(f"/ladders/{LADDER}").text
        assert "Torrent 5 for the &lt;b&gt;course&lt;/b&gt; final" in html
    finally:
        store.close()
    assert "no control" in arbiter(store_url, "ladders", "edit", LADDER, "--description", "a\x1b[2Jb", code=1)
    assert "no ladder named 'nosuch'" in arbiter(
        store_url, "ladders", "edit", "nosuch", "--description", "x", code=1
    )


def test_archiving_stops_new_matches_on_a_running_arbiter_and_reopening_resumes(store_url):
    def fast_checks(config: ArbiterConfig) -> None:
        config.ladder_check = 0.1

    async def scenario() -> None:
        async with ladder_lab(store_url, ["ann", "ben", "cat"], configure=fast_checks) as lab:
            ann, ben = await lab.connect("ann"), await lab.connect("ben")
            for bot in (ann, ben):
                await bot.join(LADDER)
            await lab.watch.until(lambda w: len(w.started) == 1)
            # Archived (by the CLI, another process's store connection) while a match runs.
            await asyncio.to_thread(arbiter, store_url, "ladders", "archive", LADDER)
            await asyncio.sleep(0.5)  # several looks at the store
            await asyncio.gather(ann.play(), ben.play())  # the running match finishes
            await asyncio.sleep(0.5)
            assert len(lab.watch.started) == 1, "no new match on an archived ladder"
            # A bot joining now is told why.
            cat = await lab.connect("cat")
            await cat.join(LADDER)
            rejected = await cat.expect("ladder_rejected")
            assert rejected.status.code == code_pb2.NOT_FOUND
            assert reason_of(rejected.status) == "LADDER_NOT_FOUND" and "archived" in rejected.status.message
            # Reopened: the joined bots are paired again.
            await asyncio.to_thread(arbiter, store_url, "ladders", "reopen", LADDER)
            await lab.watch.until(lambda w: len(w.started) == 2, timeout=10)

    asyncio.run(scenario())
