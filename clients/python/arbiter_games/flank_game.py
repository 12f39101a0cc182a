"""The game definitions of Torrent and Fravan (one engine, ``hexflank``, with or without locks)."""

from __future__ import annotations

from dataclasses import dataclass

from .game import IntOption, TypedGame
from .hexflank import BLACK, WHITE, FlankAction, FlankObservation, FlankRules, FlankState, Pass, Place, Swap

_ANSI = {"B": "\x1b[1;30;47m", "W": "\x1b[1;37;40m"}
_RESET = "\x1b[0m"
_SYMBOLS = {".": "·", "B": "●", "W": "○", "b": "◆", "w": "◇"}


@dataclass(frozen=True, slots=True)
class FlankPublicView:
    """A Torrent/Fravan position as a spectator sees it: the whole position (nothing is hidden)."""

    game: str
    size: int
    board: str
    events: tuple[int, ...]
    #: The seat playing Black (2 after a swap).
    black_seat: int
    to_move_seat: int | None
    to_move_colour: str
    swapped: bool
    action_count: int
    last_action: str | None
    first_pass_colour: str | None
    scores: tuple[tuple[str, int], ...]
    over: bool


class FlankGame(TypedGame[FlankState, FlankAction, FlankObservation]):
    """Torrent or Fravan: no chance, no hidden information, one option (the board size)."""

    has_chance = False
    hidden_information = False
    colours = (BLACK, WHITE)

    def __init__(self, rules: FlankRules, title: str) -> None:
        super().__init__(rules, (Place, Pass, Swap))
        self.flank_rules = rules
        self.name = rules.name
        self.title = title
        self.options = (
            IntOption("size", rules.default_size, rules.sizes, "the board's side length, in points"),
        )

    def public_view(self, state: object) -> FlankPublicView:
        seen = self.observe(state, 1)
        return FlankPublicView(
            game=self.name,
            size=seen.size,
            board=seen.board,
            events=seen.events,
            black_seat=1 if seen.colour == BLACK else 2,
            to_move_seat=seen.to_move_seat,
            to_move_colour=seen.to_move_colour,
            swapped=seen.swapped,
            action_count=seen.action_count,
            last_action=seen.last_action,
            first_pass_colour=seen.first_pass_colour,
            scores=seen.scores,
            over=seen.over,
        )

    def render_text(self, state: object, colour: bool = False) -> str:
        """The hexagon with its rows indented as on the rules page, then the scores."""
        flank = self._state(state)
        rules = self.flank_rules
        geo = flank.geo
        longest = max(len(r) for r in geo.rows)
        lines = []
        for row, cells in zip(geo.rows, rules.board_text(flank).split("/"), strict=True):
            row_no = geo.names[row[0]][1:]
            shown = []
            for ch in cells:
                symbol = _SYMBOLS[ch]
                if colour and ch != ".":
                    symbol = _ANSI[ch.upper()] + symbol + _RESET
                shown.append(symbol)
            lines.append(f"{row_no:>3} " + " " * (longest - len(row)) + " ".join(shown))
        scores = rules.scores(flank)
        lines.append(
            f"black {scores['black']}  white {scores['white']}  to move: {flank.colour_to_move}"
            + ("  (swapped)" if flank.swapped else "")
            + ("  ◆/◇ locked" if rules.locks else "")
        )
        return "\n".join(lines)

    @staticmethod
    def _state(state: object) -> FlankState:
        if not isinstance(state, FlankState):
            raise TypeError(f"not a Torrent/Fravan state: {type(state).__name__}")
        return state
