"""What the runner prints of its figures (issue 19 item 11): no `inf`, no `-0`, and an SPRT bound
crossed before the minimum number of pairs is said to be crossed, not passed over in silence."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from arbiter.runner.local_match import GameResult
from arbiter.runner.report import SprtReporter
from arbiter.runner.sprt import MIN_PAIRS, Sprt, Verdict
from arbiter.runner.stats import Tally, format_elo
from rich.console import Console


def tally(wins: int, losses: int, draws: int) -> Tally:
    return Tally(wins=wins, losses=losses, draws=draws)


@pytest.mark.parametrize(
    ("wins", "losses", "draws"),
    [(10, 0, 0), (0, 10, 0), (1, 0, 0), (9, 1, 0), (1, 9, 0), (5, 5, 0), (0, 0, 3), (50, 49, 1), (0, 0, 0)],
)
def test_the_elo_line_is_never_infinite_nor_minus_zero(wins, losses, draws):
    text = format_elo(tally(wins, losses, draws))
    assert "inf" not in text and not re.search(r"-0(?!\d)", text), text


def test_perfect_scores_give_the_bound_they_allow():
    perfect = format_elo(tally(10, 0, 0))
    assert perfect.startswith("above +") and "every game won" in perfect
    assert format_elo(tally(0, 10, 0)).startswith("below -")
    # More games won in a row allow a higher bound.
    bound = [int(format_elo(tally(n, 0, 0)).split()[1]) for n in (5, 20, 80)]
    assert bound == sorted(bound) and len(set(bound)) == 3
    assert format_elo(tally(5, 5, 0)).startswith("0 ± ")
    assert format_elo(tally(0, 0, 0)) == "no games yet"


class _Runner:
    stopped = False

    def stop(self) -> None:
        self.stopped = True


def _game(index: int, points: float) -> GameResult:
    winner = "A" if points == 1 else "B" if points == 0 else None
    return GameResult(index + 1, f"m{index}", 1 + index % 2, winner, (1, 0), "two_passes", None, "", index)


def test_a_bound_crossed_before_the_minimum_pairs_is_said(tmp_path):
    out = io.StringIO()
    sprt = Sprt(0.0, 50.0)
    runner: Any = _Runner()
    reporter = SprtReporter(sprt, runner, Console(file=out, width=200))
    for index in range(2 * MIN_PAIRS):
        reporter.game_finished(_game(index, 1.0), Tally())
    lines = out.getvalue().splitlines()
    early = [line for line in lines if "bound crossed, but no decision before" in line]
    assert early and all(int(line.split()[1].rstrip(":")) < MIN_PAIRS for line in early)
    assert f"upper bound crossed, but no decision before {MIN_PAIRS} pairs: playing on" in early[0]
    assert reporter.verdict is Verdict.H1 and runner.stopped
    assert not any("bound crossed" in line for line in lines if int(line.split()[1].rstrip(":")) >= MIN_PAIRS)
