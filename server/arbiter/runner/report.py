"""What `arbiter match` and `arbiter tournament` show: progress while games run, a summary at the end."""

from __future__ import annotations

import statistics
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .local_match import GameResult, LocalRunner, RunnerConfig, RunResult
from .sprt import PairBook, Sprt, Verdict
from .stats import Tally, format_elo
from .tournament import Crosstable, Tournament


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


class TournamentReporter:
    """Progress of `arbiter tournament` (a line per pairing, a bar), then the crosstable and ratings."""

    def __init__(self, tournament: Tournament, console: Console | None = None) -> None:
        self.tournament = tournament
        self.console = console or Console()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        base = tournament.base
        self.task = self.progress.add_task(f"{base.game} {tournament.form}", total=tournament.total_games)

    def __enter__(self) -> TournamentReporter:
        self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.progress.stop()

    def pairing_started(self, a: int, b: int) -> None:
        names = self.tournament.names
        self.progress.console.print(f"{names[a]} vs {names[b]}: {self.tournament.base.games} games")

    def game_finished(self, a: int, b: int, game: GameResult, tally: Tally) -> None:
        self.progress.update(self.task, advance=1)
        if game.reason in ("timeout", "illegal_action", "malformed_action"):
            faulty = self.tournament.names[a if game.faulty == "A" else b]
            self.progress.console.print(f"{game.reason} by {faulty}: {game.detail}")

    def summary(self, table: Crosstable) -> None:
        names = table.names
        base = self.tournament.base
        cross = Table(
            title=f"{base.game} {base.options or ''} {self.tournament.form} — {base.control.describe()}",
            caption="points of the row against the column / games",
        )
        cross.add_column("bot")
        for k in range(len(names)):
            cross.add_column(str(k + 1), justify="right")
        cross.add_column("points", justify="right")
        cross.add_column("games", justify="right")
        for i, name in enumerate(names):
            cells = [
                "-" if i == j else f"{table.points[i][j]:g}/{table.games[i][j]}" if table.games[i][j] else ""
                for j in range(len(names))
            ]
            cross.add_row(f"{i + 1} {name}", *cells, f"{table.total(i):g}", str(table.played(i)))
        self.console.print(cross)
        ratings = Table(title="ratings", caption="whole-history Bradley-Terry fit (Elo-like, mean 0)")
        for column in ("rank", "bot", "rating", "95% interval", "games"):
            ratings.add_column(column, justify="left" if column == "bot" else "right")
        for rank, row in enumerate(table.ratings(), 1):
            ratings.add_row(
                str(rank),
                row.bot_version.bot,
                f"{row.rating:+.0f}",
                f"{row.low:+.0f} .. {row.high:+.0f}",
                str(row.games),
            )
        self.console.print(ratings)
        self.console.print(f"records: {base.records_dir}/")


class SprtReporter:
    """`arbiter match --sprt`: a line per finished pair (pentanomial, LLR, bounds), then the verdict."""

    def __init__(self, sprt: Sprt, runner: LocalRunner, console: Console | None = None) -> None:
        self.sprt = sprt
        self.runner = runner
        self.console = console or Console()
        self.book = PairBook()
        self.verdict = Verdict.CONTINUE

    def game_finished(self, game: GameResult, tally: Tally) -> None:
        if game.reason in ("timeout", "illegal_action", "malformed_action"):
            self.console.print(f"game {game.number}: {game.reason} by {game.faulty}: {game.detail}")
        points = self.book.add(game.index, game.points_of_a)
        if points is None or self.verdict is not Verdict.CONTINUE:
            return
        self.verdict = self.sprt.add_pair(points)
        bounds = self.sprt.bounds
        penta = " ".join(str(c) for c in self.sprt.penta.counts)
        llr = self.sprt.llr()
        early = ""
        if self.sprt.penta.pairs < self.sprt.min_pairs and not bounds.lower < llr < bounds.upper:
            side = "upper" if llr >= bounds.upper else "lower"
            early = f"   {side} bound crossed, but no decision before {self.sprt.min_pairs} pairs: playing on"
        self.console.print(
            f"pair {self.sprt.penta.pairs}: {points:g}/2   pentanomial [{penta}]   "
            f"LLR {llr:+.2f} ({bounds.lower:+.2f}, {bounds.upper:+.2f}){early}"
        )
        if self.verdict is not Verdict.CONTINUE:
            self.runner.stop()

    def summary(self, result: RunResult, names: dict[str, str]) -> None:
        sprt = self.sprt
        tally = result.tally
        self.console.print(
            f"games {tally.games}, pairs {sprt.penta.pairs}, score of A {tally.score_fraction * 100:.1f}%, "
            f"Elo A - B {format_elo(tally)}"
        )
        verdict = {
            Verdict.H1: f"H1 accepted: {names['A']} is better (elo1 {sprt.elo1:g})",
            Verdict.H0: f"H0 accepted: {names['A']} is not better by more than elo0 {sprt.elo0:g}",
            Verdict.CONTINUE: "inconclusive: the game limit came first",
        }[self.verdict]
        self.console.print(
            f"SPRT [{sprt.elo0:g}, {sprt.elo1:g}] alpha {sprt.alpha:g} beta {sprt.beta:g}: "
            f"LLR {sprt.llr():+.2f} ({sprt.bounds.lower:+.2f}, {sprt.bounds.upper:+.2f}) — {verdict}"
        )
        self.console.print(f"records: {self.runner.config.records_dir}/")
