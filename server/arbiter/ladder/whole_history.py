"""A whole-history fit: Bradley-Terry maximum likelihood over all of a ladder's results at once.

Model: each bot version i has a strength theta_i and P(i beats j) = 1 / (1 + exp(theta_j - theta_i)).
A draw counts as half a win for each side (the chess/Elo convention, and the one the live openskill
ratings use) rather than the Davidson extension: it needs no extra draw parameter and a draw simply
pulls the two strengths together. The log-likelihood is concave, so Newton's method (with step
halving, which it rarely needs) finds its maximum; pure Python, a dense Cholesky per step.

Prior: ``prior_draws`` virtual draws (default one) of every bot version against a fixed reference
player of strength 0. It is a weak pull towards the reference that keeps a bot with only wins (or
only losses, or no link to the rest) finite; with ``prior_draws=0`` it is the plain MLE, which
exists only if the win graph is strongly connected (Hunter 2004), else ValueError.

Scale: Elo-like, rating = 400 log10(e^theta) = theta * 400 / ln 10, shifted so the mean rating of
the fitted bot versions is 0. The 95% interval is rating +- 1.96 standard errors from the observed
Fisher information: the inverse of the negative Hessian of the log-likelihood (a pseudo-inverse
without a prior), taken for the centred ratings theta_i - mean(theta).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from arbiter.ladder.model import BotVersion, RatedResult
from arbiter.ladder.ratings import counts, winner_of

#: Elo points per unit of natural-log strength.
ELO_PER_NATURAL = 400.0 / math.log(10.0)
#: The normal quantile of a two-sided 95% interval.
Z_95 = 1.959963984540054

_MAX_ITERATIONS = 200
_TOLERANCE = 1e-12


@dataclass(frozen=True)
class WholeHistoryRow:
    """One bot version's fitted rating (Elo-like, mean 0), its 95% interval and its real game count."""

    bot_version: BotVersion
    rating: float
    low: float
    high: float
    games: int


def fit(results: Iterable[RatedResult], prior_draws: float = 1.0) -> list[WholeHistoryRow]:
    """Fit all counting results at once; rows ranked by rating, highest first (ties by bot version).

    Only the pairwise totals matter and they are summed in bot-version order, so the result does not
    depend on the order of ``results``.
    """
    if prior_draws < 0 or not math.isfinite(prior_draws):
        raise ValueError(f"prior_draws must be a finite number >= 0, not {prior_draws!r}")
    # points[(i, j)]: the points of i against j (a win 1, a draw 1/2): sums of halves, exact in any order.
    points: dict[tuple[BotVersion, BotVersion], float] = {}
    played: dict[BotVersion, int] = {}
    for result in results:
        if not counts(result):
            continue
        winner = winner_of(result)
        p1 = 1.0 if winner == 1 else 0.0 if winner == 2 else 0.5
        a, b = result.seat_1, result.seat_2
        for me, other, score in ((a, b, p1), (b, a, 1.0 - p1)):
            points[(me, other)] = points.get((me, other), 0.0) + score
            played[me] = played.get(me, 0) + 1
    players = sorted(played)
    n = len(players)
    if n == 0:
        return []
    index = {p: k for k, p in enumerate(players)}
    # Dense, index-ordered tables: w[i][j] points of i against j, m[i][j] games between them.
    w = [[0.0] * n for _ in range(n)]
    for (me, other), score in sorted(points.items()):
        w[index[me]][index[other]] = score
    m = [[w[i][j] + w[j][i] for j in range(n)] for i in range(n)]
    if prior_draws == 0 and not _strongly_connected(w):
        raise ValueError("no finite maximum-likelihood fit: some bot versions never score against the rest")

    theta = _maximise(w, m, prior_draws)
    information = _information(theta, m, prior_draws)
    covariance = _centred_covariance(information, singular=prior_draws == 0)
    mean = math.fsum(theta) / n
    rows = []
    for k, player in enumerate(players):
        rating = (theta[k] - mean) * ELO_PER_NATURAL
        half = Z_95 * math.sqrt(max(covariance[k][k], 0.0)) * ELO_PER_NATURAL
        rows.append(WholeHistoryRow(player, rating, rating - half, rating + half, played[player]))
    rows.sort(key=lambda r: (-r.rating, r.bot_version))
    return rows


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_likelihood(theta: list[float], w: list[list[float]], prior: float) -> float:
    """sum over pairs of w_ij log P(i beats j), plus the virtual draws against strength 0."""
    n = len(theta)
    terms = []
    for i in range(n):
        for j in range(n):
            if w[i][j] > 0:
                terms.append(-w[i][j] * _log1pexp(theta[j] - theta[i]))
        if prior > 0:
            terms.append(-0.5 * prior * (_log1pexp(-theta[i]) + _log1pexp(theta[i])))
    return math.fsum(terms)


