"""Ladders without a store: configurations, ratings and pauses in memory (a quick local ladder,
and the baseline of ``bench/ladder.py``). Nothing survives the process."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .host import LadderResult
from .model import BotVersion, LadderConfig
from .ratings import RatingTally


class MemoryLadders:
    """The ladder host's store and result sink in one, kept in dictionaries."""

    def __init__(self, ladders: Iterable[LadderConfig]) -> None:
        self.configs = {config.name: config for config in ladders}
        self.tallies: dict[str, dict[BotVersion, RatingTally]] = {}
        self.failures: dict[tuple[str, str], int] = {}
        self.pauses: dict[tuple[str, str], str] = {}
        self.results: list[LadderResult] = []
        self.challenges: dict[tuple[str, str, str], list[float]] = {}
        self.versions: dict[str, dict[str, float]] = {}

    def get_ladder(self, name: str) -> LadderConfig | None:
        return self.configs.get(name)

    def registered(self, bot: str) -> bool:
        return True  # nothing is stored, so any bot the arbiter knows may join

    def ladder_tallies(self, ladder: str) -> Mapping[BotVersion, RatingTally]:
        return dict(self.tallies.get(ladder, {}))

    def latest_versions(self, ladder: str) -> Mapping[str, BotVersion]:
        latest: dict[str, BotVersion] = {}
        for result in self.results:
            if result.ladder == ladder and result.tallies:
                first, second = result.tallies  # seat 1's version, then seat 2's
                latest[first.bot], latest[second.bot] = first, second
        return latest

    def owner_of(self, bot: str) -> str:
        return ""  # no owners without a store

    def take_challenge(
        self, ladder: str, challenger: str, opponent: str, now: float, limit: int, window: float
    ) -> bool:
        key = (ladder, challenger, opponent)
        sent = [t for t in self.challenges.get(key, []) if t > now - window]
        if len(sent) >= limit:
            return False
        self.challenges[key] = [*sent, now]
        return True

    def admit_version(self, bot: str, version: str, now: float, limit: int, window: float) -> bool:
        seen = self.versions.setdefault(bot, {})
        if version in seen:
            return True
        if sum(1 for first in seen.values() if first > now - window) >= limit:
            return False
        seen[version] = now
        return True

    def paused(self, ladder: str, bot: str) -> str | None:
        return self.pauses.get((ladder, bot))

    def failures_in_a_row(self, ladder: str, bot: str) -> int:
        return self.failures.get((ladder, bot), 0)

    def pauses_of(self, bot: str) -> Mapping[str, str]:
        return {ladder: why for (ladder, name), why in self.pauses.items() if name == bot}

    def resume_bot(self, ladder: str, bot: str) -> None:
        self.pauses.pop((ladder, bot), None)
        self.failures.pop((ladder, bot), None)

    def ladder_result(self, result: LadderResult) -> None:
        self.results.append(result)
        self.tallies.setdefault(result.ladder, {}).update(result.tallies)
        for bot, failed in result.failed.items():
            key = (result.ladder, bot)
            self.failures[key] = self.failures.get(key, 0) + 1 if failed else 0
        for bot, why in result.paused.items():
            self.pauses[(result.ladder, bot)] = why
