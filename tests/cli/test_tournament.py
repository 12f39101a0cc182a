"""`arbiter tournament`: round-robin and gauntlet crosstables add up; ratings come with them."""

from __future__ import annotations

import json

from arbiter.cli import main
from click.testing import CliRunner

FAST = ["--game", "torrent", "--size", "5", "--base", "5", "--increment", "0.1"]


def run_json(tmp_path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["tournament", *args, *FAST, "--json", "--records", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_round_robin_crosstable_adds_up(tmp_path):
    n = 4
    out = run_json(tmp_path, "greedy", "random", "random", "--games", str(n), "--format", "round-robin")
    names = [bot["name"] for bot in out["bots"]]
    assert names == ["greedy", "random", "random#2"]
    cross = out["crosstable"]
    for a in names:
        assert set(cross[a]) == set(names) - {a}  # every other bot, never itself
        for b in cross[a]:
            assert cross[a][b]["games"] == cross[b][a]["games"] == n
            assert cross[a][b]["points"] + cross[b][a]["points"] == n
    for bot in out["bots"]:
        assert bot["games"] == 2 * n
        assert bot["points"] == sum(cell["points"] for cell in cross[bot["name"]].values())
        assert bot["low"] <= bot["rating"] <= bot["high"]
    assert sum(bot["points"] for bot in out["bots"]) == 3 * n  # 3 pairings of n games
    assert abs(sum(bot["rating"] for bot in out["bots"])) < 1e-6  # mean 0
    folders = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    assert [len(list(f.glob("torrent-*.json"))) for f in folders] == [n, n, n]


def test_a_gauntlet_plays_only_the_first_against_the_others(tmp_path):
    out = run_json(tmp_path, "greedy", "random", "random", "--games", "2", "--format", "gauntlet")
    cross = out["crosstable"]
    assert set(cross["greedy"]) == {"random", "random#2"}
    assert set(cross["random"]) == {"greedy"} and set(cross["random#2"]) == {"greedy"}
    games = {bot["name"]: bot["games"] for bot in out["bots"]}
    assert games == {"greedy": 4, "random": 2, "random#2": 2}
    records = list(tmp_path.glob("*/torrent-*.json"))
    assert len(records) == 4
    for path in records:
        seats = set(json.loads(path.read_text())["seats"].values())
        assert "A-greedy" in seats  # the first bot is in every game


def test_the_table_is_printed(tmp_path):
    result = CliRunner().invoke(
        main, ["tournament", "greedy", "random", *FAST, "--games", "2", "--records", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "greedy vs random: 2 games" in result.output
    assert "Bradley-Terry" in result.output and "2/2" in result.output


def test_a_tournament_needs_two_bots():
    result = CliRunner().invoke(main, ["tournament", "random"])
    assert result.exit_code == 2 and "at least two bots" in result.output
