"""First-come pairing: a seek pairs with the oldest open seek of another bot with the same key."""

from __future__ import annotations

from collections import deque

from .matchmaker import Pairing, Seek, SeekKey


class FifoMatchmaker:
    """Pairs in arrival order; between the same two bots the first seat alternates."""

    def __init__(self) -> None:
        self.queues: dict[SeekKey, deque[Seek]] = {}
        self.last_first_seat: dict[frozenset[str], str] = {}

    def add(self, seek: Seek, may_pair: bool = True) -> list[Pairing]:
        queue = self.queues.setdefault(seek.key, deque())
        opponent = next((s for s in queue if s.bot != seek.bot), None) if may_pair else None
        if opponent is None:
            queue.append(seek)
            return []
        queue.remove(opponent)
        if not queue:
            del self.queues[seek.key]
        return [self._seat(opponent, seek)]

    def _seat(self, waiting: Seek, arriving: Seek) -> Pairing:
        pair = frozenset((waiting.bot, arriving.bot))
        previous = self.last_first_seat.get(pair)
        # Seats alternate between the same two bots; their first match gives the waiting bot seat 1.
        first = waiting if previous is None or previous == arriving.bot else arriving
        second = arriving if first is waiting else waiting
        self.last_first_seat[pair] = first.bot
        return Pairing(waiting.key, {1: first, 2: second})

    def remove_bot(self, bot: str) -> None:
        for key, queue in list(self.queues.items()):
            for seek in [s for s in queue if s.bot == bot]:
                queue.remove(seek)
            if not queue:
                del self.queues[key]

    def holds(self, seek: Seek) -> bool:
        """Whether ``seek`` still waits here (neither paired nor removed)."""
        return seek in self.queues.get(seek.key, ())

    def open_seeks(self, bot: str) -> int:
        return sum(1 for queue in self.queues.values() for s in queue if s.bot == bot)

    def waiting(self, key: SeekKey) -> int:
        return len(self.queues.get(key, ()))

    def clear(self) -> None:
        self.queues.clear()
