"""Clock fairness: the time the arbiter's loop was late during a turn is not charged to its seat.

The loop-lag monitor is driven by a fake clock and a scheduler that only records (the test runs
its timer); a match gets a fake lag reading. Nothing here waits or depends on the machine's speed.
"""

import asyncio
import math
from collections import deque
from pathlib import Path

import pytest
from arbiter.hosting.bus import EventBus
from arbiter.hosting.host import MatchHosting
from arbiter.hosting.looplag import (
    INTERVAL,
    SLACK,
    VERDICT_GRACE,
    LoopLagMonitor,
    ThreadWaits,
    softirq_threads,
)
from arbiter.match.events import MoveRefused, Refusal
from arbiter.match.match import LAG_WINDOW, Match, MatchSetup, no_lag
from arbiter.sessions.session import DROP_CHUNK, BotSession, Closing, OutboxItem, drop_gradually
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.v1 import bot_service_pb2 as pb

from .raw_client import running_server
from .test_match_unit import FakeHost
from .test_trust_clock import ManualScheduler

START = 100.0
CAP = TimeControl(base=None, per_decision=0.030)


# --- the monitor ------------------------------------------------------------------------------------
def started_monitor(interval=0.002, slack=0.001, waits=None):
    """A monitor on a fake clock; ``waits``: the other threads' waits each tick reports (none)."""
    clock = [START]
    scheduler = ManualScheduler()
    pending = list(waits or [])
    monitor = LoopLagMonitor(
        interval=interval, slack=slack, now=lambda: clock[0], waits=lambda: pending.pop(0) if pending else 0.0
    )
    monitor.start(scheduler)
    return monitor, clock, scheduler


def run_tick_at(monitor, clock, scheduler, at):
    """The loop runs the monitor's latest timer at time ``at``."""
    clock[0] = at
    scheduler.live()[-1].callback()


def test_ticks_on_time_or_within_the_slack_are_no_lag():
    monitor, clock, scheduler = started_monitor()
    assert scheduler.delays == [0.002]
    run_tick_at(monitor, clock, scheduler, START + 0.002)  # on time
    run_tick_at(monitor, clock, scheduler, START + 0.004 + 0.001)  # late by the slack exactly
    assert monitor.lag() == pytest.approx(0.0, abs=1e-12)
    assert monitor.ticks == 2 and monitor.worst == pytest.approx(0.001)
    assert scheduler.delays == [0.002, 0.002, 0.002]  # always the next one, interval ahead


def test_a_stall_counts_beyond_the_slack_and_the_reading_never_goes_down():
    monitor, clock, scheduler = started_monitor()
    due = START + 0.002
    readings = []
    for at in (due + 0.010, due + 0.025, due + 0.040):  # the loop is stuck: the timer waits
        clock[0] = at
        readings.append(monitor.lag())  # read from another callback, mid-stall
    assert readings == pytest.approx([0.009, 0.024, 0.039])
    run_tick_at(monitor, clock, scheduler, due + 0.040)  # the monitor's timer runs at last
    assert monitor.lag() == pytest.approx(0.039)  # the same reading as just before it ran
    assert monitor.worst == pytest.approx(0.040)
    clock[0] = due + 0.040 + 0.0025  # next due at +0.002; 0.5 ms late is within the slack
    assert monitor.lag() == pytest.approx(0.039)


def test_lag_between_two_readings_is_what_a_turn_is_credited():
    monitor, clock, scheduler = started_monitor()
    run_tick_at(monitor, clock, scheduler, START + 0.002)
    clock[0] = START + 0.003
    at_start = monitor.lag()  # a turn's clock starts
    run_tick_at(monitor, clock, scheduler, START + 0.004 + 0.050)  # a 50 ms stall in the turn
    run_tick_at(monitor, clock, scheduler, START + 0.056)  # on time again
    clock[0] = START + 0.057
    assert monitor.lag() - at_start == pytest.approx(0.049)


