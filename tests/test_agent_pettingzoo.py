"""MCTSAgent in PettingZoo's AEC loop (tic-tac-toe, connect four) and on a Gymnasium env."""

from __future__ import annotations

import math
import pathlib
import re
import runpy
import sys

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test
from pettingzoo_envs import game_view, make_connect_four, make_tictactoe, played

import mcts_agent.adapters.pettingzoo.model as pettingzoo_model
from mcts_agent import Evaluation
from mcts_agent.agent import MCTSAgent
from mcts_agent.envs.tic_tac_toe import (
    from_pettingzoo_action,
    parse_board,
    perfect_policy,
    state_from_pettingzoo,
    to_pettingzoo_action,
)

C = 2 * math.sqrt(2)
PATHS = {"native": {"native_models": True}, "adapter": {"native_models": False}}


def legal(env):
    return set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())


def live_view(env):
    """What the agent must leave untouched: the game, what the loop reads, the RNGs."""
    inner = env.unwrapped
    return (
        game_view(env)
        + (
            id(inner.board),
            list(getattr(inner.board, "squares", inner.board)),  # tic-tac-toe's or connect four's
            {a: env.action_space(a).np_random.bit_generator.state for a in inner.possible_agents},
            env.last()[1:],
        )
    )


# ----------------------------------------------------- tic-tac-toe cell numbering


def test_cell_conversion_on_every_cell_matches_pettingzoos_board():
    for action in range(9):
        env = played(make_tictactoe, [action])
        cell = from_pettingzoo_action(action)
        assert (cell // 3, cell % 3) == (action % 3, action // 3)  # (row, column)
        expected = ["."] * 9
        expected[cell] = "X"
        assert state_from_pettingzoo(env) == parse_board("".join(expected))
        assert to_pettingzoo_action(cell) == action
        assert from_pettingzoo_action(np.int64(action)) == cell
    assert sorted(from_pettingzoo_action(a) for a in range(9)) == list(range(9))


@pytest.mark.parametrize("bad", [9, -1, True, "3", 2.5, None])
def test_cell_conversion_rejects_non_cells(bad):
    with pytest.raises((TypeError, ValueError), match="0..8"):
        from_pettingzoo_action(bad)


def test_state_from_pettingzoo_reads_a_hand_position():
    # PettingZoo moves 0, 3, 1, 4: X on cells (0,0), (1,0); O on (0,1), (1,1) (row, column)
    env = played(make_tictactoe, [0, 3, 1, 4])
    assert state_from_pettingzoo(env) == parse_board("XO.XO....")
    env.unwrapped.agent_selection = "player_2"
    with pytest.raises(ValueError, match="player_2"):
        state_from_pettingzoo(env)
    with pytest.raises(TypeError, match="tictactoe"):
        state_from_pettingzoo(played(make_connect_four, []))


# ----------------------------------------------------------------- the cases


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("seed", range(3))
def test_agent_plays_the_win_and_the_adapter_scores_it(path, seed):
    env = played(make_tictactoe, [0, 3, 1, 4])
    agent = MCTSAgent(300, exploration=C, seed=seed, **PATHS[path])
    assert agent.act(env) == 2
    summary = agent.last_summary
    assert summary.player == "player_1"
    assert summary.actions == tuple(sorted(legal(env))) == (2, 5, 6, 7, 8)  # both paths alike
    assert sum(summary.visit_counts) == 300
    assert summary.values[summary.actions.index(2)] == 1.0
    assert summary.principal_variation == (2,)  # the win ends the game
    lines = str(summary).splitlines()  # print(agent.last_summary): the CLI's table
    assert lines[0] == "visits and value for player 'player_1' of each move:"
    n = summary.visit_counts[0]
    assert lines[2].split() == ["2", str(n), f"{n / 300:.1%}", "+1.000"]
    assert lines[-2:-1] == ["principal variation: 2"]
    model = pettingzoo_model.PettingZooModel(env)
    next_state, reward, terminated = model.step(model.state_of(env), 2)
    assert (reward, terminated, model.actions(next_state)) == (1.0, True, ())


@pytest.mark.parametrize("path", PATHS)
def test_agent_wins_and_blocks_at_connect_four(path):
    agent = MCTSAgent(500, exploration=C, seed=0, **PATHS[path])
    win = played(make_connect_four, [0, 1, 0, 1, 0, 1])  # player_0 has three in column 0
    assert agent.act(win) == 0
    assert agent.last_summary.player == "player_0"
    assert agent.last_summary.values[agent.last_summary.actions.index(0)] == 1.0
    block = played(make_connect_four, [0, 1, 0, 1, 0])  # player_1 must block column 0
    assert agent.act(block) == 0
    assert agent.last_summary.player == "player_1"


def test_native_connect_four_checks_the_agent_to_move():
    env = played(make_connect_four, [3])
    env.unwrapped.agent_selection = "player_0"
    with pytest.raises(ValueError, match="'player_1' to move"):
        MCTSAgent(10, seed=0).act(env)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("make_env", "moves"),
    [(make_tictactoe, [4, 0]), (make_tictactoe, [4]), (make_connect_four, [3, 3, 2])],
    ids=["tictactoe-x", "tictactoe-o", "connect_four"],
)
def test_live_env_is_exactly_as_before(path, make_env, moves):
    env = played(make_env, moves)
    before = live_view(env)
    agent = MCTSAgent(200, exploration=C, seed=0, **PATHS[path])
    action = agent.act(env)
    assert live_view(env) == before
    assert action in legal(env)
    assert type(action) is int
    assert agent(env.last()[0], env) in legal(env)  # the policy form, planning again
    assert live_view(env) == before


