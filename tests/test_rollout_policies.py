"""CautiousRolloutPolicy (mcts_agent.rollout_policies): one step of look-ahead in rollouts."""

from __future__ import annotations

import random

import pytest
from gymnasium_envs import make

from mcts_agent import MCTS, StepResult
from mcts_agent.adapters import GymnasiumModel
from mcts_agent.envs.pig import PigModel
from mcts_agent.rollout_policies import CautiousRolloutPolicy

LEFT, DOWN, RIGHT, UP = range(4)


class Ledge:
    """One position, three actions: "jump" ends in a loss with probability 0.5, "edge"
    with 0.25 (or pays 2.0 at its end), "back" never ends; a terminal win is not a loss."""

    def actions(self, state):
        return () if state != "start" else ("jump", "edge", "back")

    def player(self, state):
        return 0

    def outcomes(self, state, action):
        if action == "jump":
            return [(0.5, StepResult("fell", 0.0, True)), (0.5, StepResult("start", 0.0, False))]
        if action == "edge":
            return [
                (0.25, StepResult("fell", -1.0, True)),
                (0.75, StepResult("won", 2.0, True)),
            ]
        return [(1.0, StepResult("start", 0.0, False))]


def test_it_plays_the_actions_least_likely_to_end_in_a_loss_with_one_draw_each():
    policy = CautiousRolloutPolicy(Ledge())
    assert policy.safe_actions("start", ("jump", "edge", "back")) == ("back",)
    # A loss is a terminal outcome with reward <= loss_reward: with -1.0, only "jump" risks one.
    lenient = CautiousRolloutPolicy(Ledge(), loss_reward=-1.0)
    assert lenient.safe_actions("start", ("jump", "edge", "back")) == ("jump", "back")
    rng, twin = random.Random(3), random.Random(3)
    draws = [lenient("start", ("jump", "edge", "back"), rng) for _ in range(200)]
    assert draws == [("jump", "back")[int(twin.random() * 2)] for _ in range(200)]
    assert set(draws) == {"jump", "back"}


def test_frozen_lake_cells_between_two_holes_keep_the_sideways_moves():
    env = make("FrozenLake-v1", is_slippery=True)
    model = GymnasiumModel(env)
    policy = CautiousRolloutPolicy(model)
    env.unwrapped.s = 6  # holes at 5 and 7: sideways risks 1/3, up and down slip into one 2/3
    state = model.state_of(env)
    assert policy.safe_actions(state, model.actions(state)) == (LEFT, RIGHT)
    env.unwrapped.s = 0  # no hole next to the start
    state = model.state_of(env)
    assert policy.safe_actions(state, model.actions(state)) == (LEFT, DOWN, RIGHT, UP)


def test_cautious_rollouts_find_the_safe_move_random_rollouts_miss():
    """Cell 10 of slippery FrozenLake: left (0.725 to reach the goal, value iteration) is
    right; random rollouts rank it below down, whose slips fall into the hole at 11."""
    env = make("FrozenLake-v1", is_slippery=True)
    model = GymnasiumModel(env)
    env.unwrapped.s = 10
    state = model.state_of(env)
    cautious = [
        MCTS(model, 1000, seed=seed, rollout_policy=CautiousRolloutPolicy(model))(state)
        for seed in range(10)
    ]
    plain = [MCTS(model, 1000, seed=seed)(state) for seed in range(10)]
    assert cautious.count(LEFT) >= 8  # 9 of these 10 seeds
    assert plain.count(LEFT) <= 3  # 2 of these 10 seeds
    env.unwrapped.s = 10
    assert model.state_of(env) == state  # the live env was not moved by planning


def test_a_model_without_outcomes_is_refused():
    class Sampled:
        def sample_step(self, state, action, rng):
            return StepResult(state, 0.0, True)

    with pytest.raises(TypeError, match="needs a model with outcomes"):
        CautiousRolloutPolicy(Sampled())
    with pytest.raises(TypeError, match="loss_reward must be a real number"):
        CautiousRolloutPolicy(PigModel(30), loss_reward="0")