def test_reset_forgets_the_figures_and_stop_ends_the_timers():
    monitor, clock, scheduler = started_monitor()
    run_tick_at(monitor, clock, scheduler, START + 0.002 + 0.030)
    assert monitor.summary()["late_max_ms"] == 30.0 and monitor.lag() > 0
    monitor.reset()
    assert monitor.lag() == 0.0 and monitor.ticks == 0 and monitor.summary()["late_p99_ms"] == 0.0
    monitor.stop()
    assert scheduler.timers[-1].cancelled and monitor.due is None
    clock[0] += 1.0
    assert monitor.lag() == 0.0  # a stopped monitor sees no stall


def test_percentiles_come_from_the_ticks_lateness_in_whole_milliseconds():
    monitor = LoopLagMonitor()
    for late in [0.0005] * 98 + [0.0042, 0.0301]:
        monitor.record(late)
    assert monitor.percentile(50) == 0.001
    assert monitor.percentile(99) == 0.005
    assert monitor.percentile(100) == 0.031
    summary = monitor.summary()
    assert summary["ticks"] == 100 and summary["late_max_ms"] == 30.1
    assert summary["lag_total_ms"] == pytest.approx(3.2 + 29.1)


def test_a_thread_kept_waiting_for_a_cpu_counts_when_it_is_longer_than_the_loops_lateness():
    # three ticks: a thread waited 20 ms while the loop was on time; the loop was 10 ms late while
    # a thread waited 4 ms (overlapping: the larger counts, not the sum); a wait within the slack
    monitor, clock, scheduler = started_monitor(waits=[0.020, 0.004, 0.0008])
    run_tick_at(monitor, clock, scheduler, START + 0.002)
    run_tick_at(monitor, clock, scheduler, START + 0.004 + 0.010)
    run_tick_at(monitor, clock, scheduler, START + 0.016)
    assert monitor.lag() == pytest.approx(0.019 + 0.009)
    summary = monitor.summary()
    assert summary["thread_wait_max_ms"] == 20.0
    assert summary["lag_from_thread_waits_ms"] == pytest.approx(19.0)


def test_thread_waits_reads_each_threads_run_queue_delay_from_schedstat(tmp_path):
    def write(tid, waited_ns):
        (tmp_path / str(tid)).mkdir(exist_ok=True)
        (tmp_path / str(tid) / "schedstat").write_text(f"123456 {waited_ns} 7\n")

    for tid in (1, 2, 3):  # 1 is the loop's own thread: left out
        write(tid, 1_000_000)
    waits = ThreadWaits(exclude=1, rescan=3, root=str(tmp_path))
    assert sorted(waits.files) == [2, 3]
    assert waits.longest_new_wait() == 0.0  # first readings: the baselines
    write(1, 90_000_000)
    write(2, 6_000_000)
    write(3, 31_000_000)
    assert waits.longest_new_wait() == pytest.approx(0.030)  # thread 3's, the longest
    write(4, 5_000_000)  # a new thread, found at the next rescan (every 3rd call)
    (tmp_path / "2" / "schedstat").unlink()  # thread 2 has ended
    (tmp_path / "2").rmdir()
    assert waits.longest_new_wait() == 0.0
    assert sorted(waits.files) == [3, 4]
    waits.close()
    assert waits.files == {}


def test_the_kernels_softirq_threads_are_found_by_name_and_watched_too(tmp_path):
    for pid, comm in ((7, "ksoftirqd/0\n"), (9, "kworker/0:1\n"), (12, "ksoftirqd/1\n")):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "comm").write_text(comm)
        (tmp_path / str(pid) / "schedstat").write_text("1 1000 1\n")
    (tmp_path / "self").mkdir()  # not a pid: skipped
    found = softirq_threads(str(tmp_path))
    assert found == [str(tmp_path / "12" / "schedstat"), str(tmp_path / "7" / "schedstat")]
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    waits = ThreadWaits(exclude=1, root=str(tasks), extra=found)
    assert waits.longest_new_wait() == 0.0
    (tmp_path / "7" / "schedstat").write_text("1 25001000 2\n")
    assert waits.longest_new_wait() == pytest.approx(0.025)
    waits.rescan()  # the process's own threads are listed again; the kernel's stay watched
    assert len(waits.files) == 2
    waits.close()


