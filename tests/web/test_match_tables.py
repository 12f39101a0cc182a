"""Issue 19 item 12: every matches table names the game, and results read by bot name and colour
("alice (Black) won 116-11", "bob lost on time"), never "seat 1 won"."""

from __future__ import annotations

import re
from typing import Any

from arbiter.ladder.model import BotVersion, Termination
from arbiter.store.describe import result_text
from arbiter.store.rows import MatchRow

from .conftest import FLANK_BOTS, Site

COLOURS = "Black|White|Blue|Orange|Red"
WORDS = re.compile(
    rf"^\S+ \(({COLOURS})\) won \d+-\d+$|^draw \d+-\d+$|^\S+ \(({COLOURS})\) lost on time(, disconnected)?$"
    rf"|^\S+ \(({COLOURS})\) forfeited \(illegal action\)$|^aborted"
)


def test_every_matches_table_names_the_game_and_the_result_by_name_and_colour(site: Site, page: Any) -> None:
    for path in ("/", "/ladders/t5", "/ladders/surge", f"/bots/{FLANK_BOTS[0]}"):
        page.goto(site.url + path)
        rows = page.locator("table.matches tbody tr[data-match]")
        assert rows.count() > 0, path
        for i in range(rows.count()):
            row = rows.nth(i)
            game = row.locator("td.game").inner_text()
            assert game in ("Torrent 5", "Surge Stones"), (path, game)
            result = row.locator("td.result").inner_text().strip()
            if result == "● live":
                continue
            assert WORDS.match(result), (path, result)
            assert "seat" not in result
        assert "seat 1 won" not in page.content() and "seat 2 won" not in page.content()


def test_the_match_page_and_the_api_say_the_same(site: Site, page: Any) -> None:
    row = next(r for r in site.store.match_rows(ladder="t5", limit=50) if r.status == "finished")
    colours = site.store.final_colours([row.match_id])[row.match_id]
    assert set(colours) == {1, 2} and set(colours.values()) == {"black", "white"}
    said = result_text(row, colours)
    page.goto(f"{site.url}/matches/{row.match_id}")
    assert said in page.locator("#result").inner_text()
    heading = page.locator("h1").inner_text()
    assert heading.startswith("Torrent 5: ") and f"({colours[1].capitalize()})" in heading
    api = page.request.get(f"{site.url}/api/matches/{row.match_id}").json()["match"]
    assert api["result"] == said and api["game_label"] == "Torrent 5"
    assert api["colours"] == {str(seat): colour for seat, colour in colours.items()}


def _row(**fields: Any) -> MatchRow:
    base: dict[str, Any] = dict(
        match_id="m", ladder="t5", game="torrent", seat_1=BotVersion("alice", "1"),
        seat_2=BotVersion("bob", "1"), status="finished", rated=True, started_at=0.0,
    )  # fmt: skip
    return MatchRow(**{**base, **fields})


def test_result_words_with_colours() -> None:
    colours = {1: "black", 2: "white"}
    won = _row(winner_seat=1, scores={1: 116, 2: 11}, termination=Termination.GAME_END)
    assert result_text(won, colours) == "alice (Black) won 116-11"
    late = _row(winner_seat=1, faulty_seat=2, termination=Termination.TIMEOUT)
    assert result_text(late, colours) == "bob (White) lost on time"
    illegal = _row(winner_seat=2, faulty_seat=1, termination=Termination.ILLEGAL_ACTION)
    assert result_text(illegal, colours) == "alice (Black) forfeited (illegal action)"
    draw = _row(winner_seat=None, scores={1: 20, 2: 20}, termination=Termination.GAME_END)
    assert result_text(draw, colours) == "draw 20-20"
    assert result_text(won) == "alice won 116-11"  # no colours known: names only
