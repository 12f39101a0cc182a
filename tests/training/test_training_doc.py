"""docs/training.md's example runs as written: train offline, wrap as a Bot, play it locally."""

from __future__ import annotations

import re

from tests.conftest import ROOT

DOC = ROOT / "docs" / "training.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_training_page_example_trains_and_plays(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks()
    assert len(blocks) == 4
    namespace: dict[str, object] = {"__name__": "training_doc"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert (tmp_path / "torrent5_values.npy").exists()
    assert re.search(r"trained bot won \d+ of 10 as seat 1", capsys.readouterr().out)
    assert callable(namespace["run_cli"])
