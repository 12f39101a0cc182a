"""Live ladder ratings: a Weng-Lin (openskill) Bayesian rating per bot version, updated result by result.

The model is openskill's ``BradleyTerryFull`` with its defaults (mu 25, sigma 25/3, beta 25/6,
tau 25/300). Each skill is a Gaussian N(mu, sigma^2); a game is scored with the Bradley-Terry
(logistic) likelihood P(a beats b) = 1 / (1 + exp((mu_b - mu_a) / c)), c^2 = sigma_a^2 + sigma_b^2
+ 2 beta^2, and one Gaussian-approximate Bayesian step moves mu by sigma^2/c (s - P) and shrinks
sigma, with s = 1 for a win, 1/2 for a draw (a ranked tie) and 0 for a loss.

Why ``BradleyTerryFull``: for two players all openskill models but Thurstone-Mosteller give the
same numbers; Bradley-Terry is the logistic model the whole-history fit (``whole_history.py``) uses
too, and its "full pairing" form scores a tie explicitly as half a win, the same convention as
there. Thurstone-Mosteller (a probit model) would be a second, different model of the same games.

A bot's new version does not start from scratch: its first rated game starts from the rating of
the version the bot played its previous rated game with on that ladder, ``mu`` kept and ``sigma``
widened by ``NEW_VERSION_SIGMA`` (in quadrature, at most ``INITIAL_SIGMA``), with a record of its
own (0 games). So a version string bought nothing: a losing version left behind takes its rating
along. A version the bot played before goes on from its own rating.

Everything here is deterministic: no randomness, and a replay (``recompute``) walks the results in
``sequence`` order through the very same ``apply_result`` the live ladder calls, so it reproduces
the live ratings bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from openskill.models import BradleyTerryFull

from arbiter.ladder.model import BotVersion, RatedResult, Rating, Termination

#: 1 (seat 1 won), 2 (seat 2 won) or None (a draw).
Winner = Literal[1, 2] | None

INITIAL_MU = 25.0
INITIAL_SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
#: Added (in quadrature) to sigma before each game, so sigma never collapses to zero.
TAU = 25.0 / 300.0

_MODEL = BradleyTerryFull(mu=INITIAL_MU, sigma=INITIAL_SIGMA, beta=BETA, tau=TAU)

#: A rating is provisional until its version has played this many rated games. A count, not a
#: sigma threshold: Weng-Lin shrinks sigma only by what a result surprises, so on a small ladder
#: of bots far apart (the strong one always wins) sigma stays above 4 for hundreds of games (4.3
#: after 90 games each with 5 such bots), while against an established pool it is under 4 after
#: about 23. 20 games is what a ranking needs to say something either way; sigma is shown beside.
PROVISIONAL_GAMES = 20
#: Added (in quadrature) to a carried rating's sigma when a bot plays a new version: a new version
#: is probably close to the old one, but less surely than the old one's games said.
NEW_VERSION_SIGMA = INITIAL_SIGMA / 2


def initial_rating() -> Rating:
    """The rating of a bot version that has played no rated game."""
    return Rating(INITIAL_MU, INITIAL_SIGMA)


def rate(a: Rating, b: Rating, winner: Winner) -> tuple[Rating, Rating]:
    """Both ratings after one game between ``a`` (seat 1) and ``b`` (seat 2); a draw is a ranked tie."""
    if winner == 1:
        ranks = [1.0, 2.0]
    elif winner == 2:
        ranks = [2.0, 1.0]
    elif winner is None:
        ranks = [1.0, 1.0]
    else:
        raise ValueError(f"winner must be 1, 2 or None, not {winner!r}")
    teams = [[_MODEL.rating(a.mu, a.sigma)], [_MODEL.rating(b.mu, b.sigma)]]
    [[new_a], [new_b]] = _MODEL.rate(teams, ranks=ranks)
    return Rating(float(new_a.mu), float(new_a.sigma)), Rating(float(new_b.mu), float(new_b.sigma))


def is_provisional(games: int) -> bool:
    """Whether a version with ``games`` rated games has a provisional rating (fewer than
    PROVISIONAL_GAMES)."""
    return games < PROVISIONAL_GAMES


@dataclass(frozen=True)
class RatingTally:
    """A bot version's rating and its record in the rated games it was rated on."""

    rating: Rating
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def provisional(self) -> bool:
        return is_provisional(self.games)


