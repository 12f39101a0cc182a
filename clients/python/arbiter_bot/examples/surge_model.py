"""An opponent model for ``ismcts_surge``: what the opponent's hidden stones are likely to be, given
the values it has placed so far and in which order.

Not a bot itself. A player who follows the designer's tip "place big stones early" mostly places
the biggest stone of its hand, so the stones it kept in hand are mostly smaller than the ones it
placed: a hand is not a uniform pick of the unseen stones. :class:`HandFilter` keeps a set of
*particles*, each one possible history of the opponent's draws (its hand and the stones it has not
drawn yet), and updates them with every placement the bot sees (a sequential importance sampler
with resampling):

- the draw order is uniform (it comes from a seed the bot sees only committed), so a draw is a
  uniform pick from the stones not drawn yet, except when the next placed value is not in the
  particle's hand: then the draw must have been that value, and the particle's weight is multiplied
  by the chance of that draw (count of the value left / stones left);
- the choice model: from a hand ``H`` the opponent places ``v`` with probability
  ``exp(BETA * v) / sum(exp(BETA * x) for x in H)`` (a softmax over the values in hand), and the
  weight is multiplied by it.

After every update the particles are resampled (systematic resampling), so they carry equal
weights. :meth:`HandFilter.hidden` turns a random particle into a guess at the opponent's hidden
stones for the current observation: the draws still owed are made, a face-down stone placed this
round is chosen from the hand by the same choice model, and the stones not drawn are shuffled into
the supply order.

The filter needs every placement of the match in order; a bot that joins a match in the middle (a
restart) cannot have them, and :class:`OpponentTracker` then says so (``model`` gives ``None``) and
the bot falls back to the uniform guess.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arbiter_games.surge import BLUE, HAND_SIZE, ORANGE, STONES, SurgeObservation

#: The choice model's inverse temperature: how strongly the opponent prefers its biggest stone.
#: Fitted to ``surge_tips`` playing itself (docs/bots.md, "How ismcts_surge searches").
BETA = 1.5
#: Particles kept per match.
PARTICLES = 256
#: Matches tracked at once by one bot (the oldest is forgotten first).
TRACKED_MATCHES = 32
VALUES = 10


class Particle:
    """One possible history: the hand now, the stones not drawn yet (counts by value) and how many
    draws are owed before the next placement."""

    __slots__ = ("counts", "hand", "left", "pending")

    def __init__(self, hand: list[int], counts: list[int], left: int, pending: int) -> None:
        self.hand = hand
        self.counts = counts
        self.left = left
        self.pending = pending

    def copy(self) -> Particle:
        return Particle(self.hand.copy(), self.counts.copy(), self.left, self.pending)

    def draw(self, rng: random.Random) -> None:
        """Draw one stone uniformly from the stones not drawn yet."""
        pick = rng.randrange(self.left)
        counts = self.counts
        value = 1
        while pick >= counts[value]:
            pick -= counts[value]
            value += 1
        self.take(value)

    def take(self, value: int) -> None:
        self.counts[value] -= 1
        self.left -= 1
        self.hand.append(value)


def fresh_particle() -> Particle:
    """The start of a game: every stone undrawn, the first hand still to draw."""
    counts = [0] * (VALUES + 1)
    for value in STONES:
        counts[value] += 1
    return Particle([], counts, len(STONES), HAND_SIZE)


def choice_probability(value: int, hand: Sequence[int], beta: float) -> float:
    """The choice model: the chance of placing ``value`` from ``hand`` (softmax over its values)."""
    return math.exp(beta * value) / sum(math.exp(beta * x) for x in hand)


def place(particle: Particle, value: int, rng: random.Random, beta: float) -> float:
    """Advance ``particle`` through the placement of ``value``; the likelihood factor (0: impossible).

    The owed draws come first (the last one forced to ``value`` when the hand lacks it), then the
    placement, then one draw is owed (made when the next placement or the guess needs it).
    """
    weight = 1.0
    while particle.pending > 0 and particle.left > 0:
        if particle.pending == 1 and value not in particle.hand:
            count = particle.counts[value]
            if count == 0:
                return 0.0
            weight *= count / particle.left
            particle.take(value)
        else:
            particle.draw(rng)
        particle.pending -= 1
    particle.pending = 0
    if value not in particle.hand:
        return 0.0
    weight *= choice_probability(value, particle.hand, beta)
    particle.hand.remove(value)
    particle.pending = 1
    return weight


@dataclass(frozen=True)
class OpponentGuess:
    """The opponent's hidden stones in one guess: face-down value (None if none), hand, supply order."""

    face_down: int | None
    hand: tuple[int, ...]
    supply: tuple[int, ...]
    #: The hand the face-down stone was chosen from (sorted; empty when there is no face-down stone).
    held: tuple[int, ...] = ()