def _log1pexp(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _gradient(theta: list[float], w: list[list[float]], m: list[list[float]], prior: float) -> list[float]:
    """d/d theta_i = (points of i) - (points expected of i), virtual games included."""
    n = len(theta)
    grad = []
    for i in range(n):
        terms = [w[i][j] - m[i][j] * _sigmoid(theta[i] - theta[j]) for j in range(n) if m[i][j] > 0]
        if prior > 0:
            terms.append(prior * (0.5 - _sigmoid(theta[i])))
        grad.append(math.fsum(terms))
    return grad


def _information(theta: list[float], m: list[list[float]], prior: float) -> list[list[float]]:
    """The observed Fisher information, minus the Hessian: a weighted Laplacian plus the prior's diagonal."""
    n = len(theta)
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        diagonal = []
        for j in range(n):
            if i != j and m[i][j] > 0:
                p = _sigmoid(theta[i] - theta[j])
                v = m[i][j] * p * (1.0 - p)
                info[i][j] = -v
                diagonal.append(v)
        if prior > 0:
            p = _sigmoid(theta[i])
            diagonal.append(prior * p * (1.0 - p))
        info[i][i] = math.fsum(diagonal)
    return info


def _maximise(w: list[list[float]], m: list[list[float]], prior: float) -> list[float]:
    """Newton's method from theta = 0, halving a step until the log-likelihood does not fall.

    Without a prior the likelihood is flat along theta + c, so the last strength is held at 0.
    """
    n = len(w)
    theta = [0.0] * n
    free = n if prior > 0 else n - 1
    if free == 0:
        return theta
    current = _log_likelihood(theta, w, prior)
    for _ in range(_MAX_ITERATIONS):
        grad = _gradient(theta, w, m, prior)[:free]
        info = [row[:free] for row in _information(theta, m, prior)[:free]]
        step = _cholesky_solve(info, grad)
        scale = 1.0
        while True:
            trial = [theta[k] + scale * step[k] if k < free else theta[k] for k in range(n)]
            value = _log_likelihood(trial, w, prior)
            if value >= current or scale < 1e-10:
                break
            scale /= 2.0
        theta, current = trial, value
        if max(abs(scale * s) for s in step) < _TOLERANCE:
            break
    return theta


def _cholesky(a: list[list[float]]) -> list[list[float]]:
    """The lower-triangular L with L L^T = a (a symmetric positive definite)."""
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - math.fsum(low[i][k] * low[j][k] for k in range(j))
            if i == j:
                if s <= 0.0:
                    raise ValueError("the information matrix is not positive definite")
                low[i][i] = math.sqrt(s)
            else:
                low[i][j] = s / low[j][j]
    return low


def _cholesky_solve(a: list[list[float]], b: list[float]) -> list[float]:
    low = _cholesky(a)
    return _solve_factored(low, b)


def _solve_factored(low: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - math.fsum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - math.fsum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _centred_covariance(info: list[list[float]], singular: bool) -> list[list[float]]:
    """Covariance of theta_i - mean(theta): C I^-1 C with C = 1 - J/n.

    Without a prior I is singular along the all-ones vector; then the pseudo-inverse
    (I + J/n)^-1 - J/n stands in for I^-1 (and is already centred).
    """
    n = len(info)
    a = [[info[i][j] + (1.0 / n if singular else 0.0) for j in range(n)] for i in range(n)]
    low = _cholesky(a)
    columns = [_solve_factored(low, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    inverse = [[columns[j][i] for j in range(n)] for i in range(n)]
    if singular:
        return [[inverse[i][j] - 1.0 / n for j in range(n)] for i in range(n)]
    row_means = [math.fsum(row) / n for row in inverse]
    total_mean = math.fsum(row_means) / n
    return [[inverse[i][j] - row_means[i] - row_means[j] + total_mean for j in range(n)] for i in range(n)]


def _strongly_connected(w: list[list[float]]) -> bool:
    """Hunter's condition for a finite MLE: every bot version scores, via a chain, against every other."""
    n = len(w)

    def reach(forward: bool) -> set[int]:
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j in range(n):
                if j not in seen and (w[i][j] if forward else w[j][i]) > 0:
                    seen.add(j)
                    todo.append(j)
        return seen

    return len(reach(True)) == n and len(reach(False)) == n