def test_api_test_passes_on_an_env_the_agent_planned_on():
    for make_env, moves in ((make_tictactoe, [4, 0]), (make_connect_four, [3, 3])):
        for native in (True, False):
            env = played(make_env, moves)
            MCTSAgent(100, exploration=C, seed=0, native_models=native).act(env)
            api_test(env, num_cycles=100)


# ----------------------------------------------------------------- legality


def play(make_env, seats, seed):
    """Plays one game; seats maps agent ids to ``policy(observation, env)``; returns rewards.

    Fails if a policy picks an action outside the action mask.
    """
    env = make_env()
    env.reset(seed=seed)
    for name in env.possible_agents:
        env.action_space(name).seed(seed)
    rewards = dict.fromkeys(env.possible_agents, 0)
    for name in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        rewards[name] = reward
        if termination or truncation:
            action = None
        else:
            action = seats[name](observation, env)
            mask = observation["action_mask"]
            assert mask[action] == 1, f"{name} played illegal {action} with mask {mask}"
        env.step(action)
    return rewards


def random_seat(observation, env):
    return env.action_space(env.agent_selection).sample(observation["action_mask"])


@pytest.mark.parametrize(
    ("make_env", "games", "iterations", "path"),
    [
        (make_tictactoe, 200, 25, "native"),
        (make_tictactoe, 200, 25, "adapter"),
        (make_connect_four, 50, 50, "native"),
        (make_connect_four, 50, 50, "adapter"),
    ],
    ids=["tictactoe-native", "tictactoe-adapter", "connect_four-native", "connect_four-adapter"],
)
def test_never_an_illegal_move_as_either_player(make_env, games, iterations, path):
    agent = MCTSAgent(iterations, exploration=C, seed=0, **PATHS[path])
    first, second = make_env().possible_agents
    wins = 0
    for game in range(games):
        agent_seat = first if game % 2 == 0 else second
        other = second if agent_seat == first else first
        rewards = play(make_env, {agent_seat: agent, other: random_seat}, seed=game)
        assert rewards[agent_seat] in (-1, 0, 1)  # -1 is a loss, never an illegal-move penalty
        wins += rewards[agent_seat] == 1
    assert wins > games / 2  # it plays, not just legally


# ----------------------------------------------------------------- strength


def perfect_seat(seed):
    policy = perfect_policy(seed)

    def seat(observation, env):
        return to_pettingzoo_action(policy(state_from_pettingzoo(env)))

    return seat


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
def test_wins_against_random_as_either_player(path):
    agent = MCTSAgent(2000, exploration=C, seed=0, **PATHS[path])
    for seat, other, minimum in (("player_1", "player_2", 95), ("player_2", "player_1", 80)):
        results = [
            play(make_tictactoe, {seat: agent, other: random_seat}, seed=game)[seat]
            for game in range(100)
        ]
        assert results.count(1) >= minimum, (seat, results.count(1))


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
def test_never_loses_to_the_perfect_player(path):
    agent = MCTSAgent(5000, exploration=C, seed=0, **PATHS[path])
    for seat, other in (("player_1", "player_2"), ("player_2", "player_1")):
        for game in range(20):
            rewards = play(make_tictactoe, {seat: agent, other: perfect_seat(game)}, seed=game)
            assert rewards[seat] == 0, (seat, game)  # perfect play on both sides: a draw


# ----------------------------------------------------------------- the agent itself


def test_same_seed_same_game():
    def game(seed):
        agent = MCTSAgent(40, exploration=C, seed=seed, native_models=False)
        env = played(make_connect_four, [])
        moves = []
        for _ in range(4):
            moves.append(agent.act(env))
            env.step(moves[-1])
        return moves

    assert game(3) == game(3)
    assert len({tuple(game(seed)) for seed in range(4)}) > 1


