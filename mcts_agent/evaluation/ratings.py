"""Ratings: Elo from a Bradley-Terry maximum-likelihood fit, and score intervals.

The model (Bradley & Terry, 1952; Elo's logistic scale, as BayesElo and
Ordo use): agent ``i`` scores ``E = 1 / (1 + 10 ** (-(r_i - r_j) / 400))``
against agent ``j``, a draw counting half a point, so a pair's score
``s = wins + draws / 2`` out of ``n`` games has log-likelihood
``s log E + (n - s) log(1 - E)``. :func:`fit_ratings` maximises the sum over
pairs with ``scipy.optimize.minimize`` (BFGS, exact gradient), the anchor's
rating held at 0. Two agents with score fraction ``f`` come out
``400 log10(f / (1 - f))`` apart.

``prior_draws`` adds that many drawn games to every pair that played
(BayesElo's ``prior``, whose default is 2): without it, an agent that won
every game has no finite maximum-likelihood rating.

The 95% intervals are profile-likelihood intervals (not a bootstrap): the
ratings ``r`` of an agent whose best fit with ``r_i = r`` held fixed loses at
most ``chi2(1).ppf(0.95) / 2 = 1.92`` of log-likelihood (Wilks's theorem),
relative to the anchor (whose interval is ``[0, 0]``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from scipy import optimize, sparse, stats

from mcts_agent._validation import require_float

__all__ = [
    "PairScore",
    "Rating",
    "check_prior_draws",
    "elo_difference",
    "fit_ratings",
    "score_interval",
]

_K = math.log(10) / 400  # natural log-odds per Elo point
_PROFILE_LIMIT = 10_000.0  # Elo: an interval bound beyond this is reported as infinite


class PairScore(NamedTuple):
    """The games of two agents: ``first``'s wins, draws and losses against ``second``."""

    first: str
    second: str
    wins: int
    draws: int
    losses: int


class Rating(NamedTuple):
    """One agent's Elo rating and its 95% interval (relative to the anchor, rated 0)."""

    agent: str
    elo: float
    elo_low: float
    elo_high: float


def elo_difference(score: float) -> float:
    """Returns the Elo difference of an expected score ``score`` in (0, 1): ``400 log10(s/(1-s))``.

    Raises:
        ValueError: if ``score`` is not in (0, 1).
    """
    if not 0 < score < 1:
        raise ValueError(f"score must be in (0, 1), got {score!r}")
    return 400 * math.log10(score / (1 - score))


