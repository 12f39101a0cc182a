"""The clock is trusted: an answer at the limit counts, a hair past it does not (for an answer and
for the timer); a timeout's default action is legal at every phase; the re-armed timer runs for the
time left; the match's one timer serves its turns. All on a fake clock and a scheduler that only
records: nothing here waits."""

import pytest
from arbiter.match.events import MoveRefused, Refusal, TurnIssued
from arbiter.match.match import Match, MatchSetup
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.reasons import reason_of

from .test_match_unit import FakeHost

START = 100.0
HAIR = 1e-6  # a microsecond past the limit


class ManualTimer:
    def __init__(self, delay, callback):
        self.delay = delay
        self.callback = callback
        self.cancelled = False

    def cancel(self):
        self.cancelled = True


class ManualScheduler:
    """Records every timer the match asks for; runs none of them (the test does, when it likes)."""

    def __init__(self):
        self.timers = []

    @property
    def delays(self):
        return [timer.delay for timer in self.timers]

    def call_later(self, delay, callback):
        timer = ManualTimer(delay, callback)
        self.timers.append(timer)
        return timer

    def live(self):
        return [timer for timer in self.timers if not timer.cancelled]


def make_match(game, control, policy=None, options=None, seed=b"s" * 32):
    clock = [START]
    host = FakeHost()
    scheduler = ManualScheduler()
    setup = MatchSetup(
        game, options or {}, {1: "alice", 2: "bob"}, control, policy or MatchPolicy(), seed=seed
    )
    match = Match("m1", setup, host, scheduler, now=lambda: clock[0])
    return match, host, clock, scheduler


def refusals(host):
    return [e for e in host.events if isinstance(e, MoveRefused)]


def first_legal(match):
    return match.pending.legal[0]


# --- 1. an answer exactly at the limit ---------------------------------------------------------------

#: Two ways to reach a 1 s decision limit: the per-decision cap, or the game clock itself.
LIMITS = {
    "per_decision_cap": TimeControl(base=None, per_decision=1.0),
    "game_clock": TimeControl(base=1.0, increment=0.5),
}


@pytest.mark.parametrize("control", LIMITS.values(), ids=LIMITS.keys())
def test_an_answer_exactly_at_the_limit_is_accepted_and_charged_the_limit(control):
    match, host, clock, _ = make_match("torrent", control, options={"size": 5})
    match.start()
    pending = match.pending
    assert pending.limit == 1.0
    clock[0] = START + 1.0  # elapsed == limit, exactly (binary-exact values)
    match.submit(1, pending.turn_id, first_legal(match))
    assert refusals(host) == []
    assert "move_rejected" not in host.kinds("alice")
    assert match.end is None
    assert match.actions[0]["seat"] == 1 and match.actions[0]["auto"] is None
    assert match.actions[0]["charged"] == 1.0
    assert match.pending.seat == 2  # the game goes on
    if control.base is not None:
        assert match.clocks.remaining[1] == 0.5  # nothing left, plus the increment


@pytest.mark.parametrize("control", LIMITS.values(), ids=LIMITS.keys())
def test_an_answer_a_hair_past_the_limit_is_clock_expired(control):
    match, host, clock, _ = make_match("torrent", control, options={"size": 5})
    match.start()
    pending = match.pending
    clock[0] = START + 1.0 + HAIR
    match.submit(1, pending.turn_id, first_legal(match))
    [refused] = refusals(host)
    assert refused.seat == 1 and refused.turn_id == pending.turn_id
    assert refused.reason is Refusal.CLOCK_EXPIRED
    assert reason_of(host.last("alice", "move_rejected").status) == "CLOCK_EXPIRED"
    assert match.actions == []
    assert match.end.reason == "timeout" and match.end.winner_seat == 2 and match.end.faulty_seat == 1