def test_a_fresh_reading_books_the_other_threads_waits_before_the_next_tick():
    monitor, clock, scheduler = started_monitor(waits=[0.0, 0.025])
    run_tick_at(monitor, clock, scheduler, START + 0.002)
    clock[0] = START + 0.003
    assert monitor.lag() == 0.0  # a plain reading does not look at the threads
    assert monitor.lag(fresh=True) == pytest.approx(0.024)
    assert monitor.lag() == pytest.approx(0.024)  # booked: it stays


def test_the_monitor_refuses_a_nonsense_interval():
    with pytest.raises(ValueError):
        LoopLagMonitor(interval=0.0)
    with pytest.raises(ValueError):
        LoopLagMonitor(slack=-0.001)


# --- the match ---------------------------------------------------------------------------------------
def make_match(control=CAP, policy=None):
    clock = [START]
    lag = [0.0]
    host = FakeHost()
    scheduler = ManualScheduler()
    setup = MatchSetup(
        "torrent", {"size": 5}, {1: "alice", 2: "bob"}, control, policy or MatchPolicy(), seed=b"s" * 32
    )
    match = Match("m1", setup, host, scheduler, now=lambda: clock[0], lag=lambda *_, **__: lag[0])
    match.start()
    return match, host, clock, lag, scheduler


def refusals(host):
    return [e for e in host.events if isinstance(e, MoveRefused)]


def test_an_answer_delayed_by_the_loop_is_charged_without_the_lag():
    match, host, clock, lag, _ = make_match()
    pending = match.pending
    lag[0] = 0.050  # the loop was 50 ms late while the move waited for it
    clock[0] = START + 0.058
    match.submit(1, pending.turn_id, pending.legal[0])
    assert refusals(host) == []
    assert match.actions[0]["charged"] == pytest.approx(0.008)


def test_lag_before_the_turn_started_is_not_credited():
    match, host, clock, lag, _ = make_match()
    first = match.pending
    clock[0] = START + 0.001
    match.submit(1, first.turn_id, first.legal[0])  # no lag yet
    lag[0] = 0.200  # a long stall, then the next turn starts
    clock[0] = START + 0.300
    second = match.pending
    host.deliveries[-1]()  # the Turn is handed to seat 2's connection now
    clock[0] = START + 0.340
    match.submit(2, second.turn_id, second.legal[0])  # 40 ms, no lag during it: too slow
    [refused] = refusals(host)
    assert refused.reason is Refusal.CLOCK_EXPIRED and refused.seat == 2
    assert match.end.reason == "timeout" and match.end.faulty_seat == 2
    assert "not counting" not in match.end.detail


def test_the_timer_waits_for_the_credited_lag_before_expiring_a_turn():
    match, host, clock, lag, scheduler = make_match()
    pending = match.pending
    [timer] = scheduler.timers
    assert timer.delay == pytest.approx(0.030)
    lag[0] = 0.025  # of the 31 ms gone by, the loop was late 25 ms
    clock[0] = START + 0.031
    timer.callback()
    assert refusals(host) == [] and match.end is None
    assert scheduler.live()[-1].delay == pytest.approx(0.024)  # the 24 ms the seat has left
    clock[0] = START + 0.040
    match.submit(1, pending.turn_id, pending.legal[0])
    assert refusals(host) == []
    assert match.actions[0]["charged"] == pytest.approx(0.015)


def test_a_real_overrun_still_expires_and_the_detail_says_what_was_not_counted():
    match, host, clock, lag, scheduler = make_match()
    lag[0] = 0.010
    clock[0] = START + 0.041  # 41 ms, 10 of them the arbiter's: 31 ms charged
    scheduler.live()[-1].callback()
    [refused] = refusals(host)
    assert refused.reason is Refusal.CLOCK_EXPIRED
    assert match.end.reason == "timeout" and match.end.faulty_seat == 1
    assert match.end.detail == (
        "seat 1 took 0.031 s, more than its 0.030 s (not counting 0.010 s the arbiter was late)"
    )


