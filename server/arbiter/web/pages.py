"""What each page shows, read from the store (and the live hub): one function per page.

The HTML pages and the JSON API both call these, so the API mirrors the pages.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arbiter_games import get_game

from ..ladder.model import BotVersion, LadderConfig
from ..ladder.ratings import is_provisional
from ..ladder.standings import standings as ladder_standings
from ..ladder.standings import whole_history_standings
from ..match.replay import RecordError, replay
from ..store import MatchRow, SqlStore
from ..store.describe import result_text
from ..store.rows import RatingRow
from .live import LiveHub, LiveMatch, public_dict
from .models import (
    BotPage,
    BotVersionOut,
    CrossCell,
    HeadToHead,
    HistoryPoint,
    LadderPage,
    LadderSummary,
    LiveFrame,
    LiveMatchOut,
    MatchPage,
    MatchSummary,
    MoveOut,
    RatingOut,
    Results,
    Standing,
    VersionResults,
    WholeHistoryPage,
    WholeHistoryRow,
)
from .status import board_status
from .svg import board_svg

TOP = 5
#: What a running match's move list shows for an action whose text would tell a hidden value.
HIDDEN = "(hidden)"
#: Matches per page of a bot's matches (the API's ``limit``: default and most), opponents per page
#: of its head-to-head table.
RECENT = 30
MATCHES_MAX = 100
HEAD_TO_HEAD = 100


def standings(store: SqlStore, ladder: str) -> list[Standing]:
    """Each bot's current version (the one of its last game), best first by mu - 3 sigma."""
    return [
        Standing(**{name: value for name, value in row.as_dict().items() if name in Standing.model_fields})
        for row in ladder_standings(store, ladder)
    ]


def ladder_summary(config: LadderConfig, live: int, top: list[Standing]) -> LadderSummary:
    game = get_game(config.game)
    return LadderSummary(
        name=config.name,
        game=config.game,
        title=game.title,
        options=dict(config.options),
        time_control=config.control.describe(),
        rated=config.rated,
        enabled=config.enabled,
        description=config.description,
        live_matches=live,
        top=top,
    )


def index(store: SqlStore, hub: LiveHub | None) -> list[LadderSummary]:
    counts = live_counts(store, hub)
    return [
        ladder_summary(config, counts.get(config.name, 0), standings(store, config.name)[:TOP])
        for config in store.list_ladders()
    ]


def live_counts(store: SqlStore, hub: LiveHub | None) -> dict[str | None, int]:
    if hub is None:
        return store.running_counts()
    counts: dict[str | None, int] = {}
    for match in hub.running():
        counts[match.ladder] = counts.get(match.ladder, 0) + 1
    return counts


def ladder_page(store: SqlStore, hub: LiveHub | None, name: str) -> LadderPage | None:
    config = store.get_ladder(name)
    if config is None:
        return None
    rows = standings(store, name)
    live = live_counts(store, hub).get(name, 0)
    return LadderPage(
        ladder=ladder_summary(config, live, rows[:TOP]),
        standings=rows,
        crosstable=crosstable(store, name, rows),
    )


def crosstable(store: SqlStore, name: str, rows: Sequence[Standing]) -> dict[str, dict[str, CrossCell]]:
    """Row bot -> column bot -> score, bots in the standings' order (then any others by name)."""
    scores = store.pair_scores(name)
    order = list(dict.fromkeys(row.bot for row in rows))
    order += sorted({bot for pair in scores for bot in pair} - set(order))
    return {
        bot: {
            other: CrossCell(points=scores[(bot, other)][0], games=scores[(bot, other)][1])
            for other in order
            if (bot, other) in scores
        }
        for bot in order
    }


