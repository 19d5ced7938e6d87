"""Pig (mcts_agent.envs.pig): the rules, the value iteration and MCTS through chance nodes."""

from __future__ import annotations

import random

import pytest

from mcts_agent import MCTS
from mcts_agent.envs.pig import (
    HOLD,
    ROLL,
    HoldAtPolicy,
    OptimalPigPolicy,
    PigModel,
    PigState,
    match_probability,
    win_probabilities,
)
from mcts_agent.testing import check_model

GOAL = 30


def test_rules_of_a_roll_and_a_hold():
    model = PigModel(goal=30)
    state = PigState(1, 10, 20, 5)
    rolls = model.outcomes(state, ROLL)
    assert [p for p, _ in rolls] == [1 / 6] * 6
    assert rolls[0][1] == (PigState(2, 20, 10, 0), 0.0, False)  # a 1: turn total lost
    assert rolls[1][1] == (PigState(1, 10, 20, 7), 0.0, False)
    assert rolls[5][1] == (PigState(1, 10, 20, 11), 0.0, False)
    assert model.outcomes(state, HOLD) == [(1.0, (PigState(2, 20, 15, 0), 0.0, False))]
    near = PigState(2, 25, 0, 1)
    win = model.outcomes(near, ROLL)[3][1]  # a 4: 25 + 1 + 4 reaches 30
    assert win == (PigState(1, 0, 30, 0), 1.0, True)
    assert model.actions(win.next_state) == ()
    assert model.actions(near) == (ROLL, HOLD) and model.player(near) == 2


def test_pig_passes_check_model():
    model = PigModel(goal=12)
    check_model(model, model.initial_state(), seed=0, num_playouts=30)


def test_the_fused_rollout_is_the_searchs_own_rollout_draw_for_draw():
    class Unfused(PigModel):
        rollout = None

    rng = random.Random(0)
    for trial in range(200):
        state = PigState(1 + trial % 2, rng.randrange(30), rng.randrange(30), rng.randrange(5))
        gamma = (1.0, 0.9)[trial % 2]
        generic = MCTS(Unfused(), iterations=1, gamma=gamma, rollout_limit=50, seed=trial)
        _, rollout = generic._rollouts()
        fused = PigModel().rollout(state, random.Random(trial), 50, gamma)
        assert fused == rollout(state, (ROLL, HOLD), state.player)


def test_value_iteration_solves_the_equations():
    table = win_probabilities(GOAL)

    def value(i, j, k):
        return 1.0 if i + k >= GOAL else table[i][j][k]

    worst = 0.0
    for i in range(GOAL):
        for j in range(GOAL):
            for k in range(GOAL - i):
                roll = (1 - value(j, i, 0)) / 6 + sum(value(i, j, k + f) for f in range(2, 7)) / 6
                hold = 1 - value(j, i + k, 0) if i + k < GOAL else 1.0
                worst = max(worst, abs(max(roll, hold) - table[i][j][k]))
    assert worst < 1e-12


def test_the_published_figures_of_pig_to_30():
    optimal = OptimalPigPolicy(GOAL)
    first, alternating = match_probability(optimal.decide, optimal.decide, GOAL)
    assert first == pytest.approx(win_probabilities(GOAL)[0][0][0], abs=1e-12)
    assert first == pytest.approx(0.568, abs=5e-4)
    assert alternating == pytest.approx(0.5, abs=1e-12)
    _, hold_at_10 = match_probability(HoldAtPolicy(10).decide, optimal.decide, GOAL)
    assert hold_at_10 == pytest.approx(0.336, abs=2e-3)  # 0.3375 exactly
    assert hold_at_10 < 0.5


def test_the_exact_match_probability_agrees_with_played_games():
    goal = 15
    model = PigModel(goal)
    optimal, hold = OptimalPigPolicy(goal), HoldAtPolicy(5)
    exact, _ = match_probability(hold.decide, optimal.decide, goal)
    rng = random.Random(0)
    games = 3000
    wins = 0
    for _ in range(games):
        state, over = model.initial_state(), False
        while not over:
            policy = hold if state.player == 1 else optimal
            outcomes = model.outcomes(state, policy(state))
            (state, reward, over) = rng.choices([r for _, r in outcomes])[0]
            wins += over and state.player == 2  # player 1 (hold) made the winning move
    sigma = (exact * (1 - exact) / games) ** 0.5
    assert abs(wins / games - exact) < 4 * sigma


@pytest.mark.parametrize(
    "state", [PigState(1, 20, 20, 8), PigState(2, 10, 27, 0), PigState(1, 0, 28, 10)]
)
def test_mcts_rolls_where_rolling_is_much_better(state):
    # The optimal policy's values: roll .88 / .43 / .40 against hold .37 / .08 / .07.
    assert OptimalPigPolicy(GOAL)(state) == ROLL
    planner = MCTS(PigModel(GOAL), iterations=1500, exploration=2.0, seed=0)
    assert planner(state) == ROLL
    root = planner.tree[0]
    assert all(planner.tree[c].chance for c in root.children)
