"""Elo ratings from the Bradley-Terry fit, its intervals, and score intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mcts_agent.evaluation.ratings import PairScore, elo_difference, fit_ratings, score_interval

CHI2_HALF = stats.chi2.ppf(0.95, 1) / 2  # 1.92: the log-likelihood drop at a 95% bound


def binomial_log_likelihood(score, games, elo):
    expected = 1 / (1 + 10 ** (-elo / 400))
    return score * math.log(expected) + (games - score) * math.log(1 - expected)


@pytest.mark.parametrize("wins, draws, losses", [(7, 2, 3), (1, 0, 9), (5, 10, 5), (30, 1, 2)])
def test_two_agents_are_400_log10_s_over_1_minus_s_apart(wins, draws, losses):
    games = wins + draws + losses
    s = (wins + draws / 2) / games
    ratings = fit_ratings(["a", "b"], [PairScore("a", "b", wins, draws, losses)], prior_draws=0)
    a, b = ratings
    assert (a.agent, a.elo, a.elo_low, a.elo_high) == ("a", 0.0, 0.0, 0.0)
    assert b.elo == pytest.approx(-400 * math.log10(s / (1 - s)), abs=1e-6)
    assert b.elo == pytest.approx(-elo_difference(s), abs=1e-6)
    # The profile-likelihood bounds: where the binomial log-likelihood of the score,
    # computed here directly, is 1.92 below its maximum (Wilks).
    best = binomial_log_likelihood(s * games, games, -b.elo)
    for bound in (b.elo_low, b.elo_high):
        assert binomial_log_likelihood(s * games, games, -bound) == pytest.approx(
            best - CHI2_HALF, abs=1e-6
        )
    assert b.elo_low < b.elo < b.elo_high


def minorization_maximization(agents, pairs, prior_draws, steps=20_000):
    """Hunter's (2004) MM algorithm for Bradley-Terry strengths: another solver of the same fit."""
    index = {a: k for k, a in enumerate(agents)}
    n = len(agents)
    won = np.zeros((n, n))  # won[i, j]: i's points against j
    for p in pairs:
        i, j = index[p.first], index[p.second]
        won[i, j] += p.wins + (p.draws + prior_draws) / 2
        won[j, i] += p.losses + (p.draws + prior_draws) / 2
    games = won + won.T
    strength = np.ones(n)
    for _ in range(steps):
        denominators = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        strength = won.sum(axis=1) / denominators
        strength /= strength[0]
    return 400 * np.log10(strength)


@pytest.mark.parametrize("prior_draws", [0.0, 2.0])
def test_three_agents_match_an_independent_minorization_maximization_solve(prior_draws):
    agents = ["random", "weak", "strong"]
    pairs = [
        PairScore("weak", "random", 14, 2, 4),
        PairScore("strong", "random", 17, 1, 2),
        PairScore("strong", "weak", 11, 5, 4),
    ]
    ratings = fit_ratings(agents, pairs, anchor="random", prior_draws=prior_draws)
    expected = minorization_maximization(agents, pairs, prior_draws)
    assert [r.agent for r in ratings] == agents
    assert [r.elo for r in ratings] == pytest.approx(list(expected), abs=1e-4)
    assert ratings[0].elo < ratings[1].elo < ratings[2].elo
    for r in ratings[1:]:
        assert r.elo_low < r.elo < r.elo_high


def test_the_anchor_only_shifts_the_ratings():
    pairs = [
        PairScore("a", "b", 6, 2, 2),
        PairScore("b", "c", 5, 0, 5),
        PairScore("a", "c", 3, 3, 4),
    ]
    by_a = fit_ratings("abc", pairs, anchor="a")
    by_c = fit_ratings("abc", pairs, anchor="c")
    shift = by_a[2].elo
    assert [r.elo for r in by_c] == pytest.approx([r.elo - shift for r in by_a], abs=1e-5)
    # A pair given twice counts twice: the same as its games added up.
    doubled = fit_ratings("ab", [PairScore("a", "b", 3, 1, 1)] * 2, prior_draws=0)
    summed = fit_ratings("ab", [PairScore("a", "b", 6, 2, 2)], prior_draws=0)
    assert [r.elo for r in doubled] == pytest.approx([r.elo for r in summed], abs=1e-6)


def test_intervals_shrink_as_games_are_added():
    small = fit_ratings("ab", [PairScore("a", "b", 6, 2, 2)], prior_draws=0)[1]
    large = fit_ratings("ab", [PairScore("a", "b", 60, 20, 20)], prior_draws=0)[1]
    assert small.elo == pytest.approx(large.elo, abs=1e-6)
    assert large.elo_high - large.elo_low < (small.elo_high - small.elo_low) / 2


def test_a_perfect_score_has_no_finite_rating_without_virtual_draws():
    pairs = [PairScore("mcts", "random", 20, 0, 0)]
    with pytest.raises(ValueError, match="not all finite") as error:
        fit_ratings(["random", "mcts"], pairs, prior_draws=0)
    assert "['random']" in str(error.value) and "['mcts']" in str(error.value)
    random, mcts = fit_ratings(["random", "mcts"], pairs, prior_draws=2)
    # 20 wins and 2 virtual draws: a score of 21 / 22.
    assert mcts.elo == pytest.approx(elo_difference(21 / 22), abs=1e-6)
    # Agents never connected by games cannot be rated against each other.
    with pytest.raises(ValueError, match="not all finite"):
        fit_ratings("abcd", [PairScore("a", "b", 1, 1, 1), PairScore("c", "d", 1, 1, 1)])


def test_bad_arguments():
    pairs = [PairScore("a", "b", 1, 0, 1)]
    with pytest.raises(ValueError, match="distinct"):
        fit_ratings(["a", "a"], pairs)
    with pytest.raises(ValueError, match="anchor 'z' is not one of the agents"):
        fit_ratings("ab", pairs, anchor="z")
    with pytest.raises(ValueError, match="names 'c', not one of the agents"):
        fit_ratings("ab", [PairScore("a", "c", 1, 0, 1)])
    with pytest.raises(ValueError, match="prior_draws must be"):
        fit_ratings("ab", pairs, prior_draws=-1)
    with pytest.raises(ValueError, match=r"score must be in \(0, 1\)"):
        elo_difference(1.0)
    with pytest.raises(ValueError, match="no games"):
        score_interval(0, 0, 0)


@pytest.mark.parametrize("wins, draws, losses", [(7, 2, 3), (0, 0, 5), (10, 0, 0), (3, 14, 1)])
def test_the_score_interval_is_wilsons(wins, draws, losses):
    n = wins + draws + losses
    score, low, high = score_interval(wins, draws, losses)
    assert score == (wins + draws / 2) / n
    z = stats.norm.ppf(0.975)
    # Wilson's bounds are the p with |score - p| = z sqrt(p (1 - p) / n).
    for p in (low, high):
        assert (score - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n, abs=1e-12)
    assert 0 <= low <= score <= high <= 1
