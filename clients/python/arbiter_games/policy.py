"""Match policies: what a timeout or an illegal action costs. Configuration, not rules."""

from __future__ import annotations

from dataclasses import dataclass

TIMEOUT_LOSS = "loss"
TIMEOUT_DEFAULT_ACTION = "default_action"
ILLEGAL_FORFEIT = "forfeit"
ILLEGAL_REJECT = "reject"


@dataclass(frozen=True)
class MatchPolicy:
    """``on_timeout``: ``loss`` (default) or ``default_action`` (pass where legal, else a random
    legal action from the match's seeded generator). ``on_illegal``: ``forfeit`` (default) or
    ``reject`` (the seat answers the same turn again while its clock runs)."""

    on_timeout: str = TIMEOUT_LOSS
    on_illegal: str = ILLEGAL_FORFEIT

    def __post_init__(self) -> None:
        if self.on_timeout not in (TIMEOUT_LOSS, TIMEOUT_DEFAULT_ACTION):
            raise ValueError(f"on_timeout must be 'loss' or 'default_action', got {self.on_timeout!r}")
        if self.on_illegal not in (ILLEGAL_FORFEIT, ILLEGAL_REJECT):
            raise ValueError(f"on_illegal must be 'forfeit' or 'reject', got {self.on_illegal!r}")

    def as_dict(self) -> dict[str, str]:
        return {"on_timeout": self.on_timeout, "on_illegal": self.on_illegal}
