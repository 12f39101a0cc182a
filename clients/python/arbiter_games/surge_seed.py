"""Checking a Surge match's seed after the match: the arbiter cannot have chosen the draws.

Before the first placement the arbiter sends ``SHA-256(seed)`` (``MatchStarted.seed_commitment``;
on a leg of a duplicate pair ``SHA-256(seed || match_id)``, so that the two legs' commitments
differ); ``MatchEnded.seed`` reveals the seed. The checker then

1. checks that the seed is 64 hex digits and that its SHA-256 (alone, or followed by the match id)
   is the commitment;
2. recomputes both draw orders with the rules' algorithm (``arbiter_games.surge.draw_order``);
3. checks every observation this bot received: its own stones drawn so far (hand, plus its stones
   on the board, plus its stones removed from the board) must be exactly the first ``20 - len(supply)``
   stones of its order and its supply exactly the rest (so the first hand is the first 3 stones and
   each refill the next one); the opponent's revealed stones (face up or removed) must all come, as a
   multiset, from the part of the opponent's order drawn so far (``20 - opponent_supply_size``).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .surge import BLUE, ORANGE, SurgeObservation, draw_order

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
TOTAL_STONES = 20
HAND_SIZE = 3


class SeedMismatch(Exception):
    """The revealed seed does not explain what the arbiter showed this bot."""

    def __init__(self, match_id: str, problems: Sequence[str]) -> None:
        self.match_id = match_id
        self.problems = tuple(problems)
        super().__init__(f"match {match_id}: Surge seed check failed: " + "; ".join(self.problems))


def check_surge_seed(
    seed_hex: str,
    commitment: str,
    colour: str,
    observations: Iterable[SurgeObservation],
    match_id: str = "",
) -> list[str]:
    """Everything that does not match, as sentences; an empty list means the seed checks out.

    ``colour`` is this bot's colour (``blue`` for seat 1, ``orange`` for seat 2); ``observations``
    are the Surge observations it received (its turns and the final one), in any order;
    ``match_id``: the match's id, hashed after the seed on a leg of a duplicate pair.
    """
    problems: list[str] = []
    seed_hex = seed_hex.strip()
    if not _HEX64.match(seed_hex):
        return [f"the revealed seed {seed_hex!r} is not 64 lowercase hex digits"]
    seed = bytes.fromhex(seed_hex)
    digest = hashlib.sha256(seed).hexdigest()
    leg_digest = hashlib.sha256(seed + match_id.encode("ascii")).hexdigest()
    if commitment.strip().lower() not in (digest, leg_digest):
        problems.append(f"SHA-256 of the revealed seed is {digest}, but the commitment was {commitment!r}")
    if colour not in (BLUE, ORANGE):
        return [*problems, f"unknown colour {colour!r}"]
    enemy = ORANGE if colour == BLUE else BLUE
    mine = draw_order(seed, colour)
    theirs = draw_order(seed, enemy)
    for obs in observations:
        problems.extend(_check_observation(obs, colour, enemy, mine, theirs))
    return problems


def _check_observation(
    obs: SurgeObservation, colour: str, enemy: str, mine: list[int], theirs: list[int]
) -> list[str]:
    where = f"round {obs.round}{' (final)' if obs.over else ''}"
    problems: list[str] = []
    # Own stones: drawn so far = hand + own stones on the board + own stones removed.
    drawn = TOTAL_STONES - len(obs.supply)
    if not HAND_SIZE <= drawn <= TOTAL_STONES:
        return [f"{where}: supply of {len(obs.supply)} stones is impossible"]
    on_board = [v for _, c, v in obs.face_up if c == colour]
    on_board += [v for _, c, v in obs.face_down if c == colour and v is not None]
    removed = obs.removed_blue if colour == BLUE else obs.removed_orange
    seen = Counter(obs.hand) + Counter(on_board) + Counter(removed)
    expected = Counter(mine[:drawn])
    if seen != expected:
        problems.append(
            f"{where}: own hand {list(obs.hand)} + board {sorted(on_board)} + removed {list(removed)} "
            f"is not the first {drawn} stones of the order {mine} (expected {sorted(expected.elements())})"
        )
    if sorted(obs.supply) != sorted(mine[drawn:]):
        problems.append(f"{where}: own supply {list(obs.supply)} is not the rest of the order {mine[drawn:]}")
    if len(obs.hand) > HAND_SIZE:
        problems.append(f"{where}: own hand {list(obs.hand)} holds more than {HAND_SIZE} stones")
    # Opponent: every revealed stone must come from the part of their order drawn so far.
    enemy_drawn = TOTAL_STONES - obs.opponent_supply_size
    if not HAND_SIZE <= enemy_drawn <= TOTAL_STONES:
        return [*problems, f"{where}: opponent supply size {obs.opponent_supply_size} is impossible"]
    revealed = Counter(v for _, c, v in obs.face_up if c == enemy)
    revealed += Counter(obs.removed_orange if enemy == ORANGE else obs.removed_blue)
    available = Counter(theirs[:enemy_drawn])
    extra = revealed - available
    if extra:
        problems.append(
            f"{where}: opponent stones {sorted(extra.elements())} were revealed but are not among the first "
            f"{enemy_drawn} stones of the opponent's order {theirs}"
        )
    hidden_on_board = sum(1 for _, c, v in obs.face_down if c == enemy)
    accounted = sum(revealed.values()) + hidden_on_board + obs.opponent_hand_size
    if accounted != enemy_drawn:
        problems.append(
            f"{where}: the opponent drew {enemy_drawn} stones but {accounted} are accounted for "
            "(revealed, face-down and in hand)"
        )
    return problems


@dataclass
class SeedRecorder:
    """Collects what one Surge match showed this bot, then checks the seed when it is revealed."""

    match_id: str
    commitment: str
    colour: str
    observations: list[SurgeObservation] = field(default_factory=list)

    def record(self, observation: object) -> None:
        """Keep a Surge observation (anything else is not this game's and is left out)."""
        if isinstance(observation, SurgeObservation):
            self.observations.append(observation)

    def check(self, seed_hex: str) -> list[str]:
        """The problems found (empty when the seed checks out)."""
        if not self.commitment:
            return ["the arbiter sent no seed commitment for this Surge match"]
        return check_surge_seed(seed_hex, self.commitment, self.colour, self.observations, self.match_id)

    def verify(self, seed_hex: str) -> None:
        """Raise :class:`SeedMismatch` when the seed does not check out."""
        problems = self.check(seed_hex)
        if problems:
            raise SeedMismatch(self.match_id, problems)
