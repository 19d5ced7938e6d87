"""The GSPRT: its log-likelihood ratio, its bounds, and matches it stops."""

from __future__ import annotations

import math

import pytest

from mcts_agent.evaluation import SPRT, RandomPlayer, make_game, make_player, sprt_match

TTT = make_game("tictactoe")


def expected_score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def test_the_bounds_are_walds():
    test = SPRT(0, 10, alpha=0.05, beta=0.1)
    assert test.bounds == (math.log(0.1 / 0.95), math.log(0.9 / 0.05))


@pytest.mark.parametrize("wins, losses", [(12, 3), (3, 12), (40, 38), (5, 0)])
def test_without_draws_it_is_the_binomial_likelihood_ratio(wins, losses):
    # With no draw the trinomial MLE puts (almost: counts are raised by 1e-3) no mass on
    # draws, and the ratio is that of two binomials with success chance s1 and s0.
    s0, s1 = expected_score(0), expected_score(100)
    binomial = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert SPRT(0, 100).llr(wins, 0, losses) == pytest.approx(binomial, abs=0.02)


def test_the_ratio_is_antisymmetric_and_grows_with_the_evidence():
    test, mirror = SPRT(0, 50), SPRT(-50, 0)
    for wins, draws, losses in [(10, 5, 3), (2, 20, 4), (30, 1, 30)]:
        assert test.llr(wins, draws, losses) == pytest.approx(-mirror.llr(losses, draws, wins))
        assert test.llr(2 * wins, 2 * draws, 2 * losses) == pytest.approx(
            2 * test.llr(wins, draws, losses), rel=1e-3
        )
    assert SPRT(0, 50).llr(0, 0, 0) == 0.0


def test_many_games_agree_with_the_normal_approximation():
    # fishtest's and fast-chess's normal approximation of the GSPRT:
    # (s1 - s0) (2 x - s0 - s1) / (2 var / n), x the mean score, var its variance.
    wins, draws, losses = 4300, 3500, 4100
    n = wins + draws + losses
    mean = (wins + draws / 2) / n
    variance = (wins + draws / 4) / n - mean**2
    s0, s1 = expected_score(0), expected_score(5)
    approximation = (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance / n)
    assert SPRT(0, 5).llr(wins, draws, losses) == pytest.approx(approximation, rel=0.01)


def test_bad_tests_are_refused():
    with pytest.raises(ValueError, match="elo1 must be greater than elo0"):
        SPRT(10, 0)
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\)"):
        SPRT(0, 10, alpha=0)
    with pytest.raises(ValueError, match="max_games must be even"):
        sprt_match(TTT, RandomPlayer(), RandomPlayer(), SPRT(0, 10), 11)


def stops_at_first_decision(result):
    test = result.test
    counts = {"win": 0, "draw": 0, "loss": 0}
    for k, record in enumerate(result.match.records):
        assert record.index == k  # counted in index order
        counts[record.outcome] += 1
        decision = test.decision(counts["win"], counts["draw"], counts["loss"])
        if k < result.games - 1:
            assert decision is None
    return decision


def test_a_strong_agent_is_accepted_early_the_same_on_one_or_two_workers():
    strong = make_player("mcts:iterations=300", TTT)
    weak = make_player("mcts:iterations=5", TTT)
    seen = []
    result = sprt_match(
        TTT, strong, weak, SPRT(0, 100), 400, workers=1, on_game=lambda s, r: seen.append(r)
    )
    assert result.decision == "H1" and result.games < 100
    assert stops_at_first_decision(result) == "H1"
    assert result.llr >= result.test.bounds[1]
    assert seen == list(result.match.records)  # on_game saw the counted games, in order
    again = sprt_match(TTT, strong, weak, SPRT(0, 100), 400, workers=2)
    assert [(r.index, r.moves) for r in again.match.records] == [
        (r.index, r.moves) for r in result.match.records
    ]
    assert "H1 accepted (elo >= 100) after" in result.summary()
    assert result.to_dict()["games_played"] == result.games


def test_equal_agents_accept_h0_and_a_short_match_may_not_decide():
    result = sprt_match(TTT, RandomPlayer(), RandomPlayer(), SPRT(0, 200), 2000, workers=1)
    assert result.decision == "H0"
    assert stops_at_first_decision(result) == "H0"
    short = sprt_match(TTT, RandomPlayer(), RandomPlayer(), SPRT(0, 5), 4, workers=1)
    assert short.decision is None and short.games == 4
    assert "no decision" in short.summary()
