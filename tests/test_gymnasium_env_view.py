"""GymnasiumModel.env_view and EnvViewEvaluator on Gymnasium envs: what the network sees."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from gymnasium_envs import make

import mcts_agent.envs  # noqa: F401  (registers mcts_agent/GridMaze-v0)
from mcts_agent import MCTS, Evaluation
from mcts_agent.adapters import EnvViewEvaluator, GymnasiumModel
from mcts_agent.agent import MCTSAgent


def paths(tree):
    """``{node: actions from the root}`` for every node of a search tree."""
    found = {0: ()}
    for node in range(len(tree)):
        view = tree[node]
        for action, child in zip(view.actions, view.children, strict=True):
            if child != -1:
                found[child] = found[node] + (action,)
    return found


def replayed(env, actions):
    """The observation and info the live env would return after ``actions`` (on a copy)."""
    clone = copy.deepcopy(env)
    observation, info = None, {}
    for action in actions:
        observation, _, _, _, info = clone.step(action)
    return observation, info


def recording(network):
    """``network`` that also records every (observation, mask) it is called with."""

    def recorded(observation, action_mask):
        recorded.calls.append((copy.deepcopy(observation), action_mask.copy()))
        return network(observation, action_mask)

    recorded.calls = []
    return recorded


def assert_views_are_the_envs(agent, env, *, check_masks=False):
    """Every non-terminal node's view is what the live env shows after the node's actions."""
    model = agent.last_planner.model
    tree = agent.last_planner.tree
    for node, actions in paths(tree).items():
        if tree[node].terminated:
            continue
        observation, mask = model.env_view(tree[node].state)
        expected, info = replayed(env, actions)
        if actions:  # the root's observation is the live env's last one (not replayed)
            np.testing.assert_array_equal(observation, expected)
            assert type(observation) is type(expected)
        if check_masks and "action_mask" in info:
            np.testing.assert_array_equal(mask, info["action_mask"])
        legal = [model.action_index(a) for a in tree[node].actions]
        assert np.flatnonzero(mask).tolist() == sorted(legal)


def frozen_lake_network(observation, action_mask):
    # Value: minus the Manhattan distance to the goal (cell 15) of a 4x4 lake, scaled.
    row, column = divmod(int(observation), 4)
    priors = np.array([1.0, 2.0, 3.0, 1.0])  # left, down, right, up: down and right first
    return Evaluation(-(6 - row - column) / 6 if observation != 15 else 0.0, priors)


def test_frozen_lake_the_network_sees_the_cells_of_the_planned_positions():
    env = make("FrozenLake-v1", is_slippery=False, steps=(2,))  # at cell 1
    network = recording(frozen_lake_network)
    agent = MCTSAgent(60, selection="puct", evaluator=EnvViewEvaluator(network), seed=0)
    action = agent.act(env)
    assert env.action_space.contains(action)
    root = agent.last_planner.tree[0].state
    assert root.observation == 1  # the live env's cell, read from env.unwrapped.s
    assert agent.last_summary.priors == (1 / 7, 2 / 7, 3 / 7, 1 / 7)
    assert_views_are_the_envs(agent, env)
    # The network was called once per non-terminal node (and the root), with its cell.
    tree = agent.last_planner.tree
    cells = sorted(int(obs) for obs, _ in network.calls)
    assert cells == sorted(int(node.state.observation) for node in tree if not node.terminated)
    assert all(mask.tolist() == [1, 1, 1, 1] for _, mask in network.calls)  # no env mask


def cart_pole_network(observation, action_mask):
    _, _, theta, theta_dot = observation
    push_right = theta + 0.5 * theta_dot > 0  # push the cart under the pole
    return Evaluation(-abs(float(theta)) * 10, [1.0, 3.0] if push_right else [3.0, 1.0])


@pytest.mark.parametrize("clone", [None, "deepcopy"])
def test_cart_pole_the_network_sees_the_envs_float32_observations(clone):
    env = make("CartPole-v1", seed=4, steps=(0, 1))
    before = copy.deepcopy(env.unwrapped.state)
    network = recording(cart_pole_network)
    evaluator = EnvViewEvaluator(network)
    agent = MCTSAgent(40, selection="puct", evaluator=evaluator, seed=0, clone=clone)
    agent.act(env)
    np.testing.assert_array_equal(env.unwrapped.state, before)  # the live env untouched
    assert agent.last_planner.model.clone_method == (clone or "snapshot")
    root = agent.last_planner.tree[0].state
    np.testing.assert_array_equal(root.observation, np.array(before, dtype=np.float32))
    assert_views_are_the_envs(agent, env)
    assert all(obs.dtype == np.float32 and obs.shape == (4,) for obs, _ in network.calls)
    # The network's own priors decided the root's (1:3 towards the pole's side).
    _, _, theta, theta_dot = root.observation
    expected = (0.25, 0.75) if theta + 0.5 * theta_dot > 0 else (0.75, 0.25)
    assert agent.last_summary.priors == expected


def test_taxi_views_carry_the_envs_action_masks():
    env = make("Taxi-v4", seed=3)
    network = recording(lambda observation, mask: Evaluation(0.0, None))
    agent = MCTSAgent(80, selection="puct", evaluator=EnvViewEvaluator(network), seed=0)
    agent.act(env)
    assert_views_are_the_envs(agent, env, check_masks=True)
    masks = {tuple(mask) for _, mask in network.calls}
    assert len(masks) > 1 and all(sum(mask) < 6 for mask in masks)  # walls: not all legal
    live = network.calls[0]
    np.testing.assert_array_equal(live[1], env.unwrapped.action_mask(env.unwrapped.s))


def test_observation_wrappers_are_applied_as_the_live_env_applies_them():
    env = gym.wrappers.FlattenObservation(gym.make("FrozenLake-v1", is_slippery=False))
    env.reset(seed=0)
    observation, *_ = env.step(1)  # down, to cell 4
    network = recording(lambda obs, mask: Evaluation(float(obs[15]), None))
    agent = MCTSAgent(30, selection="puct", evaluator=EnvViewEvaluator(network), seed=0)
    agent.act(env)
    seen = network.calls[0][0]  # the root's: one-hot, as the wrapped env returned it
    np.testing.assert_array_equal(seen, observation)
    assert seen.shape == (16,) and seen[4] == 1
    assert_views_are_the_envs(agent, env)

    stateful = gym.wrappers.NormalizeObservation(gym.make("CartPole-v1"))
    stateful.reset(seed=0)
    agent = MCTSAgent(10, selection="puct", evaluator=EnvViewEvaluator(network), seed=0)
    with pytest.raises(ValueError, match="wrapped in NormalizeObservation, whose observations"):
        agent.act(stateful)
    assert MCTSAgent(10, seed=0).act(stateful) in (0, 1)  # planning itself is unaffected


class Counter(gym.Env):
    """Adds its action to a counter, and returns its own array (changed in place each step).

    Its actions start at -1; get_state/set_state make it plannable ("env_methods").
    """

    action_space = gym.spaces.Discrete(3, start=-1)
    observation_space = gym.spaces.Box(-100, 100, (1,), np.int64)

    def __init__(self) -> None:
        self.counter = np.zeros(1, dtype=np.int64)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.counter[0] = 0
        return self.counter, {}

    def step(self, action):
        self.counter[0] += action
        return self.counter, float(action), bool(abs(self.counter[0]) >= 5), False, {}

    def get_state(self):
        return int(self.counter[0])

    def set_state(self, state):
        self.counter[0] = state

    def _get_obs(self):
        return self.counter


class NoObs(Counter):
    """A Counter without ``_get_obs``: the live position's observation is unknown."""

    _get_obs = None


