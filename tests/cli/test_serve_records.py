"""`arbiter serve` writes record files only when asked (issue 19 item 6): `--database none` kept
nothing but still filled ./records/ (215 files in 7 minutes in one try)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import grpc
from arbiter_bot.bot import MatchSummary
from arbiter_bot.client import run_bot
from arbiter_bot.examples.random_bot import RandomBot

from tests.conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")
SPEC = ("torrent", {"size": 5})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve_and_play(folder: Path, *extra: str) -> None:
    """`arbiter serve --database none` in ``folder``; two SDK bots play one game; SIGTERM."""
    port = _free_port()
    command = [sys.executable, "-m", "arbiter.cli", "serve", "--port", str(port), "--database", "none"]
    command += ["--bot", "a=secret-a", "--bot", "b=secret-b", "--log-level", "warning", *extra]
    process = subprocess.Popen(command, env=ENV, cwd=folder, stderr=subprocess.PIPE, text=True)
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=30)
        channel.close()
        address = f"127.0.0.1:{port}"

        async def play() -> list[list[MatchSummary]]:
            bots = [run_bot(RandomBot(n), address, f"secret-{name}", SPEC, 1) for n, name in enumerate("ab")]
            return await asyncio.wait_for(asyncio.gather(*bots), 60)

        assert [len(s) for s in asyncio.run(play())] == [1, 1]
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
        assert process.returncode == 0, stderr
    finally:
        if process.poll() is None:
            process.kill()


def test_serve_without_records_writes_no_record_file(tmp_path: Path) -> None:
    _serve_and_play(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no records/, and no arbiter.db


def test_serve_with_records_writes_one_file_per_match_there(tmp_path: Path) -> None:
    out = tmp_path / "kept"
    _serve_and_play(tmp_path, "--records", str(out))
    assert len(list(out.glob("*.json"))) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"]


def test_the_records_option_says_what_it_does() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "serve", "--help"], env=ENV, capture_output=True, text=True
    )
    text = " ".join(done.stdout.split())
    assert "--records DIRECTORY Also write one JSON record per finished match" in text
