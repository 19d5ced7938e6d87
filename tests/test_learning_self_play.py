"""Self-play targets and the replay buffer (numpy only: the evaluators here are not networks)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mcts_agent import MCTS
from mcts_agent.envs import connect_four, tic_tac_toe
from mcts_agent.evaluator import Evaluation
from mcts_agent.learning import (
    ConnectFourEncoding,
    Example,
    ReplayBuffer,
    SelfPlayConfig,
    TicTacToeEncoding,
    play_game,
)
from mcts_agent.learning.self_play import outcomes, policy_target

MODEL = tic_tac_toe.TicTacToeModel()


def uniform(state, actions):
    return Evaluation(0.0, None)


def test_outcomes_of_a_hand_played_win_are_plus_one_for_the_winner_minus_one_for_the_loser():
    # X 0, O 3, X 1, O 4, X 2: X completes the top row on the fifth move
    state, players, rewards = tic_tac_toe.EMPTY_BOARD, [], []
    for cell in (0, 3, 1, 4, 2):
        players.append(MODEL.player(state))
        state, reward, terminated = MODEL.step(state, cell)
        rewards.append(reward)
    assert terminated and rewards == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert players == [1, 2, 1, 2, 1]
    assert outcomes(players, rewards) == [1.0, -1.0, 1.0, -1.0, 1.0]


def test_outcomes_follow_the_backup_rule_when_a_player_moves_twice():
    # a reward on the way and a player who moves again: G = r + G' (same), r - G' (other)
    assert outcomes(["a", "a", "b"], [0.5, 0.0, 1.0]) == [-0.5, -1.0, 1.0]
    assert outcomes([1, 2, 1], [0.0, 0.0, 0.0]) == [0.0, 0.0, 0.0]  # a draw
    with pytest.raises(ValueError):
        outcomes([1, 2], [0.0])


def test_a_self_play_game_gives_one_example_per_move_with_targets_on_legal_actions():
    encoding = TicTacToeEncoding()
    config = SelfPlayConfig(iterations=30, temperature_moves=2)
    game = play_game(MODEL, tic_tac_toe.EMPTY_BOARD, encoding, uniform, config, seed=3)
    assert len(game.examples) == len(game.moves) == len(game.players)
    state = tic_tac_toe.EMPTY_BOARD
    winner = max(game.returns, key=game.returns.get) if any(game.returns.values()) else None
    for example, move, player in zip(game.examples, game.moves, game.players, strict=True):
        assert np.array_equal(example.observation, encoding.encode(state))
        legal = set(MODEL.actions(state))
        assert example.policy.sum() == pytest.approx(1.0, abs=1e-6)
        assert all(example.policy[i] == 0.0 for i in range(9) if i not in legal)
        expected = 0.0 if winner is None else (1.0 if player == winner else -1.0)
        assert example.outcome == expected
        state = MODEL.step(state, move).next_state
    assert not MODEL.actions(state)  # played to the end
    again = play_game(MODEL, tic_tac_toe.EMPTY_BOARD, encoding, uniform, config, seed=3)
    assert again.moves == game.moves  # one seed, one game


def test_the_policy_target_is_the_visit_distribution_under_puct():
    planner = MCTS(MODEL, iterations=200, selection="puct", evaluator=uniform, seed=0)
    planner.search(tic_tac_toe.parse_board("XX.OO...."))
    summary = planner.summary()
    target = policy_target(planner, TicTacToeEncoding())
    assert target.tolist() == pytest.approx(
        [dict(zip(summary.actions, summary.visit_distribution, strict=True)).get(i, 0.0)
         for i in range(9)]
    )  # fmt: skip
    assert target.argmax() == 2  # the win


def test_after_temperature_moves_the_game_plays_the_robust_child():
    encoding = ConnectFourEncoding()
    config = SelfPlayConfig(iterations=20, temperature_moves=0, noise_fraction=0.0)
    game = play_game(
        connect_four.ConnectFourModel(),
        connect_four.EMPTY_BOARD,
        encoding,
        connect_four.heuristic_evaluator,
        config,
        seed=0,
        max_moves=6,
    )
    assert len(game.moves) == 6  # cut after max_moves
    for example, move in zip(game.examples, game.moves, strict=True):
        counts = example.policy  # the visit distribution: the move played is its most visited
        assert counts[move] == counts.max()


def test_self_play_config_refuses_bad_settings():
    with pytest.raises(ValueError, match="selection"):
        SelfPlayConfig(selection="uct")
    with pytest.raises(ValueError, match="noise_fraction"):
        SelfPlayConfig(noise_fraction=1.5)
    assert "root_noise" not in SelfPlayConfig(noise_fraction=0.0).planner_options()
    assert SelfPlayConfig(dirichlet_alpha=0.3).planner_options()["root_noise"] == (0.3, 0.25)
    assert "root_noise" not in SelfPlayConfig(selection="gumbel").planner_options()


def test_under_gumbel_search_the_target_is_the_improved_policy():
    encoding = TicTacToeEncoding()
    planner = MCTS(MODEL, iterations=32, selection="gumbel", evaluator=uniform, seed=0)
    planner.search(tic_tac_toe.parse_board("XX.OO...."))
    improved = dict(zip(planner.summary().actions, planner.improved_policy(), strict=True))
    target = policy_target(planner, encoding)
    assert target.tolist() == pytest.approx([improved.get(i, 0.0) for i in range(9)])
    config = SelfPlayConfig(iterations=16, selection="gumbel")
    game = play_game(MODEL, tic_tac_toe.EMPTY_BOARD, encoding, uniform, config, seed=1)
    assert all(e.policy.sum() == pytest.approx(1.0, abs=1e-6) for e in game.examples)


def example(value: float) -> Example:
    return Example(np.full((2, 3, 3), value, np.float32), np.full(9, 1 / 9, np.float32), value)


def test_the_replay_buffer_keeps_the_last_capacity_examples():
    buffer = ReplayBuffer(3, (2, 3, 3), 9)
    assert len(buffer) == 0
    with pytest.raises(ValueError, match="empty"):
        buffer.sample(2, np.random.default_rng(0))
    buffer.extend(example(v) for v in (1.0, 2.0, 3.0, 4.0, 5.0))
    assert len(buffer) == 3 and buffer.added == 5
    held = buffer.examples()
    assert held.outcomes.tolist() == [3.0, 4.0, 5.0]  # oldest first; 1 and 2 replaced
    assert held.observations[:, 0, 0, 0].tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(ValueError, match="shape"):
        buffer.add(Example(np.zeros((3, 3)), np.zeros(9), 0.0))
    with pytest.raises(ValueError, match="capacity"):
        ReplayBuffer(0, (2, 3, 3), 9)


def test_the_replay_buffer_samples_uniformly_and_reproducibly():
    buffer = ReplayBuffer(10, (2, 3, 3), 9)
    buffer.extend(example(float(v)) for v in range(4))
    batch = buffer.sample(4000, np.random.default_rng(5))
    assert batch.observations.shape == (4000, 2, 3, 3) and batch.policies.shape == (4000, 9)
    assert np.array_equal(batch.observations[:, 0, 0, 0], batch.outcomes)  # rows kept together
    shares = np.bincount(batch.outcomes.astype(int), minlength=4) / 4000
    assert shares == pytest.approx([0.25] * 4, abs=0.03)
    same = buffer.sample(4000, np.random.default_rng(5))
    assert np.array_equal(same.outcomes, batch.outcomes)
    assert not math.isnan(float(batch.policies.sum()))