@pytest.mark.parametrize("control", LIMITS.values(), ids=LIMITS.keys())
def test_the_timer_at_exactly_the_limit_does_not_expire_the_turn(control):
    """The timer judges as an answer is judged: at the limit the seat is still in time, so an
    answer at that very moment is accepted (whichever of the two the loop runs first)."""
    match, host, clock, scheduler = make_match("torrent", control, options={"size": 5})
    match.start()
    pending = match.pending
    [timer] = scheduler.timers
    assert timer.delay == 1.0
    clock[0] = START + 1.0
    timer.callback()  # the timer runs at exactly the limit
    assert refusals(host) == []
    assert match.end is None and match.pending is pending
    assert scheduler.live()[-1].delay == 0.0  # it looks again as soon as time moves on
    match.submit(1, pending.turn_id, first_legal(match))  # an answer at that same instant
    assert refusals(host) == []
    assert match.actions[0]["charged"] == 1.0 and match.actions[0]["auto"] is None
    assert match.pending.seat == 2


@pytest.mark.parametrize("control", LIMITS.values(), ids=LIMITS.keys())
def test_the_timer_a_hair_past_the_limit_expires_the_turn(control):
    match, host, clock, scheduler = make_match("torrent", control, options={"size": 5})
    match.start()
    pending = match.pending
    action = first_legal(match)
    clock[0] = START + 1.0 + HAIR
    scheduler.timers[0].callback()
    [refused] = refusals(host)
    assert refused.seat == 1 and refused.reason is Refusal.CLOCK_EXPIRED
    assert reason_of(host.last("alice", "move_rejected").status) == "CLOCK_EXPIRED"
    assert match.end.reason == "timeout" and match.end.winner_seat == 2
    assert len(scheduler.timers) == 1  # no re-arm: the turn is over
    match.submit(1, pending.turn_id, action)  # too late now: the match is over
    assert match.actions == []


# --- 2. the default action is legal at every phase ----------------------------------------------------


PHASES = [
    ("torrent", {"size": 5}, "first action", 0),
    ("fravan", {"size": 5}, "first action", 0),
    ("torrent", {"size": 5}, "swap decision", 1),
    ("fravan", {"size": 5}, "swap decision", 1),
    ("surge", {}, "first placement", 0),
    ("surge", {}, "a later placement", 2),  # seat 2's second placement (Surge goes 1, 2, 2, 1, ...)
]


@pytest.mark.parametrize(
    "game,options,phase,answered", PHASES, ids=[f"{g}-{p.replace(' ', '-')}" for g, _, p, __ in PHASES]
)
def test_a_timeout_under_default_action_plays_a_legal_action_and_the_match_goes_on(
    game, options, phase, answered
):
    control = TimeControl(base=None, per_decision=1.0)
    match, host, clock, scheduler = make_match(
        game, control, MatchPolicy(on_timeout="default_action"), options=options
    )
    match.start()
    for _ in range(answered):  # the turns before the phase, answered in time
        match.submit(match.pending.seat, match.pending.turn_id, first_legal(match))
    assert refusals(host) == []
    pending = match.pending
    seat = pending.seat
    legal_texts = [match.game.format_action(a) for a in pending.legal]
    if phase == "first action":
        assert "pass" not in legal_texts  # the case a "pass is always legal" default would hang on
    if phase == "swap decision":
        assert "swap" in legal_texts
    played_before = len(match.actions)
    turns_before = sum(isinstance(e, TurnIssued) for e in host.events)

    clock[0] += 1.0 + HAIR
    scheduler.live()[-1].callback()  # the decision timer of this turn fires

    [refused] = refusals(host)
    assert refused.seat == seat and refused.reason is Refusal.CLOCK_EXPIRED
    entry = match.actions[played_before]
    assert entry["seat"] == seat and entry["turn"] == pending.turn_id
    assert entry["auto"] == "default"
    assert entry["action"] in legal_texts
    assert match.end is None
    assert match.pending is not None and match.pending is not pending
    assert match.pending.seat == 3 - seat == match.game.to_move(match.state)
    new_turns = [e for e in host.events if isinstance(e, TurnIssued)][turns_before:]
    assert new_turns and new_turns[-1].seat == 3 - seat and new_turns[-1].turn_id == match.pending.turn_id


# --- 7. the timer re-arms with the time left ---------------------------------------------------------


