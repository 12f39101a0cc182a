"""The ladders this node runs: who is joined, the scheduler that pairs them, results and ratings.

Bots join a ladder over the protocol (``JoinLadder``) and leave by saying so or by disconnecting.
Whenever something changes (a join, a match's end, a tick), the ladder's scheduler pairs joined
bots with free slots and hosting starts their matches. When a ladder match ends, the host decides
how it counts (its termination, whether it is rated), updates the ratings, and hands the whole
result to the store writer, which commits it in one transaction before the bots hear of it.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

import structlog
from arbiter_wire import reasons
from arbiter_wire.limits import MAX_LADDER_CONCURRENCY

from ..hosting import MatchHosting
from ..match.events import MatchEnded, MatchEvent
from ..match.match import MatchSetup
from .model import BotVersion, LadderConfig, Rating, Termination, one_owner
from .ratings import RatingTally, note_latest, starting_tally, tally_game
from .scheduler import Entrant, LadderScheduler, PairHistory, ScheduledPairing

log = structlog.get_logger("arbiter")

#: Matches in a row a bot may fail (timeout, illegal action, gone) before it is paused.
FAILURE_LIMIT = 5
#: Challenges one bot may send to the same opponent on one ladder per day.
CHALLENGES_PER_PAIR_PER_DAY = 10
#: New versions one bot may join ladders with per day (a version it had before is always taken).
NEW_VERSIONS_PER_DAY = 5
DAY = 24 * 3600.0


class LadderRefused(Exception):
    """A ladder request the arbiter does not take, with its machine-readable reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class LadderStore(Protocol):
    """What the ladder host reads from the store (writes go through the store writer)."""

    def get_ladder(self, name: str) -> LadderConfig | None: ...

    def registered(self, bot: str) -> bool:
        """Whether ``bot`` is registered in the store (its ratings and status rows need that)."""
        ...

    def ladder_tallies(self, ladder: str) -> Mapping[BotVersion, RatingTally]: ...

    def latest_versions(self, ladder: str) -> Mapping[str, BotVersion]:
        """Per bot, the version of its last rated match on ``ladder``."""
        ...

    def owner_of(self, bot: str) -> str:
        """Who runs ``bot`` ("" when nobody is named)."""
        ...

    def take_challenge(
        self, ladder: str, challenger: str, opponent: str, now: float, limit: int, window: float
    ) -> bool:
        """Count a challenge unless ``limit`` were sent in the ``window`` before ``now`` (False)."""
        ...

    def admit_version(self, bot: str, version: str, now: float, limit: int, window: float) -> bool:
        """Whether ``bot`` may play as ``version`` (a new one: unless ``limit`` were new in ``window``)."""
        ...

    def paused(self, ladder: str, bot: str) -> str | None: ...

    def failures_in_a_row(self, ladder: str, bot: str) -> int: ...

    def pauses_of(self, bot: str) -> Mapping[str, str]:
        """The ladders on which ``bot`` is paused, with the reason."""
        ...

    def resume_bot(self, ladder: str, bot: str) -> None: ...


class ResultSink(Protocol):
    """Where a ladder result goes to be committed (the store writer)."""

    def ladder_result(self, result: LadderResult) -> None: ...

    def resume_bot(self, ladder: str, bot: str) -> None:
        """Lift the bot's pause and forget its run of failures once the results given before
        are written (one of them pauses it)."""
        ...


@dataclass(frozen=True)
class RatingChange:
    bot: BotVersion
    before: Rating
    after: Rating


@dataclass(frozen=True)
class LadderResult:
    """How a ladder match counts: written with the match's result, in the same transaction."""

    match_id: str
    ladder: str
    termination: Termination
    rated: bool
    changes: tuple[RatingChange, ...]
    #: The two versions' ratings with their counts after this match (empty when unrated).
    tallies: Mapping[BotVersion, RatingTally]
    #: Per bot: whether this match was its failure (a run of them pauses it), and the pause if any.
    failed: Mapping[str, bool]
    paused: Mapping[str, str]
    failure_limit: int


@dataclass(frozen=True)
class JoinAccepted:
    config: LadderConfig
    max_concurrent: int
    version: str
    resumed_from_pause: str


@dataclass
class _Joined:
    bot: str
    version: str
    max_concurrent: int
    waiting_since: float
    running: int = 0
    owner: str = ""