def test_the_game_clock_loses_only_the_charged_time_and_shows_it_while_running():
    match, _, clock, lag, _ = make_match(control=TimeControl(base=1.0, increment=0.0))
    pending = match.pending
    lag[0] = 0.300
    clock[0] = START + 0.500
    assert match.clock_reading()[1] == pytest.approx(0.800)  # 200 ms of it charged so far
    match.submit(1, pending.turn_id, pending.legal[0])
    assert match.clocks.remaining[1] == pytest.approx(0.800)
    assert match.actions[0]["charged"] == pytest.approx(0.200)


def test_a_resent_turn_carries_the_limit_left_after_the_credit():
    match, host, clock, lag, _ = make_match(control=TimeControl(base=None, per_decision=1.0))
    lag[0] = 0.250
    clock[0] = START + 0.500
    match.resume(1)  # seat 1 reconnects: its pending turn is sent again
    resent = [e for e in host.events if getattr(e, "resent", False)]
    assert resent[-1].decision_limit == pytest.approx(0.750)


def test_before_a_verdict_of_timeout_the_match_asks_for_a_fresh_reading():
    clock = [START]
    asked = []

    booked = [0.0]

    def lag(fresh=False, within=None):
        asked.append(fresh)
        if fresh and clock[0] > START:
            booked[0] = 0.020  # a wait only a fresh reading sees (then booked, as the monitor does)
        return booked[0]

    setup = MatchSetup("torrent", {"size": 5}, {1: "alice", 2: "bob"}, CAP, MatchPolicy(), seed=b"s" * 32)
    match = Match("m1", setup, FakeHost(), ManualScheduler(), now=lambda: clock[0], lag=lag)
    match.start()
    clock[0] = START + 0.040
    match.submit(1, match.pending.turn_id, match.pending.legal[0])
    assert match.end is None and match.actions[0]["charged"] == pytest.approx(0.020)
    assert asked.count(True) == 1  # once, for the answer that looked late


def test_with_a_verdict_grace_the_timer_looks_once_more_before_a_timeout():
    clock = [START]
    lag = [0.0]
    host = FakeHost()
    scheduler = ManualScheduler()
    setup = MatchSetup("torrent", {"size": 5}, {1: "alice", 2: "bob"}, CAP, MatchPolicy(), seed=b"s" * 32)
    match = Match(
        "m1", setup, host, scheduler, lambda: clock[0], lag=lambda *_, **__: lag[0], verdict_grace=0.004
    )
    match.start()
    pending = match.pending
    clock[0] = START + 0.031
    scheduler.live()[-1].callback()  # over the limit: not yet a verdict
    assert refusals(host) == [] and scheduler.live()[-1].delay == 0.004
    lag[0] = 0.006  # a wait of the arbiter's that ended meanwhile
    clock[0] = START + 0.035
    scheduler.live()[-1].callback()  # in time after all (29 ms charged): look again later
    assert refusals(host) == [] and scheduler.live()[-1].delay == pytest.approx(0.001)
    clock[0] = START + 0.037
    scheduler.live()[-1].callback()  # 31 ms charged and already graced once: expired
    [refused] = refusals(host)
    assert refused.reason is Refusal.CLOCK_EXPIRED and match.end.reason == "timeout"
    assert pending.graced


def test_without_a_lag_source_every_second_is_charged():
    clock = [START]
    host = FakeHost()
    setup = MatchSetup("torrent", {"size": 5}, {1: "alice", 2: "bob"}, CAP, MatchPolicy(), seed=b"s" * 32)
    match = Match("m1", setup, host, ManualScheduler(), now=lambda: clock[0])
    assert match.lag is no_lag
    match.start()
    clock[0] = START + 0.031
    match.submit(1, match.pending.turn_id, match.pending.legal[0])
    assert match.end.reason == "timeout"