def test_adapter_is_made_once_per_env(monkeypatch):
    made = []
    original = pettingzoo_model.PettingZooModel.__init__

    def counting_init(self, env, **kwargs):
        made.append(env)
        original(self, env, **kwargs)

    monkeypatch.setattr(pettingzoo_model.PettingZooModel, "__init__", counting_init)
    agent = MCTSAgent(20, seed=0, native_models=False)
    env = played(make_connect_four, [])
    for _ in range(3):
        env.step(agent.act(env))
    assert len(made) == 1
    agent.act(played(make_connect_four, [3]))
    assert len(made) == 2


def test_replay_clones_need_the_history():
    env = played(make_tictactoe, [0, 3, 1, 4])
    agent = MCTSAgent(200, exploration=C, seed=0, clone="replay", env_factory=make_tictactoe)
    assert agent.act(env, history=(1, [0, 3, 1, 4])) == 2
    with pytest.raises(ValueError, match="history"):
        agent.act(env)
    with pytest.raises(ValueError, match="clone='replay'"):
        MCTSAgent(10, seed=0).act(env, history=(1, [0, 3, 1, 4]))


def test_bad_input_raises_clear_errors():
    agent = MCTSAgent(10, seed=0)
    with pytest.raises(TypeError, match=r"pettingzoo.AECEnv.*gymnasium.Env"):
        agent.act("tictactoe")
    won = played(make_tictactoe, [0, 3, 1, 4, 2])
    with pytest.raises(ValueError, match=r"game is over for 'player_2'.*step\(None\)"):
        agent.act(won)
    for _ in range(2):  # the AEC loop steps None for each agent done
        won.step(None)
    assert won.agents == []
    with pytest.raises(ValueError, match=r"game is over: every agent is done.*env.reset\("):
        agent.act(won)
    with pytest.raises(ValueError, match="iterations"):
        MCTSAgent(0)
    with pytest.raises(TypeError, match="seed"):
        MCTSAgent(10, seed=1.5)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"clone": "foo"}, ValueError, "clone must be None, 'snapshot'"),
        ({"clone": 3}, TypeError, "clone must be None, 'snapshot'"),
        ({"clone": "replay"}, ValueError, "clone='replay' needs env_factory"),
        ({"clone": "replay", "env_factory": 3}, TypeError, "env_factory must be a callable"),
        ({"env_factory": 3}, TypeError, "env_factory must be a callable"),
        ({"env_factory": make_tictactoe}, ValueError, "only used by clone='replay'"),
    ],
    ids=["unknown-method", "int", "replay-without-factory", "factory-int", "int-alone", "alone"],
)
def test_clone_options_are_checked_by_the_constructor(options, error, message):
    with pytest.raises(error, match=message):
        MCTSAgent(10, seed=0, **options)


@pytest.mark.parametrize(
    "options",
    [{"clone": "attributes"}, {"clone": "replay", "env_factory": make_tictactoe}],
    ids=["attributes", "replay"],
)
def test_clone_options_are_refused_on_a_gymnasium_env(options):
    env = gymnasium.make("FrozenLake-v1", is_slippery=False)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="for PettingZoo envs only.*Gymnasium env"):
        MCTSAgent(10, seed=0, **options).act(env)


def test_plans_rock_paper_scissors_without_seeing_the_hidden_move():
    """Planning on a copy, the second player would always counter the first one's move;
    with information-set MCTS its plan is the same whatever that move was."""
    plans = set()
    for first in (0, 1, 2):
        env = pettingzoo.make("aec", "classic/rps-v2")
        env.reset(seed=0)
        env.step(first)
        before = (env.agent_selection, dict(env.rewards), dict(env.terminations))
        agent = MCTSAgent(300, seed=0)
        agent.act(env)
        plans.add(agent.last_summary.visit_counts)
        assert (env.agent_selection, dict(env.rewards), dict(env.terminations)) == before
    assert len(plans) == 1


@pytest.mark.parametrize("native_models", [True, False])
def test_plans_poker_without_seeing_the_hidden_cards(native_models):
    from mcts_agent.adapters.pettingzoo.cloning import copy_attributes

    env = pettingzoo.make("aec", "classic/leduc_holdem-v4")
    env.reset(seed=0)
    game = env.unwrapped.env.game
    mover = game.game_pointer
    plans = set()
    for opponent_card in range(2):  # the opponent's card swapped with one in the deck
        twin = copy_attributes(env.unwrapped)
        players, deck = twin.env.game.players, twin.env.game.dealer.deck
        other = players[1 - mover]
        other.hand, deck[opponent_card] = deck[opponent_card], other.hand
        agent = MCTSAgent(200 if native_models else 30, seed=0, native_models=native_models)
        agent.act(twin)
        plans.add(agent.last_summary.visit_counts)
    assert len(plans) == 1


