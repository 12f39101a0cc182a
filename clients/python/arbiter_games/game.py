"""What a game is, in one place: ``GameDef``, the definition the arbiter, the SDK and the tools share.

A definition holds the game's rules (the engine), its options (normalised, with defaults), whether
it has chance and hidden information, its forced actions, the public view a spectator may see and
the seed commitment that lets a bot check the arbiter's chance afterwards. Code outside a game's
own modules asks the definition instead of testing the game's name.

States and actions are opaque at this seam (``object``): each engine keeps its own precise types,
and ``TypedGame`` is the one place where the definition hands them back to its engine.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, cast

from .base import IllegalAction, MalformedAction, OptionsError, Outcome, Rules

#: Options after normalisation: every option a game has, with its value (defaults filled in).
GameOptions = Mapping[str, int]


class Observation(Protocol):
    """What every game's observation tells, whatever else it holds."""

    @property
    def seat(self) -> int: ...

    @property
    def colour(self) -> str: ...

    @property
    def over(self) -> bool: ...


class SeedCheck(Protocol):
    """Collects what a match showed one seat, then checks the revealed seed against it."""

    def record(self, observation: object) -> None: ...

    def check(self, seed_hex: str) -> list[str]:
        """Every problem found, as sentences (empty: the seed explains everything the seat saw)."""
        ...


@dataclass(frozen=True)
class IntOption:
    """An integer option: ``0`` or absent means the default; any other value must be a choice."""

    name: str
    default: int
    choices: tuple[int, ...]
    doc: str = ""


class GameDef(ABC):
    """One game: its rules and everything the arbiter and the tools need to know about it."""

    #: The game's name on the command line, in records and in logs (``torrent``).
    name: str
    #: The name people read (``Surge Stones``).
    title: str
    #: Whether the game draws from a seed (chance); its seed is committed to and revealed.
    has_chance: bool
    #: Whether a seat sees less than the whole state (Surge's hands and face-down stones).
    hidden_information: bool
    #: The colours of the roles, in the order seat 1 and seat 2 start with them.
    colours: tuple[str, str]
    #: The options a match may set.
    options: tuple[IntOption, ...] = ()

    # --- options ----------------------------------------------------------------------------
    def normalise_options(self, raw: Mapping[str, object] | None = None) -> dict[str, int]:
        """Every option with its value; ``0``, ``None`` or absent take the default.

        ``{}``, ``{"size": 0}`` and ``{"size": 7}`` are the same Torrent game. Raises
        ``OptionsError`` for an unknown option or a value the game does not offer.
        """
        raw = dict(raw or {})
        known = {option.name: option for option in self.options}
        unknown = sorted(set(raw) - set(known))
        if unknown:
            takes = ", ".join(known) or "no options"
            raise OptionsError(f"{self.name} has no option {unknown[0]!r} (it takes {takes})")
        out: dict[str, int] = {}
        for option in self.options:
            value = raw.get(option.name)
            if value is None or value == 0:
                out[option.name] = option.default
                continue
            if type(value) is not int or value not in option.choices:
                choices = ", ".join(str(c) for c in option.choices)
                raise OptionsError(f"{self.name} {option.name} must be one of {choices}, got {value!r}")
            out[option.name] = value
        return out

    def describe(self, options: GameOptions) -> str:
        """A short label: ``torrent-7``, ``surge``."""
        values = "-".join(str(options[o.name]) for o in self.options if o.name in options)
        return f"{self.name}-{values}" if values else self.name

    # --- chance -----------------------------------------------------------------------------
    def seed_commitment(self, seed: bytes, leg: str = "") -> str:
        """What a seat is told before the first action: SHA-256 of the seed, or "" without chance.

        ``leg``: on a leg of a duplicate pair (two matches sharing one seed), that match's id; it
        is hashed after the seed (``SHA-256(seed || match_id)``), so the legs' commitments differ
        and do not show which matches share a seed."""
        if not self.has_chance:
            return ""
        return hashlib.sha256(seed + leg.encode("ascii")).hexdigest()

    def commitment_fits(self, seed: bytes, commitment: str, match_id: str) -> bool:
        """Whether ``commitment`` is the seed's, as an ordinary match or as the leg ``match_id``."""
        given = commitment.strip().lower()
        return given in (self.seed_commitment(seed), self.seed_commitment(seed, match_id))

    def revealed_seed(self, seed: bytes) -> str:
        """What the seats are told when the match ends: the seed in hex, or "" without chance."""
        return seed.hex() if self.has_chance else ""

    def seed_check(self, match_id: str, commitment: str, colour: str) -> SeedCheck | None:
        """A checker for one seat of a match, for games with chance; None for the others."""
        return None

    # --- rules ------------------------------------------------------------------------------
    @abstractmethod
    def new_game(self, options: Mapping[str, object] | None = None, seed: bytes | None = None) -> object:
        """A new game; ``options`` are normalised first (absent ones take their defaults)."""

    @abstractmethod
    def to_move(self, state: object) -> int | None: ...

    @abstractmethod
    def legal_actions(self, state: object) -> Sequence[object]: ...

    @abstractmethod
    def apply(self, state: object, action: object) -> object: ...

    @abstractmethod
    def apply_in_place(self, state: object, action: object) -> None: ...

    @abstractmethod
    def outcome(self, state: object) -> Outcome | None: ...

    @abstractmethod
    def scores_by_seat(self, state: object) -> dict[int, int]: ...

    @abstractmethod
    def observe(self, state: object, seat: int) -> Observation:
        """Everything ``seat`` may know: the only way anything about a state reaches a player."""

    @abstractmethod
    def public_view(self, state: object) -> object:
        """What a spectator may see: what both seats know (no hidden value before its reveal)."""

    @abstractmethod
    def parse_action(self, text: str) -> object: ...

    @abstractmethod
    def format_action(self, action: object) -> str: ...

    def forced_action(self, state: object, legal: Sequence[object]) -> object | None:
        """An action the arbiter plays without asking the seat (Surge's skip), or None."""
        return None

    @abstractmethod
    def render_text(self, state: object, colour: bool = False) -> str:
        """A terminal picture of the position (``colour``: with ANSI colours)."""