def whole_history_page(store: SqlStore, hub: LiveHub | None, name: str) -> WholeHistoryPage | None:
    """The whole-history standings (every rated result fitted at once), or why there are none."""
    config = store.get_ladder(name)
    if config is None:
        return None
    summary = ladder_summary(config, live_counts(store, hub).get(name, 0), [])
    try:
        lines = whole_history_standings(store, name)
    except ValueError as exc:
        return WholeHistoryPage(ladder=summary, rows=[], problem=str(exc))
    rows = [
        WholeHistoryRow(
            rank=line.rank, bot=line.bot, version=line.version, rating=line.rating, low=line.low,
            high=line.high, games=line.games,
        )
        for line in lines
    ]  # fmt: skip
    return WholeHistoryPage(ladder=summary, rows=rows, problem=None if rows else "no rated results yet")


def match_summaries(store: SqlStore, rows: Sequence[MatchRow]) -> list[MatchSummary]:
    """The listing of ``rows``, with each ended match's colours (one read for them all)."""
    colours = store.final_colours([row.match_id for row in rows if row.status != "running"])
    return [match_summary(row, colours.get(row.match_id)) for row in rows]


def match_summary(row: MatchRow, colours: Mapping[int, str] | None = None) -> MatchSummary:
    """A match as the tables show it; ``colours``: each seat's colour at the end (else none)."""
    game = get_game(row.game)
    return MatchSummary(
        match_id=row.match_id,
        ladder=row.ladder,
        game=row.game,
        game_title=game.title,
        game_label=_game_label(game.title, row.options),
        colours=None if colours is None else {str(seat): colour for seat, colour in colours.items()},
        result=result_text(row, colours),
        seat_1=BotVersionOut(bot=row.seat_1.bot, version=row.seat_1.version),
        seat_2=BotVersionOut(bot=row.seat_2.bot, version=row.seat_2.version),
        status=row.status,
        rated=row.rated,
        started_at=row.started_at,
        ended_at=row.ended_at,
        winner_seat=row.winner_seat,
        scores=None if row.scores is None else {str(seat): score for seat, score in row.scores.items()},
        reason=row.reason,
        termination=None if row.termination is None else row.termination.value,
        faulty_seat=row.faulty_seat,
        detail=row.detail,
        same_owner=row.same_owner,
    )


def _game_label(title: str, options: Mapping[str, int] | None) -> str:
    """``Torrent 5``: the game's title and its options' values (a board size)."""
    values = " ".join(str(value) for _, value in sorted((options or {}).items()))
    return f"{title} {values}" if values else title


def rating_out(row: RatingRow) -> RatingOut:
    rating = row.tally.rating
    return RatingOut(
        ladder=row.ladder,
        version=row.version.version,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        provisional=is_provisional(row.tally.games),
        games=row.tally.games,
        wins=row.tally.wins,
        losses=row.tally.losses,
        draws=row.tally.draws,
    )


def bot_page(
    store: SqlStore,
    name: str,
    connected: Callable[[str], bool] | None,
    before: int | None = None,
    limit: int = RECENT,
    opponents_from: int = 0,
) -> BotPage | None:
    """A bot's page: every list bounded (a page of matches from ``before``, a page of
    ``HEAD_TO_HEAD`` opponents from ``opponents_from``, at most 500 points of history), every
    count made in SQL; None for a name that is neither registered nor in a match."""
    row = store.bot_row(name)
    registered = row is not None
    listed = store.bot_matches(name, before, limit)
    counted = store.bot_summary(name)
    if not registered and not listed.rows and not counted.total.games + counted.total.aborted:
        return None
    opponents = sorted(counted.opponents.items(), key=lambda item: (-item[1].games, item[0]))
    shown = opponents[opponents_from : opponents_from + HEAD_TO_HEAD]
    more = opponents_from + HEAD_TO_HEAD < len(opponents)
    return BotPage(
        name=name,
        owner=row.owner if row is not None else None,
        registered=registered,
        connected=None if connected is None else connected(name),
        ratings=[rating_out(row) for row in store.ratings_of_bot(name)],
        results=[
            VersionResults(ladder=ladder, version=version, **asdict(counts))
            for (ladder, version), counts in sorted(
                counted.versions.items(), key=lambda item: (item[0][0] or "", item[0][1])
            )
        ],
        totals=Results(**asdict(counted.total)),
        history=[
            HistoryPoint(
                ladder=p.ladder,
                version=p.version,
                match_id=p.match_id,
                sequence=p.sequence,
                ended_at=p.ended_at,
                mu=p.mu,
                sigma=p.sigma,
            )
            for p in counted.history
        ],
        history_total=counted.rated,
        matches=match_summaries(store, listed.rows),
        next=listed.next,
        head_to_head=[HeadToHead(opponent=other, **asdict(counts)) for other, counts in shown],
        opponents=len(opponents),
        next_opponents=opponents_from + HEAD_TO_HEAD if more else None,
        failures=counted.failures,
        paused=store.pauses_of(name) if registered else {},
    )


