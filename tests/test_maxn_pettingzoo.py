"""Every agent's reward in PettingZoo AEC games (max^n through PettingZooModel)."""

import re
import runpy
import sys
from pathlib import Path

import pytest
from pettingzoo.test import api_test
from pettingzoo_envs import make_connect_four, make_tictactoe, played
from scripted_games import nested

from mcts_agent import MCTS
from mcts_agent.adapters import PettingZooModel
from mcts_agent.envs import shared_total
from mcts_agent.maxn import MaxnTree, maxn_moves
from mcts_agent.testing import check_model

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pettingzoo_shared_total.py"
play = runpy.run_path(str(EXAMPLE))["play"]  # the example's game loop, under test


@pytest.mark.parametrize(
    "make_env, moves, iterations",
    [(make_tictactoe, [4], 300), (make_connect_four, [3, 3], 120)],
    ids=["tictactoe", "connect_four"],
)
def test_a_known_zero_sum_game_planned_with_every_agents_reward_gives_the_same_tree(
    make_env, moves, iterations
):
    env = played(make_env, moves)
    scalar = PettingZooModel(env)
    vector = PettingZooModel(env, zero_sum=False)
    assert scalar.reward_players is None and scalar.zero_sum
    assert vector.reward_players == tuple(env.possible_agents)
    trees = []
    for model in (scalar, vector):
        planner = MCTS(model, iterations, exploration=2.0, seed=7)
        planner.search(model.state_of(env))
        trees.append(planner.tree)
    assert isinstance(trees[1], MaxnTree) and not isinstance(trees[0], MaxnTree)
    assert nested(trees[1]) == nested(trees[0])


def test_the_shared_total_env_passes_the_api_test_and_its_model_the_model_check():
    api_test(shared_total.env(), num_cycles=50)
    env = shared_total.env()
    env.reset(seed=0)
    model = PettingZooModel(env)
    assert model.reward_players == ("player_0", "player_1")
    state = model.state_of(env)
    check_model(model, state, seed=0)
    for action in (3, 3, 3, 3, 3):
        result = model.step(state, action)
        assert result[1:] == ({"player_0": 0.0, "player_1": 0.0}, False)
        state = result.next_state
    assert model.step(state, 0)[1:] == ({"player_0": 1.0, "player_1": 1.0}, True)  # 15
    assert model.step(state, 1)[1:] == ({"player_0": 0.0, "player_1": 0.0}, True)  # 16


def test_the_shared_total_goal_needs_both_players_and_maxn_finds_it():
    env = shared_total.env()
    env.reset(seed=0)
    model = PettingZooModel(env)
    state = model.state_of(env)
    for action in (3, 0):  # 12 left to make with four moves: only 3, 3, 3, 3
        state = model.step(state, action).next_state
    value, best = maxn_moves(model, state)
    assert best == (3,) and value == (1.0, 1.0)


@pytest.mark.parametrize("seed", range(4))
def test_the_cooperative_game_reaches_its_goal_in_every_game(seed):
    moves, total, reward = play(600, seed)
    assert total == 15 and reward == 1.0, moves
    assert len(moves) == 6


def test_the_shared_total_example_runs(monkeypatch, capsys):
    argv = ["pettingzoo_shared_total.py", "--games", "1", "--iterations", "600", "--seed", "9"]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(r"goal reached in 1 of 1 games", last), last
