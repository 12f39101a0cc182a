"""The host's commands on a real store (SQLite and PostgreSQL): db, bots, ladders, matches.

A ladder is set up with the commands alone, played by SDK bots against an in-process arbiter on
the same database, and then read back with the commands; ``arbiter serve`` refuses a database at
another schema revision.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from arbiter.cli import main
from arbiter.ladder.model import BotVersion
from arbiter.ladder.ratings import recompute
from arbiter.sessions.auth import hash_token
from arbiter.store import SqlStore
from arbiter_bot.client import run_bot
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text

from tests.conftest import ROOT

from .harness import eventually, serving

TOKEN = re.compile(r"\(shown only now\): (\S+)$")


def arbiter(url: str, *args: str, code: int = 0) -> Result:
    """``arbiter ARGS --database URL`` through click; the exit code must be ``code``."""
    result = CliRunner().invoke(main, [*args, "--database", url])
    assert result.exit_code == code, (args, result.output, result.exception)
    return result


def token_of(result: Result) -> str:
    match = TOKEN.search(result.output.strip())
    assert match, result.output
    return match.group(1)


def _sql_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def test_db_upgrade_and_commands_on_a_database_without_the_schema(store_url):
    result = arbiter(store_url, "bots", "list", code=1)
    assert result.output.startswith("error: ") and "arbiter db upgrade" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "created the schema (revision " in arbiter(store_url, "db", "upgrade").output
    assert "up to date" in arbiter(store_url, "db", "upgrade").output  # twice is fine
    assert "no bots yet" in arbiter(store_url, "bots", "list").output
    assert "no ladders yet" in arbiter(store_url, "ladders", "list").output


def test_bots_add_list_rotate_disable_enable(store_url):
    arbiter(store_url, "db", "upgrade")
    added = arbiter(store_url, "bots", "add", "alpha", "--owner", "Ada")
    first = token_of(added)
    assert added.output.count(first) == 1  # printed once
    arbiter(store_url, "bots", "add", "beta")
    assert "exists already" in arbiter(store_url, "bots", "add", "alpha", code=1).output
    assert "bad bot name" in arbiter(store_url, "bots", "add", "has space", code=1).output

    # The table holds the token's hash only.
    engine = create_engine(_sql_url(store_url))
    with engine.connect() as connection:
        rows = {
            name: (digest, owner)
            for name, digest, owner in connection.execute(text("SELECT name, token_hash, owner FROM bots"))
        }
        dump = " ".join(str(value) for row in connection.execute(text("SELECT * FROM bots")) for value in row)
    engine.dispose()
    assert rows["alpha"] == (hash_token(first), "Ada")
    assert first not in dump

    header, *listing = arbiter(store_url, "bots", "list").output.splitlines()
    assert header.split() == ["bot", "status", "owner"]
    assert [line.split()[:2] for line in listing] == [["alpha", "enabled"], ["beta", "enabled"]]
    assert first not in "\n".join(listing)

    store = SqlStore(store_url)
    try:
        assert store.authenticate(first).name == "alpha"
        second = token_of(arbiter(store_url, "bots", "rotate", "alpha"))
        assert second != first
        assert store.authenticate(first) is None and store.authenticate(second).name == "alpha"
        assert "no bot named" in arbiter(store_url, "bots", "rotate", "nobody", code=1).output

        assert "disabled" in arbiter(store_url, "bots", "disable", "alpha").output
        assert store.authenticate(second).enabled is False
        listing = arbiter(store_url, "bots", "list").output.splitlines()[1:]
        assert listing[0].split()[:2] == ["alpha", "DISABLED"]
        arbiter(store_url, "bots", "enable", "alpha")
        assert store.authenticate(second).enabled is True
        assert "no bot named" in arbiter(store_url, "bots", "disable", "nobody", code=1).output
    finally:
        store.close()


def test_ladders_add_checks_its_options(store_url):
    arbiter(store_url, "db", "upgrade")
    out = arbiter(store_url, "ladders", "add", "t5", "--game", "torrent", "--size", "5", "--base", "30")
    assert "t5" in out.output
    refused = arbiter(store_url, "ladders", "add", "s", "--game", "surge", "--size", "5", code=2)
    assert "--size" in refused.output and "no board size" in refused.output
    refused = arbiter(store_url, "ladders", "add", "t", "--game", "torrent", "--duplicate-pairs", code=2)
    assert "--duplicate-pairs" in refused.output
    refused = arbiter(store_url, "ladders", "add", "t4", "--game", "torrent", "--size", "4", code=2)
    arbiter(store_url, "ladders", "add", "s2", "--game", "surge", "--duplicate-pairs", "--unrated")
    assert "exists already" in arbiter(store_url, "ladders", "add", "t5", "--game", "torrent", code=1).output

    header, *listing = arbiter(store_url, "ladders", "list").output.splitlines()
    assert header.split() == ["ladder", "game", "clock", "rated"]
    assert [line.split()[0] for line in listing] == ["s2", "t5"]
    assert "duplicate pairs" in listing[0] and "unrated" in listing[0]
    assert "rated" in listing[1] and "duplicate" not in listing[1]
    store = SqlStore(store_url)
    try:
        t5, s2 = store.get_ladder("t5"), store.get_ladder("s2")
        assert t5 is not None and s2 is not None
        assert (t5.game, dict(t5.options), t5.control.base, t5.rated) == ("torrent", {"size": 5}, 30.0, True)
        assert (s2.duplicate_pairs, s2.rated) == (True, False)
    finally:
        store.close()
    assert "no ladder named" in arbiter(store_url, "ladders", "standings", "nope", code=1).output


async def _play(url: str, tokens: dict[str, str]) -> None:
    """Two rounds on ladder t5: greedy v1 against random (6 matches), then greedy v2 (4)."""
    spec = ("torrent", {"size": 5})
    async with serving(url, tokens) as lab:
        for version, games in (("1", 6), ("2", 4)):
            await asyncio.gather(
                run_bot(
                    GreedyFlankBot(1),
                    lab.address,
                    tokens["greedy"],
                    spec,
                    games,
                    ladder="t5",
                    version=version,
                ),
                run_bot(RandomBot(2), lab.address, tokens["random"], spec, games, ladder="t5", version="1"),
            )


def test_the_commands_read_a_ladder_that_was_played(store_url, tmp_path):
    arbiter(store_url, "db", "upgrade")
    tokens = {name: token_of(arbiter(store_url, "bots", "add", name)) for name in ("greedy", "random")}
    arbiter(store_url, "ladders", "add", "t5", "--game", "torrent", "--size", "5", "--base", "30")
    assert "no rated results yet" in arbiter(store_url, "ladders", "standings", "t5").output
    asyncio.run(_play(store_url, tokens))

    # Standings: text, JSON, all versions, whole history.
    header, *lines, legend = arbiter(store_url, "ladders", "standings", "t5").output.splitlines()
    assert header.split()[:4] == ["#", "bot", "version", "rating"]
    assert [line.split()[:3] for line in lines] == [["1.", "greedy", "2"], ["2.", "random", "1"]]
    assert legend.startswith("rating: mu - 3 sigma; ? provisional (fewer than 20 rated games)")
    rows = json.loads(arbiter(store_url, "ladders", "standings", "t5", "--json").output)
    assert [(row["rank"], row["bot"], row["version"]) for row in rows] == [
        (1, "greedy", "2"),
        (2, "random", "1"),
    ]
    assert rows[1]["games"] == 10 and rows[0]["games"] == 4 and rows[0]["current"] is True
    assert rows[0]["ordinal"] > rows[1]["ordinal"] and rows[0]["paused"] is None
    every = json.loads(arbiter(store_url, "ladders", "standings", "t5", "--json", "--all-versions").output)
    assert {(row["bot"], row["version"], row["current"]) for row in every} == {
        ("greedy", "1", False),
        ("greedy", "2", True),
        ("random", "1", True),
    }
    whole = json.loads(
        arbiter(store_url, "ladders", "standings", "t5", "--json", "--method", "whole-history").output
    )
    assert {(row["bot"], row["version"]) for row in whole} == {
        ("greedy", "1"),
        ("greedy", "2"),
        ("random", "1"),
    }
    assert whole[-1]["bot"] == "random" and sum(row["games"] for row in whole) == 20
    text_whole = arbiter(store_url, "ladders", "standings", "t5", "--method", "whole-history").output
    assert len(text_whole.splitlines()) == 4 and text_whole.split()[:3] == ["#", "bot", "version"]

    # Recompute after a live run changes nothing.
    store = SqlStore(store_url)
    try:
        before = {row.version: row.tally for row in store.ratings("t5")}
        assert before == recompute(store.finished_results("t5"))
        out = arbiter(store_url, "ladders", "recompute", "t5").output
        assert "10 results replayed, 3 ratings" in out and "0 differed" in out
        assert {row.version: row.tally for row in store.ratings("t5")} == before
        assert set(before) == {
            BotVersion("greedy", "1"),
            BotVersion("greedy", "2"),
            BotVersion("random", "1"),
        }
        stored = store.matches("t5", limit=100)
    finally:
        store.close()

    # Matches: list and export; an exported record replays.
    header, *listing = arbiter(store_url, "matches", "list").output.splitlines()
    assert header.split()[:3] == ["match", "started", "(UTC)"]
    assert {line.split()[0] for line in listing} == {row.match_id for row in stored}
    by_id = {row.match_id: row for row in stored}
    for line in listing:
        row = by_id[line.split()[0]]
        # When, the game, and the result by bot name ("greedy won 20-5", "draw 12-12").
        assert time.strftime("%Y-%m-%d %H:%M", time.gmtime(row.started_at)) in line and " torrent " in line
        assert row.winner_seat is not None or line.split(": ")[-1].startswith("draw")
        if row.winner_seat is not None:
            winner = row.seat_1.bot if row.winner_seat == 1 else row.seat_2.bot
            assert row.scores is not None
            score = f"{row.scores[row.winner_seat]}-{row.scores[3 - row.winner_seat]}"
            assert line.endswith(f": {winner} won {score}"), line
    assert (
        len(arbiter(store_url, "matches", "list", "--bot", "greedy", "--limit", "3").output.splitlines()) == 4
    )
    out = tmp_path / "records"
    assert (
        "10 record(s) written" in arbiter(store_url, "matches", "export", "--all", "--out", str(out)).output
    )
    files = sorted(out.glob("torrent-*.json"))
    assert len(files) == 10
    record = json.loads(files[0].read_text())
    assert record["game"] == "torrent"
    replayed = CliRunner().invoke(main, ["replay", str(files[0]), "--quiet"])
    assert replayed.exit_code == 0, replayed.output
    one = stored[0].match_id
    single = tmp_path / "one"
    arbiter(store_url, "matches", "export", one, "--out", str(single))
    assert [p.name for p in single.iterdir()] == [f"torrent-{one}.json"]
    assert CliRunner().invoke(main, ["replay", str(single / f"torrent-{one}.json")]).exit_code == 0


async def _new_version_starts(url: str, tokens: dict[str, str], check) -> None:
    """greedy connects as version 3 and a match starts (left unplayed, then aborted by the stop)."""
    async with serving(url, tokens) as lab:
        greedy, random = await lab.connect("greedy", "3"), await lab.connect("random", "1")
        for bot in (greedy, random):
            await bot.join("t5")
        await lab.watch.until(lambda w: len(w.started) == 1)
        await eventually(
            lambda: (
                lab.store.matches("t5", bot="greedy", limit=1)[0].seat_1.version == "3"
                or lab.store.matches("t5", bot="greedy", limit=1)[0].seat_2.version == "3"
            )
        )
        check()
        await lab.stop(grace=0.1)
    check()


def test_standings_keep_a_bot_whose_new_version_has_no_result_yet(store_url):
    arbiter(store_url, "db", "upgrade")
    tokens = {name: token_of(arbiter(store_url, "bots", "add", name)) for name in ("greedy", "random")}
    arbiter(store_url, "ladders", "add", "t5", "--game", "torrent", "--size", "5", "--base", "30")
    asyncio.run(_play(store_url, tokens))

    def check() -> None:
        rows = json.loads(arbiter(store_url, "ladders", "standings", "t5", "--json").output)
        assert [(row["bot"], row["version"]) for row in rows] == [("greedy", "2"), ("random", "1")]
        listed = arbiter(store_url, "ladders", "standings", "t5").output.splitlines()[1:-1]
        assert [line.split()[1] for line in listed] == [
            "greedy",
            "random",
        ]

    asyncio.run(_new_version_starts(store_url, tokens, check))
    statuses = Counter(row.status for row in SqlStore(store_url).matches("t5", limit=100))
    assert statuses == {"finished": 10, "aborted": 1}


@pytest.fixture
def serve_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")


def _serve(url: str, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "arbiter.cli",
            "serve",
            "--database",
            url,
            "--port",
            "0",
            "--bot",
            "a=secret",
            "--records",
            str(tmp_path / "records"),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_serve_refuses_a_database_at_another_schema_revision(store_url, tmp_path, serve_env):
    engine = create_engine(_sql_url(store_url))
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
        connection.execute(text("INSERT INTO alembic_version VALUES ('0000_older')"))
    engine.dispose()
    done = _serve(store_url, tmp_path, serve_env)
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and "0000_older" in lines[0] and "arbiter db upgrade" in lines[0]
    # The commands refuse it the same way.
    refused = arbiter(store_url, "ladders", "list", code=1)
    assert "0000_older" in refused.output and len(refused.output.strip().splitlines()) == 1
