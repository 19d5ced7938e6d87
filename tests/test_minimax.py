"""AlphaBetaMinimax and MinimaxPolicy, checked against ExhaustiveMinimax and real positions."""

from __future__ import annotations

import random

import numpy as np
import pettingzoo
import pytest

from mcts_agent.envs import connect_four
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import (
    EMPTY_BOARD,
    TicTacToeModel,
    parse_board,
    perfect_moves,
)
from mcts_agent.minimax import AlphaBetaMinimax, ExhaustiveMinimax
from mcts_agent.model import StepResult
from mcts_agent.policies import MinimaxPolicy

TTT = TicTacToeModel()
C4 = ConnectFourModel()


def reachable_states(model, root):
    seen = {root}
    stack = [root]
    while stack:
        state = stack.pop()
        for action in model.actions(state):
            next_state = model.step(state, action).next_state
            if next_state not in seen:
                seen.add(next_state)
                stack.append(next_state)
    return seen


TTT_STATES = sorted(reachable_states(TTT, EMPTY_BOARD))


def test_tic_tac_toe_has_5478_reachable_positions():
    assert len(TTT_STATES) == 5478


def test_full_depth_alpha_beta_agrees_with_exhaustive_minimax_on_every_tic_tac_toe_position():
    exhaustive = ExhaustiveMinimax(TTT)
    alpha_beta = AlphaBetaMinimax(TTT)
    for state in TTT_STATES:
        assert alpha_beta.value(state) == exhaustive.value(state), state
        if TTT.actions(state):
            assert alpha_beta.best_actions(state) == exhaustive.best_actions(state), state


def test_full_depth_action_values_agree_with_exhaustive_minimax():
    exhaustive = ExhaustiveMinimax(TTT)
    alpha_beta = AlphaBetaMinimax(TTT)
    for board in ("XX.OO....", "X.O.O...X", "XX..O....", "XX.OO...X", "........."):
        state = parse_board(board)
        assert alpha_beta.action_values(state) == exhaustive.action_values(state)
    assert alpha_beta.value(EMPTY_BOARD) == 0.0  # tic-tac-toe is a draw


@pytest.mark.parametrize(
    "board, depth, values",
    [
        # X to move: 2 wins at once; at depth 1 every other move is worth 0 (no evaluation).
        ("XX.OO....", 1, {2: 1.0, 5: 0.0, 6: 0.0, 7: 0.0, 8: 0.0}),
        # O to move: unless O blocks at 2, X wins on the next ply.
        ("XX..O....", 2, {2: 0.0, 3: -1.0, 5: -1.0, 6: -1.0, 7: -1.0, 8: -1.0}),
    ],
    ids=["win-depth-1", "block-depth-2"],
)
def test_depth_limited_values_of_hand_worked_positions(board, depth, values):
    solver = AlphaBetaMinimax(TTT, depth=depth)
    state = parse_board(board)
    assert solver.action_values(state) == values
    best = max(values.values())
    assert solver.best_actions(state) == tuple(a for a, v in values.items() if v == best)


def test_the_evaluation_is_for_the_player_to_move_at_the_horizon():
    # Depth 1 from "XX.OO....": after a quiet X move, O is to move and the evaluation says
    # O is worth +0.25, so the move is worth -0.25 to X; the win is worth 1.
    solver = AlphaBetaMinimax(TTT, depth=1, evaluation=lambda state: 0.25)
    values = solver.action_values(parse_board("XX.OO...."))
    assert values == {2: 1.0, 5: -0.25, 6: -0.25, 7: -0.25, 8: -0.25}


class BonusMoveGame:
    """The core issue's game where a player may move twice in a row.

    Player 1's move "a" earns 0 and gives player 1 a bonus move with two endings (+1 or -1
    to player 1); move "b" earns 0 and hands player 2 its only move, which ends the game
    worth +0.5 to player 2. Minimax values: a = +1, b = -0.5.
    """

    def actions(self, state):
        return {"root": ("a", "b"), "bonus": ("win", "lose"), "p2": ("end",)}.get(state, ())

    def player(self, state):
        return 2 if state == "p2" else 1

    def step(self, state, action):
        table = {
            ("root", "a"): StepResult("bonus", 0.0, False),
            ("root", "b"): StepResult("p2", 0.0, False),
            ("bonus", "win"): StepResult("end", 1.0, True),
            ("bonus", "lose"): StepResult("end", -1.0, True),
            ("p2", "end"): StepResult("end", 0.5, True),
        }
        return table[state, action]


def test_a_player_moving_twice_keeps_the_sign():
    model = BonusMoveGame()
    assert AlphaBetaMinimax(model).action_values("root") == {"a": 1.0, "b": -0.5}
    assert ExhaustiveMinimax(model).action_values("root") == {"a": 1.0, "b": -0.5}
    assert AlphaBetaMinimax(model).best_actions("root") == ("a",)
    # At depth 1 the bonus position is cut off (worth 0 to player 1, who moves there again).
    assert AlphaBetaMinimax(model, depth=1).action_values("root") == {"a": 0.0, "b": 0.0}


