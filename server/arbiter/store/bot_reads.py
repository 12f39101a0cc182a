"""The reads of a bot's page, bounded whatever the number of the bot's matches (issue 18 item 6).

Every read is a range of an index of migration 0008 and returns a bounded number of rows: a page
of matches (keyset paging on the order in which matches finished, ``sequence``), counts grouped
in SQL (an index holds every column they read, in their grouping order), and at most
``MAX_POINTS`` points of rating history (downsampled in SQL: the last rated match of each
stretch of finishing order, found by an index seek).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    Select,
    any_,
    cast,
    func,
    literal,
    null,
    select,
    true,
    union_all,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session, defer

from . import convert
from .convert import ABORTED, FINISHED, RUNNING
from .rows import MatchRow, RatingPoint
from .schema import Match
from .schema import RatingUpdate as RatingUpdateModel

#: The most points of rating history a bot's page shows (all ladders and versions together).
MAX_POINTS = 500


#: Where an outcome is counted in a tally list (``Counts.of``).
WIN, LOSS, DRAW, ABORT = range(4)


@dataclass
class Counts:
    """Ended matches of a bot by outcome; aborted ones are not games."""

    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    aborted: int = 0

    @classmethod
    def of(cls, tally: list[int]) -> Counts:
        """From a tally list: wins, losses, draws, aborted."""
        wins, losses, draws, aborted = tally
        return cls(wins + losses + draws, wins, losses, draws, aborted)


@dataclass
class BotSummary:
    """A bot's ended matches counted: per (ladder, version) it played, per opponent, its own
    failures by termination (aborted matches aside), and in all; its rating history."""

    versions: dict[tuple[str | None, str], Counts] = field(default_factory=dict)
    opponents: dict[str, Counts] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    total: Counts = field(default_factory=Counts)
    #: Its rating after its rated matches (at most ``MAX_POINTS``), and how many there are.
    history: list[RatingPoint] = field(default_factory=list)
    rated: int = 0


@dataclass(frozen=True)
class MatchPage:
    """One page of a bot's matches: the running ones first (on the first page only), then the
    ended ones, the last to end first. ``next``: the ``before`` of the next page (None: no more)."""

    rows: list[MatchRow]
    next: int | None


def _seat(seat: int) -> tuple[Any, Any, Any]:
    """(own bot, own version, opponent) columns of a seat."""
    if seat == 1:
        return Match.seat_1_bot, Match.seat_1_version, Match.seat_2_bot
    return Match.seat_2_bot, Match.seat_2_version, Match.seat_1_bot


def summary(session: Session, bot: str, max_points: int = MAX_POINTS) -> BotSummary:
    """Counts of ``bot``'s ended matches, grouped in SQL (per seat an index-only scan of
    ``ix_matches_seat_N_results`` in its order; both in one query), and its rating history
    (``history``). A
    match a bot played against itself counts once from each seat, as a win and a loss (or two
    draws)."""
    versions: dict[tuple[str | None, str], list[int]] = {}
    opponents: dict[str, list[int]] = {}
    failures: dict[str, int] = {}
    rated_counts: dict[tuple[str | None, str], int] = {}
    grouped = []
    for seat in (1, 2):
        own, version, opponent = _seat(seat)
        keys = (own, Match.ladder, version, opponent, Match.status, Match.winner_seat, Match.faulty_seat,
                Match.termination, Match.rated)  # fmt: skip
        grouped.append(
            select(literal(seat, Integer), *keys[1:], func.count())
            .where(own == bot, Match.status != RUNNING)
            .group_by(*keys)
        )
    rows = session.connection().execute(union_all(*grouped))
    for seat, ladder, played, other, status, winner, faulty, termination, rated, count in rows:
        series = (ladder, played)
        if status == ABORTED:
            outcome = ABORT
        else:
            outcome = DRAW if winner is None else WIN if winner == seat else LOSS
            if faulty == seat:
                kind = termination or "unknown"
                failures[kind] = failures.get(kind, 0) + count
            if rated:
                rated_counts[series] = rated_counts.get(series, 0) + count
        tally = versions.get(series)
        if tally is None:
            tally = versions[series] = [0, 0, 0, 0]
        tally[outcome] += count
        tally = opponents.get(other)
        if tally is None:
            tally = opponents[other] = [0, 0, 0, 0]
        tally[outcome] += count
    total = [sum(tally[i] for tally in versions.values()) for i in range(4)]
    return BotSummary(
        versions={key: Counts.of(tally) for key, tally in versions.items()},
        opponents={key: Counts.of(tally) for key, tally in opponents.items()},
        failures=failures,
        total=Counts.of(total),
        history=history(session, bot, rated_counts, max_points),
        rated=sum(rated_counts.values()),
    )


def _listed(query: Select[Any]) -> Select[Any]:
    return query.options(defer(Match.record), defer(Match.seed))


def matches(session: Session, bot: str, before: int | None, limit: int) -> MatchPage:
    """``limit`` of ``bot``'s matches: on the first page (``before`` None) its running matches
    (the newest first, ``limit`` at most), then its ended matches whose finishing order
    (``sequence``) is below ``before``, the last to end first."""
    rows: list[MatchRow] = []
    if before is None:
        running: list[Match] = []
        for seat in (1, 2):
            own, _, opponent = _seat(seat)
            query = select(Match).where(own == bot, Match.sequence.is_(None))
            if seat == 2:
                query = query.where(opponent != bot)  # a match against itself is listed once
            query = query.order_by(Match.started_at.desc(), Match.id).limit(limit)
            running.extend(session.scalars(_listed(query)))
        running.sort(key=lambda match: (-match.started_at, match.id))
        rows = [convert.match_row(match) for match in running[:limit]]
    room = limit - len(rows)
    ended: list[Match] = []
    for seat in (1, 2):
        own, _, opponent = _seat(seat)
        query = select(Match).where(own == bot, Match.sequence.is_not(None))
        if before is not None:
            query = query.where(Match.sequence < before)
        if seat == 2:
            query = query.where(opponent != bot)
        query = query.order_by(Match.sequence.desc()).limit(room + 1)
        ended.extend(session.scalars(_listed(query)))
    ended.sort(key=lambda match: -(match.sequence or 0))
    shown = ended[:room]
    rows.extend(convert.match_row(match) for match in shown)
    if len(ended) <= room:
        return MatchPage(rows, None)
    if shown:
        return MatchPage(rows, shown[-1].sequence)
    # A first page full of running matches: the next one starts at the newest ended match.
    return MatchPage(rows, (ended[0].sequence or 0) + 1)


def _rated(seat: int, bot: str, ladder: str | None, version: str) -> tuple[ColumnElement[bool], ...]:
    """``bot``'s rated matches from ``seat`` as one (ladder, version): a prefix of its
    ``ix_matches_seat_N_rated`` (equalities only, so that the index is searched by all of them)."""
    own, own_version, _ = _seat(seat)
    on_ladder = Match.ladder.is_(None) if ladder is None else Match.ladder == ladder
    return own == bot, on_ladder, own_version == version, Match.rated == true(), Match.status == FINISHED


def _ends(session: Session, bot: str, series: list[tuple[str | None, str]]) -> list[tuple[int, int] | None]:
    """The first and the last finishing order of ``bot``'s rated matches as each (ladder,
    version) of ``series`` (None: none), from both seats: index seeks, all in one query."""
    if not series:
        return []
    ends = [
        select(end(Match.sequence)).where(*_rated(seat, bot, ladder, version)).scalar_subquery()
        for ladder, version in series
        for end in (func.min, func.max)
        for seat in (1, 2)
    ]
    found = session.connection().execute(select(*ends)).one()
    out: list[tuple[int, int] | None] = []
    for i in range(len(series)):
        firsts = [int(end) for end in found[4 * i : 4 * i + 2] if end is not None]
        lasts = [int(end) for end in found[4 * i + 2 : 4 * i + 4] if end is not None]
        out.append((min(firsts), max(lasts)) if firsts else None)
    return out


def _picks(
    number: int, bot: str, ladder: str | None, version: str, ends: tuple[int, int], every: bool, budget: int
) -> list[Any]:
    """Rows (``number``, sequence from seat 1, from seat 2) of the rated matches to show as one
    (ladder, version): with ``every``, all of them; else the last of each of ``budget`` equal
    stretches between its first and its last match (stretch k: the sequences s with
    (s - first) * budget // span == k), each found by an index seek per seat."""
    tag = literal(number, Integer)
    if every:
        none = cast(null(), Integer)
        return [
            select(tag, Match.sequence, none).where(*_rated(1, bot, ladder, version)),
            select(tag, none, Match.sequence).where(*_rated(2, bot, ladder, version)),
        ]
    first, last = ends
    span = last - first + 1
    steps = select(literal(0, Integer).label("k")).cte(f"steps_{number}", recursive=True)
    steps = steps.union_all(select((steps.c.k + 1).label("k")).where(steps.c.k < budget - 1))
    low = first + (steps.c.k * span + budget - 1) // budget
    high = first + ((steps.c.k + 1) * span + budget - 1) // budget
    lasts_in = [
        select(func.max(Match.sequence))
        .where(*_rated(seat, bot, ladder, version), Match.sequence >= low, Match.sequence < high)
        .scalar_subquery()
        for seat in (1, 2)
    ]
    return [select(tag, *lasts_in).select_from(steps)]


def history(
    session: Session, bot: str, counts: dict[tuple[str | None, str], int], max_points: int
) -> list[RatingPoint]:
    """``bot``'s rating after its rated matches (``counts``: how many per ladder and version),
    in finishing order, at most ``max_points`` points, in three queries whatever their number.

    Each (ladder, version) gets a share of the points as large as its share of the matches (at
    least one while points remain); a series with more matches than its share is cut into that
    many equal stretches of finishing order and shows the last match of each (so its last point
    is the current rating)."""
    ordered = dict(sorted(counts.items(), key=lambda item: (item[0][0] or "", item[0][1])))
    budgets = _budgets(ordered, sum(counts.values()), max_points)
    cut = [key for key, budget in budgets.items() if counts[key] > budget]
    ends = dict(zip(cut, _ends(session, bot, cut), strict=True))
    parts: list[Any] = []
    keys = list(budgets)
    for number, (ladder, version) in enumerate(keys):
        budget = budgets[(ladder, version)]
        found = ends.get((ladder, version))
        # Every match when there are no more than points (a bot against itself counts twice).
        every = (ladder, version) not in ends or (found is not None and found[1] - found[0] + 1 <= budget)
        if found is not None or every:
            parts += _picks(number, bot, ladder, version, found or (0, 0), every, budget)
    chosen: set[tuple[int, str]] = set()
    if parts:
        for number, one, two in session.connection().execute(union_all(*parts)):
            if one is not None or two is not None:
                chosen.add((max(int(one or 0), int(two or 0)), keys[number][1]))
    return _points(session, bot, chosen)


def _budgets(counts: dict[tuple[str | None, str], int], total: int, limit: int) -> dict[Any, int]:
    """Points per series: proportional shares (rounded down), then one for each series left
    without any, in the order of ``counts``, while the limit allows."""
    if total <= limit:
        return dict(counts)
    shares = {key: limit * count // total for key, count in counts.items()}
    left = limit - sum(shares.values())
    for key in counts:
        if shares[key] == 0 and left > 0:
            shares[key], left = 1, left - 1
    return {key: share for key, share in shares.items() if share > 0}


def _one_of(session: Session, column: Any, values: list[int]) -> ColumnElement[bool]:
    """``column IN values``: on PostgreSQL one array parameter (``= ANY``), not one per value."""
    if session.get_bind().dialect.name == "postgresql":
        found: ColumnElement[bool] = column == any_(literal(values, postgresql.ARRAY(Integer)))
        return found
    within: ColumnElement[bool] = column.in_(values)
    return within


def _points(session: Session, bot: str, chosen: set[tuple[int, str]]) -> list[RatingPoint]:
    """The points of ``chosen`` (sequence, version): one each, so never more than were chosen."""
    wanted = sorted({sequence for sequence, _ in chosen})
    if not wanted:
        return []
    update = RatingUpdateModel
    query = (
        select(
            update.match_id, update.ladder, Match.ended_at, Match.sequence,
            update.seat_1_bot, update.seat_1_version, update.seat_1_mu_after, update.seat_1_sigma_after,
            update.seat_2_bot, update.seat_2_version, update.seat_2_mu_after, update.seat_2_sigma_after,
        )
        .join(Match, Match.id == update.match_id)
        .where(_one_of(session, Match.sequence, wanted))
        .order_by(Match.sequence)
    )  # fmt: skip
    points: list[RatingPoint] = []
    for match_id, ladder, ended_at, sequence, *seats in session.connection().execute(query):
        for name, version, mu, sigma in (seats[:4], seats[4:]):
            if name != bot or (sequence, version) not in chosen:
                continue
            chosen.discard((sequence, version))  # a match against itself: one point
            points.append(
                RatingPoint(ladder, version, match_id, int(sequence or 0), float(ended_at or 0.0), mu, sigma)
            )
    return points


__all__ = ["MAX_POINTS", "BotSummary", "Counts", "MatchPage", "matches", "summary"]
