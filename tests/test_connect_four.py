"""ConnectFourModel, checked move for move against PettingZoo's connect_four_v3."""

from __future__ import annotations

import math
import random
from functools import partial

import numpy as np
import pettingzoo
import pytest
from scripted_games import exact_rollout_distribution, reference_rollout, rollout_params

from mcts_agent import MCTS
from mcts_agent.envs.connect_four import (
    EMPTY_BOARD,
    ConnectFourModel,
    format_board,
    from_pettingzoo_board,
    parse_board,
    render_board,
    to_pettingzoo_board,
)
from mcts_agent.testing import check_model

MODEL = ConnectFourModel()
AGENTS = ("player_0", "player_1")


def play(columns):
    state = EMPTY_BOARD
    for column in columns:
        state, _, _ = MODEL.step(state, column)
    return state


def board(*rows):
    """Six rows of seven cells, top row first."""
    assert len(rows) == 6 and all(len(row) == 7 for row in rows)
    return "".join(rows)


def own_and_opponent_planes(state, player):
    """PettingZoo's observation planes [6, 7, 2] for `player`, built from our bitboards."""
    cells = np.array(to_pettingzoo_board(state)).reshape(6, 7)
    return np.stack([cells == player, cells == 3 - player], axis=2).astype(np.int8)


def avoid_wins_policy(rng):
    """Random moves that avoid making four when they can: reaches full-board draws."""

    def choose(state, actions):
        quiet = [a for a in actions if MODEL.step(state, a).reward == 0.0]
        return rng.choice(quiet or list(actions))

    return choose


def random_policy(rng):
    return lambda state, actions: rng.choice(actions)


def play_against_pettingzoo(choose, seed):
    """Plays one game in both; asserts they agree at every step; returns the outcome."""
    env = pettingzoo.make("aec", "classic/connect_four-v3")
    env.reset(seed=seed)
    state = EMPTY_BOARD
    moves = 0
    while True:
        agent = env.agent_selection
        observation, _, termination, truncation, _ = env.last()
        assert env.unwrapped.board == to_pettingzoo_board(state)
        assert from_pettingzoo_board(env.unwrapped.board) == state
        actions = MODEL.actions(state)
        if termination:
            assert actions == ()
            return env, state, moves
        assert not truncation
        assert MODEL.player(state) == AGENTS.index(agent) + 1
        assert tuple(np.flatnonzero(observation["action_mask"])) == actions
        assert np.array_equal(
            observation["observation"], own_and_opponent_planes(state, MODEL.player(state))
        )
        action = choose(state, actions)
        state, reward, terminated = MODEL.step(state, action)
        env.step(action)
        moves += 1
        assert env.terminations[agent] == terminated
        assert env.rewards[agent] == reward
        other = AGENTS[1 - AGENTS.index(agent)]
        assert env.rewards[other] == -reward  # the loser's -1 is the mover's +1, negated


def test_the_model_passes_the_conformance_check():
    check_model(MODEL, EMPTY_BOARD, seed=0, num_playouts=30)
    check_model(MODEL, parse_board(LATE_POSITIONS[0]), seed=1, num_playouts=30)


def test_random_games_agree_with_pettingzoo_move_for_move():
    rng = random.Random(2024)
    outcomes = {1.0: 0, -1.0: 0}
    for seed in range(60):
        env, state, moves = play_against_pettingzoo(random_policy(rng), seed)
        winner = [a for a in AGENTS if env.rewards[a] == 1]
        assert len(winner) == 1  # random games this short always end with a four
        outcomes[1.0 if winner == ["player_0"] else -1.0] += 1
        assert moves == bin(state[0]).count("1") + bin(state[1]).count("1")
    assert outcomes[1.0] > 0 and outcomes[-1.0] > 0


def test_draws_and_full_boards_agree_with_pettingzoo():
    rng = random.Random(7)
    full_boards = draws = 0
    for seed in range(30):
        env, state, moves = play_against_pettingzoo(avoid_wins_policy(rng), seed)
        if moves == 42:
            full_boards += 1
            draws += env.rewards == {"player_0": 0, "player_1": 0}
    assert full_boards >= 3 and draws >= 1


@pytest.mark.parametrize(
    "columns, winner",
    [
        ([0, 1, 0, 1, 0, 1, 0], 1),  # vertical
        ([0, 0, 1, 1, 2, 2, 3], 1),  # horizontal, bottom row
        ([1, 1, 2, 2, 4, 3, 6, 3, 6, 4], 2),  # O's horizontal on the second row
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], 1),  # diagonal up to the right
        ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], 1),  # diagonal up to the left
    ],
    ids=["vertical", "horizontal", "horizontal-O", "diagonal-up-right", "diagonal-up-left"],
)
def test_the_move_that_makes_four_wins_and_ends_the_game(columns, winner):
    before = play(columns[:-1])
    assert MODEL.player(before) == winner
    after, reward, terminated = MODEL.step(before, columns[-1])
    assert (reward, terminated) == (1.0, True)
    assert MODEL.actions(after) == ()
    env = pettingzoo.make("aec", "classic/connect_four-v3")
    env.reset()
    for column in columns:
        env.step(column)
    assert env.rewards[AGENTS[winner - 1]] == 1
    assert from_pettingzoo_board(env.unwrapped.board) == after