@dataclass
class _Ladder:
    config: LadderConfig
    scheduler: LadderScheduler
    tallies: dict[BotVersion, RatingTally]
    #: Per bot, the version of its last rated match (a new version starts from its rating).
    latest: dict[str, BotVersion] = field(default_factory=dict)
    joined: dict[str, _Joined] = field(default_factory=dict)
    history: PairHistory = field(default_factory=PairHistory)
    failures: dict[str, int] = field(default_factory=dict)
    #: Per bot, its matches counted here whose bots have not been told the result yet, so not
    #: committed either: until they are, the store's run of failures and pause lag behind
    #: ``failures`` and ``pausing``.
    untold: dict[str, set[str]] = field(default_factory=dict)
    #: Per bot, the pause one of its untold results brings (the reason).
    pausing: dict[str, str] = field(default_factory=dict)

    def start_of(self, version: BotVersion) -> RatingTally:
        """The tally ``version``'s next rated game starts from (``ratings.starting_tally``)."""
        return starting_tally(self.tallies, self.latest, version)


def termination_of(event: MatchEnded, connected: Callable[[str], bool]) -> Termination:
    """The ladder's name for how a match ended (a timeout of an absent bot: disconnected)."""
    reason = event.end.reason
    if reason == "aborted":
        return Termination.ABORTED
    if reason in ("illegal_action", "malformed_action"):
        return Termination.ILLEGAL_ACTION
    if reason == "timeout":
        faulty = event.end.faulty_seat
        bot = event.facts.bots.get(faulty or 0)
        return Termination.TIMEOUT if bot is not None and connected(bot) else Termination.DISCONNECTED
    return Termination.GAME_END


def _offered_slots(config: LadderConfig, joined: _Joined, free_overall: int) -> int:
    """The free slots the scheduler is offered: the ladder's, within what the cap per bot leaves
    (``free_overall``). On a duplicate-pairs ladder a bot that can play two at once is offered
    its free slots in twos: a single free slot waits for the other (a leg still running) instead
    of going to a single match, which after the first pairs would be nearly every match (the
    legs of a pair end at different moments)."""
    free = min(joined.max_concurrent - joined.running, free_overall)
    if config.duplicate_pairs and joined.max_concurrent >= 2 and free > 0:
        free -= free % 2
    return free