def test_observations_an_env_reuses_are_copied_and_actions_index_the_mask():
    env = Counter()
    env.reset(seed=0)
    env.step(1)
    model = GymnasiumModel(env)
    assert model.clone_method == "env_methods"
    root = model.state_of(env)
    planner = MCTS(model, 40, rollout_limit=3, seed=0)
    planner.search(root)
    for node, actions in paths(planner.tree).items():
        expected = 1 + sum(actions)
        assert planner.tree[node].state.observation.tolist() == [expected]
    assert env.counter.tolist() == [1]
    assert [model.action_index(a) for a in (-1, 0, 1)] == [0, 1, 2]
    observation, mask = model.env_view(root)
    assert observation.tolist() == [1] and mask.tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="not an action of this model"):
        model.action_index(2)
    # States are equal by their position: the observation (an array) is not compared.
    first, again = model.step(root, 1).next_state, model.step(root, 1).next_state
    assert first.observation is not again.observation
    assert first == again and hash(first) == hash(again) and first != model.step(root, 0).next_state

    # Priors over the action space are read at action_index: [-1, 0, 1] -> [1, 2, 3].
    bound = EnvViewEvaluator(lambda obs, mask: Evaluation(0.0, [1.0, 2.0, 3.0])).bind(model)
    assert bound(root, root.actions) == Evaluation(0.0, [1.0, 2.0, 3.0])

    unknown = NoObs()
    unknown.reset(seed=0)
    model = GymnasiumModel(unknown)
    root = model.state_of(unknown)
    assert root.observation is None
    with pytest.raises(ValueError, match="observation of this position of NoObs is unknown"):
        model.env_view(root)
    child = model.step(root, 1).next_state  # a planned position's is known
    assert model.env_view(child).observation.tolist() == [1]


def test_grid_maze_views_through_the_agent():
    env = gym.make("mcts_agent/GridMaze-v0")
    observation, info = env.reset(seed=3)
    network = recording(lambda obs, mask: Evaluation(0.0, None))
    agent = MCTSAgent(30, selection="puct", evaluator=EnvViewEvaluator(network), seed=0)
    agent.act(env)
    np.testing.assert_array_equal(network.calls[0][0], observation)
    np.testing.assert_array_equal(network.calls[0][1], info["action_mask"])
    assert_views_are_the_envs(agent, env, check_masks=True)
    # Tree reuse finds the new position among states holding observation arrays.
    agent = MCTSAgent(30, reuse_tree=True, seed=0)
    env.step(agent.act(env))
    agent.act(env)
    assert agent.last_summary.reused_visits > 0