# --- hosting and the server -------------------------------------------------------------------------
def test_hosting_gives_its_matches_the_lag_source_it_has_when_they_read_it():
    clock = [START]
    lag = [0.0]
    hosting = MatchHosting(EventBus(), ManualScheduler(), now=lambda: clock[0])
    setup = MatchSetup("torrent", {"size": 5}, {1: "alice", 2: "bob"}, CAP, MatchPolicy(), seed=b"s" * 32)
    match = hosting.start(setup)
    hosting.lag = lambda *_, **__: lag[0]  # set after the match started (a server sets it at start-up)
    pending = match.pending
    lag[0] = 0.020
    clock[0] = START + 0.045
    hosting.answer(match, "alice", pending.turn_id, pending.legal[0])
    assert match.end is None and match.actions[0]["charged"] == pytest.approx(0.025)


def test_a_running_server_credits_its_own_monitors_lag():
    async def scenario():
        async with running_server() as server:
            hosting = server.arbiter.hosting
            return hosting.lag == server.loop_lag.lag, server.loop_lag.due is not None, hosting.verdict_grace

    wired, running, grace = asyncio.run(scenario())
    assert wired and running and grace == VERDICT_GRACE


# --- a never-reading bot's full outbox is dropped without holding the loop up ------------------------
def test_a_dropped_outbox_is_freed_a_chunk_per_loop_callback():
    async def scenario():
        items: deque[tuple[OutboxItem, int]] = deque((None, 0) for _ in range(2 * DROP_CHUNK + 50))
        drop_gradually(items)
        sizes = [len(items)]
        while items:
            await asyncio.sleep(0)  # one loop iteration: the next chunk's callback runs
            sizes.append(len(items))
        return sizes

    assert asyncio.run(scenario()) == [DROP_CHUNK + 50, 50, 0]


def test_without_a_running_loop_a_dropped_outbox_is_freed_at_once():
    items: deque[tuple[OutboxItem, int]] = deque((None, 0) for _ in range(DROP_CHUNK + 1))
    drop_gradually(items)
    assert not items


def test_an_overflowing_outbox_leaves_only_the_closing_and_the_writer_gets_it():
    async def scenario():
        session = BotSession("alice", limit_bytes=10 * 1024)
        message = pb.PlayResponse(move_acknowledged=pb.MoveAcknowledged(match_id="m" * 10, turn_id=1))
        writer = asyncio.ensure_future(session.next_item())  # a writer waiting on an empty outbox
        await asyncio.sleep(0)
        session.send(message)
        first = await writer
        while not session.closed:
            session.send(message)
        return first, session.pending(), await session.next_item(), session.queued_bytes

    first, pending, item, queued = asyncio.run(scenario())
    assert first.move_acknowledged.turn_id == 1
    assert pending == 1 and isinstance(item, Closing) and item.reason == "RESOURCE_EXHAUSTED"
    assert queued == 0


def test_the_protocol_page_states_the_monitors_figures():
    """docs/protocol.md gives bot authors the rule with the figures this code uses."""
    protocol = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert f"due every {INTERVAL * 1e3:g} ms" in protocol
    assert f"later than\n  {SLACK * 1e3:g} ms after it was due" in protocol
    assert "charged = (processed - started) - credit" in protocol
    assert f"in the last {LAG_WINDOW * 1e3:g} ms before" in protocol
    assert f"looks once more {VERDICT_GRACE * 1e3:g} ms later" in protocol


def test_finished_matches_are_found_by_id_and_forgotten_with_the_oldest(monkeypatch):
    """A move naming an unknown match costs one lookup (floods of them are cheap to send)."""
    from arbiter.hosting import host as host_module

    monkeypatch.setattr(host_module, "RECENT_LIMIT", 2)
    clock = [START]
    hosting = MatchHosting(EventBus(), ManualScheduler(), now=lambda: clock[0])
    setup = MatchSetup("torrent", {"size": 5}, {1: "alice", 2: "bob"}, CAP, MatchPolicy(), seed=b"s" * 32)
    ended = []
    for _ in range(3):
        match = hosting.start(setup)
        match.abort("test")
        ended.append(match)
    assert [m.id for m in hosting.recent] == [ended[1].id, ended[2].id]
    assert set(hosting.recent_ids) == {ended[1].id, ended[2].id}
    assert hosting.find("alice", ended[2].id) is ended[2]
    assert hosting.find("alice", ended[0].id) is None  # the oldest is forgotten
    assert hosting.find("carol", ended[2].id) is None  # not her match


