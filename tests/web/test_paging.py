"""A bot's page and its API answer are bounded (issue 18 item 6), and still tell everything.

Through the real application (Starlette's test client over ``create_app``), on SQLite and on
PostgreSQL, with a store filled through the store's own writes (``match_started``,
``finish_match`` with rating updates): paging with the cursor reaches each match once; the chart
has at most 500 points for a longer history, and ends at each version's current rating; the
counts equal counts made by hand from the store's rows; every version the bot played shows its
results.
"""

from __future__ import annotations

import random
import re
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from arbiter.ladder.model import BotVersion, LadderConfig, Rating, Termination
from arbiter.store import MatchResult, MatchStart, RatingUpdate, SqlStore
from arbiter.web.app import create_app
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

with warnings.catch_warnings():  # its note that httpx2 is coming
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

T0 = 1_800_000_000.0
CONTROL = TimeControl(base=60.0, increment=1.0)
LADDERS = ("blitz", "rapid")
OUTCOMES = ("win", "loss", "draw")


@dataclass
class Played:
    """What the test wrote, to count by hand: (match id, star's seat, opponent, ladder, version,
    status, winner seat, faulty seat, termination, rated) per match of ``star``, by start."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    running: list[str] = field(default_factory=list)


def fill(store: SqlStore, ended: int, rated_share: float = 0.8, seed: int = 7) -> Played:
    """``star`` plays ``ended`` matches (and 3 still running) against 6 opponents, on two ladders
    and casually, as versions v1, v2 and v3 one after the other; a few against itself, a few
    aborted, a few lost by a fault; others play among themselves too."""
    rng = random.Random(seed)
    for name in LADDERS:
        store.add_ladder(LadderConfig(name, "torrent", {"size": 5}, CONTROL))
    opponents = [f"opp-{i}" for i in range(6)]
    for name in ["star", *opponents]:
        store.add_bot(name, f"owner of {name}")
    played = Played()
    mu: dict[BotVersion, float] = {}
    number = 0

    def play(one: BotVersion, two: BotVersion, ladder: str | None, rated: bool, end: bool) -> None:
        nonlocal number
        number += 1
        match_id = f"m{number:05d}"
        start = MatchStart(
            match_id=match_id, game="torrent", options={"size": 5}, seat_1=one, seat_2=two,
            seed="00" * 16, seed_commitment="c", control=CONTROL, policy=MatchPolicy(),
            started_at=T0 + number, ladder=ladder, rated=rated,
        )  # fmt: skip
        assert store.match_started(start)
        if not end:
            played.running.append(match_id)
            return
        roll = rng.random()
        winner: int | None = rng.choice((1, 2, None))
        faulty = None
        termination = Termination.GAME_END
        if roll < 0.05:
            termination, winner = Termination.ABORTED, None
        elif roll < 0.12:
            faulty = rng.choice((1, 2))
            winner = 3 - faulty
            termination = rng.choice((Termination.TIMEOUT, Termination.ILLEGAL_ACTION))
        result = MatchResult(
            winner_seat=winner, scores={1: 1, 2: 0}, reason="r", termination=termination,
            ended_at=T0 + number + 0.5, faulty_seat=faulty,
        )  # fmt: skip
        is_rated = rated and termination is not Termination.ABORTED
        updates = None
        if is_rated:
            updates = []
            for seat, version in ((1, one), (2, two)):
                before = Rating(mu.get(version, 25.0), 8.0)
                after = Rating(before.mu + rng.uniform(-1, 1), 7.0)
                mu[version] = after.mu
                updates.append(RatingUpdate(seat, version, before, after))
        assert store.finish_match(match_id, result, updates)
        for seat, version, other in ((1, one, two), (2, two, one)):
            if version.bot == "star":
                status = "aborted" if termination is Termination.ABORTED else "finished"
                played.rows.append(
                    (match_id, seat, other.bot, ladder, version.version, status, winner, faulty,
                     termination.value, is_rated)
                )  # fmt: skip

    for i in range(ended):
        version = BotVersion("star", ("v1", "v2", "v3")[3 * i // ended])
        other = BotVersion(rng.choice(opponents), "v1")
        if i % 40 == 7:  # against itself (another version: a ladder would not rate it)
            other = BotVersion("star", "old")
        ladder = None if i % 25 == 3 else LADDERS[i % 2]
        seats = (version, other) if rng.random() < 0.5 else (other, version)
        play(*seats, ladder=ladder, rated=ladder is not None and rng.random() < rated_share, end=True)
        if i % 10 == 0:
            play(BotVersion(opponents[0], "v1"), BotVersion(opponents[1], "v1"), LADDERS[0], True, True)
    for i in range(3):
        play(BotVersion("star", "v3"), BotVersion(opponents[i], "v1"), LADDERS[0], True, end=False)
    return played


@pytest.fixture
def store(store_url: str) -> Iterator[SqlStore]:
    opened = SqlStore(store_url)
    opened.upgrade()
    yield opened
    opened.close()


@pytest.fixture
def client(store: SqlStore) -> Iterator[TestClient]:
    with TestClient(create_app(store)) as opened:
        yield opened


def get(client: TestClient, url: str) -> Any:
    answer = client.get(url)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_paging_through_a_bots_matches_reaches_each_match_once(store, client):
    played = fill(store, 95)
    everything = {row[0] for row in played.rows} | set(played.running)
    seen: list[str] = []
    pages = 0
    url = "/api/bots/star?limit=10"
    while True:
        page = get(client, url)
        pages += 1
        seen += [match["match_id"] for match in page["matches"]]
        assert len(page["matches"]) <= 10
        if page["next"] is None:
            break
        url = f"/api/bots/star?limit=10&before={page['next']}"
    assert len(seen) == len(set(seen)) == len(everything)
    assert set(seen) == everything
    assert pages == -(-len(everything) // 10)
    # The running ones first, then the ended ones, the last to end first.
    assert seen[:3] == sorted(played.running, reverse=True)
    assert seen[3:] == sorted({row[0] for row in played.rows}, reverse=True)  # ids grow with the end
    # The HTML page: 30 a page, an "Older matches" link to the next.
    html_seen: list[str] = []
    url = "/bots/star"
    while True:
        answer = client.get(url)
        assert answer.status_code == 200
        table = answer.text.split('<table class="matches">', 1)[1].split("</table>", 1)[0]
        html_seen += re.findall(r'href="/matches/([^"]+)"', table)
        older = re.search(r'<a rel="next" class="older" href="\?before=(\d+)"', answer.text)
        if older is None:
            break
        url = f"/bots/star?before={older.group(1)}"
    assert html_seen == seen
    assert client.get("/api/bots/star?before=0").status_code == 422
    assert client.get("/api/bots/star?limit=101").status_code == 422


def test_the_chart_has_at_most_500_points_and_ends_at_the_current_ratings(store, client):
    played = fill(store, 640, rated_share=1.0)
    rated = [row for row in played.rows if row[9]]
    assert len(rated) > 520
    page = get(client, "/api/bots/star")
    history = page["history"]
    assert page["history_total"] == len(rated)
    assert 400 <= len(history) <= 500
    assert [p["sequence"] for p in history] == sorted(p["sequence"] for p in history)
    # Each (ladder, version)'s last point is its last rated match: its current rating.
    last: dict[tuple[str, str], str] = {}
    for row in rated:
        last[(row[3], row[4])] = row[0]
    shown_last = {(p["ladder"], p["version"]): p["match_id"] for p in history}
    assert shown_last == last
    # The page draws those points and no more.
    chart = client.get("/bots/star").text.split('<svg xmlns="http://www.w3.org/2000/svg" class="chart"', 1)[1]
    drawn = sum(len(points.split()) for points in re.findall(r'class="series"[^>]* points="([^"]*)"', chart))
    assert drawn == len(history)
    assert f"{len(history)} of {len(rated)} rated matches shown" in client.get("/bots/star").text
    # A short history is shown whole.
    small = get(client, "/api/bots/opp-0")
    assert small["history_total"] == len(small["history"]) > 0


def test_the_counts_equal_counts_by_hand(store, client):
    played = fill(store, 160)
    page = get(client, "/api/bots/star?limit=5")

    def outcome(row: tuple[Any, ...]) -> str:
        _, seat, _, _, _, status, winner, *_ = row
        if status == "aborted":
            return "aborted"
        return "draw" if winner is None else "win" if winner == seat else "loss"

    def tally(rows: list[tuple[Any, ...]]) -> dict[str, int]:
        counts = Counter(outcome(row) for row in rows)
        return {
            "games": counts["win"] + counts["loss"] + counts["draw"], "wins": counts["win"],
            "losses": counts["loss"], "draws": counts["draw"], "aborted": counts["aborted"],
        }  # fmt: skip

    assert page["totals"] == tally(played.rows)
    by_opponent = {row[2] for row in played.rows}
    expected = [
        {"opponent": name, **tally([row for row in played.rows if row[2] == name])} for name in by_opponent
    ]
    expected.sort(key=lambda row: (-row["games"], row["opponent"]))
    assert page["head_to_head"] == expected
    assert page["opponents"] == len(by_opponent) and page["next_opponents"] is None
    failures = Counter(row[8] for row in played.rows if row[7] == row[1] and row[5] == "finished")
    assert page["failures"] == dict(failures) and failures
    versions = {(row[3], row[4]) for row in played.rows}
    assert {(v["ladder"], v["version"]): {k: v[k] for k in tally([])} for v in page["results"]} == {
        key: tally([row for row in played.rows if (row[3], row[4]) == key]) for key in versions
    }


def test_the_head_to_head_table_is_paged(store, client, monkeypatch):
    from arbiter.web import pages

    fill(store, 60)
    monkeypatch.setattr(pages, "HEAD_TO_HEAD", 3)
    whole = get(client, "/api/bots/star")
    assert whole["opponents"] == 7 and len(whole["head_to_head"]) == 3 and whole["next_opponents"] == 3
    rows = list(whole["head_to_head"])
    start = whole["next_opponents"]
    while start is not None:
        page = get(client, f"/api/bots/star?opponents_from={start}")
        rows += page["head_to_head"]
        start = page["next_opponents"]
    assert len(rows) == 7 and len({row["opponent"] for row in rows}) == 7
    assert rows == sorted(rows, key=lambda row: (-row["games"], row["opponent"]))
    html = client.get("/bots/star").text
    assert 'class="more-opponents" href="?opponents_from=3"' in html
    # Each list's links keep the other's place.
    assert (
        'class="more-opponents" href="?opponents_from=3&amp;before=20"'
        in client.get("/bots/star?before=20").text
    )
    older = re.search(
        r'class="older" href="\?before=\d+&amp;opponents_from=3"',
        client.get("/bots/star?opponents_from=3").text,
    )
    assert older is not None


def test_the_page_shows_every_versions_results(store, client):
    played = fill(store, 90)
    html = client.get("/bots/star").text
    table = html.split('<table class="results">', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td>" + r'<td class="num">(\d+)</td>' * 5, table)
    shown = {
        (re.sub(r"<[^>]+>", "", ladder), version): tuple(map(int, rest)) for ladder, version, *rest in cells
    }
    expected = {}
    for key in {(row[3] or "casual", row[4]) for row in played.rows}:
        rows = [row for row in played.rows if (row[3] or "casual", row[4]) == key]
        wins = sum(1 for row in rows if row[5] == "finished" and row[6] == row[1])
        draws = sum(1 for row in rows if row[5] == "finished" and row[6] is None)
        aborted = sum(1 for row in rows if row[5] == "aborted")
        games = len(rows) - aborted
        expected[key] = (games, wins, games - wins - draws, draws, aborted)
    assert shown == expected
    assert {version for _, version in shown} == {"v1", "v2", "v3", "old"}
    assert {ladder for ladder, _ in shown} == {"blitz", "rapid", "casual"}
