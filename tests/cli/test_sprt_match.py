"""`arbiter match --sprt`: pairs until the test decides, with its exit status; pairs share a seed."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from arbiter.cli import main
from arbiter.runner.local_match import LocalRunner, RunnerConfig
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from click.testing import CliRunner

FAST = ["--game", "torrent", "--size", "5", "--base", "5", "--increment", "0.1"]


def sprt(tmp_path, *args: str):
    return CliRunner().invoke(main, ["match", *args, *FAST, "--records", str(tmp_path)])


def test_a_better_bot_is_found_long_before_the_game_limit(tmp_path):
    result = sprt(tmp_path, "greedy", "random", "--sprt", "0", "50", "--games", "200")
    assert result.exit_code == 0, result.output
    assert "H1 accepted" in result.output and "LLR" in result.output
    records = list(tmp_path.glob("torrent-*.json"))
    assert 20 <= len(records) < 60 and len(records) % 2 == 0  # from the 10th pair on
    played = re.search(r"games (\d+), pairs (\d+)", result.output)
    assert played and int(played[1]) == len(records) == 2 * int(played[2])  # no game after the verdict


def test_a_worse_bot_accepts_h0(tmp_path):
    result = sprt(tmp_path, "random", "greedy", "--sprt", "0", "50")
    assert result.exit_code == 1, result.output
    assert "H0 accepted" in result.output
    assert "at most 500 pairs" in result.output  # --games is 1000 with --sprt unless given


def test_the_game_limit_leaves_it_inconclusive(tmp_path):
    # One pair cannot decide a test this narrow: |LLR| stays below 1.
    result = sprt(tmp_path, "greedy", "random", "--sprt", "-1", "1", "--games", "3")
    assert result.exit_code == 2, result.output
    assert "inconclusive" in result.output
    assert len(list(tmp_path.glob("torrent-*.json"))) == 2  # whole pairs only


def test_sprt_options_are_checked(tmp_path):
    result = sprt(tmp_path, "greedy", "random", "--sprt", "50", "0")
    assert result.exit_code == 2 and "ELO0 must be below ELO1" in result.output
    result = sprt(tmp_path, "greedy", "random", "--sprt", "0", "50", "--alpha", "0")
    assert result.exit_code == 2 and "alpha" in result.output


def test_surge_pairs_share_a_seed_and_swap_seats(tmp_path):
    config = RunnerConfig(
        bot_a="surge_tips",
        bot_b="random",
        game="surge",
        options={},
        games=6,
        control=TimeControl(base=5.0, increment=0.1),
        policy=MatchPolicy(),
        records_dir=Path(tmp_path),
        paired_seeds=True,
    )
    result = asyncio.run(LocalRunner(config).run())
    by_index = {game.index: game for game in result.games}
    assert sorted(by_index) == list(range(6))
    loaded = [json.loads(p.read_text()) for p in tmp_path.glob("surge-*.json")]
    records = {record["match_id"]: record for record in loaded}
    seeds = []
    for k in range(3):
        first, second = by_index[2 * k], by_index[2 * k + 1]
        assert first.seed and first.seed == second.seed
        assert {first.seat_of_a, second.seat_of_a} == {1, 2}
        assert records[first.match_id]["seed"] == records[second.match_id]["seed"] == first.seed
        seeds.append(first.seed)
    assert len(set(seeds)) == 3  # a new seed for every pair