# --- a match: the replay of its record, or its live frames ----------------------------------------
@dataclass(frozen=True)
class Replay:
    """A finished match's positions: public views, and the face-down values (public now)."""

    game: str
    views: list[object]
    revealed: list[dict[str, int]]
    moves: list[MoveOut]
    record: Mapping[str, Any]

    def svg(self, step: int) -> str:
        return board_svg(self.views[step], self.revealed[step])


class ReplayCache:
    """Replays of ended matches (their records never change), the most recent few kept."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._items: OrderedDict[str, Replay] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, store: SqlStore, match_id: str) -> Replay | None:
        with self._lock:
            if match_id in self._items:
                self._items.move_to_end(match_id)
                return self._items[match_id]
        record = store.match_record(match_id)
        if record is None:
            return None
        made = make_replay(record)
        if made is None:
            return None
        with self._lock:
            self._items[match_id] = made
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return made


def make_replay(record: Mapping[str, Any]) -> Replay | None:
    try:
        report = replay(dict(record))
    except RecordError:
        return None
    game = report.rules
    views: list[object] = []
    revealed: list[dict[str, int]] = []
    for state in report.states:
        views.append(game.public_view(state))
        values: dict[str, int] = {}
        for seat in (1, 2):  # after the match everything is public: each seat's own face-down values
            for entry in getattr(game.observe(state, seat), "face_down", ()):
                square, _, value = entry
                if value is not None:  # a seat sees its own face-down values only
                    values[str(square)] = int(value)
        revealed.append(values)
    moves = [
        MoveOut(
            ply=number,
            seat=int(entry["seat"]),
            action=str(entry["action"]),
            charged=entry.get("charged"),
            clocks={str(k): v for k, v in (entry.get("clocks") or {}).items()},
            auto=entry.get("auto"),
        )
        for number, entry in enumerate(record.get("actions", [])[: len(report.states) - 1], 1)
    ]
    return Replay(report.game, views, revealed, moves, record)


def live_frame(frame: Any) -> LiveFrame:
    return LiveFrame(
        match_id=frame.match_id,
        ply=frame.ply,
        seat=frame.seat,
        action=frame.action,
        charged=frame.charged,
        clocks=dict(frame.clocks),
        auto=frame.auto,
        view=dict(frame.view),
        status=board_status(frame.view),
        revealed={str(ply): text for ply, text in frame.revealed.items()},
        over=frame.over,
    )


def live_match_out(match: LiveMatch) -> LiveMatchOut:
    visible = match.visible()
    return LiveMatchOut(
        match_id=match.match_id,
        game=match.game,
        ladder=match.ladder,
        bots={str(seat): bot for seat, bot in match.bots.items()},
        delay=match.delay,
        frame=live_frame(visible[-1]) if visible else None,
    )


def match_page(
    store: SqlStore, hub: LiveHub | None, cache: ReplayCache, match_id: str
) -> tuple[MatchPage, Replay | None, LiveMatch | None] | None:
    row = store.match_row(match_id)
    live = hub.get(match_id) if hub is not None else None
    if row is None and live is None:
        return None
    if row is None or (row.status == "running" and live is not None and live.ended_at is not None):
        assert live is not None  # just started (not stored yet), or just ended (record not stored yet)
        row = MatchRow(
            match_id=match_id, ladder=live.ladder, game=live.game,
            seat_1=BotVersion(live.bots.get(1, "?"), "?"), seat_2=BotVersion(live.bots.get(2, "?"), "?"),
            status="running", rated=False, started_at=live.started_at,
        ) if row is None else row  # fmt: skip
    if row.status != "running":
        made = cache.get(store, match_id)
        if made is not None:
            frames = [
                LiveFrame(
                    match_id=match_id, ply=step, seat=None if step == 0 else made.moves[step - 1].seat,
                    action=None if step == 0 else made.moves[step - 1].action,
                    charged=None if step == 0 else made.moves[step - 1].charged,
                    clocks={} if step == 0 else made.moves[step - 1].clocks,
                    auto=None if step == 0 else made.moves[step - 1].auto,
                    view=public_dict(view), status=board_status(public_dict(view)),
                    over=step == len(made.views) - 1,
                )
                for step, view in enumerate(made.views)
            ]  # fmt: skip
            page = MatchPage(
                match=match_summary(row, store.final_colours([match_id]).get(match_id)),
                live=False, moves=made.moves,
                record_url=f"/api/matches/{match_id}/record", frames=frames,
            )  # fmt: skip
            return page, made, None
        return (
            MatchPage(match=match_summary(row), live=False, moves=[], record_url=None, frames=[]),
            None,
            None,
        )
    visible = live.visible() if live is not None else []
    # Surge's hidden moves read VALUE@SQUARE once their round's stones are face up.
    told = {frame.ply: frame.action for frame in visible}
    for frame in visible:
        told.update(frame.revealed)
    moves = [
        MoveOut(
            ply=frame.ply, seat=frame.seat, action=text or HIDDEN, charged=frame.charged,
            clocks=dict(frame.clocks), auto=frame.auto,
        )
        for frame in visible
        if frame.seat is not None
        for text in (told[frame.ply],)
    ]  # fmt: skip
    page = MatchPage(
        match=match_summary(row), live=True, moves=moves, record_url=None,
        frames=[live_frame(frame) for frame in visible],
    )  # fmt: skip
    return page, None, live


def shown_status(page: MatchPage, step: int) -> dict[str, Any]:
    """Beside the board at ``step`` (a live page: its latest frame): each seat's bot, colour,
    score and clock, and who is to move; from the frames' public status alone."""
    frames = page.frames
    frame = next((f for f in frames if f.ply == step), frames[-1] if frames else None)
    if frame is None:
        return {"seats": [], "to_move": None, "over": False}
    status = frame.status
    bots = {"1": page.match.seat_1.bot, "2": page.match.seat_2.bot}
    seats = [
        {
            "seat": seat,
            "bot": bots[seat],
            "colour": status.get("colours", {}).get(seat, ""),
            "score": status.get("scores", {}).get(seat),
            "clock": frame.clocks.get(seat),
        }
        for seat in ("1", "2")
    ]
    mover = status.get("to_move")
    to_move = next((entry for entry in seats if entry["seat"] == str(mover)), None)
    return {"seats": seats, "to_move": to_move, "over": frame.over}


def featured(store: SqlStore, hub: LiveHub | None) -> tuple[LiveMatch, float] | None:
    """The match to feature on the home page ("TV"): the running ladder match whose two bots
    have the highest ratings together (each bot's best rating on that ladder, mu - 3 sigma; an
    unrated bot counts as 0), the oldest first on a tie; with its rating. None when none runs."""
    if hub is None:
        return None
    best: dict[str, dict[str, float]] = {}
    chosen: tuple[LiveMatch, float] | None = None
    for match in hub.running():
        if match.ladder is None or not match.visible():
            continue
        if match.ladder not in best:
            tops: dict[str, float] = {}
            for row in store.ratings(match.ladder):
                tops.setdefault(row.version.bot, row.tally.rating.ordinal)  # best first
            best[match.ladder] = tops
        strength = sum(best[match.ladder].get(bot, 0.0) for bot in match.bots.values())
        if chosen is None or strength > chosen[1]:
            chosen = (match, strength)
    return chosen