def initial_tally() -> RatingTally:
    return RatingTally(initial_rating())


def carried_tally(previous: RatingTally) -> RatingTally:
    """A new version's start from the bot's previous version: its mu, a wider sigma, no games."""
    sigma = min(INITIAL_SIGMA, math.hypot(previous.rating.sigma, NEW_VERSION_SIGMA))
    return RatingTally(Rating(previous.rating.mu, sigma))


def starting_tally(
    tallies: Mapping[BotVersion, RatingTally], latest: Mapping[str, BotVersion], version: BotVersion
) -> RatingTally:
    """The tally ``version`` plays its next rated game from: its own, or for a version with none
    the one carried from the bot's ``latest`` (the version of its last rated game), or the initial."""
    own = tallies.get(version)
    if own is not None:
        return own
    previous = latest.get(version.bot)
    if previous is not None and previous in tallies:
        return carried_tally(tallies[previous])
    return initial_tally()


def note_latest(latest: dict[str, BotVersion], seat_1: BotVersion, seat_2: BotVersion) -> None:
    """After a counting result: each bot's latest version is the one it just played (seat 2's if
    one bot had both seats)."""
    latest[seat_1.bot] = seat_1
    latest[seat_2.bot] = seat_2


def counts(result: RatedResult) -> bool:
    """Whether a result moves ratings: rated, not aborted, and between two different bot versions."""
    return result.rated and result.termination is not Termination.ABORTED and result.seat_1 != result.seat_2


def winner_of(result: RatedResult) -> Winner:
    """The result's winner as ``rate`` takes it (ValueError for anything but 1, 2 or None)."""
    if result.winner_seat == 1:
        return 1
    if result.winner_seat == 2:
        return 2
    if result.winner_seat is None:
        return None
    raise ValueError(f"{result.match_id}: winner_seat must be 1, 2 or None, not {result.winner_seat!r}")


def tally_game(t1: RatingTally, t2: RatingTally, winner: Winner) -> tuple[RatingTally, RatingTally]:
    """Both tallies after one game, ``t1`` in seat 1."""
    r1, r2 = rate(t1.rating, t2.rating, winner)
    return (
        replace(
            t1,
            rating=r1,
            games=t1.games + 1,
            wins=t1.wins + (winner == 1),
            losses=t1.losses + (winner == 2),
            draws=t1.draws + (winner is None),
        ),
        replace(
            t2,
            rating=r2,
            games=t2.games + 1,
            wins=t2.wins + (winner == 2),
            losses=t2.losses + (winner == 1),
            draws=t2.draws + (winner is None),
        ),
    )


def apply_result(
    tallies: Mapping[BotVersion, RatingTally],
    result: RatedResult,
    latest: dict[str, BotVersion] | None = None,
) -> dict[BotVersion, RatingTally]:
    """The live step: the new tallies of the result's two bot versions (empty if it does not count).

    A bot version missing from ``tallies`` starts from ``starting_tally`` (``latest``: each bot's
    version of its last rated game, updated here; without it, a missing version starts from
    ``initial_rating()``).
    """
    if not counts(result):
        return {}
    known = latest if latest is not None else {}
    t1 = starting_tally(tallies, known, result.seat_1)
    t2 = starting_tally(tallies, known, result.seat_2)
    n1, n2 = tally_game(t1, t2, winner_of(result))
    if latest is not None:
        note_latest(latest, result.seat_1, result.seat_2)
    return {result.seat_1: n1, result.seat_2: n2}


def recompute(results: Iterable[RatedResult]) -> dict[BotVersion, RatingTally]:
    """Replay every counting result in ``sequence`` order from initial ratings.

    Gives bit for bit what ``apply_result`` gives applied live in that order. Ties in ``sequence``
    (which a store should not produce) are broken by ``match_id``, so the input order never matters.
    The dict is ordered by bot version.
    """
    tallies: dict[BotVersion, RatingTally] = {}
    latest: dict[str, BotVersion] = {}
    for result in sorted(results, key=lambda r: (r.sequence, r.match_id)):
        tallies.update(apply_result(tallies, result, latest))
    return dict(sorted(tallies.items()))
