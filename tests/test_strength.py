"""The specification's strength targets for the tic-tac-toe planner (c = 2 sqrt(2))."""

from __future__ import annotations

import math

import pytest

from mcts_agent import MCTS
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel, perfect_policy, random_policy

MODEL = TicTacToeModel()


def play_games(num_games, iterations, opponent_factory, planner_player):
    """Returns (wins, draws, losses) of the planner; game i uses seed i for both sides."""
    tally = {"win": 0, "draw": 0, "loss": 0}
    for game in range(num_games):
        planner = MCTS(MODEL, iterations, exploration=2 * math.sqrt(2), seed=game)
        opponent = opponent_factory(1000 + game)
        state, reward, done = EMPTY_BOARD, 0.0, False
        while not done:
            mover = MODEL.player(state)
            policy = planner if mover == planner_player else opponent
            state, reward, done = MODEL.step(state, policy(state))
        if reward == 0.0:
            tally["draw"] += 1
        else:
            tally["win" if mover == planner_player else "loss"] += 1
    return tally


@pytest.mark.parametrize(
    "planner_player, iterations, num_games",
    [(1, 10_000, 25), (2, 10_000, 25), (1, 5000, 100), (2, 5000, 100)],
    ids=["as X, 10000 iterations", "as O, 10000 iterations", "as X, 5000", "as O, 5000"],
)
def test_never_loses_to_perfect_play(planner_player, iterations, num_games):
    tally = play_games(num_games, iterations, perfect_policy, planner_player)
    assert tally["loss"] == 0, tally


@pytest.mark.parametrize("planner_player, min_wins", [(1, 90), (2, 80)], ids=["as X", "as O"])
def test_beats_random_play_with_5000_iterations(planner_player, min_wins):
    tally = play_games(100, 5000, random_policy, planner_player)
    assert tally["loss"] == 0, tally
    assert tally["win"] >= min_wins, tally