class BookedLag:
    """A lag source with a history: lag booked at given moments of a fake clock."""

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock
        self.booked: list[tuple[float, float]] = []

    def book(self, seconds: float) -> None:
        self.booked.append((self.clock[0], seconds))

    def __call__(self, fresh: bool = False, within: float | None = None) -> float:
        since = -math.inf if within is None else self.clock[0] - within
        return sum(seconds for when, seconds in self.booked if when > since)


def test_lag_long_before_the_answer_is_not_credited():
    """A stall early in a long turn delayed nothing the bot sent: a bot that answers late after
    it is not let off (under sustained load the credit would otherwise grow with the turn)."""
    clock = [START]
    lag = BookedLag(clock)
    control = TimeControl(base=None, per_decision=3.0)
    setup = MatchSetup("torrent", {"size": 5}, {1: "alice", 2: "bob"}, control, MatchPolicy(), seed=b"s" * 32)
    host = FakeHost()
    match = Match("m1", setup, host, ManualScheduler(), now=lambda: clock[0], lag=lag)
    match.start()
    turn = match.pending
    for step in range(15):  # 1.5 s of stalls in the first second of the turn
        clock[0] = START + 0.070 * (step + 1)
        lag.book(0.100)
    clock[0] = START + 4.5  # the bot answers 4.5 s after the Turn: over its 3 s
    match.submit(1, turn.turn_id, turn.legal[0])
    assert match.end is not None and match.end.reason == "timeout"
    assert "not counting" not in match.end.detail


def test_lag_just_before_the_answer_is_credited_in_full():
    clock = [START]
    lag = BookedLag(clock)
    control = TimeControl(base=None, per_decision=3.0)
    setup = MatchSetup("torrent", {"size": 5}, {1: "alice", 2: "bob"}, control, MatchPolicy(), seed=b"s" * 32)
    match = Match("m1", setup, FakeHost(), ManualScheduler(), now=lambda: clock[0], lag=lag)
    match.start()
    turn = match.pending
    clock[0] = START + 3.3
    lag.book(0.500)  # a stall of 500 ms that ended just now: the answer may have waited in it
    clock[0] = START + 3.3 + LAG_WINDOW / 2
    match.submit(1, turn.turn_id, turn.legal[0])
    assert match.end is None
    assert match.actions[0]["charged"] == pytest.approx(3.3 + LAG_WINDOW / 2 - 0.5)


def test_the_monitor_reads_the_lag_of_the_last_moments():
    clock = [START]
    scheduler = ManualScheduler()
    monitor = LoopLagMonitor(now=lambda: clock[0], waits=lambda: 0.0)
    monitor.start(scheduler)
    clock[0] += INTERVAL + 0.021  # a tick 21 ms late: 20 ms beyond the slack
    monitor.tick()
    assert monitor.lag(within=0.010) == pytest.approx(0.020)
    clock[0] += 0.030
    assert monitor.lag(within=0.010) == pytest.approx(0.030 - INTERVAL - SLACK)  # a stall going on
    monitor.tick()
    clock[0] += INTERVAL
    monitor.tick()  # on time
    assert monitor.lag(within=0.001) == 0.0
    assert monitor.lag(within=0.5) == pytest.approx(monitor.lag())
    before = monitor.lag()
    clock[0] += 2.0  # a stall of 2 s: the bookings of over a second ago go, but the latest of them
    monitor.tick()
    assert len(monitor.bookings) == 2
    assert monitor.lag(within=1.0) == pytest.approx(monitor.lag() - before)