def test_lines_do_not_wrap_between_columns():
    # X's last move fills column 0's top cells (bits 3, 4, 5) beside its piece at the bottom
    # of column 1 (bit 7): four consecutive bits but for column 0's spare bit 6, no line.
    columns = [1, 0, 2, 0, 3, 0, 0, 4, 0, 4, 0]
    state, reward, terminated = MODEL.step(play(columns[:-1]), columns[-1])
    assert format_board(state)[:7] == "X......"
    assert (reward, terminated) == (0.0, False)
    assert MODEL.actions(state) == (1, 2, 3, 4, 5, 6)
    env = pettingzoo.make("aec", "classic/connect_four-v3")
    env.reset()
    for column in columns:
        env.step(column)
    assert not any(env.terminations.values())
    assert from_pettingzoo_board(env.unwrapped.board) == state


def test_text_and_pettingzoo_conversions_round_trip():
    state = play([3, 3, 4, 6, 2])
    text = board(
        ".......",
        ".......",
        ".......",
        ".......",
        "...O...",
        "..XXX.O",
    )
    assert format_board(state) == text
    assert parse_board(text) == state
    assert render_board(state).splitlines()[-1] == "..XXX.O"
    cells = to_pettingzoo_board(state)
    assert cells[35:] == [0, 0, 1, 1, 1, 0, 2] and cells[31] == 2
    assert from_pettingzoo_board(cells) == state
    assert MODEL.player(state) == 2 and MODEL.actions(state) == (0, 1, 2, 3, 4, 5, 6)


def test_full_column_is_no_longer_legal():
    state = play([0, 0, 0, 0, 0, 0])
    assert MODEL.actions(state) == (1, 2, 3, 4, 5, 6)
    with pytest.raises(ValueError, match="not legal"):
        MODEL.step(state, 0)


@pytest.mark.parametrize("action", [7, -1, True, "3", None])
def test_bad_actions_raise(action):
    with pytest.raises(ValueError, match="not legal"):
        MODEL.step(EMPTY_BOARD, action)