@pytest.mark.parametrize(
    ("game", "native"),
    [
        ("classic/tictactoe-v3", True),
        ("classic/tictactoe-v3", False),
        ("classic/connect_four-v3", True),
        ("classic/connect_four-v3", False),
        ("classic/chess-v6", True),
    ],
)
def test_an_env_never_reset_is_named_as_such(game, native):
    env = pettingzoo.make("aec", game)
    with pytest.raises(ValueError, match=r"env has not been reset: call env.reset\(seed=...\)"):
        MCTSAgent(10, seed=0, native_models=native).act(env)


def test_plays_a_gymnasium_env_without_touching_it():
    env = gymnasium.make("FrozenLake-v1", is_slippery=False, map_name="4x4")
    env.reset(seed=0)
    env.step(2)  # one step right
    position = env.unwrapped.s
    rng_state = env.unwrapped.np_random.bit_generator.state
    agent = MCTSAgent(200, seed=0)
    action = agent.act(env)
    assert env.action_space.contains(action)
    assert (env.unwrapped.s, env.unwrapped.np_random.bit_generator.state) == (position, rng_state)
    assert agent.last_summary.player == 0
    assert sum(agent.last_summary.visit_counts) == 200


@pytest.mark.parametrize(
    ("script", "last_line"),
    [
        ("pettingzoo_tictactoe.py", "result: {'player_1': 1, 'player_2': -1}"),
        ("pettingzoo_connect_four.py", "MCTS vs random, 2 games: W 2 D 0 L 0"),
    ],
)
@pytest.mark.parametrize("adapter", [False, True], ids=["native", "adapter"])
def test_examples_run(script, last_line, adapter, monkeypatch, capsys):
    path = pathlib.Path(__file__).parent.parent / "examples" / script
    argv = [script, "--seed", "1", "--iterations", "300"]
    argv += ["--games", "2"] if "connect_four" in script else []
    monkeypatch.setattr(sys, "argv", [*argv, *(["--adapter"] if adapter else [])])
    runpy.run_path(str(path), run_name="__main__")
    output = capsys.readouterr().out
    assert output.strip().splitlines()[-1] == last_line
    assert "visits" in output
    if "tictactoe" in script:
        assert_moves_name_their_row_and_column(output)


def assert_moves_name_their_row_and_column(output):
    """Every move and statistics line gives PettingZoo's cell with its (row, column), and
    each board printed after a move has the mover's mark at that row and column."""
    lines = output.splitlines()
    moves = stats = 0
    for i, line in enumerate(lines):
        for action, row, column in re.findall(r"(\d) \(row (\d), column (\d)\)", line):
            assert (int(row), int(column)) == (int(action) % 3, int(action) // 3), line
            stats += "visits" in line
        move = re.match(r"player_\d \(([XO])\) plays (\d) \(row (\d), column (\d)\)", line)
        if move:
            moves += 1
            mark, _, row, column = move.groups()
            board = lines[i + 1 :]
            board = board[next(j for j, text in enumerate(board) if "visits" not in text) :]
            assert board[int(row)].split()[int(column)] == mark, (line, board[:3])
    assert moves >= 5
    assert stats >= moves


class _Uniform:
    """An evaluator made from a model (the value 0, uniform priors); counts its models."""

    models = []

    def __init__(self, model):
        _Uniform.models.append(model)

    def __call__(self, state, actions):
        return Evaluation(0.0, None)


@pytest.mark.parametrize("make_env", [make_tictactoe, make_connect_four], ids=["ttt", "c4"])
def test_an_evaluator_factory_plans_the_native_games_as_its_instance_would(make_env):
    # Issue 28, item 17: with a factory the native planners are made at their first move,
    # with the seeds drawn when the agent was made: the same searches as an instance gives.
    env = played(make_env, [])
    options = {"iterations": 60, "seed": 3, "selection": "puct", "exploration": C}
    _Uniform.models.clear()
    factory_agent = MCTSAgent(**options, evaluator=_Uniform)
    assert _Uniform.models == []  # nothing made before the first move
    move = factory_agent.act(env)
    (model,) = _Uniform.models
    assert factory_agent.last_planner.model is model
    instance_agent = MCTSAgent(**options, evaluator=_Uniform(type(model)()))
    assert instance_agent.act(env) == move
    assert instance_agent.last_summary.visit_counts == factory_agent.last_summary.visit_counts
