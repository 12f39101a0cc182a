"""Between the store's values (rows.py, the ladder model) and its tables (schema.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

from arbiter.ladder.model import BotVersion, LadderConfig, RatedResult, Termination
from arbiter.ladder.model import Rating as RatingValue

from .rows import BotRow, MatchRow, MatchStart, MoveRow, RatingRow, RatingTally, RatingUpdate, StoreError
from .schema import Bot, Ladder, Match, Move, Rating
from .schema import RatingUpdate as RatingUpdateModel

RUNNING, FINISHED, ABORTED = "running", "finished", "aborted"


def bot_row(bot: Bot) -> BotRow:
    return BotRow(name=bot.name, owner=bot.owner, enabled=bot.enabled, created_at=bot.created_at)


def ladder_model(config: LadderConfig, now: float) -> Ladder:
    return Ladder(
        name=config.name,
        game=config.game,
        options=dict(config.options),
        base=config.control.base,
        increment=config.control.increment,
        per_decision=config.control.per_decision,
        on_timeout=config.policy.on_timeout,
        on_illegal=config.policy.on_illegal,
        rated=config.rated,
        duplicate_pairs=config.duplicate_pairs,
        enabled=config.enabled,
        created_at=now,
        same_owner=config.same_owner,
        description=config.description,
    )


def ladder_config(ladder: Ladder) -> LadderConfig:
    return LadderConfig(
        name=ladder.name,
        game=ladder.game,
        options=dict(ladder.options),
        control=TimeControl(base=ladder.base, increment=ladder.increment, per_decision=ladder.per_decision),
        policy=MatchPolicy(on_timeout=ladder.on_timeout, on_illegal=ladder.on_illegal),
        rated=ladder.rated,
        duplicate_pairs=ladder.duplicate_pairs,
        enabled=ladder.enabled,
        same_owner=ladder.same_owner,
        description=ladder.description or "",
    )


def seats(match: Match) -> tuple[BotVersion, BotVersion]:
    return BotVersion(match.seat_1_bot, match.seat_1_version), BotVersion(
        match.seat_2_bot, match.seat_2_version
    )


def ladder_of(match: Match) -> str:
    if match.ladder is None:
        raise StoreError(f"match {match.id!r} is not a ladder match")
    return match.ladder


def match_model(start: MatchStart) -> Match:
    return Match(
        id=start.match_id,
        ladder=start.ladder,
        game=start.game,
        options=dict(start.options),
        seat_1_bot=start.seat_1.bot,
        seat_1_version=start.seat_1.version,
        seat_2_bot=start.seat_2.bot,
        seat_2_version=start.seat_2.version,
        seed=start.seed,
        seed_commitment=start.seed_commitment,
        time_control=start.control.as_dict(),
        policy=start.policy.as_dict(),
        status=RUNNING,
        rated=start.rated,
        started_at=start.started_at,
    )


def match_start(match: Match) -> MatchStart:
    seat_1, seat_2 = seats(match)
    return MatchStart(
        match_id=match.id,
        game=match.game,
        options=dict(match.options),
        seat_1=seat_1,
        seat_2=seat_2,
        seed=match.seed,
        seed_commitment=match.seed_commitment,
        control=TimeControl(**match.time_control),
        policy=MatchPolicy(**match.policy),
        started_at=match.started_at,
        ladder=match.ladder,
        rated=match.rated,
    )


def match_row(match: Match) -> MatchRow:
    seat_1, seat_2 = seats(match)
    return MatchRow(
        match_id=match.id,
        ladder=match.ladder,
        game=match.game,
        seat_1=seat_1,
        seat_2=seat_2,
        status=match.status,
        rated=match.rated,
        started_at=match.started_at,
        winner_seat=match.winner_seat,
        scores=None if match.scores is None else {int(seat): score for seat, score in match.scores.items()},
        reason=match.reason,
        termination=None if match.termination is None else Termination(match.termination),
        faulty_seat=match.faulty_seat,
        detail=match.detail,
        ended_at=match.ended_at,
        sequence=match.sequence,
        same_owner=match.same_owner,
        options=dict(match.options or {}),
    )


def rated_result(match: Match) -> RatedResult:
    assert match.sequence is not None and match.termination is not None and match.ended_at is not None
    seat_1, seat_2 = seats(match)
    return RatedResult(
        sequence=match.sequence,
        match_id=match.id,
        ladder=ladder_of(match),
        seat_1=seat_1,
        seat_2=seat_2,
        winner_seat=match.winner_seat,
        termination=Termination(match.termination),
        rated=match.rated,
        ended_at=match.ended_at,
    )


def move_values(match_id: str, move: MoveRow) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "ply": move.ply,
        "seat": move.seat,
        "turn_id": move.turn_id,
        "action": move.action,
        "charged": move.charged,
        "clocks": dict(move.clocks),
        "auto": move.auto,
    }


def move_row(move: Move) -> MoveRow:
    return MoveRow(
        ply=move.ply,
        seat=move.seat,
        action=move.action,
        turn_id=move.turn_id,
        charged=move.charged,
        clocks=dict(move.clocks),
        auto=move.auto,
    )


def rating_update_model(match: Match, updates: Sequence[RatingUpdate]) -> RatingUpdateModel:
    """One row for both seats; the updates must name the match's two seats and their versions."""
    expected = dict(enumerate(seats(match), start=1))
    by_seat = {update.seat: update for update in updates}
    if len(updates) != 2 or {seat: update.version for seat, update in by_seat.items()} != expected:
        raise StoreError(
            f"match {match.id!r}: the rating updates must be one for seat 1 ({expected[1]})"
            f" and one for seat 2 ({expected[2]})"
        )
    return RatingUpdateModel(
        match_id=match.id, ladder=ladder_of(match), **_seat_values(by_seat[1]), **_seat_values(by_seat[2])
    )


def _seat_values(update: RatingUpdate) -> dict[str, Any]:
    values = {
        "bot": update.version.bot,
        "version": update.version.version,
        "mu_before": update.before.mu,
        "sigma_before": update.before.sigma,
        "mu_after": update.after.mu,
        "sigma_after": update.after.sigma,
    }
    return {f"seat_{update.seat}_{name}": value for name, value in values.items()}


def set_tally(row: Rating, tally: RatingTally, now: float) -> None:
    row.mu, row.sigma = tally.rating.mu, tally.rating.sigma
    row.games, row.wins, row.losses, row.draws = tally.games, tally.wins, tally.losses, tally.draws
    row.updated_at = now


def rating_row(row: Rating) -> RatingRow:
    tally = RatingTally(RatingValue(row.mu, row.sigma), row.games, row.wins, row.losses, row.draws)
    return RatingRow(
        ladder=row.ladder, version=BotVersion(row.bot, row.version), tally=tally, updated_at=row.updated_at
    )