def random_late_connect_four_position(seed, empty_cells):
    """Random moves that avoid making four, until `empty_cells` cells are left."""
    rng = random.Random(seed)
    state = connect_four.EMPTY_BOARD
    while 42 - bin(state[0] | state[1]).count("1") > empty_cells:
        actions = C4.actions(state)
        quiet = [a for a in actions if C4.step(state, a).reward == 0.0]
        state = C4.step(state, rng.choice(quiet or list(actions))).next_state
        assert C4.actions(state), "the game ended early; pick another seed"
    return state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_alpha_beta_agrees_with_exhaustive_minimax_on_late_connect_four_positions(seed):
    root = random_late_connect_four_position(seed, empty_cells=9)
    exhaustive = ExhaustiveMinimax(C4)
    alpha_beta = AlphaBetaMinimax(C4)
    states = reachable_states(C4, root)
    assert len(states) > 50
    values = set()
    for state in states:
        assert alpha_beta.value(state) == exhaustive.value(state)
        values.add(exhaustive.value(state))
        if C4.actions(state):
            assert alpha_beta.best_actions(state) == exhaustive.best_actions(state)
    assert len(values) > 1  # the positions are not all alike


def play_connect_four(columns):
    state = connect_four.EMPTY_BOARD
    for column in columns:
        state = C4.step(state, column).next_state
    return state


# X (player_0) holds the bottom row's columns 0, 1, 2; O has two in column 6 and one in 5.
WIN_FOR_X = (0, 6, 1, 6, 2, 5)
# X holds columns 0, 1, 2 of the bottom row; O (to move) must block at 3.
BLOCK_FOR_O = (0, 6, 1, 6, 2)


def test_connect_four_immediate_win_is_found_and_wins_in_pettingzoo():
    state = play_connect_four(WIN_FOR_X)
    assert AlphaBetaMinimax(C4, depth=1).best_actions(state) == (3,)
    deep = AlphaBetaMinimax(C4, depth=4)
    assert deep.value(state) == 1.0
    assert 3 in deep.best_actions(state)
    move = MinimaxPolicy(C4, depth=1, seed=0)(state)
    env = pettingzoo.make("aec", "classic/connect_four-v3")
    env.reset(seed=0)
    for column in (*WIN_FOR_X, move):
        env.step(column)
    assert env.terminations["player_0"]
    assert env.rewards == {"player_0": 1, "player_1": -1}


def test_connect_four_forced_block():
    state = play_connect_four(BLOCK_FOR_O)
    assert C4.player(state) == 2
    values = AlphaBetaMinimax(C4, depth=2).action_values(state)
    assert values == {0: -1.0, 1: -1.0, 2: -1.0, 3: 0.0, 4: -1.0, 5: -1.0, 6: -1.0}
    for depth in (2, 3, 4):
        assert AlphaBetaMinimax(C4, depth=depth).best_actions(state) == (3,)
        assert MinimaxPolicy(C4, depth=depth, seed=depth)(state) == 3


def test_minimax_policy_plays_perfect_moves_and_breaks_ties_with_its_seed():
    rng = random.Random(0)
    for state in rng.sample([s for s in TTT_STATES if TTT.actions(s)], 200):
        assert MinimaxPolicy(TTT, depth=None, seed=1)(state) in perfect_moves(state)
    # Every first move draws: the seed decides which one is played.
    first_moves = {MinimaxPolicy(TTT, depth=None, seed=seed)(EMPTY_BOARD) for seed in range(30)}
    assert len(first_moves) > 3
    policy_a, policy_b = MinimaxPolicy(TTT, depth=None, seed=7), MinimaxPolicy(TTT, None, seed=7)
    assert [policy_a(EMPTY_BOARD) for _ in range(5)] == [policy_b(EMPTY_BOARD) for _ in range(5)]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"depth": 0}, ValueError, "depth must be >= 1, got 0; or None for no limit"),
        ({"depth": 2.0}, TypeError, "depth must be an int >= 1, got 2.0; or None for no limit"),
        ({"depth": True}, TypeError, "depth must be an int"),
        ({"evaluation": 0.5}, TypeError, "evaluation must be a callable"),
    ],
)
def test_bad_settings_raise(kwargs, error, match):
    with pytest.raises(error, match=match):
        AlphaBetaMinimax(TTT, **kwargs)
    with pytest.raises(error, match=match):
        MinimaxPolicy(TTT, **kwargs)


def test_a_numpy_integer_depth_is_an_int_depth():
    solver = AlphaBetaMinimax(TTT, depth=np.int64(2))
    assert type(solver.depth) is int and solver.depth == 2
    board = parse_board("XX.OO....")
    assert solver.action_values(board) == AlphaBetaMinimax(TTT, depth=2).action_values(board)


def test_finished_positions():
    finished = parse_board("XXXOO....")
    solver = AlphaBetaMinimax(TTT, depth=3)
    assert solver.value(finished) == 0.0
    assert solver.action_values(finished) == {}
    with pytest.raises(ValueError, match="no legal actions"):
        solver.best_actions(finished)
    with pytest.raises(ValueError, match="no legal actions"):
        MinimaxPolicy(TTT, seed=0)(finished)
