"""Issue 19 item 14: by the board, the score, whose turn and both clocks (a live page counts the
mover's clock down), the move list following the current move, and Surge's hidden moves told
once their stones are face up (never before)."""

from __future__ import annotations

import random
import re
from typing import Any

from arbiter.match.replay import replay
from arbiter.web.live import LiveHub, public_dict
from arbiter.web.status import board_status
from arbiter_bot.examples.surge_tips import SurgeTipsBot
from arbiter_games import get_game

from .conftest import SLOW_BOTS, Site, Slow, until, wait_for
from .test_pages import finished_match


def engine_status(game_name: str, state: object) -> tuple[dict[str, int], int | None]:
    """Each seat's score and the seat to move, from the engine itself."""
    game = get_game(game_name)
    scores = game.scores_by_seat(state)
    over = game.outcome(state) is not None
    mover = None if over else game.to_move(state)
    return {str(seat): int(score) for seat, score in scores.items()}, mover


def test_the_status_of_every_replay_step_agrees_with_the_engine(site: Site, page: Any) -> None:
    for ladder in ("t5", "surge"):
        match_id = finished_match(site, ladder)
        record = site.store.match_record(match_id)
        assert record is not None
        report = replay(record)
        page.goto(f"{site.url}/matches/{match_id}?step=0")
        page.wait_for_load_state("networkidle")  # the frames for the status have been fetched
        for step in range(0, len(report.states), max(1, len(report.states) // 6)):
            page.goto(f"{site.url}/matches/{match_id}?step={step}")
            page.wait_for_load_state("networkidle")
            if step + 1 < len(report.states):
                page.keyboard.press("ArrowRight")
                until(page, f"document.getElementById('board').dataset.step === '{step + 1}'")
                shown_step = step + 1
            else:
                shown_step = step
            scores, mover = engine_status(record["game"], report.states[shown_step])
            for seat in ("1", "2"):
                box = page.locator(f'#status .seat[data-seat="{seat}"]')
                assert box.locator(".score").inner_text() == str(scores[seat]), (ladder, shown_step)
            turn = page.locator("#status .turn").inner_text()
            if mover is None:
                assert turn == "game over"
            else:
                who = page.locator(f'#status .seat[data-seat="{mover}"] .who').inner_text()
                assert turn.startswith(f"to move: {who}"), (turn, who)
                assert page.locator("#status .seat.to-move").get_attribute("data-seat") == str(mover)
            if shown_step > 0:
                clocks = record["actions"][shown_step - 1].get("clocks") or {}
                for seat, left in clocks.items():
                    shown = page.locator(f'#status .seat[data-seat="{seat}"] .clock').inner_text()
                    assert shown == ("-" if left is None else f"{left:.2f}s")


def test_a_live_page_counts_the_movers_clock_down_and_follows_the_moves(site: Site, page: Any) -> None:
    before = set(site.hub.matches)
    bots = {name: Slow(SurgeTipsBot(i), 0.4) for i, name in enumerate(SLOW_BOTS)}
    playing = site.submit(site.play("slow-surge", "surge", bots, 1))  # type: ignore[arg-type]
    match_id = wait_for(lambda: next((m for m in site.hub.matches if m not in before), None), 30, "a match")
    try:
        page.goto(f"{site.url}/matches/{match_id}")
        until(page, "Number(document.getElementById('board').dataset.step) >= 2", timeout=30)
        mover = page.locator("#status .seat.to-move")
        mover.wait_for(timeout=10_000)
        clock = mover.locator(".clock")
        first = float(clock.inner_text().rstrip("s"))
        page.wait_for_timeout(300)  # a bot thinks 0.4 s a move: the same mover, counting down
        second = float(clock.inner_text().rstrip("s"))
        seat = mover.get_attribute("data-seat")
        if page.locator("#status .seat.to-move").get_attribute("data-seat") == seat:
            assert second < first
        # The newest move is the current row of the move list.
        until(page, "document.querySelector('#moves tr.current') !== null", timeout=10)
        last_row = page.locator("#moves tbody tr").last
        assert "current" in (last_row.get_attribute("class") or "")
    finally:
        playing.result(120)


def _hub_frames(seed: int) -> tuple[list[Any], list[str]]:
    """A random Surge game fed to a LiveHub as the arbiter feeds it; its frames and the moves'
    true texts (ply 1, 2, ...)."""
    game = get_game("surge")
    rng = random.Random(seed)
    hub = LiveHub()
    state = game.new_game({}, bytes([seed + 1]) * 32)
    hub.start("m", game, None, {1: "a", 2: "b"}, 0.0, state, {})
    texts: list[str] = []
    while game.outcome(state) is None:
        seat = game.to_move(state)
        action = rng.choice(list(game.legal_actions(state)))
        texts.append(game.format_action(action))
        state = game.apply(state, action)
        hub.applied("m", seat or 1, texts[-1], 0.1, {}, None, state)
    match = hub.get("m")
    assert match is not None
    return match.frames, texts


def test_surge_moves_are_told_when_their_round_is_face_up_and_never_before() -> None:
    for seed in range(6):
        frames, texts = _hub_frames(seed)
        told: dict[int, int] = {}  # ply -> the ply of the frame that told it
        for frame in frames:
            assert frame.action is None  # a frame never tells its own move
            for ply, text in frame.revealed.items():
                assert text == texts[ply - 1] and ply not in told
                told[ply] = frame.ply
                # Told at the frame where the round of that move ended: its stones are face up
                # (the rules turn them up right after the round's second placement).
                assert frame.public.rounds_played > frames[ply - 1].public.rounds_played
                assert frame.public.face_down == ()
        placed = [ply for ply, text in enumerate(texts, 1) if "@" in text]
        assert placed and set(placed) <= set(told), "every placement is told by the end"
        # Never early: a move is told by the first frame of a later round, not after it.
        for ply, at in told.items():
            rounds = [f.public.rounds_played for f in frames[ply - 1 : at + 1]]
            assert rounds[-1] > rounds[0] and rounds[-2] == rounds[0]


def test_board_status_from_public_views() -> None:
    flank = get_game("torrent")
    state = flank.new_game({"size": 5}, b"")
    status = board_status(public_dict(flank.public_view(state)))
    assert status["colours"] in ({"1": "black", "2": "white"}, {"1": "white", "2": "black"})
    assert status["to_move"] == flank.to_move(state)
    surge = get_game("surge")
    state = surge.new_game({}, b"\x01" * 32)
    status = board_status(public_dict(surge.public_view(state)))
    assert status["colours"] == {"1": "blue", "2": "orange"} and status["scores"] == {"1": 0, "2": 0}
    assert status["to_move"] == surge.to_move(state)
    assert re.fullmatch(r"[12]", str(status["to_move"]))
