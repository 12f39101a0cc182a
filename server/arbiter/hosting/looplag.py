"""How late the arbiter's event loop runs: the lag that the clocks do not charge to a bot.

A ``LoopLagMonitor`` keeps a timer of its own on the loop, due every ``interval`` seconds, and
notes how late the loop runs it. Lateness beyond ``slack`` (the loop's ordinary wake-up jitter:
epoll's millisecond timeout, the clock's resolution) is time during which the loop could run no
callback at all: it was busy with other work, waiting for the GIL, or not scheduled by the OS. An
answer that reached the arbiter in that time waited for the loop, through no fault of its bot.

``lag()`` is the running total of that lateness in seconds, a reading that never goes down; it
includes a stall still in progress (the loop is past the monitor's due time but has not run its
timer yet), so two readings taken from callbacks on the loop bracket the lag between them. A
match credits a seat with the difference of the readings taken when its turn's clock started and
when its answer was processed (see ``Match`` and docs/protocol.md, "Clocks and decision limits").

The loop is not the only part of the arbiter a move goes through: gRPC reads and writes the
sockets in threads of its own (its event engine, its completion-queue poller), and on a busy
machine the OS may keep one of those waiting for a CPU while the loop runs on time. On Linux the
monitor therefore also reads, each tick, how long each other thread of the process has waited
runnable for a CPU (``/proc/self/task/*/schedstat``, the run-queue delay) and counts, for the
tick, the larger of the loop's lateness and the longest such wait, each beyond ``slack`` (the
larger, not the sum: the waits may overlap). The kernel's ``ksoftirqd`` threads are watched the
same way: when the machine is busy, they carry the network processing (loopback delivery too)
and a move can wait in the kernel while every thread of the arbiter runs on time.

The monitor can miss at most ``interval + slack`` of each stall (the part before its timer was
due); it never counts more than the loop was late or a thread waited.
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotations: bench/clock_fairness.py loads this file on its own
    from ..match.match import Scheduler, Timer

#: Seconds between the monitor's timers: the most of a stall it can miss, with ``SLACK``.
INTERVAL = 0.002
#: Lateness the loop shows when it is idle or lightly loaded (epoll rounds its timeout up to a
#: millisecond); only lateness beyond this counts as lag.
SLACK = 0.001
#: How long a match's timer waits, once, before it declares a turn expired: two of the monitor's
#: ticks, so that a wait that ends meanwhile (a thread's wait shows only once it is over) counts.
VERDICT_GRACE = 2 * INTERVAL
#: Seconds of bookings the monitor keeps, for readings of the lag of the last moments
#: (``lag(within=...)``); a longer window reads as this one.
HISTORY = 1.0


def freeze_startup_objects() -> None:
    """Collect once, then put every object alive now out of the garbage collector's reach.

    What exists once the arbiter has started (its modules, classes, protobuf descriptors, the
    configuration) lives until it stops; without this each full collection walks all of it again
    (100,000+ objects: over 100 ms in one go, with the loop stopped). Frozen, it is never walked.
    """
    gc.collect()
    gc.freeze()


def softirq_threads(proc: str = "/proc") -> list[str]:
    """The schedstat files of the kernel's ``ksoftirqd/N`` threads: on a busy machine the kernel
    hands network processing (loopback delivery included) to them, and they wait for a CPU too."""
    found = []
    try:
        names = os.listdir(proc)
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(os.path.join(proc, name, "comm")) as comm:
                if comm.read().startswith("ksoftirqd/"):
                    found.append(os.path.join(proc, name, "schedstat"))
        except OSError:
            continue
    return sorted(found)


class ThreadWaits:
    """How long the process's threads (but one) have waited runnable for a CPU (Linux only).

    ``longest_new_wait()`` is the longest run-queue delay any of them added since the last call,
    in seconds. Threads come and go (gRPC's pools grow and shrink): the list is read again every
    ``rescan`` calls; a thread's first reading is its baseline. ``extra``: more schedstat files
    to watch the same way (the kernel's network threads, ``softirq_threads``).
    """

    def __init__(
        self, exclude: int, rescan: int = 500, root: str = "/proc/self/task", extra: Sequence[str] = ()
    ) -> None:
        self.exclude = exclude
        self.root = root
        self.rescan_every = rescan
        self.calls = 0
        #: tid (or, for an extra file, minus its position, minus one) -> open schedstat file
        self.files: dict[int, int] = {}
        self.delays: dict[int, int] = {}
        for position, path in enumerate(extra):
            try:
                self.files[-1 - position] = os.open(path, os.O_RDONLY)
            except OSError:
                continue
        self.rescan()

    @staticmethod
    def available(root: str = "/proc/self/task") -> bool:
        return os.path.exists(os.path.join(root, str(threading.get_native_id()), "schedstat"))

    def rescan(self) -> None:
        try:
            tids = {int(name) for name in os.listdir(self.root)} - {self.exclude}
        except OSError:
            tids = set()
        for tid in {key for key in self.files if key >= 0} - tids:
            self._forget(tid)
        for tid in tids - set(self.files):
            try:
                self.files[tid] = os.open(os.path.join(self.root, str(tid), "schedstat"), os.O_RDONLY)
            except OSError:
                continue

    def longest_new_wait(self) -> float:
        self.calls += 1
        if self.calls % self.rescan_every == 0:
            self.rescan()
        longest = 0
        for tid, fd in list(self.files.items()):
            try:
                # "<ns on a CPU> <ns waiting runnable> <timeslices>"
                delay = int(os.pread(fd, 128, 0).split()[1])
            except (OSError, ValueError, IndexError):
                self._forget(tid)  # the thread has ended
                continue
            longest = max(longest, delay - self.delays.get(tid, delay))
            self.delays[tid] = delay
        return longest / 1e9

    def close(self) -> None:
        for tid in list(self.files):
            self._forget(tid)

    def _forget(self, tid: int) -> None:
        fd = self.files.pop(tid, None)
        self.delays.pop(tid, None)
        if fd is not None:
            os.close(fd)


class LoopLagMonitor:
    """Measures the running loop's wake-up delays; ``lag()`` is the total beyond ``slack``."""

    def __init__(
        self,
        interval: float = INTERVAL,
        slack: float = SLACK,
        now: Callable[[], float] = time.monotonic,
        waits: Callable[[], float] | None = None,
    ) -> None:
        """``waits``: the longest run-queue wait of another thread since the last call (see
        ``ThreadWaits``); None: ``start`` uses ``ThreadWaits`` where the OS has it."""
        if interval <= 0 or slack < 0:
            raise ValueError("the interval must be positive and the slack not negative")
        self.interval = interval
        self.slack = slack
        self.now = now
        self.waits = waits
        self._thread_waits: ThreadWaits | None = None
        self.total = 0.0
        #: (when, the running total after it) of each booking of the last ``HISTORY`` seconds,
        #: oldest first, with one booking older than that as the base.
        self.bookings: deque[tuple[float, float]] = deque()
        #: The running total before the oldest booking kept.
        self._base = 0.0
        #: When the monitor's next timer is due (None: not running).
        self.due: float | None = None
        self.worst = 0.0
        #: The longest wait of another thread seen, and the lag counted for such waits (beyond
        #: the loop's lateness).
        self.worst_wait = 0.0
        self.total_from_waits = 0.0
        self.ticks = 0
        #: Lateness of each tick, in whole milliseconds rounded up -> how many ticks (bounded: one
        #: entry per distinct millisecond seen).
        self.histogram: dict[int, int] = {}
        self._handle: Timer | None = None
        self._loop: Scheduler | None = None

    # --- reading --------------------------------------------------------------------------------
    def lag(self, fresh: bool = False, within: float | None = None) -> float:
        """Seconds of lag so far (never decreasing), with a stall that is still going on.

        ``fresh``: book the other threads' waits up to now too, not only at the last tick (a wait
        shows in schedstat once it is over: a move delayed by one can be processed before the
        next tick). ``within``: only the lag booked in the last ``within`` seconds (a stall is
        booked when it ends), with the stall still going on: the lag that can have held up what
        the loop takes now (at most ``HISTORY`` seconds back)."""
        due = self.due
        if due is None:
            return self.total if within is None else 0.0
        if fresh and self.waits is not None:
            extra = max(0.0, (wait := self.waits()) - self.slack)
            if extra:
                self._book(extra, extra)
            self.worst_wait = max(self.worst_wait, wait)
        now = self.now()
        ongoing = max(0.0, now - due - self.slack)
        if within is None:
            return self.total + ongoing
        return self.total - self._total_at(now - within) + ongoing

    def _total_at(self, moment: float) -> float:
        """The running total as it was at ``moment`` (within the bookings kept)."""
        for when, total in reversed(self.bookings):
            if when <= moment:
                return total
        return self._base

    def _book(self, counted: float, from_waits: float) -> None:
        """Add lag to the running total, and note when (only non-zero bookings are kept)."""
        self.total += counted
        self.total_from_waits += from_waits
        now = self.now()
        bookings = self.bookings
        bookings.append((now, self.total))
        while len(bookings) > 1 and bookings[1][0] <= now - HISTORY:
            self._base = bookings.popleft()[1]

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile of the ticks' lateness, in seconds (to the millisecond above)."""
        count = sum(self.histogram.values())
        if not count:
            return 0.0
        rank = max(1, math.ceil(p / 100 * count))
        seen = 0
        for ms in sorted(self.histogram):
            seen += self.histogram[ms]
            if seen >= rank:
                return ms / 1000
        return max(self.histogram) / 1000  # pragma: no cover - the loop always reaches rank

    def summary(self) -> dict[str, float]:
        """Figures for the log: ticks, lag credited in all, lateness p50/p99/max in ms."""
        return {
            "ticks": self.ticks,
            "lag_total_ms": round(self.total * 1e3, 3),
            "late_p50_ms": self.percentile(50) * 1e3,
            "late_p99_ms": self.percentile(99) * 1e3,
            "late_p999_ms": self.percentile(99.9) * 1e3,
            "late_max_ms": round(self.worst * 1e3, 3),
            "thread_wait_max_ms": round(self.worst_wait * 1e3, 3),
            "lag_from_thread_waits_ms": round(self.total_from_waits * 1e3, 3),
        }

    def reset(self) -> None:
        """Forget the figures so far (the running total too): measure from now on. Only for a
        monitor no match reads (the bench's own): a match's readings must never go down."""
        self.total = 0.0
        self.worst = 0.0
        self.worst_wait = 0.0
        self.total_from_waits = 0.0
        self.ticks = 0
        self.histogram = {}
        self.bookings.clear()
        self._base = 0.0
        if self.due is not None:
            self.due = max(self.due, self.now())

    # --- running --------------------------------------------------------------------------------
    def start(self, loop: Scheduler | None = None) -> None:
        """Start measuring on ``loop`` (the running loop by default; anything with asyncio's
        ``call_later``, e.g. a test's scheduler)."""
        if self.due is not None:
            return
        self._loop = loop or asyncio.get_running_loop()
        if self.waits is None and ThreadWaits.available():
            self._thread_waits = ThreadWaits(exclude=threading.get_native_id(), extra=softirq_threads())
            self.waits = self._thread_waits.longest_new_wait
        self.due = self.now() + self.interval
        self._schedule()

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.due = None
        if self._thread_waits is not None:
            self._thread_waits.close()
            self._thread_waits = None
            self.waits = None

    def tick(self) -> None:
        """The monitor's timer ran: book its lateness and set the next one."""
        due = self.due
        if due is None:
            return
        at = self.now()
        late = max(0.0, at - due)
        self.record(late, self.waits() if self.waits is not None else 0.0)
        self.due = at + self.interval
        self._schedule()

    def record(self, late: float, wait: float = 0.0) -> None:
        """One tick that ran ``late`` seconds after it was due, when another thread had waited
        ``wait`` seconds at most for a CPU since the tick before."""
        self.ticks += 1
        from_loop = max(0.0, late - self.slack)
        counted = max(from_loop, wait - self.slack)
        if counted:
            self._book(counted, counted - from_loop)
        self.worst = max(self.worst, late)
        self.worst_wait = max(self.worst_wait, wait)
        ms = math.ceil(late * 1000)
        self.histogram[ms] = self.histogram.get(ms, 0) + 1

    def _schedule(self) -> None:
        loop = self._loop
        if loop is not None and self.due is not None:
            # call_later (not call_at): the loop's clock is its own; ``now`` may be a test's.
            self._handle = loop.call_later(self.interval, self.tick)