def test_step_after_the_end_raises_and_leaves_the_state():
    state = play([0, 1, 0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"legal actions: \[\]"):
        MODEL.step(state, 2)
    assert format_board(state).count("X") == 4


@pytest.mark.parametrize("state", [None, 5, (1,), (1.0, 0), ("a", "b")])
def test_bad_states_raise(state):
    for method in (MODEL.actions, MODEL.player):
        with pytest.raises(ValueError, match="tuple"):
            method(state)


@pytest.mark.parametrize(
    "text, message",
    [
        ("." * 41, "42 cells"),
        ("." * 41 + "Z", "expected X, O"),
        ("X" + "." * 40 + "O", "floats"),
        ("." * 35 + "OO.....", "X moves first"),
        ("." * 35 + "XX.....", "X moves first"),
        (board(*["......."] * 2, "X......", "XO.....", "XO.....", "XOO...."), "after a four"),
        (board(*["......."] * 2, "XO.....", "XO.....", "XO.....", "XO....X"), "after a four"),
    ],
    ids=["short", "character", "floating", "o-first", "x-twice", "o-moved-after", "two-fours"],
)
def test_parse_board_rejects_unreachable_positions(text, message):
    with pytest.raises(ValueError, match=message):
        parse_board(text)


def test_parse_board_rejects_non_text():
    with pytest.raises(TypeError, match="str"):
        parse_board(list("." * 42))


# ------------------------------------------------------------------ the fused rollout

# The fused rollout in Python, and the compiled core's native one (if built).
ROLLOUTS = rollout_params(MODEL, "connect four")


def counts_of(rollout, state, seed, samples, limit, gamma):
    rng = random.Random(seed)
    counts = {}
    for _ in range(samples):
        g = round(rollout(state, rng, limit, gamma), 9)
        counts[g] = counts.get(g, 0) + 1
    return counts


def chi_square_homogeneity_p_value(a, b):
    """p-value that two samples of counts {value: n} come from one distribution.

    Pearson's chi-square test of homogeneity; values expected fewer than 5 times are pooled;
    the chi-square tail from the Wilson-Hilferty normal approximation.
    """
    total_a, total_b = sum(a.values()), sum(b.values())
    total = total_a + total_b
    cells, pooled = [], [0, 0]
    for value in set(a) | set(b):
        na, nb = a.get(value, 0), b.get(value, 0)
        if min(total_a, total_b) * (na + nb) / total < 5:
            pooled[0] += na
            pooled[1] += nb
        else:
            cells.append((na, nb))
    if sum(pooled):
        cells.append(tuple(pooled))
    statistic = 0.0
    for na, nb in cells:
        for n, size in ((na, total_a), (nb, total_b)):
            expected = size * (na + nb) / total
            statistic += (n - expected) ** 2 / expected
    k = len(cells) - 1
    z = ((statistic / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


LATE_POSITIONS = [
    # X to move, 8 empty cells: wins, losses and draws.
    board(
        "O.XX..O",
        "X.XO.OX",
        "X.OO.OO",
        "XXXO.XX",
        "OOOXOOO",
        "OXXXOXX",
    ),
    # O to move, 9 empty cells.
    board(
        ".X.XX..",
        ".O.XO.O",
        ".XOXO.O",
        "OOXOXXO",
        "OXXOXXX",
        "OXOXXOO",
    ),
]


@pytest.mark.parametrize("rollout", ROLLOUTS)
@pytest.mark.parametrize("text", LATE_POSITIONS, ids=["x-to-move", "o-to-move"])
@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_the_fused_rollout_has_the_exact_distribution_of_random_play_late_in_a_game(
    text, gamma, rollout
):
    state = parse_board(text)
    exact = exact_rollout_distribution(MODEL, state, gamma)
    assert len(exact) >= 3  # wins, losses and (pooled) draws are all possible
    samples = 20_000
    counts = counts_of(rollout, state, 0, samples, 1000, gamma)
    assert set(counts) <= set(exact), (counts, exact)
    for g, p in exact.items():
        observed = counts.get(g, 0) / samples
        assert abs(observed - p) < 4.5 * math.sqrt(p * (1 - p) / samples) + 1e-9, (g, p, observed)


@pytest.mark.parametrize(
    "columns, limit, gamma",
    [([], 1000, 0.9), ([3, 3, 2], 1000, 0.95), ([], 9, 0.9)],
    ids=["empty-board", "after-three-moves", "cut-short-after-nine"],
)
@pytest.mark.parametrize("rollout", ROLLOUTS)
def test_the_fused_rollout_matches_the_step_by_step_rollout(columns, limit, gamma, rollout):
    # With gamma < 1 every (winner, length) of a game gives its own return, so this
    # compares the distribution of who wins and when.
    state = play(columns)
    fused = counts_of(rollout, state, 1, 6000, limit, gamma)
    reference = counts_of(partial(reference_rollout, MODEL), state, 2, 6000, limit, gamma)
    assert len(reference) >= 4
    assert chi_square_homogeneity_p_value(fused, reference) > 1e-3, (fused, reference)


def test_the_homogeneity_test_rejects_a_rollout_that_avoids_a_column():
    def avoids_column_zero(state, rng, limit, gamma):
        g, coef = 0.0, 1.0
        actions = MODEL.actions(state)
        while actions and limit:
            choices = [a for a in actions if a != 0] or actions
            state, reward, terminated = MODEL.step(state, choices[int(rng.random() * len(choices))])
            g += coef * reward
            limit -= 1
            if terminated:
                break
            actions = MODEL.actions(state)
            coef *= -gamma
        return g

    fused = counts_of(MODEL.rollout, EMPTY_BOARD, 1, 6000, 1000, 0.9)
    skewed = counts_of(avoids_column_zero, EMPTY_BOARD, 2, 6000, 1000, 0.9)
    assert chi_square_homogeneity_p_value(fused, skewed) < 1e-3


class WithoutFusedRollout:
    """ConnectFourModel seen through the plain protocol: the search's generic rollout."""

    actions = staticmethod(MODEL.actions)
    player = staticmethod(MODEL.player)
    step = staticmethod(MODEL.step)


@pytest.mark.parametrize(
    "columns, right_moves",
    [
        ([3, 3, 4, 4, 5, 5], {2, 6}),  # X wins on the bottom row at either end
        ([3, 0, 3, 0, 3], {3}),  # O must block the column
        ([0, 3, 1, 3, 6, 3], {3}),  # X must block O's column rather than extend its own row
    ],
    ids=["win", "block-column", "block-not-extend"],
)
def test_the_planner_wins_and_blocks_with_either_rollout(columns, right_moves):
    state = play(columns)
    for model in (MODEL, WithoutFusedRollout()):
        for seed in range(3):
            planner = MCTS(model, 1500, exploration=2 * math.sqrt(2), seed=seed)
            assert planner(state) in right_moves
