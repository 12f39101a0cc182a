"""The JSON API's answers (pydantic models: FastAPI derives the OpenAPI description from them).

The pages render the same values, so every page has its twin under ``/api/``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class BotVersionOut(BaseModel):
    bot: str
    version: str


class Standing(BaseModel):
    rank: int
    bot: str
    version: str
    mu: float
    sigma: float
    #: The conservative rating the standings rank by: mu - 3 sigma.
    ordinal: float
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int
    failures: dict[str, int]
    last_game: float | None
    paused: str | None


class LadderSummary(BaseModel):
    name: str
    game: str
    title: str
    options: dict[str, int]
    time_control: str
    rated: bool
    #: False for an archived ladder (`arbiter ladders archive`): it takes no new match.
    enabled: bool
    #: What the ladder is for (`arbiter ladders edit --description`); "" for none.
    description: str = ""
    live_matches: int
    top: list[Standing]


class CrossCell(BaseModel):
    """One pair's score on a ladder: the row bot's points against the column bot, and games."""

    points: float
    games: int


class LadderPage(BaseModel):
    ladder: LadderSummary
    standings: list[Standing]
    #: Every pair's score by bot (all versions): row bot -> column bot -> its points and games,
    #: rows and columns in the standings' order.
    crosstable: dict[str, dict[str, CrossCell]] = {}


class WholeHistoryRow(BaseModel):
    rank: int
    bot: str
    version: str
    #: Elo-scale rating from a Bradley-Terry fit of every rated result, with its 95% interval.
    rating: float
    low: float
    high: float
    games: int


class WholeHistoryPage(BaseModel):
    ladder: LadderSummary
    rows: list[WholeHistoryRow]
    #: Why there is no fit (too few results, or a group that never scored against the rest).
    problem: str | None = None


class MatchSummary(BaseModel):
    match_id: str
    ladder: str | None
    game: str
    #: The game's title (``Torrent``) and the title with its options (``Torrent 5``).
    game_title: str = ""
    game_label: str = ""
    #: Each seat's colour at the end (a swap changes them): ``{"1": "black", "2": "white"}``;
    #: None while the match runs or without a record.
    colours: dict[str, str] | None = None
    #: The result in words, by bot name and colour: ``alice (Black) won 116-11``, ``bob lost on
    #: time``, ``draw 20-20``, ``aborted``, ``running``.
    result: str = ""
    seat_1: BotVersionOut
    seat_2: BotVersionOut
    status: str
    rated: bool
    started_at: float
    ended_at: float | None
    winner_seat: int | None
    scores: dict[str, int] | None
    reason: str | None
    termination: str | None
    faulty_seat: int | None
    detail: str | None
    #: Its two bots have one owner (or it is two versions of one bot): unrated unless the ladder
    #: rates and flags such matches.
    same_owner: bool = False


class RatingOut(BaseModel):
    ladder: str
    version: str
    mu: float
    sigma: float
    ordinal: float
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int


class HistoryPoint(BaseModel):
    ladder: str
    version: str
    match_id: str
    sequence: int
    ended_at: float
    mu: float
    sigma: float


class Results(BaseModel):
    """Ended matches by outcome; aborted ones are not games."""

    games: int
    wins: int
    losses: int
    draws: int
    aborted: int


class VersionResults(Results):
    """A bot's results as one version on one ladder (None: casual matches), rated or not."""

    ladder: str | None
    version: str


class HeadToHead(Results):
    opponent: str


class BotPage(BaseModel):
    name: str
    #: Who runs it (as registered with `arbiter bots add --owner`); None for an unregistered bot.
    owner: str | None = None
    registered: bool
    #: Whether the bot has a session with the arbiter now (None: not known to a separate web process).
    connected: bool | None
    ratings: list[RatingOut]
    #: Its results per ladder and version (every version it played), and in all.
    results: list[VersionResults]
    totals: Results
    #: Its rating after its rated matches, at most 500 points (downsampled for a longer history).
    history: list[HistoryPoint]
    #: How many rated matches the history has in all.
    history_total: int
    #: A page of its matches: the running ones first (first page only), then the ended ones, the
    #: last to end first.
    matches: list[MatchSummary]
    #: The ``before`` of the next (older) page of matches; None: this is the last page.
    next: int | None
    #: A page of the head-to-head table (most games first), from ``opponents_from``.
    head_to_head: list[HeadToHead]
    #: How many opponents the head-to-head table has in all.
    opponents: int
    #: The ``opponents_from`` of the next page of the head-to-head table; None: the last page.
    next_opponents: int | None
    #: Its own failed matches, by termination.
    failures: dict[str, int]
    paused: dict[str, str]


class MoveOut(BaseModel):
    ply: int
    seat: int
    action: str
    charged: float | None
    clocks: dict[str, float | None]
    auto: str | None


class LiveFrame(BaseModel):
    """One position of a running match as spectators see it: ``view`` is the game's public view."""

    match_id: str
    ply: int
    seat: int | None
    action: str | None
    charged: float | None
    clocks: dict[str, float | None]
    auto: str | None
    view: dict[str, Any]
    #: Beside the board: each seat's colour and score and the seat to move (None: nobody), from
    #: the view: ``{"colours": {"1": "black", "2": "white"}, "scores": {"1": 12, "2": 9}, "to_move": 2}``.
    status: dict[str, Any] = {}
    #: Earlier moves whose text the rules have just made public, by ply (Surge: a round's moves
    #: once its stones are face up; their frames had ``action`` null).
    revealed: dict[str, str] = {}
    over: bool


class LiveMatchOut(BaseModel):
    match_id: str
    game: str
    ladder: str | None
    bots: dict[str, str]
    #: Moves held back from spectators (the ladder's live delay).
    delay: int
    frame: LiveFrame | None


class MatchPage(BaseModel):
    match: MatchSummary
    #: Running: the moves below are what spectators may see so far.
    live: bool
    moves: list[MoveOut]
    #: The JSON record, once the match has ended.
    record_url: str | None
    frames: list[LiveFrame]


class Problem(BaseModel):
    detail: str