def score_interval(
    wins: int, draws: int, losses: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Returns ``(score, low, high)``: the score fraction and its Wilson interval.

    The score counts a draw as half a win; the interval is Wilson's score
    interval (Wilson, 1927) for a proportion with ``n = wins + draws + losses``
    trials. Draws make the true variance smaller than a proportion's, so the
    interval is a little wide when many games are drawn.

    Raises:
        ValueError: if no game was played or ``confidence`` is not in (0, 1).
    """
    n = wins + draws + losses
    if n <= 0:
        raise ValueError("no games: a score needs at least one")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    p = (wins + draws / 2) / n
    z = stats.norm.ppf(0.5 + confidence / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # Clipped to [0, 1] and to contain p (rounding leaves 1 - 1e-16 for a perfect score).
    return p, min(p, max(0.0, float(centre - half))), max(p, min(1.0, float(centre + half)))


def check_prior_draws(prior_draws: float) -> float:
    """Returns ``prior_draws`` as a float if it is a finite number >= 0.

    Raises:
        TypeError, ValueError: otherwise.
    """
    return require_float("prior_draws", prior_draws, 0.0)


def _pair_arrays(
    index: Mapping[str, int], pairs: Sequence[PairScore], prior_draws: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    first = np.array([index[p.first] for p in pairs])
    second = np.array([index[p.second] for p in pairs])
    games = np.array([p.wins + p.draws + p.losses + prior_draws for p in pairs], dtype=float)
    score = np.array([p.wins + (p.draws + prior_draws) / 2 for p in pairs], dtype=float)
    return first, second, score, games


def _check_finite(agents: Sequence[str], pairs: Sequence[PairScore], prior_draws: float) -> None:
    """Raises ValueError unless every rating has a finite maximum-likelihood value.

    That is when the graph with an edge from ``i`` to ``j`` wherever ``i``
    scored against ``j`` is strongly connected (with ``prior_draws`` every
    pair that played scores both ways; Zermelo, 1929; Hunter, 2004, Assumption 1).
    """
    n = len(agents)
    index = {a: k for k, a in enumerate(agents)}
    scored = np.zeros((n, n), dtype=bool)
    for p in pairs:
        i, j = index[p.first], index[p.second]
        scored[i, j] |= p.wins + p.draws + prior_draws > 0
        scored[j, i] |= p.losses + p.draws + prior_draws > 0
    count, labels = sparse.csgraph.connected_components(scored, connection="strong")
    if count > 1:
        groups = [
            [a for a, label in zip(agents, labels, strict=True) if label == g] for g in range(count)
        ]
        raise ValueError(
            "the maximum-likelihood ratings are not all finite: some agents never scored "
            f"against others (groups that scored only among themselves: {groups}); play more "
            "games, or give prior_draws > 0 (virtual draws per pair, as BayesElo's prior)"
        )


def fit_ratings(
    agents: Sequence[str],
    pairs: Sequence[PairScore],
    *,
    anchor: str | None = None,
    prior_draws: float = 2.0,
    confidence: float = 0.95,
) -> tuple[Rating, ...]:
    """Fits Elo ratings to the pairs' scores by maximum likelihood (see the module docstring).

    Args:
        agents: the agents' names, each once.
        pairs: the games each pair played (a pair may appear more than once;
            its games add up).
        anchor: the agent rated 0 (default: ``agents[0]``).
        prior_draws: float >= 0, virtual draws added to each pair that played.
        confidence: in (0, 1), the level of the profile-likelihood intervals.

    Returns:
        One :class:`Rating` per agent, in the order of ``agents``; an interval
        bound beyond 10,000 Elo is ``inf`` (or ``-inf``).

    Raises:
        ValueError: if names repeat or are unknown, the anchor is not an agent,
            ``prior_draws < 0``, ``confidence`` is not in (0, 1), or some ratings
            have no finite maximum-likelihood value (an agent that never scored
            against the others, or agents never connected by games).
    """
    agents = list(agents)
    if len(set(agents)) != len(agents):
        raise ValueError(f"agent names must be distinct, got {agents}")
    anchor = agents[0] if anchor is None else anchor
    if anchor not in agents:
        raise ValueError(f"the anchor {anchor!r} is not one of the agents {agents}")
    check_prior_draws(prior_draws)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    index = {a: k for k, a in enumerate(agents)}
    for p in pairs:
        for name in (p.first, p.second):
            if name not in index:
                raise ValueError(f"pair {p} names {name!r}, not one of the agents {agents}")
    _check_finite(agents, pairs, prior_draws)
    first, second, score, games = _pair_arrays(index, pairs, prior_draws)
    n = len(agents)
    fixed = index[anchor]

    def negative_log_likelihood(x: np.ndarray) -> tuple[float, np.ndarray]:
        # x: ratings in natural log-odds units (Elo * _K), one per agent.
        d = x[first] - x[second]
        expected = 1 / (1 + np.exp(-d))
        value = np.sum(score * np.logaddexp(0, -d) + (games - score) * np.logaddexp(0, d))
        residual = score - games * expected  # d log L / d x_first
        gradient = np.zeros(n)
        np.add.at(gradient, first, -residual)
        np.add.at(gradient, second, residual)
        return float(value), gradient

    def best(held: dict[int, float], start: np.ndarray) -> tuple[float, np.ndarray]:
        free = [k for k in range(n) if k not in held]
        x = np.zeros(n)
        for k, value in held.items():
            x[k] = value

        def f(y: np.ndarray) -> tuple[float, np.ndarray]:
            x[free] = y
            value, gradient = negative_log_likelihood(x)
            return value, gradient[free]

        if not free:
            return negative_log_likelihood(x)[0], x.copy()
        done = optimize.minimize(f, start[free], jac=True, method="BFGS", options={"gtol": 1e-9})
        x[free] = done.x
        return float(done.fun), x.copy()

    minimum, fitted = best({fixed: 0.0}, np.zeros(n))
    drop = stats.chi2.ppf(confidence, 1) / 2
    ratings = []
    for k, agent in enumerate(agents):
        if k == fixed:
            ratings.append(Rating(agent, 0.0, 0.0, 0.0))
            continue

        def excess(r: float, k: int = k) -> float:
            return best({fixed: 0.0, k: r * _K}, fitted)[0] - minimum - drop

        centre = fitted[k] / _K
        bounds = []
        for direction in (-1.0, 1.0):
            step = 50.0
            while excess(centre + direction * step) < 0:
                step *= 2
                if step > _PROFILE_LIMIT:
                    break
            if step > _PROFILE_LIMIT:
                bounds.append(direction * math.inf)
            else:
                ends = sorted((centre, centre + direction * step))
                bounds.append(optimize.brentq(excess, *ends, xtol=1e-6))
        ratings.append(Rating(agent, float(centre), float(bounds[0]), float(bounds[1])))
    return tuple(ratings)
