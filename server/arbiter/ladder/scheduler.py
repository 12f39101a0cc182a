"""The ladder scheduler: who plays whom next, among the bots joined to one ladder.

A ladder has no seeks: its joined bots are paired continuously. The scheduler is pure and
deterministic given its inputs and a ``random.Random``: it does no I/O and reads no clock (``now``
is passed in), and it never changes its inputs. Hosting calls :meth:`LadderScheduler.pairings`
whenever a slot may have come free (a bot joined, unpaused, or a match ended), starts the
matches it returns, and records each of them in the :class:`PairHistory` it passes next time.

The rules, in the order they are applied:

1. **Longest waiting first.** Entrants are served in order of ``waiting_since`` (the moment
   each last started a match or joined; ties by :class:`BotVersion`). The served entrant picks
   its opponent, then both count as having started a match at ``now`` and queue behind the
   others, so an entrant with several free slots gets one match per turn, not all of them at once.
2. **An opponent of close rating, with some chance.** The candidates are the other entrants with
   a free slot.

   a. *No immediate rematch while another opponent is free.* A candidate is a rematch if the
      served entrant's last match was against it or its last match was against the served
      entrant (the matches chosen earlier in the same call count). Rematches are dropped when any
      other candidate remains. When only rematches remain, the rematch is played if no other
      entrant can come free (every other one is paused, or there is none); while another
      entrant is busy (not paused, no free slot) the served entrant is passed over in this call
      and waits for that match to end. Hosting calls whenever a match ends, so this breaks the
      lock the literal rule falls into: two bots whose match ends while all others are playing
      would otherwise replay each other at once, every time (``defer_rematches=False`` restores
      that behaviour). An entrant that can never come free must be passed as paused or left out.
   b. *Fill the slots.* Of the remaining candidates only those are kept that leave the free
      slots able to form the most matches possible (see rule 6).
   c. *Close ratings preferred.* One of those is sampled with probability proportional to
      :func:`match_quality`, the TrueSkill draw probability of the two ratings: close ratings
      are preferred, and any pairing stays possible.
3. **Never a bot against itself.** Self means the same :class:`BotVersion`; the entrants must
   name distinct versions. Two versions of the same bot name *may* play each other: that is how a
   new version is measured against its predecessor.
4. **Seats balanced per pair.** Of the two, the one that sat in seat 1 fewer times against the
   other gets seat 1; on a tie, the longer waiting one (the served entrant). Over any history
   built by this rule the two counts of a pair differ by at most one.
5. **Concurrency respected.** An entrant appears in at most ``free_slots`` of the pairings of one
   call (its concurrency minus its running matches; zero or less means none). Paused entrants are
   never scheduled. A disabled ladder (``LadderConfig.enabled`` false) schedules nothing.
6. **As many matches as possible.** Pairing goes on while two entrants with free slots remain
   that may play (rule 2a). Rule 2b makes each choice keep the largest number of matches the
   free slots allow, ``min(total // 2, total - largest)``: a bot with more free slots than all the
   others together is taken as the opponent rather than left idle. Rule 2a comes first, so an
   earlier choice that avoided a rematch can leave one entrant with several free slots and
   nobody to play (about one call in twenty with random slots of 1 to 4); it waits for the next
   call.

Duplicate pairs (``LadderConfig.duplicate_pairs``): a pairing of two entrants that both have two
free slots is played twice, same seed, seats swapped. The two :class:`ScheduledPairing` values
are listed together, share a ``group`` and use two slots of each bot; the first leg's seats follow
rule 4, so the pair's seat counts stay balanced. An entrant with one free slot left plays a single
match (``group`` None). Hosting draws one seed per group.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from .model import BotVersion, LadderConfig, Rating

#: The skill-class width of the rating model (openskill/TrueSkill default: ``mu0 / 6``).
BETA = 25.0 / 6.0

#: Floor for a sampling weight, so that a pairing of far-apart ratings stays possible (and a sum
#: of weights that all underflowed is not zero).
MIN_WEIGHT = 1e-12


def match_quality(a: Rating, b: Rating, beta: float = BETA) -> float:
    """TrueSkill's draw probability of two ratings, in (0, 1]: 1 for equal, certain ratings.

    ``c2 = 2 beta^2 + sigma_a^2 + sigma_b^2``; quality ``= sqrt(2 beta^2 / c2) * exp(-(mu_a -
    mu_b)^2 / (2 c2))``. Uncertain ratings make every opponent look alike (a new bot meets all
    sorts); certain ratings make distance count.
    """
    c2 = 2.0 * beta * beta + a.sigma * a.sigma + b.sigma * b.sigma
    return math.sqrt(2.0 * beta * beta / c2) * math.exp(-((a.mu - b.mu) ** 2) / (2.0 * c2))


def max_matches(free_slots: Iterable[int]) -> int:
    """The most matches the given free slots can form, no bot playing itself."""
    slots = [s for s in free_slots if s > 0]
    if not slots:
        return 0
    total = sum(slots)
    return min(total // 2, total - max(slots))


@dataclass(frozen=True)
class Entrant:
    """A bot version joined to the ladder, as the scheduler sees it at one moment."""

    version: BotVersion
    rating: Rating
    #: Its concurrency minus its running matches on this ladder.
    free_slots: int
    #: When it last started a match, or joined if it has not yet (seconds, hosting's clock).
    waiting_since: float
    paused: bool = False

    @property
    def bot(self) -> str:
        return self.version.bot


@dataclass(frozen=True)
class ScheduledPairing:
    """One match to start: ``seat_1`` moves first.

    ``group`` is set on the two legs of a duplicate pair (same seed, seats swapped), which are
    adjacent in the result; it is unique within one call's result. None for a single match.
    """

    seat_1: BotVersion
    seat_2: BotVersion
    group: int | None = None
    #: :func:`match_quality` of the two ratings, for logs.
    quality: float = 1.0

    @property
    def duplicate(self) -> bool:
        return self.group is not None


def _pair(a: BotVersion, b: BotVersion) -> frozenset[BotVersion]:
    return frozenset((a, b))


@dataclass
class PairHistory:
    """What the scheduler remembers of past matches; hosting records each match it starts."""

    #: Per unordered pair: when (or at which sequence number) the two last started a match.
    last_met: dict[frozenset[BotVersion], float] = field(default_factory=dict)
    #: Per unordered pair: how many matches the two have started.
    meetings: dict[frozenset[BotVersion], int] = field(default_factory=dict)
    #: Per ordered pair ``(x, y)``: how many times ``x`` sat in seat 1 against ``y``.
    first_seats: dict[tuple[BotVersion, BotVersion], int] = field(default_factory=dict)
    #: Each bot version's opponent in the last match it started.
    last_opponent: dict[BotVersion, BotVersion] = field(default_factory=dict)

    def record(self, seat_1: BotVersion, seat_2: BotVersion, at: float) -> None:
        """A match started at ``at`` with these seats."""
        pair = _pair(seat_1, seat_2)
        self.last_met[pair] = at
        self.meetings[pair] = self.meetings.get(pair, 0) + 1
        self.first_seats[(seat_1, seat_2)] = self.first_seats.get((seat_1, seat_2), 0) + 1
        self.last_opponent[seat_1] = seat_2
        self.last_opponent[seat_2] = seat_1

    def seat_1_count(self, bot: BotVersion, against: BotVersion) -> int:
        return self.first_seats.get((bot, against), 0)

    def met(self, a: BotVersion, b: BotVersion) -> int:
        return self.meetings.get(_pair(a, b), 0)

    def copy(self) -> PairHistory:
        return PairHistory(
            dict(self.last_met), dict(self.meetings), dict(self.first_seats), dict(self.last_opponent)
        )


class LadderScheduler:
    """Pairs a ladder's entrants by the rules of this module's docstring.

    ``defer_rematches`` (rule 2a): hold back a rematch that is the only option while another
    entrant is busy; false schedules it at once, which locks pairs (see the module docstring).
    """

    def __init__(self, config: LadderConfig, rng: random.Random, *, defer_rematches: bool = True) -> None:
        self.config = config
        self.rng = rng
        self.defer_rematches = defer_rematches

    def pairings(
        self, entrants: Sequence[Entrant], history: PairHistory, now: float
    ) -> list[ScheduledPairing]:
        """The matches to start now, in the order they were chosen. Changes neither input."""
        versions = [e.version for e in entrants]
        if len(set(versions)) != len(versions):
            raise ValueError("each entrant must be a distinct bot version")
        if not self.config.enabled:
            return []
        # Someone who will come free when a match of theirs ends: a rematch may wait for them.
        someone_busy = any(not e.paused and e.free_slots <= 0 for e in entrants)
        # Working state: free slots and waiting times as the pairings of this call consume them.
        ready = sorted((e for e in entrants if not e.paused and e.free_slots > 0), key=lambda e: e.version)
        active = {e.version: e for e in ready}
        memory = history.copy()
        deferred: set[BotVersion] = set()
        result: list[ScheduledPairing] = []
        groups = 0
        while len(active) >= 2:
            servable = [e for e in active.values() if e.version not in deferred]
            if not servable:
                break
            served = min(servable, key=_queue_key)
            opponent = self._opponent(served, active, memory, someone_busy)
            if opponent is None:
                deferred.add(served.version)
                continue
            legs = self._legs(served, opponent)
            first, second = _seats(served, opponent, memory)
            quality = match_quality(served.rating, opponent.rating)
            group = None
            if legs == 2:
                group = groups
                groups += 1
            result.append(ScheduledPairing(first, second, group, quality))
            memory.record(first, second, now)
            if legs == 2:
                result.append(ScheduledPairing(second, first, group, quality))
                memory.record(second, first, now)
            for entrant in (served, opponent):
                left = entrant.free_slots - legs
                if left > 0:
                    active[entrant.version] = replace(entrant, free_slots=left, waiting_since=now)
                else:
                    del active[entrant.version]
            deferred.clear()  # slots and last opponents changed: look again
        return result

    def _opponent(
        self, served: Entrant, active: dict[BotVersion, Entrant], memory: PairHistory, someone_busy: bool
    ) -> Entrant | None:
        """The served entrant's opponent, or None to hold a rematch back."""
        candidates = [e for v, e in active.items() if v != served.version]
        # (a) no immediate rematch while another opponent is free; hold it back while one is busy.
        fresh = [e for e in candidates if not _rematch(served.version, e.version, memory)]
        if fresh:
            candidates = fresh
        elif self.defer_rematches and someone_busy:
            return None
        # (b) keep the choices that leave the most matches possible.
        reach = {e.version: self._reach(served, e, active) for e in candidates}
        best = max(reach.values())
        candidates = [e for e in candidates if reach[e.version] == best]
        # (c) sample by match quality.
        weights = [max(match_quality(served.rating, e.rating), MIN_WEIGHT) for e in candidates]
        point = self.rng.random() * sum(weights)
        for entrant, weight in zip(candidates, weights, strict=True):
            point -= weight
            if point < 0:
                return entrant
        return candidates[-1]

    def _legs(self, a: Entrant, b: Entrant) -> int:
        """2 for a duplicate pair (both have two free slots on a duplicate-pairs ladder), else 1."""
        return 2 if self.config.duplicate_pairs and a.free_slots >= 2 and b.free_slots >= 2 else 1

    def _reach(self, served: Entrant, opponent: Entrant, active: dict[BotVersion, Entrant]) -> int:
        """How many matches the call can still start if these two play now."""
        legs = self._legs(served, opponent)
        slots = [
            e.free_slots - legs if v in (served.version, opponent.version) else e.free_slots
            for v, e in active.items()
        ]
        return legs + max_matches(slots)


def _rematch(a: BotVersion, b: BotVersion, memory: PairHistory) -> bool:
    """Whether either one's last match was against the other."""
    return memory.last_opponent.get(a) == b or memory.last_opponent.get(b) == a


def _queue_key(entrant: Entrant) -> tuple[float, BotVersion]:
    return (entrant.waiting_since, entrant.version)


def _seats(served: Entrant, opponent: Entrant, memory: PairHistory) -> tuple[BotVersion, BotVersion]:
    """Seat 1 to the one with fewer first seats against the other; on a tie, the longer waiting one."""
    a, b = served.version, opponent.version
    key_a = (memory.seat_1_count(a, b), _queue_key(served))
    key_b = (memory.seat_1_count(b, a), _queue_key(opponent))
    return (a, b) if key_a <= key_b else (b, a)
