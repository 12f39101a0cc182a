"""The ladder scheduler: each rule of arbiter.ladder.scheduler's docstring, and a small simulation."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from arbiter.ladder.model import BotVersion, LadderConfig, Rating
from arbiter.ladder.scheduler import (
    Entrant,
    LadderScheduler,
    PairHistory,
    ScheduledPairing,
    match_quality,
    max_matches,
)
from arbiter_games.timecontrol import TimeControl

CONFIG = LadderConfig("surge-ladder", "surge", {}, TimeControl(base=60.0))
DUPLICATE = LadderConfig("surge-ladder", "surge", {}, TimeControl(base=60.0), duplicate_pairs=True)
NEW = Rating(25.0, 25.0 / 3.0)
NOW = 100.0


def v(name: str, version: str = "1") -> BotVersion:
    return BotVersion(name, version)


def entrant(
    name: str,
    since: float = 0.0,
    slots: int = 1,
    rating: Rating = NEW,
    paused: bool = False,
    version: str = "1",
) -> Entrant:
    return Entrant(v(name, version), rating, slots, since, paused)


def schedule(
    entrants: Sequence[Entrant],
    history: PairHistory | None = None,
    seed: int = 0,
    config: LadderConfig = CONFIG,
) -> list[ScheduledPairing]:
    return LadderScheduler(config, random.Random(seed)).pairings(entrants, history or PairHistory(), NOW)


def players(p: ScheduledPairing) -> set[BotVersion]:
    return {p.seat_1, p.seat_2}


def uses(pairings: Sequence[ScheduledPairing]) -> Counter[BotVersion]:
    return Counter(bot for p in pairings for bot in (p.seat_1, p.seat_2))


# -- match quality ------------------------------------------------------------------------------


def test_match_quality_is_the_trueskill_draw_probability():
    assert match_quality(Rating(25, 0), Rating(25, 0)) == pytest.approx(1.0)
    a, b = Rating(20, 3), Rating(28, 5)
    assert match_quality(a, b) == pytest.approx(match_quality(b, a))
    c2 = 2 * (25 / 6) ** 2 + 9 + 25
    assert match_quality(a, b) == pytest.approx(
        (2 * (25 / 6) ** 2 / c2) ** 0.5 * 2.718281828459045 ** (-64 / (2 * c2))
    )
    # Farther is worse; uncertainty flattens the difference.
    assert match_quality(Rating(25, 2), Rating(26, 2)) > match_quality(Rating(25, 2), Rating(35, 2))
    far_certain = match_quality(Rating(25, 1), Rating(40, 1)) / match_quality(Rating(25, 1), Rating(25, 1))
    far_unsure = match_quality(Rating(25, 8), Rating(40, 8)) / match_quality(Rating(25, 8), Rating(25, 8))
    assert far_certain < far_unsure


def test_max_matches():
    assert max_matches([]) == 0
    assert max_matches([3]) == 0
    assert max_matches([1, 1, 1]) == 1
    assert max_matches([1, 1, 2]) == 2
    assert max_matches([5, 1, 1]) == 2
    assert max_matches([2, 2, 2]) == 3
    assert max_matches([0, -1, 1]) == 0


# -- rule 1: longest waiting first --------------------------------------------------------------


def test_the_longest_waiting_entrant_is_served_first():
    entrants = [entrant("a", since=30), entrant("b", since=10), entrant("c", since=20)]
    for seed in range(100):
        (pairing,) = schedule(entrants, seed=seed)
        assert v("b") in players(pairing)


def test_pairings_come_in_waiting_order_and_a_served_entrant_queues_behind_the_others():
    entrants = [
        entrant("a", since=0, slots=2),
        entrant("b", since=1),
        entrant("c", since=2),
        entrant("d", since=3),
        entrant("e", since=4),
        entrant("f", since=5),
    ]
    seen_orders = set()
    for seed in range(200):
        pairings = schedule(entrants, seed=seed)
        assert len(pairings) == 3
        # Replay the queue: each pairing holds the longest-waiting entrant that still has a slot.
        since = {e.version: e.waiting_since for e in entrants}
        slots = {e.version: e.free_slots for e in entrants}
        for p in pairings:
            first = min((s, b) for b, s in since.items() if slots[b] > 0)[1]
            assert first in players(p)
            for b in players(p):
                slots[b] -= 1
                since[b] = NOW
        # "a" got its first match in the first pairing and its second only after others were served.
        assert v("a") in players(pairings[0])
        seen_orders.add(tuple(v("a") in players(p) for p in pairings))
    assert (True, False, True) in seen_orders


# -- rule 2: close ratings preferred, no immediate rematch ---------------------------------------


def test_close_ratings_are_preferred_but_not_always_chosen():
    a = entrant("a", since=0, rating=Rating(25, 2))
    near = entrant("near", since=5, rating=Rating(26, 2))
    mid = entrant("mid", since=5, rating=Rating(30, 2))
    far = entrant("far", since=5, rating=Rating(36, 2))
    scheduler = LadderScheduler(CONFIG, random.Random(2024))
    opponents: Counter[str] = Counter()
    for _ in range(2000):
        pairings = scheduler.pairings([a, near, mid, far], PairHistory(), NOW)
        (opponent,) = players(pairings[0]) - {a.version}
        opponents[opponent.bot] += 1
    assert opponents["near"] > opponents["mid"] > opponents["far"] > 0
    # Sampled in proportion to the match quality.
    qualities = {e.bot: match_quality(a.rating, e.rating) for e in (near, mid, far)}
    for name, quality in qualities.items():
        assert opponents[name] / 2000 == pytest.approx(quality / sum(qualities.values()), abs=0.04)


def test_no_immediate_rematch_while_another_opponent_is_free():
    history = PairHistory()
    history.record(v("a"), v("b"), 50.0)
    # "b" is a's twin in rating, "c" is far: without the rule "b" would be chosen almost always.
    entrants = [
        entrant("a", since=0, rating=Rating(25, 1)),
        entrant("b", since=10, rating=Rating(25, 1)),
        entrant("c", since=10, rating=Rating(45, 1)),
    ]
    for seed in range(100):
        (pairing,) = schedule(entrants, history, seed=seed)
        assert players(pairing) == {v("a"), v("c")}


def test_a_rematch_when_it_is_the_only_option():
    history = PairHistory()
    history.record(v("a"), v("b"), 50.0)
    (pairing,) = schedule([entrant("a", since=0), entrant("b", since=10)], history)
    assert players(pairing) == {v("a"), v("b")}
    # A paused entrant will not come free: the rematch is still the only option.
    (pairing,) = schedule([entrant("a"), entrant("b", since=10), entrant("c", slots=2, paused=True)], history)
    assert players(pairing) == {v("a"), v("b")}


def test_a_rematch_waits_while_another_entrant_is_busy():
    # The pair whose match just ended is free, everyone else is playing: scheduling the rematch
    # at once would lock the two together, so it waits for the next match to end.
    history = PairHistory()
    history.record(v("a"), v("b"), 50.0)
    history.record(v("c"), v("d"), 60.0)
    entrants = [
        entrant("a", since=50),
        entrant("b", since=50),
        entrant("c", since=60, slots=0),
        entrant("d", 60, 0),
    ]
    assert schedule(entrants, history) == []
    # c and d finish: nobody plays its last opponent.
    entrants = [
        entrant("a", since=50),
        entrant("b", since=50),
        entrant("c", since=60),
        entrant("d", since=60),
    ]
    for seed in range(50):
        pairings = schedule(entrants, history, seed=seed)
        assert len(pairings) == 2
        assert all(frozenset(players(p)) not in history.meetings for p in pairings)
    # Without deferral the rematch is played at once.
    scheduler = LadderScheduler(CONFIG, random.Random(0), defer_rematches=False)
    busy = [
        entrant("a", since=50),
        entrant("b", since=50),
        entrant("c", since=60, slots=0),
        entrant("d", 60, 0),
    ]
    (pairing,) = scheduler.pairings(busy, history, NOW)
    assert players(pairing) == {v("a"), v("b")}


def test_a_rematch_counts_from_either_side():
    # b's last match was against a (a has played c since): a and b are a rematch for b.
    history = PairHistory()
    history.record(v("a"), v("b"), 10.0)
    history.record(v("a"), v("c"), 20.0)
    entrants = [entrant("a", since=20), entrant("b", since=10), entrant("d", since=30, rating=Rating(60, 1))]
    for seed in range(20):
        (pairing,) = schedule(entrants, history, seed=seed)
        assert players(pairing) == {v("b"), v("d")}


def test_the_served_entrant_never_gets_one_whose_last_opponent_it_was():
    # Issue 20, property 6. a (served: it waited longest) last played c; b's last opponent was a
    # (b has not played since); c has played e since. b and c are a's rating twins, so only the
    # rule keeps them apart: a gets d, the free candidate neither side last met, never b (a
    # rematch from b's side) nor c (from a's side).
    history = PairHistory()
    history.record(v("a"), v("b"), 10.0)
    history.record(v("c"), v("a"), 20.0)
    history.record(v("c"), v("e"), 25.0)
    twin = Rating(25, 1)
    entrants = [
        entrant("a", since=0, rating=twin),
        entrant("b", since=10, rating=twin),
        entrant("c", since=20, rating=twin),
        entrant("d", since=30, rating=Rating(60, 1)),
    ]
    for seed in range(50):
        first, *rest = schedule(entrants, history, seed=seed)
        assert players(first) == {v("a"), v("d")}
        # b and c remain: neither's last opponent is the other, so they may meet.
        assert [players(p) for p in rest] == [{v("b"), v("c")}]
    # The same from the other seat of the history: b's last match had a in seat 2.
    flipped = PairHistory()
    flipped.record(v("b"), v("a"), 10.0)
    flipped.record(v("a"), v("c"), 20.0)
    flipped.record(v("e"), v("c"), 25.0)
    for seed in range(50):
        first, *_ = schedule(entrants, flipped, seed=seed)
        assert players(first) == {v("a"), v("d")}


def test_a_paused_entrant_without_a_free_slot_does_not_hold_back_the_only_rematch():
    # Issue 20, property 7. Only a and b are free and they just met: the rematch waits while
    # another entrant will come free, but a paused one never will (whatever its free slots).
    history = PairHistory()
    history.record(v("a"), v("b"), 50.0)
    for slots in (0, -1, 2):
        entrants = [
            entrant("a", since=50),
            entrant("b", since=50),
            entrant("c", since=0, slots=slots, paused=True),
        ]
        (pairing,) = schedule(entrants, history)
        assert players(pairing) == {v("a"), v("b")}, slots
    # Against that, a busy entrant that is not paused does hold it back.
    busy = [entrant("a", since=50), entrant("b", since=50), entrant("c", since=0, slots=0)]
    assert schedule(busy, history) == []


def test_no_rematch_within_one_call_either():
    # "a" has two slots and meets both others rather than one of them twice.
    entrants = [
        entrant("a", since=0, slots=2),
        entrant("b", since=1, slots=2),
        entrant("c", since=2, slots=2),
    ]
    for seed in range(50):
        pairings = schedule(entrants, seed=seed)
        assert len(pairings) == 3
        assert {frozenset(players(p)) for p in pairings} == {
            frozenset({v("a"), v("b")}),
            frozenset({v("a"), v("c")}),
            frozenset({v("b"), v("c")}),
        }


# -- rule 3: never a bot against itself ----------------------------------------------------------


def test_never_against_itself():
    assert schedule([entrant("a", slots=4)]) == []
    with pytest.raises(ValueError, match="distinct"):
        schedule([entrant("a"), entrant("a", since=3)])


def test_two_versions_of_one_bot_may_play_each_other():
    (pairing,) = schedule([entrant("a", version="1"), entrant("a", version="2", since=1)])
    assert players(pairing) == {v("a", "1"), v("a", "2")}


# -- rule 4: seats balanced per pair -------------------------------------------------------------


def test_seat_1_to_the_one_with_fewer_first_seats_else_the_longer_waiting():
    entrants = [entrant("a", since=5), entrant("b", since=0)]
    (pairing,) = schedule(entrants)
    assert (pairing.seat_1, pairing.seat_2) == (v("b"), v("a"))
    history = PairHistory()
    history.record(v("b"), v("a"), 50.0)
    (pairing,) = schedule(entrants, history)
    assert (pairing.seat_1, pairing.seat_2) == (v("a"), v("b"))


# -- rule 5: concurrency, paused, disabled --------------------------------------------------------


def test_an_entrant_appears_in_at_most_its_free_slots():
    entrants = [entrant("a", slots=3), entrant("b", since=1, slots=1), entrant("c", since=2, slots=1)]
    for seed in range(50):
        pairings = schedule(entrants, seed=seed)
        counts = uses(pairings)
        assert counts[v("a")] <= 3 and counts[v("b")] <= 1 and counts[v("c")] <= 1
        assert len(pairings) == 2


def test_paused_and_busy_entrants_are_never_scheduled():
    entrants = [
        entrant("paused", since=-100, slots=3, paused=True),
        entrant("busy", since=-50, slots=0),
        entrant("over", since=-50, slots=-1),
        entrant("a", since=0),
        entrant("b", since=1),
    ]
    for seed in range(20):
        (pairing,) = schedule(entrants, seed=seed)
        assert players(pairing) == {v("a"), v("b")}


def test_a_disabled_ladder_schedules_nothing():
    disabled = LadderConfig("l", "surge", {}, TimeControl(), enabled=False)
    assert schedule([entrant("a"), entrant("b")], config=disabled) == []


# -- rule 6: as many matches as possible ---------------------------------------------------------


def test_a_bot_with_many_slots_is_not_left_idle():
    # "a" and "b" are twins, "c" is far off; pairing a with b would leave c's two slots unused.
    entrants = [
        entrant("a", since=0, rating=Rating(25, 1)),
        entrant("b", since=1, rating=Rating(25, 1)),
        entrant("c", since=2, slots=2, rating=Rating(40, 1)),
    ]
    for seed in range(50):
        pairings = schedule(entrants, seed=seed)
        assert sorted(sorted(b.bot for b in players(p)) for p in pairings) == [["a", "c"], ["b", "c"]]


def test_the_no_rematch_rule_comes_before_filling_slots():
    # a's last opponent was c: a plays b though that leaves c's two slots for a later call.
    history = PairHistory()
    history.record(v("c"), v("a"), 50.0)
    entrants = [entrant("a", since=0), entrant("b", since=1), entrant("c", since=2, slots=2)]
    (pairing,) = schedule(entrants, history)
    assert players(pairing) == {v("a"), v("b")}


def test_pairing_goes_on_while_two_entrants_may_play():
    rng = random.Random(7)
    for seed in range(300):
        entrants = [
            entrant(
                f"bot{i}",
                since=rng.uniform(0, 50),
                slots=rng.randint(1, 4),
                rating=Rating(rng.uniform(10, 40), 2),
            )
            for i in range(rng.randint(1, 7))
        ]
        pairings = schedule(entrants, seed=seed)
        counts = uses(pairings)
        assert all(counts[e.version] <= e.free_slots for e in entrants)
        assert all(p.seat_1 != p.seat_2 for p in pairings)
        assert len(pairings) <= max_matches(e.free_slots for e in entrants)
        # Nobody is busy, so no rematch is held back: pairing stops with at most one entrant left.
        left = [e.version for e in entrants if counts[e.version] < e.free_slots]
        assert len(left) <= 1, (entrants, pairings)
        if all(e.free_slots == 1 for e in entrants):
            assert len(pairings) == len(entrants) // 2


# -- duplicate pairs ------------------------------------------------------------------------------


def test_a_duplicate_pair_is_two_matches_with_seats_swapped_using_two_slots_each():
    pairings = schedule([entrant("a", slots=3), entrant("b", since=1, slots=2)], config=DUPLICATE)
    assert len(pairings) == 2
    first, second = pairings
    assert first.duplicate and second.duplicate and first.group == second.group
    assert (second.seat_1, second.seat_2) == (first.seat_2, first.seat_1)
    assert uses(pairings) == {v("a"): 2, v("b"): 2}


def test_a_single_match_when_either_has_one_slot():
    (pairing,) = schedule([entrant("a", slots=2), entrant("b", since=1, slots=1)], config=DUPLICATE)
    assert not pairing.duplicate and pairing.group is None
    # On an ordinary ladder two slots each make two separate matches.
    pairings = schedule([entrant("a", slots=2), entrant("b", since=1, slots=2)])
    assert len(pairings) == 2 and not any(p.duplicate for p in pairings)


def test_duplicate_groups_are_distinct_within_a_call():
    entrants = [entrant(name, since=i, slots=2) for i, name in enumerate("abcd")]
    pairings = schedule(entrants, config=DUPLICATE)
    assert len(pairings) == 4
    groups = [p.group for p in pairings]
    assert groups[0] == groups[1] and groups[2] == groups[3] and groups[0] != groups[2]
    assert uses(pairings) == {b: 2 for b in (v("a"), v("b"), v("c"), v("d"))}


# -- determinism ----------------------------------------------------------------------------------


def test_same_inputs_and_seed_give_the_same_pairings_and_the_inputs_are_untouched():
    rng = random.Random(3)
    entrants = [
        entrant(
            f"bot{i}",
            since=rng.uniform(0, 50),
            slots=rng.randint(0, 3),
            rating=Rating(rng.uniform(10, 40), 4),
        )
        for i in range(8)
    ]
    history = PairHistory()
    history.record(entrants[0].version, entrants[1].version, 10.0)
    before = history.copy()
    first = schedule(entrants, history, seed=99)
    assert len(first) >= 4
    assert schedule(entrants, history, seed=99) == first
    # The order the entrants are listed in does not matter either.
    assert schedule(list(reversed(entrants)), history, seed=99) == first
    assert history == before
    assert len({tuple(schedule(entrants, history, seed=s)) for s in range(20)}) > 1


# -- over many calls ------------------------------------------------------------------------------


class Simulation:
    """A ladder over time: matches start as the scheduler says and end after random durations."""

    def __init__(self, bots: dict[str, tuple[Rating, int]], config: LadderConfig, seed: int) -> None:
        self.rng = random.Random(seed)
        self.scheduler = LadderScheduler(config, random.Random(seed + 1))
        self.bots = {v(name): spec for name, spec in bots.items()}
        self.since = {bot: float(i) for i, bot in enumerate(self.bots)}
        self.now = float(len(self.bots))
        self.running: list[tuple[float, BotVersion, BotVersion]] = []
        self.history = PairHistory()
        self.started: list[ScheduledPairing] = []

    def step(self) -> None:
        busy = Counter(b for _, s1, s2 in self.running for b in (s1, s2))
        entrants = [
            Entrant(bot, rating, concurrency - busy[bot], self.since[bot])
            for bot, (rating, concurrency) in self.bots.items()
        ]
        pairings = self.scheduler.pairings(entrants, self.history, self.now)
        counts = uses(pairings)
        for e in entrants:
            assert counts[e.version] <= e.free_slots, "concurrency exceeded"
        for p in pairings:
            self.history.record(p.seat_1, p.seat_2, self.now)
            self.since[p.seat_1] = self.since[p.seat_2] = self.now
            self.running.append((self.now + self.rng.uniform(1.0, 10.0), p.seat_1, p.seat_2))
            self.started.append(p)
        self.running.sort(key=lambda r: r[0])
        self.now = self.running.pop(0)[0]  # the next match ends

    def seat_imbalance(self) -> int:
        return max(
            abs(self.history.seat_1_count(a, b) - self.history.seat_1_count(b, a))
            for a in self.bots
            for b in self.bots
            if a != b
        )


STRENGTHS = {
    "weakest": (Rating(15, 3), 1),
    "weak": (Rating(20, 3), 2),
    "middling": (Rating(25, 3), 1),
    "fair": (Rating(30, 3), 3),
    "strong": (Rating(35, 3), 1),
    "strongest": (Rating(40, 3), 2),
}


@pytest.mark.parametrize("config", [CONFIG, DUPLICATE], ids=["single", "duplicate"])
def test_concurrency_is_never_exceeded_and_seats_stay_within_one_over_many_calls(config: LadderConfig):
    for seed in range(5):
        sim = Simulation(STRENGTHS, config, seed)
        for _ in range(300):
            sim.step()
            assert sim.seat_imbalance() <= 1
        assert len(sim.started) >= 300


def test_six_bots_of_different_strengths_over_sixty_matches_meet_variously_and_share_seats():
    sim = Simulation(STRENGTHS, CONFIG, seed=11)
    while len(sim.started) < 60:
        sim.step()
    matches = sim.started[:60]
    opponents: dict[BotVersion, set[BotVersion]] = {bot: set() for bot in sim.bots}
    first: Counter[BotVersion] = Counter()
    played: Counter[BotVersion] = Counter()
    for p in matches:
        opponents[p.seat_1].add(p.seat_2)
        opponents[p.seat_2].add(p.seat_1)
        first[p.seat_1] += 1
        played.update((p.seat_1, p.seat_2))
    for bot in sim.bots:
        assert len(opponents[bot]) >= 3, (bot, opponents[bot])
    assert sim.seat_imbalance() <= 1
    for bot in sim.bots:
        assert abs(2 * first[bot] - played[bot]) <= len(opponents[bot])


def test_without_deferral_a_pair_whose_match_ends_while_all_others_play_replays_itself_forever():
    # Why rule 2a holds a rematch back: scheduling the only option at once locks the pairs.
    sim = Simulation(STRENGTHS, CONFIG, seed=11)
    sim.scheduler = LadderScheduler(CONFIG, random.Random(12), defer_rematches=False)
    while len(sim.started) < 60:
        sim.step()
    opponents: dict[BotVersion, set[BotVersion]] = {bot: set() for bot in sim.bots}
    for p in sim.started[:60]:
        opponents[p.seat_1].add(p.seat_2)
        opponents[p.seat_2].add(p.seat_1)
    assert min(len(o) for o in opponents.values()) == 1