class LadderHost:
    def __init__(
        self,
        store: LadderStore,
        sink: ResultSink,
        hosting: MatchHosting,
        connected: Callable[[str], bool],
        rng: random.Random | None = None,
        now: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        failure_limit: int = FAILURE_LIMIT,
    ) -> None:
        self.store = store
        self.sink = sink
        self.hosting = hosting
        self.connected = connected
        hosting.on_told.append(self.told)
        self.rng = rng or random.Random()
        self.now = now
        self.wall = wall
        self.failure_limit = failure_limit
        self.ladders: dict[str, _Ladder] = {}
        #: Set when the arbiter stops: no match is scheduled any more (the running ones finish).
        self.stopping = False

    # --- joining ------------------------------------------------------------------------------
    def _ladder(self, name: str) -> _Ladder:
        ladder = self.ladders.get(name)
        if ladder is not None:
            return ladder
        config = self.store.get_ladder(name)
        if config is None or not config.enabled:
            raise LadderRefused(reasons.LADDER_NOT_FOUND, f"no ladder named {name[:40]!r} on this arbiter")
        ladder = _Ladder(
            config,
            LadderScheduler(config, random.Random(self.rng.random())),
            dict(self.store.ladder_tallies(name)),
            dict(self.store.latest_versions(name)),
        )
        self.ladders[name] = ladder
        return ladder

    def join(self, bot: str, version: str, name: str, max_concurrent: int) -> JoinAccepted:
        if not 1 <= max_concurrent <= MAX_LADDER_CONCURRENCY:
            raise LadderRefused(
                reasons.BAD_REQUEST, f"max_concurrent must be between 1 and {MAX_LADDER_CONCURRENCY}"
            )
        ladder = self._ladder(name)
        if not ladder.config.enabled:
            raise LadderRefused(
                reasons.LADDER_NOT_FOUND, f"ladder {name} is archived: it takes no new matches"
            )
        if not self.store.registered(bot):
            # A bot from `serve --bot` or a tokens file: the store could keep none of its results.
            raise LadderRefused(
                reasons.BAD_REQUEST,
                f"bot {bot} is not registered in the arbiter's store (arbiter bots add): "
                "only registered bots play on ladders",
            )
        if not self.store.admit_version(bot, version, self.wall(), NEW_VERSIONS_PER_DAY, DAY):
            raise LadderRefused(
                reasons.RESOURCE_EXHAUSTED,
                f"at most {NEW_VERSIONS_PER_DAY} new versions per bot per day: join with a version "
                "played before, or tomorrow",
            )
        paused, ladder.failures[bot] = self._resume(ladder, bot)
        # Its matches still running on this ladder fill its slots: after a leave, a pause, a
        # reconnect or a restart of the arbiter too (they go on), not only while it stayed joined.
        running = self.hosting.count_running(bot, name)
        owner = self.store.owner_of(bot)
        ladder.joined[bot] = _Joined(bot, version, max_concurrent, self.now(), running, owner)
        log.info("ladder_joined", ladder=name, bot=bot, version=version, max_concurrent=max_concurrent)
        # Soon, not now: the bot hears LadderJoined before the MatchStarted of its first match.
        asyncio.get_running_loop().call_soon(self.schedule, name)
        return JoinAccepted(ladder.config, max_concurrent, version, paused)

    def _resume(self, ladder: _Ladder, bot: str) -> tuple[str, int]:
        """A bot joins: the pause it lifts ("" if none) and its run of failures from now on.
        Joining again resumes a paused bot (its run starts again). A result of it still being
        committed (its bots not told yet) is newer than the store: its count stands, and a
        pause it brings is lifted once it is written."""
        name = ladder.config.name
        paused = self.store.paused(name, bot) or ""
        if paused:
            self.store.resume_bot(name, bot)
        if not ladder.untold.get(bot):
            return paused, 0 if paused else self.store.failures_in_a_row(name, bot)
        paused = ladder.pausing.pop(bot, "") or paused
        if not paused:
            return "", ladder.failures.get(bot, 0)
        self.sink.resume_bot(name, bot)  # once the untold results (one may pause it) are written
        return paused, 0

    def leave(self, bot: str, name: str) -> None:
        ladder = self._ladder(name)
        if ladder.joined.pop(bot, None) is not None:
            log.info("ladder_left", ladder=name, bot=bot)

    def drop(self, bot: str) -> None:
        """The bot's session ended: it leaves every ladder (its running matches go on)."""
        for name, ladder in self.ladders.items():
            if ladder.joined.pop(bot, None) is not None:
                log.info("ladder_left", ladder=name, bot=bot, why="disconnected")

    def stop(self) -> None:
        """The arbiter is stopping: schedule nothing from now on."""
        self.stopping = True

    def pauses(self, bot: str) -> dict[str, str]:
        return dict(self.store.pauses_of(bot))

    def joined_by(self, bot: str) -> list[str]:
        """The ladders ``bot`` has joined now (safe to call from another thread: a snapshot)."""
        return sorted(name for name, ladder in tuple(self.ladders.items()) if bot in ladder.joined)

    def joined_count(self, name: str) -> int:
        ladder = self.ladders.get(name)
        return 0 if ladder is None else len(ladder.joined)

    def lend_slot(self, bot: str, game: str, options: Mapping[str, int]) -> str | None:
        """A free slot of ``bot`` on a ladder of ``game`` with these (normalised) options, for a
        match that is not the ladder's (a person's, ``sessions.human``): the slot is taken (the
        match must carry the ladder as its ``slot_ladder``) and the ladder's name returned; None
        when the bot is joined to no such ladder with a slot free."""
        if self.stopping or not self.hosting.free_for(bot):
            return None
        for ladder in self.ladders.values():
            config = ladder.config
            joined = ladder.joined.get(bot)
            if joined is None or not config.enabled or config.game != game:
                continue
            if dict(config.options) != dict(options) or joined.running >= joined.max_concurrent:
                continue
            joined.running += 1
            return config.name
        return None

    # --- challenges ---------------------------------------------------------------------------
    def challenge(self, bot: str, name: str, opponent: str) -> None:
        ladder = self._ladder(name)
        if not ladder.config.enabled:
            raise LadderRefused(
                reasons.CHALLENGE_REFUSED, f"ladder {name} is archived: it takes no new matches"
            )
        me, them = ladder.joined.get(bot), ladder.joined.get(opponent)
        if me is None:
            raise LadderRefused(reasons.CHALLENGE_REFUSED, f"join ladder {name} before challenging on it")
        if them is None or opponent == bot:
            raise LadderRefused(
                reasons.CHALLENGE_REFUSED, f"{opponent[:40]!r} is not joined to ladder {name}"
            )
        if me.running >= me.max_concurrent or them.running >= them.max_concurrent:
            raise LadderRefused(reasons.CHALLENGE_REFUSED, "no free slot for another match right now")
        for who in (bot, opponent):
            if not self.hosting.free_for(who):
                raise LadderRefused(
                    reasons.RESOURCE_EXHAUSTED,
                    f"{who} already holds {self.hosting.max_per_bot} matches, the most per bot here",
                )
        # Counted in the store: a restart or a failover to another node does not reset it.
        if not self.store.take_challenge(name, bot, opponent, self.wall(), CHALLENGES_PER_PAIR_PER_DAY, DAY):
            raise LadderRefused(
                reasons.RESOURCE_EXHAUSTED,
                f"at most {CHALLENGES_PER_PAIR_PER_DAY} challenges to the same opponent per day",
            )
        mine, theirs = BotVersion(bot, me.version), BotVersion(opponent, them.version)
        # Seats balanced per pair, as the scheduler does: seat 1 to whoever had it less often.
        if ladder.history.seat_1_count(theirs, mine) < ladder.history.seat_1_count(mine, theirs):
            mine, theirs = theirs, mine
        self._start(ladder, ScheduledPairing(mine, theirs), None)

    def reconfigure(self, name: str, config: LadderConfig | None) -> bool:
        """What the store now says of a ladder this host has loaded (``LadderWatch``): archived or
        removed, it starts no new match from now on (running ones finish; the bots stay joined);
        reopened, it schedules again. Whether anything changed."""
        ladder = self.ladders.get(name)
        if ladder is None:
            return False
        enabled = config is not None and config.enabled
        if enabled == ladder.config.enabled:
            return False
        ladder.config = replace(ladder.config, enabled=enabled)
        ladder.scheduler.config = ladder.config
        log.info("ladder_reopened" if enabled else "ladder_archived", ladder=name)
        if enabled:
            self.schedule(name)
        return True

    # --- scheduling ---------------------------------------------------------------------------
    def schedule(self, name: str | None = None) -> int:
        """Start every match the scheduler pairs now (on one ladder, or on all); how many started."""
        started = 0
        if self.stopping:
            return started
        for ladder_name in [name] if name is not None else list(self.ladders):
            ladder = self.ladders[ladder_name]
            # Busy bots (no free slot) are passed too: the scheduler may wait for them to come free.
            entrants = [
                Entrant(
                    version=BotVersion(j.bot, j.version),
                    rating=ladder.start_of(BotVersion(j.bot, j.version)).rating,
                    free_slots=_offered_slots(ladder.config, j, self.hosting.free_for(j.bot)),
                    waiting_since=j.waiting_since,
                )
                for j in ladder.joined.values()
            ]
            if sum(1 for e in entrants if e.free_slots > 0) < 2:
                continue
            seeds: dict[int, bytes] = {}
            for pairing in ladder.scheduler.pairings(entrants, ladder.history, self.now()):
                seed = (
                    None
                    if pairing.group is None
                    else seeds.setdefault(pairing.group, secrets.token_bytes(32))
                )
                self._start(ladder, pairing, seed)
                started += 1
        return started

    def _start(self, ladder: _Ladder, pairing: ScheduledPairing, seed: bytes | None) -> None:
        """Start one match; ``seed`` is shared by the two legs of a duplicate pair."""
        config = ladder.config
        setup = MatchSetup(
            config.game,
            dict(config.options),
            {1: pairing.seat_1.bot, 2: pairing.seat_2.bot},
            config.control,
            config.policy,
            seed=seed,
            ladder=config.name,
            versions={1: pairing.seat_1.version, 2: pairing.seat_2.version},
            rated=self._rated(ladder, pairing),
            paired=seed is not None,
        )
        for bot in (pairing.seat_1.bot, pairing.seat_2.bot):
            joined = ladder.joined.get(bot)
            if joined is not None:
                joined.running += 1
        ladder.history.record(pairing.seat_1, pairing.seat_2, self.now())
        self.hosting.start(setup)

    def _rated(self, ladder: _Ladder, pairing: ScheduledPairing) -> bool:
        """Whether a match of ``pairing`` will move ratings: on a rated ladder, between two
        versions, and (unless the ladder's ``same_owner`` rule is ``flagged``) not between two
        bots of one owner (nor two versions of one bot)."""
        if not ladder.config.rated or pairing.seat_1 == pairing.seat_2:
            return False
        if ladder.config.same_owner == "flagged":
            return True
        one, two = pairing.seat_1.bot, pairing.seat_2.bot
        return not one_owner(one, two, self._owner(ladder, one), self._owner(ladder, two))

    def _owner(self, ladder: _Ladder, bot: str) -> str:
        joined = ladder.joined.get(bot)
        return (joined.owner if joined is not None else self.store.owner_of(bot)).strip()

    # --- results ------------------------------------------------------------------------------
    def __call__(self, event: MatchEvent) -> None:
        """A listener: a ladder match's end frees its slots, is rated and goes to the store."""
        if not isinstance(event, MatchEnded) or event.facts.ladder is None:
            return
        try:
            ladder = self._ladder(event.facts.ladder)  # loaded now if only a restored match used it
        except LadderRefused:
            log.error(
                "ladder_result_without_ladder", ladder=event.facts.ladder, match_id=event.facts.match_id
            )
            return
        result = self.count(ladder, event)
        self.sink.ladder_result(result)
        for bot in set(event.facts.bots.values()):
            joined = ladder.joined.get(bot)
            if joined is not None:
                joined.running = self.hosting.count_running(bot, ladder.config.name)
                joined.waiting_since = self.now()
            if bot in result.paused:
                ladder.joined.pop(bot, None)
                log.warning("ladder_paused", ladder=ladder.config.name, bot=bot, reason=result.paused[bot])
        # After the other listeners have heard of this end (the bots get MatchEnded first).
        asyncio.get_running_loop().call_soon(self.schedule, ladder.config.name)

    def told(self, event: MatchEnded) -> None:
        """The bots of a ladder match have been told its result: its slots are free now."""
        name = event.facts.ladder or self.hosting.slot_ladder_of(event.facts.match_id)
        ladder = self.ladders.get(name) if name is not None else None
        if ladder is None:
            return
        for bot in set(event.facts.bots.values()):
            untold = ladder.untold.get(bot)
            if untold is not None:
                untold.discard(event.facts.match_id)
                if not untold:
                    del ladder.untold[bot]
                    ladder.pausing.pop(bot, None)
            joined = ladder.joined.get(bot)
            if joined is not None:
                joined.running = self.hosting.count_running(bot, ladder.config.name)
        asyncio.get_running_loop().call_soon(self.schedule, ladder.config.name)

    def count(self, ladder: _Ladder, event: MatchEnded) -> LadderResult:
        facts = event.facts
        termination = termination_of(event, self.connected)
        versions = {seat: BotVersion(facts.bots[seat], facts.versions.get(seat, "")) for seat in (1, 2)}
        # The rule of ``ratings.counts``: aborted matches and a version against itself are never
        # rated; whether it was rated at all was decided when it started (``_rated``).
        rated = facts.rated and termination is not Termination.ABORTED and versions[1] != versions[2]
        changes: tuple[RatingChange, ...] = ()
        tallies: dict[BotVersion, RatingTally] = {}
        if rated:
            before = {seat: ladder.start_of(v) for seat, v in versions.items()}
            winner = event.end.winner_seat
            after_1, after_2 = tally_game(
                before[1], before[2], 1 if winner == 1 else 2 if winner == 2 else None
            )
            changes = (
                RatingChange(versions[1], before[1].rating, after_1.rating),
                RatingChange(versions[2], before[2].rating, after_2.rating),
            )
            tallies = {versions[1]: after_1, versions[2]: after_2}
            ladder.tallies.update(tallies)
            note_latest(ladder.latest, versions[1], versions[2])
        failed: dict[str, bool] = {}
        paused: dict[str, str] = {}
        if termination is not Termination.ABORTED:
            faulty_bot = facts.bots.get(event.end.faulty_seat or 0) if termination.bot_fault else None
            for bot in set(facts.bots.values()):
                failed[bot] = bot == faulty_bot
                count = ladder.failures.get(bot, 0) + 1 if failed[bot] else 0
                ladder.failures[bot] = count
                if count >= self.failure_limit:
                    paused[bot] = f"paused after {count} failed matches in a row (last: {termination.value})"
                    ladder.pausing[bot] = paused[bot]
                ladder.untold.setdefault(bot, set()).add(facts.match_id)
        return LadderResult(
            facts.match_id,
            ladder.config.name,
            termination,
            rated,
            changes,
            tallies,
            failed,
            paused,
            self.failure_limit,
        )
