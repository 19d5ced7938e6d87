"""The tic-tac-toe model, its minimax oracle, and the planner on real positions."""

from __future__ import annotations

import math
import random

import pytest
from scripted_games import exact_rollout_distribution, rollout_params

from mcts_agent import MCTS, StepResult
from mcts_agent.envs.tic_tac_toe import (
    EMPTY_BOARD,
    TicTacToeModel,
    format_board,
    parse_board,
    perfect_moves,
    perfect_policy,
    random_policy,
    render_board,
)
from mcts_agent.testing import check_model

C = 2 * math.sqrt(2)
MODEL = TicTacToeModel()


def play(moves):
    state = EMPTY_BOARD
    for move in moves:
        state = MODEL.step(state, move).next_state
    return state


# ---------------------------------------------------------------- the model


def test_the_model_passes_the_conformance_check():
    check_model(MODEL, EMPTY_BOARD, seed=0, num_playouts=30)


def test_boards_parse_and_format_row_by_row():
    state = parse_board("XX.OO....")
    assert format_board(state) == "XX.OO...."
    assert state == play([0, 3, 1, 4])
    assert render_board(state) == "X X .\nO O .\n. . ."
    assert MODEL.player(state) == 1
    assert MODEL.actions(state) == (2, 5, 6, 7, 8)
    assert MODEL.player(parse_board("X........")) == 2


@pytest.mark.parametrize(
    "board, message",
    [
        ("XX.OO...", "9 cells"),
        ("XX.OO...Z", "cell 8 of 'XX.OO...Z' is 'Z'"),
        ("OO.......", "not reachable"),
        ("XXX......", "not reachable"),
        ("XXXOOO...", "not reachable"),
    ],
)
def test_bad_boards_are_rejected(board, message):
    with pytest.raises(ValueError, match=message):
        parse_board(board)


def test_moves_earn_the_mover_one_for_a_line_and_end_the_game():
    assert MODEL.step(parse_board("XX.OO...."), 2) == StepResult(
        parse_board("XXXOO...."), 1.0, True
    )
    assert MODEL.step(parse_board("XX.OO...X"), 5) == StepResult(
        parse_board("XX.OOO..X"), 1.0, True
    )
    assert MODEL.step(parse_board("XX.OO...."), 5) == (parse_board("XX.OOX..."), 0.0, False)
    draw = parse_board("XOXXOOOX.")
    assert MODEL.step(draw, 8) == StepResult(parse_board("XOXXOOOXX"), 0.0, True)
    assert MODEL.actions(parse_board("XOXXOOOXX")) == ()


def test_a_win_that_fills_the_board_is_a_win():
    assert MODEL.step(parse_board(".OOOXXOXX"), 0) == (parse_board("XOOOXXOXX"), 1.0, True)


@pytest.mark.parametrize(
    "state, action, message",
    [
        (parse_board("XX.OO...."), 0, r"action 0 is not legal in 'XX.OO....'; legal actions: \[2,"),
        (parse_board("XX.OO...."), 9, "action 9 is not legal"),
        (parse_board("XX.OO...."), 17, "action 17 is not legal"),
        (parse_board("XX.OO...."), "2", "action '2' is not legal"),
        (parse_board("XXXOO...."), 5, "legal actions: \\[\\]"),
        (-3, 0, "not a tic-tac-toe state"),
    ],
)
def test_illegal_steps_raise(state, action, message):
    with pytest.raises(ValueError, match=message):
        MODEL.step(state, action)


def test_perfect_play_from_the_empty_board_is_a_draw_and_every_first_move_is_perfect():
    assert perfect_moves(EMPTY_BOARD) == tuple(range(9))
    # After X's corner, O must take the centre; every other reply loses.
    assert perfect_moves(play([0])) == (4,)
    assert perfect_moves(parse_board("XX.OO....")) == (2,)
    with pytest.raises(ValueError, match="game is over"):
        perfect_moves(parse_board("XXXOO...."))


def test_perfect_policy_never_loses_to_random_and_draws_itself():
    for seed in range(20):
        perfect, rand = perfect_policy(seed), random_policy(seed)
        state, reward, done, mover = EMPTY_BOARD, 0.0, False, None
        players = {1: perfect, 2: rand} if seed % 2 else {1: rand, 2: perfect}
        while not done:
            mover = MODEL.player(state)
            state, reward, done = MODEL.step(state, players[mover](state))
        assert not (reward == 1.0 and players[mover] is rand)
    state, done = EMPTY_BOARD, False
    policy = perfect_policy(0)
    while not done:
        state, reward, done = MODEL.step(state, policy(state))
    assert reward == 0.0


