"""The match state machine on its own, with a fake clock: timeouts, aborts, default actions."""

import asyncio

from arbiter.match.events import MatchEnded, TurnIssued, addressed_seats
from arbiter.match.match import Match, MatchSetup
from arbiter.transport.encode import encode
from arbiter_games.hexflank import Place
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.reasons import reason_of


class FakeHost:
    """Follows a match's events as the transport would: each one encoded for its seats."""

    def __init__(self):
        self.sent = []
        self.finished = []
        self.events = []
        self.deliveries = []  # delivered callbacks, run by the test when it "delivers" a Turn

    def __call__(self, event):
        self.events.append(event)
        for seat in addressed_seats(event):
            self.sent.append((event.facts.bots[seat], encode(event, seat)))
        if isinstance(event, TurnIssued) and event.delivered is not None:
            self.deliveries.append(event.delivered)
        if isinstance(event, MatchEnded):
            self.finished.append(event)

    def kinds(self, bot_name):
        return [m.WhichOneof("kind") for name, m in self.sent if name == bot_name]

    def last(self, bot_name, kind):
        return [
            getattr(m, kind) for name, m in self.sent if name == bot_name and m.WhichOneof("kind") == kind
        ][-1]


class RecordingScheduler:
    """Records every timer the match asks for (its delay); runs them on the loop when there is one."""

    def __init__(self):
        self.delays = []

    def call_later(self, delay, callback):
        self.delays.append(delay)
        return asyncio.get_running_loop().call_later(delay, callback)


def make_match(game, control, policy=None, options=None, seed=None):
    clock = [100.0]
    host = FakeHost()
    setup = MatchSetup(
        game, options or {}, {1: "alice", 2: "bob"}, control, policy or MatchPolicy(), seed=seed
    )
    match = Match("m1", setup, host, RecordingScheduler(), now=lambda: clock[0])
    return match, host, clock


def run(coro_fn):
    async def wrapper():
        return coro_fn()

    return asyncio.run(wrapper())


def test_late_answer_is_judged_by_the_clock_not_by_the_timer():
    def scenario():
        match, host, clock = make_match(
            "torrent", TimeControl(base=None, per_decision=1.0), options={"size": 5}
        )
        match.start()
        turn = host.last("alice", "turn")
        clock[0] += 1.5  # the answer arrives after the limit, before the timer had a chance to run
        match.submit(1, turn.turn_id, Place("e5"))
        return match, host

    match, host = run(scenario)
    rejected = host.last("alice", "move_rejected")
    assert reason_of(rejected.status) == "CLOCK_EXPIRED"
    assert match.end.reason == "timeout" and match.end.winner_seat == 2
    assert match.pending is None


def test_abort_cancels_the_pending_timer_and_finishes_once():
    async def scenario():
        match, host, _ = make_match("torrent", TimeControl(base=None, per_decision=0.05), options={"size": 5})
        match.start()
        match.abort("stopping")
        await asyncio.sleep(0.15)  # past the turn's limit
        return match, host

    match, host = asyncio.run(scenario())
    assert match.end.reason == "aborted" and match.end.winner_seat is None
    assert len(host.finished) == 1
    assert host.kinds("alice").count("match_ended") == 1
    assert "move_rejected" not in host.kinds("alice")


def test_fischer_timeout_charges_without_increment():
    def scenario():
        match, _host, clock = make_match("torrent", TimeControl(base=2.0, increment=5.0), options={"size": 5})
        match.start()
        clock[0] += 2.5
        match._on_timer()
        return match

    match = run(scenario)
    assert match.end.reason == "timeout"
    assert match.clocks.remaining[1] == 0.0  # no increment for a decision that timed out


def test_default_action_in_surge_is_a_seeded_random_legal_action():
    def scenario(seed):
        control = TimeControl(base=None, per_decision=1.0)
        match, _host, clock = make_match(
            "surge", control, MatchPolicy(on_timeout="default_action"), seed=seed
        )
        match.start()
        pending = match.pending
        legal = list(pending.legal)
        clock[0] += 1.1
        match._on_timer()
        return match, legal

    match_a, legal = run(lambda: scenario(b"a" * 32))
    entry = match_a.actions[0]
    assert entry["auto"] == "default" and entry["seat"] == 1
    assert entry["action"] != "pass" and any(match_a.game.format_action(a) == entry["action"] for a in legal)
    match_b, _ = run(lambda: scenario(b"a" * 32))
    assert match_b.actions[0]["action"] == entry["action"]  # the same seed, the same choice
    assert match_a.end is None and match_a.pending.seat == 2  # the game goes on


def test_resume_sends_the_position_and_the_running_clock():
    def scenario():
        match, host, clock = make_match("torrent", TimeControl(base=10.0), options={"size": 5})
        match.start()
        turn = host.last("alice", "turn")
        match.submit(1, turn.turn_id, Place("e5"))
        clock[0] += 3.0  # Bob thinks (or is away) for 3 s
        match.resume(2)
        return host

    host = run(scenario)
    started = host.last("bob", "match_started")
    assert started.resumed
    assert started.observation.flank.board.count("B") == 1
    clocks = {c.seat: c.remaining.ToTimedelta().total_seconds() for c in started.clocks}
    assert clocks[2] == 7.0 and clocks[1] == 10.0


def test_the_clock_starts_when_the_turn_leaves_the_arbiter():
    async def scenario():
        match, host, clock = make_match(
            "torrent", TimeControl(base=10.0, per_decision=1.0), options={"size": 5}
        )
        match.start()
        turn = host.last("alice", "turn")
        clock[0] += 0.8  # the Turn waited in the arbiter's queue (an extreme case)
        host.deliveries[-1]()  # now it is handed to the transport
        await asyncio.sleep(0.05)
        clock[0] += 0.5
        pending = match.pending
        match._on_timer()  # a timer set from the queueing time must not time the bot out
        assert match.end is None and match.pending is pending
        match.submit(1, turn.turn_id, Place("e5"))
        return match

    match = asyncio.run(scenario())
    assert match.actions[0]["charged"] == 0.5
    assert match.clocks.remaining[1] == 9.5
