"""Time controls as data, and the per-match clocks the arbiter keeps on a monotonic clock."""

from __future__ import annotations

from dataclasses import dataclass

#: The longest duration a time control may name (30 days).
MAX_SECONDS = 30 * 24 * 3600


@dataclass(frozen=True)
class TimeControl:
    """A Fischer clock (``base`` + ``increment`` per decision) and/or a cap per decision.

    ``base=None`` means no game clock; ``per_decision=None`` means no cap. Both None: untimed.
    All values in seconds.
    """

    base: float | None = None
    increment: float = 0.0
    per_decision: float | None = None

    def __post_init__(self) -> None:
        for name in ("base", "increment", "per_decision"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"time control {name} must not be negative, got {value}")
            if value is not None and value > MAX_SECONDS:
                raise ValueError(f"time control {name} must be at most {MAX_SECONDS} s, got {value}")
        if self.base is None and self.increment:
            raise ValueError("an increment needs a base time (a game clock)")

    @property
    def timed(self) -> bool:
        return self.base is not None or self.per_decision is not None

    def describe(self) -> str:
        parts = []
        if self.base is not None:
            parts.append(f"{self.base:g}s" + (f"+{self.increment:g}s" if self.increment else ""))
        if self.per_decision is not None:
            parts.append(f"max {self.per_decision:g}s per decision")
        return ", ".join(parts) or "untimed"

    def as_dict(self) -> dict[str, float | None]:
        return {"base": self.base, "increment": self.increment, "per_decision": self.per_decision}


class Clocks:
    """Both seats' remaining game time. Charging is done by the match with measured durations."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.remaining: dict[int, float | None] = {1: control.base, 2: control.base}

    def decision_limit(self, seat: int) -> float | None:
        """The most the next decision of ``seat`` may take, or None when untimed."""
        left = self.remaining[seat]
        cap = self.control.per_decision
        if left is None:
            return cap
        if cap is None:
            return left
        return min(left, cap)

    def charge(self, seat: int, elapsed: float) -> None:
        """Take ``elapsed`` seconds from ``seat`` and add the increment (a completed decision)."""
        left = self.remaining[seat]
        if left is not None:
            self.remaining[seat] = max(0.0, left - elapsed) + self.control.increment

    def charge_timeout(self, seat: int, elapsed: float) -> None:
        """A decision that ran out of time: no increment."""
        left = self.remaining[seat]
        if left is not None:
            self.remaining[seat] = max(0.0, left - elapsed)
