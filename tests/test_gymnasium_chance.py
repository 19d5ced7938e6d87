"""Stochastic Gymnasium envs (docs/guides/chance.md): the table's outcomes, sampled steps."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from chance_games import check_invariants
from gymnasium import spaces
from gymnasium_envs import CoinGuess, make
from scripted_games import nested

from mcts_agent import MCTS, MCTSAgent
from mcts_agent.adapters import GymnasiumModel
from mcts_agent.testing import check_model


class Drift(gym.Env):
    """A walk on a line that slips the other way with probability 0.3, drawn from np_random."""

    action_space = spaces.Discrete(2)
    observation_space = spaces.Discrete(13, start=-6)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.position = 0
        return self.position, {}

    def step(self, action):
        slip = self.np_random.random() < 0.3
        move = (1 if action == 1 else -1) * (-1 if slip else 1)
        self.position = max(-6, min(6, self.position + move))
        return self.position, float(self.position == 6), abs(self.position) == 6, False, {}


def drift(seed=0):
    env = gym.wrappers.TimeLimit(Drift(), 12)
    env.reset(seed=seed)
    return env


USER_CLONE = {
    "get_state": lambda env: env.position,
    "set_state": lambda env, position: setattr(env, "position", position),
}


def test_slippery_frozen_lake_plans_the_outcomes_of_its_table():
    env = make("FrozenLake-v1", is_slippery=True)
    model = GymnasiumModel(env)
    assert (model.clone_method, model.chance) == ("snapshot", "outcomes")
    state = model.state_of(env)
    table = env.unwrapped.P[0][2]  # right from the start: slips up, goes right, slips down
    outcomes = model.outcomes(state, 2)
    assert [p for p, _ in outcomes] == [p for p, *_ in table]
    assert [r.next_state.snapshot for _, r in outcomes] == [(n, 2) for _, n, *_ in table]
    assert all(r.next_state.steps_left == 99 for _, r in outcomes)
    with pytest.raises(ValueError, match="stochastic"):
        model.step(state, 2)


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("FrozenLake-v1", {"is_slippery": True}),
        ("CliffWalking-v1", {"is_slippery": True}),
        ("Taxi-v4", {"is_rainy": True}),
    ],
    ids=["frozen_lake", "cliff_walking", "rainy_taxi"],
)
def test_stochastic_toy_text_envs_are_planned_with_chance_nodes(env_id, kwargs):
    env = make(env_id, **kwargs)
    model = GymnasiumModel(env)
    assert model.chance == "outcomes"
    state = model.state_of(env)
    check_model(model, state, seed=0, num_playouts=3, max_moves=40)
    planner = MCTS(model, iterations=300, seed=0, rollout_limit=50)
    assert planner(state) in state.actions
    assert any(node.chance for node in planner.tree)
    check_invariants(planner.tree)


def test_slippery_frozen_lake_draws_the_outcomes_by_their_probabilities():
    # At a wall two of P's three entries stay in the cell: one key, probability 2/3.
    env = make("FrozenLake-v1", is_slippery=True)
    model = GymnasiumModel(env)
    planner = MCTS(model, iterations=2000, seed=0)
    planner.search(model.state_of(env))
    tree = planner.tree
    checked = 0
    for parent in tree:
        for action, index in zip(parent.actions, parent.children, strict=True):
            if parent.chance or index == -1 or tree[index].visits < 300:
                continue
            node = tree[index]
            expected: dict = {}
            for p, result in model.outcomes(parent.state, action):
                key = (model.key(result.next_state), result.reward, result.terminated)
                expected[key] = expected.get(key, 0.0) + p
            drawn = {
                k: tree[c].visits / node.visits
                for k, c in zip(node.actions, node.children, strict=True)
            }
            assert drawn.keys() == expected.keys()
            assert max(abs(drawn[k] - expected[k]) for k in drawn) < 0.08
            checked += 1
    assert checked >= 4


def test_fickle_taxi_samples_its_steps_on_a_copy_of_the_env():
    env = make("Taxi-v4", fickle_passenger=True)
    model = GymnasiumModel(env)
    assert (model.clone_method, model.chance) == ("snapshot", "sample_step")
    check_model(model, model.state_of(env), seed=0, num_playouts=2, max_moves=20)


@pytest.mark.parametrize("clone", ["deepcopy", "user"])
def test_an_env_drawing_from_its_np_random_is_sampled(clone):
    env = drift()
    model = GymnasiumModel(env, **(USER_CLONE if clone == "user" else {}))
    assert (model.clone_method, model.chance) == (clone, "sample_step")
    state = model.state_of(env)
    check_model(model, state, seed=0, num_playouts=5, max_moves=12)
    planner = MCTS(model, iterations=400, seed=0, rollout_limit=10)
    assert planner(state) == 1  # towards the goal
    root = planner.tree[0]
    right = planner.tree[root.children[1]]
    assert right.chance and len(right.children) == 2  # slipped or not: one node each
    share = planner.tree[right.children[0]].visits / right.visits
    assert share == pytest.approx(0.7 if right.actions[0][0][0] == 1 else 0.3, abs=0.1)
    check_invariants(planner.tree)


# ------------------------------------------------------------ no plan is clairvoyant


def _two_live_generators(make_env):
    """Two envs in the same position whose live generators will draw differently."""
    first, second = make_env(), make_env()
    second.unwrapped.np_random = np.random.default_rng(12345)
    copies = [np.random.Generator(np.random.PCG64()) for _ in range(2)]
    for copy_, env in zip(copies, (first, second), strict=True):
        copy_.bit_generator.state = env.unwrapped.np_random.bit_generator.state
    assert copies[0].random() != copies[1].random()  # the dice to come differ
    return first, second


def _tree(planner):
    summary = planner.summary()._replace(elapsed=None)  # the time taken differs
    return nested(planner.tree), [node.chance for node in planner.tree], summary


@pytest.mark.parametrize(
    "make_env, options",
    [
        (lambda: make("FrozenLake-v1", is_slippery=True), {}),
        (drift, {}),
        (drift, USER_CLONE),
    ],
    ids=["frozen_lake", "np_random_deepcopy", "np_random_user"],
)
def test_the_same_position_with_other_live_dice_gives_the_same_plan(make_env, options):
    first, second = _two_live_generators(make_env)
    trees = []
    for env in (first, second):
        before = env.unwrapped.np_random.bit_generator.state
        model = GymnasiumModel(env, **options)
        planner = MCTS(model, iterations=150, seed=7, rollout_limit=10)
        planner.search(model.state_of(env))
        trees.append(_tree(planner))
        # the live generator was neither advanced nor replaced
        assert env.unwrapped.np_random.bit_generator.state == before
    assert trees[0] == trees[1]
    agents = [MCTSAgent(iterations=50, seed=3, rollout_limit=10) for _ in range(2)]
    assert agents[0].act(first) == agents[1].act(second)


@pytest.mark.parametrize("holder", ["slots", "deque", "method", "bit_generator"])
def test_a_generator_in_a_slot_a_deque_a_method_or_a_bit_generator_does_not_tell_the_coin(holder):
    # A clone carrying the live generator's state would draw the live env's next coin:
    # the plan would guess right 40 times out of 40 (a PCG64 drawn from directly did).
    right = 0
    for seed in range(40):
        env = CoinGuess(holder)
        env.reset(seed=seed)
        if seed == 0:
            assert GymnasiumModel(env).chance == "sample_step"
        action = MCTSAgent(iterations=30, seed=seed).act(env)
        right += env.step(action)[1]
    assert 10 <= right <= 30


def test_mcts_agent_plays_slippery_frozen_lake():
    env = make("FrozenLake-v1", is_slippery=True)
    agent = MCTSAgent(iterations=100, seed=0)
    for _ in range(5):
        position = int(env.unwrapped.s)
        action = agent.act(env)
        assert int(env.unwrapped.s) == position  # the live env is left as it was
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