class HandFilter:
    """Particles of the opponent's hidden stones, updated with each value it places (see the module)."""

    def __init__(self, rng: random.Random, particles: int = PARTICLES, beta: float = BETA) -> None:
        self.rng = rng
        self.beta = beta
        self.particles = [fresh_particle() for _ in range(particles)]
        self.placed: list[int] = []
        #: False once no particle could explain the placements (the model then gives up).
        self.alive = True

    def observe_placement(self, value: int) -> None:
        """Update with one placement of ``value`` (in the order the opponent placed them)."""
        self.placed.append(value)
        if not self.alive:
            return
        weights = [place(p, value, self.rng, self.beta) for p in self.particles]
        total = sum(weights)
        if total <= 0.0:
            self.alive = False
            return
        self.particles = self._resample(weights, total)

    def _resample(self, weights: Sequence[float], total: float) -> list[Particle]:
        """Systematic resampling: len(particles) equally weighted copies, drawn by weight."""
        count = len(self.particles)
        step = total / count
        point = self.rng.random() * step
        chosen: list[Particle] = []
        running = 0.0
        index = -1
        for _ in range(count):
            while running <= point and index + 1 < count:
                index += 1
                running += weights[index]
            chosen.append(self.particles[index].copy())
            point += step
        return chosen

    def guess(self, rng: random.Random, face_down: bool) -> OpponentGuess:
        """The opponent's hidden stones now, from one random particle (copied, never changed)."""
        particle = self.particles[rng.randrange(len(self.particles))].copy()
        while particle.pending > 0 and particle.left > 0:
            particle.draw(rng)
            particle.pending -= 1
        down: int | None = None
        held: tuple[int, ...] = ()
        if face_down and particle.hand:
            held = tuple(sorted(particle.hand))
            down = _pick(particle.hand, rng, self.beta)
            particle.hand.remove(down)
            if particle.left > 0:
                particle.draw(rng)
        supply = [v for v in range(1, VALUES + 1) for _ in range(particle.counts[v])]
        rng.shuffle(supply)
        return OpponentGuess(down, tuple(sorted(particle.hand)), tuple(supply), held)


def _pick(hand: Sequence[int], rng: random.Random, beta: float) -> int:
    """A value from ``hand`` drawn by the choice model."""
    weights = [math.exp(beta * x) for x in hand]
    point = rng.random() * sum(weights)
    for value, weight in zip(hand, weights, strict=True):
        point -= weight
        if point < 0.0:
            return value
    return hand[-1]


def seen_opponent_stones(obs: SurgeObservation) -> Counter[int]:
    """The opponent's stones the observation shows: face up on the board and removed from it."""
    enemy = ORANGE if obs.colour == BLUE else BLUE
    seen = Counter(value for _, colour, value in obs.face_up if colour == enemy)
    seen.update(obs.removed_orange if enemy == ORANGE else obs.removed_blue)
    return seen


@dataclass
class _Track:
    filter: HandFilter
    seen: Counter[int] = field(default_factory=Counter)
    complete: bool = True


class OpponentTracker:
    """One :class:`HandFilter` per match, fed from the observations the bot is given.

    Between two of the bot's turns the opponent's newly revealed stones are the placements it made
    (one, or several when the bot had turns it did not play, such as skips; those are fed biggest
    first). A match first seen with opponent stones already revealed has an unknown history and
    gets no model.
    """

    def __init__(self, rng: random.Random, particles: int = PARTICLES, beta: float = BETA) -> None:
        self.rng = rng
        self.particles = particles
        self.beta = beta
        self.tracks: dict[str, _Track] = {}

    def model(self, match_id: str, obs: SurgeObservation) -> HandFilter | None:
        """The filter of ``match_id`` brought up to date with ``obs`` (None: no usable model)."""
        seen = seen_opponent_stones(obs)
        track = self.tracks.get(match_id)
        if track is None:
            track = _Track(HandFilter(self.rng, self.particles, self.beta), complete=not seen)
            self.tracks[match_id] = track
            while len(self.tracks) > TRACKED_MATCHES:
                del self.tracks[next(iter(self.tracks))]
        new = seen - track.seen
        if track.seen - seen:  # a stone seen before is gone from view: not the same match history
            track.complete = False
        track.seen = seen
        if track.complete:
            for value in _biggest_first(new.elements()):
                track.filter.observe_placement(value)
        if not (track.complete and track.filter.alive):
            return None
        return track.filter


def _biggest_first(values: Iterable[int]) -> list[int]:
    return sorted(values, reverse=True)