# The fused rollout in Python, and the compiled core's native one (if built).
ROLLOUTS = rollout_params(MODEL, "tic-tac-toe")


@pytest.mark.parametrize("rollout", ROLLOUTS)
@pytest.mark.parametrize("board", ["XX.OO....", "X...O....", "........."])
@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_the_fused_rollout_has_the_distribution_of_uniform_random_play(board, gamma, rollout):
    state = parse_board(board)
    exact = exact_rollout_distribution(MODEL, state, gamma)
    rng = random.Random(0)
    samples = 20_000
    counts = {}
    for _ in range(samples):
        g = round(rollout(state, rng, 1000, gamma), 9)
        counts[g] = counts.get(g, 0) + 1
    assert all(any(math.isclose(g, e) for e in exact) for g in counts), (counts, exact)
    for g, p in exact.items():
        observed = sum(n for value, n in counts.items() if math.isclose(value, g)) / samples
        assert abs(observed - p) < 4.5 * math.sqrt(p * (1 - p) / samples) + 1e-9, (g, p, observed)


@pytest.mark.parametrize("rollout", ROLLOUTS)
def test_a_rollout_cut_short_counts_only_the_rewards_it_received(rollout):
    rng = random.Random(0)
    # X to move can win at once; one move later the rollout stops whatever happened.
    values = {rollout(parse_board("XX.OO...."), rng, 1, 1.0) for _ in range(200)}
    assert values == {0.0, 1.0}


# ---------------------------------------------------------------- the planner on real positions

MUST_WIN_OR_BLOCK = [
    ("XX.OO....", 2),  # X wins, not the block at 5
    ("X.O.O...X", 6),  # X blocks (and forks)
    ("XX..O....", 2),  # O blocks
    ("XX.OO...X", 5),  # O wins, not the block at 2
    ("XO.XX.O.O", 5),  # X: 5 is the only win (pick the best child, not any)
    ("XX.OO.X..", 5),  # O: the second player maximises its own score
    (".OOOXXOXX", 0),  # X: the win that fills the board
]


@pytest.mark.parametrize("board, move", MUST_WIN_OR_BLOCK, ids=[b for b, _ in MUST_WIN_OR_BLOCK])
def test_must_win_and_must_block_positions_for_ten_seeds(board, move):
    state = parse_board(board)
    assert move in perfect_moves(state)
    for seed in range(10):
        assert MCTS(MODEL, 200, exploration=C, seed=seed)(state) == move


@pytest.mark.parametrize(
    "board, move", MUST_WIN_OR_BLOCK[:4], ids=[b for b, _ in MUST_WIN_OR_BLOCK[:4]]
)
def test_must_win_and_must_block_with_5000_iterations(board, move):
    assert MCTS(MODEL, 5000, exploration=C, seed=7)(parse_board(board)) == move


class StrictTicTacToe:
    """TicTacToeModel without the fused rollout, raising if asked about a finished game."""

    def _check(self, state):
        if not MODEL.actions(state):
            raise AssertionError(f"asked about the finished game {format_board(state)}")

    def actions(self, state):
        self._check(state)
        return MODEL.actions(state)

    def player(self, state):
        self._check(state)
        return MODEL.player(state)

    def step(self, state, action):
        self._check(state)
        return MODEL.step(state, action)


def test_the_search_never_expands_or_rolls_out_past_the_end():
    planner = MCTS(StrictTicTacToe(), 2000, exploration=C, seed=0)
    assert planner(parse_board("XX.OO....")) == 2
    assert planner(EMPTY_BOARD) in range(9)
    assert MCTS(StrictTicTacToe(), 3, seed=0)(EMPTY_BOARD) in range(9)
    with pytest.raises(ValueError, match="no legal actions"):
        MCTS(MODEL, 10, seed=0).search(parse_board("XXXOO...."))


def test_the_generic_and_fused_rollouts_find_the_same_moves():
    for board, move in MUST_WIN_OR_BLOCK:
        assert MCTS(StrictTicTacToe(), 1000, exploration=C, seed=1)(parse_board(board)) == move


@pytest.mark.parametrize("seed", range(3))
def test_random_rollouts_favour_the_centre_from_the_empty_board(seed):
    planner = MCTS(MODEL, 5000, exploration=C, seed=seed)
    assert planner(EMPTY_BOARD) == 4
    summary = planner.summary()
    assert summary.visit_counts[4] == max(summary.visit_counts)
    assert sum(summary.visit_counts) == 5000