def test_the_re_armed_timer_runs_for_the_time_left_since_delivery():
    control = TimeControl(base=None, per_decision=1.0)
    match, host, clock, scheduler = make_match("torrent", control, options={"size": 5})
    match.start()
    pending = match.pending
    [first] = scheduler.timers
    assert first.delay == 1.0  # armed when the Turn was queued
    clock[0] += 0.5  # the Turn waits in the arbiter's queue
    host.deliveries[-1]()  # now the transport takes it: the seat's clock starts here
    clock[0] += 0.25  # 0.75 s after queueing, 0.25 s after delivery
    first.callback()  # too early, measured from the delivery: the timer re-arms
    assert match.end is None and refusals(host) == []
    assert len(scheduler.timers) == 2
    rearmed = scheduler.timers[-1]
    # The time left since delivery; not the full limit (1.0), nor the time left since queueing (0.25).
    assert rearmed.delay == 0.75
    clock[0] += 0.75  # at the limit measured from delivery: still in time
    match.submit(1, pending.turn_id, first_legal(match))
    assert match.actions[0]["charged"] == 0.75 + 0.25
    # The match keeps its one timer: the next turn (seat 2's, 1 s from now) cannot expire before
    # it runs, so no new timer is set and none is cancelled.
    assert len(scheduler.timers) == 2 and not rearmed.cancelled and not first.cancelled
    second = match.pending
    assert second.seat == 2
    rearmed.callback()  # it runs at its time, for seat 2's turn, which has just begun
    assert match.end is None and match.pending is second
    assert scheduler.delays[-1] == 1.0  # armed again for the whole of seat 2's time
    clock[0] += 1.0 + HAIR
    scheduler.timers[-1].callback()
    assert match.end is not None and match.end.reason == "timeout" and match.end.faulty_seat == 2


def test_quick_turns_share_one_timer():
    """Turns answered in time set no timer of their own: the first turn's timer is the only one."""
    control = TimeControl(base=None, per_decision=1.0)
    match, host, clock, scheduler = make_match("torrent", control, options={"size": 5})
    match.start()
    for _ in range(20):
        clock[0] += 0.01
        match.submit(match.pending.seat, match.pending.turn_id, first_legal(match))
    assert refusals(host) == [] and match.end is None
    assert sum(isinstance(e, TurnIssued) for e in host.events) == 21
    assert scheduler.delays == [1.0] and scheduler.live() == scheduler.timers


def test_a_turn_due_before_the_armed_timer_gets_a_timer_of_its_own():
    """A game clock running low: the next turn's limit ends before the armed timer would run."""
    control = TimeControl(base=2.0)
    match, host, clock, scheduler = make_match("torrent", control, options={"size": 5})
    match.start()
    [first] = scheduler.timers  # seat 1's turn: due at START + 2
    clock[0] = START + 1.5
    match.submit(1, match.pending.turn_id, first_legal(match))  # seat 1 has 0.5 s left
    assert len(scheduler.timers) == 1  # seat 2's turn (due at START + 3.5) keeps it
    clock[0] = START + 2.0
    first.callback()  # seat 2's turn has run 0.5 s: armed again for its 1.5 s left
    assert match.end is None and scheduler.delays == [2.0, 1.5]
    second = scheduler.timers[-1]
    match.submit(2, match.pending.turn_id, first_legal(match))
    # Seat 1's turn ends at START + 2.5, before that timer (START + 3.5): it is replaced.
    assert match.pending.seat == 1 and match.pending.limit == 0.5
    assert second.cancelled and scheduler.delays == [2.0, 1.5, 0.5]
    clock[0] = START + 2.5 + HAIR
    scheduler.live()[-1].callback()
    assert match.end is not None and match.end.reason == "timeout" and match.end.faulty_seat == 1
    assert refusals(host)[-1].reason is Refusal.CLOCK_EXPIRED


def test_a_silent_bot_is_timed_out_one_limit_after_delivery_not_later():
    """Following the timers as the loop would: the turn expires by delivery + limit (+ a hair)."""
    control = TimeControl(base=None, per_decision=1.0)
    match, host, clock, scheduler = make_match("torrent", control, options={"size": 5})
    match.start()
    clock[0] += 0.5
    host.deliveries[-1]()
    delivered = clock[0]
    clock[0] = START + scheduler.timers[0].delay  # the first timer's deadline (set at queueing)
    scheduler.timers[0].callback()
    deadline = clock[0] + scheduler.timers[-1].delay
    assert deadline == delivered + 1.0
    clock[0] = deadline + HAIR
    scheduler.timers[-1].callback()
    assert match.end is not None and match.end.reason == "timeout"
    assert refusals(host)[-1].reason is Refusal.CLOCK_EXPIRED