S = TypeVar("S")
A = TypeVar("A")
O = TypeVar("O", bound=Observation)  # noqa: E741 - the engines' own name for an observation type


class TypedGame(GameDef, Generic[S, A, O]):
    """A definition over a typed engine: the one place where opaque states and actions meet it.

    ``action_types`` are the engine's action classes: any other object handed to ``apply`` is
    refused as malformed (a bot's Python code may pass anything).
    """

    def __init__(self, rules: Rules[S, A, O], action_types: tuple[type, ...]) -> None:
        self.rules = rules
        self.action_types = action_types

    def _action(self, action: object) -> A:
        if not isinstance(action, self.action_types):
            names = ", ".join(t.__name__ for t in self.action_types)
            shown = type(action).__name__
            raise MalformedAction(f"{self.name} actions are {names}, not {shown}")
        return cast(A, action)

    def new_game(self, options: Mapping[str, object] | None = None, seed: bytes | None = None) -> object:
        return self.rules.new_game(self.normalise_options(options), seed)

    def to_move(self, state: object) -> int | None:
        return self.rules.to_move(cast(S, state))

    def legal_actions(self, state: object) -> Sequence[object]:
        return self.rules.legal_actions(cast(S, state))

    def apply(self, state: object, action: object) -> object:
        return self.rules.apply(cast(S, state), self._action(action))

    def apply_in_place(self, state: object, action: object) -> None:
        self.rules.apply_in_place(cast(S, state), self._action(action))

    def outcome(self, state: object) -> Outcome | None:
        return self.rules.outcome(cast(S, state))

    def scores_by_seat(self, state: object) -> dict[int, int]:
        return self.rules.scores_by_seat(cast(S, state))

    def observe(self, state: object, seat: int) -> O:
        return self.rules.observe(cast(S, state), seat)

    def parse_action(self, text: str) -> object:
        return self.rules.parse_action(text)

    def format_action(self, action: object) -> str:
        return self.rules.format_action(self._action(action))


__all__ = [
    "GameDef",
    "GameOptions",
    "IllegalAction",
    "IntOption",
    "MalformedAction",
    "Observation",
    "OptionsError",
    "SeedCheck",
    "TypedGame",
]
