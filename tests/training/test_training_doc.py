"""docs/training.md's examples run as written: train offline, wrap as a Bot, play it locally.

The page has two examples, each run on its own: the PettingZoo one (the Python blocks before the
"OpenSpiel" section) and the OpenSpiel one (the blocks of that section).
"""

from __future__ import annotations

import doctest
import re
from typing import Any

from tests.conftest import ROOT

DOC = ROOT / "docs" / "training.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def sections() -> tuple[str, str]:
    """The page before its "## OpenSpiel" section, and that section."""
    text = DOC.read_text(encoding="utf-8")
    before, heading, after = text.partition("\n## OpenSpiel\n")
    assert heading, "docs/training.md has an OpenSpiel section"
    return before, after


def run_blocks(blocks: list[str]) -> dict[str, object]:
    namespace: dict[str, object] = {"__name__": "training_doc"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    return namespace


def test_the_training_page_example_trains_and_plays(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(sections()[0])
    assert len(blocks) == 4
    namespace = run_blocks(blocks)
    assert (tmp_path / "torrent5_values.npy").exists()
    assert re.search(r"trained bot won \d+ of 10 as seat 1", capsys.readouterr().out)
    assert callable(namespace["run_cli"])


def test_the_openspiel_example_searches_offline_and_plays_as_a_bot(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(sections()[1])
    assert len(blocks) == 4
    namespace = run_blocks(blocks)
    out = capsys.readouterr().out
    assert re.search(r"MCTS scored [+-]\d+ in 2 games against random play", out)
    assert re.search(r"MCTS bot won [0-2] of 2 as seat 1", out)
    assert callable(namespace["run_cli"])
    # The bot is an SDK bot whose choose() answers with one of the legal engine actions.
    from arbiter_bot import Bot, TurnContext
    from arbiter_games import get_game

    found = namespace["MctsBot"]
    assert isinstance(found, type) and issubclass(found, Bot)
    bot_class: Any = found
    rules = get_game("torrent")
    state = rules.new_game({"size": 5})
    for move in ("e5", "swap", "d5"):
        rules.apply_in_place(state, rules.parse_action(move))
    legal = rules.legal_actions(state)
    seat = rules.to_move(state)
    assert seat is not None
    context = TurnContext("m", 1, "torrent", {"size": 5}, seat, "black", "other", {1: None, 2: None}, None)
    action = bot_class(simulations=5).choose(rules.observe(state, seat), legal, context)
    assert action in legal


def test_the_openspiel_sections_interpreter_sessions_print_what_they_show():
    blocks = re.findall(r"```pycon\n(.*?)```", sections()[1], flags=re.DOTALL)
    assert len(blocks) == 1
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(verbose=False)
    for i, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, {}, f"training.md pycon {i}", str(DOC), 0))
    results = runner.summarize(verbose=False)
    assert results.attempted >= 3 and results.failed == 0
