"""What `arbiter match` shows: a progress bar while games run, a summary table at the end."""

from __future__ import annotations

import statistics
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .local_match import GameResult, RunnerConfig, RunResult
from .stats import Tally, format_elo


class Reporter:
    def __init__(self, config: RunnerConfig, console: Console | None = None) -> None:
        self.config = config
        self.console = console or Console()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[score]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        self.task = self.progress.add_task(f"{config.game}", total=config.games, score="")

    def __enter__(self) -> Reporter:
        self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.progress.stop()

    def game_finished(self, game: GameResult, tally: Tally) -> None:
        score = f"A {tally.wins} - B {tally.losses} - draws {tally.draws}"
        self.progress.update(self.task, advance=1, score=score)
        if game.reason in ("timeout", "illegal_action", "malformed_action"):
            self.progress.console.print(f"game {game.number}: {game.reason} by {game.faulty}: {game.detail}")

    def summary(self, result: RunResult, names: dict[str, str]) -> None:
        tally = result.tally
        cfg = self.config
        table = Table(title=f"{cfg.game} {cfg.options or ''} — {tally.games} games, {cfg.control.describe()}")
        table.add_column("bot")
        for column in ("wins", "losses", "draws", "avg score", "time losses", "illegal moves"):
            table.add_column(column, justify="right")

        def avg(values: list[int]) -> str:
            return f"{statistics.fmean(values):.1f}" if values else "-"

        table.add_row(
            names["A"],
            str(tally.wins),
            str(tally.losses),
            str(tally.draws),
            avg(tally.score_a),
            str(tally.time_losses["A"]),
            str(tally.illegal["A"]),
        )
        table.add_row(
            names["B"],
            str(tally.losses),
            str(tally.wins),
            str(tally.draws),
            avg(tally.score_b),
            str(tally.time_losses["B"]),
            str(tally.illegal["B"]),
        )
        self.console.print(table)
        self.console.print(
            f"score of A: {tally.score_fraction * 100:.1f}%   Elo difference A - B: {format_elo(tally)}"
        )
        endings: Any = ", ".join(f"{k} {v}" for k, v in sorted(tally.reasons.items()))
        self.console.print(f"endings: {endings}")
        self.console.print(f"records: {cfg.records_dir}/")
