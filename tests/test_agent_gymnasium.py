"""MCTSAgent.act on Gymnasium envs: plans from a clone, answers in the env's action space."""

from __future__ import annotations

import copy
import functools
import math
import random

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium_envs import (
    CopiedWorld,
    LateChance,
    SimulatorEnv,
    assert_same,
    live_fingerprint,
    make,
)

import mcts_agent.envs  # noqa: F401  (registers mcts_agent/GridMaze-v0)
from mcts_agent import MCTS, Evaluation
from mcts_agent.adapters import CloneCheckError, GymnasiumModel
from mcts_agent.agent import MCTSAgent
from mcts_agent.rollout_policies import CautiousRolloutPolicy


@pytest.mark.parametrize(
    ("env_id", "kwargs", "steps"),
    [
        ("FrozenLake-v1", {"is_slippery": False}, (2, 2)),
        ("CartPole-v1", {}, (0, 1, 1)),
        ("Taxi-v4", {}, (1, 3)),
    ],
    ids=["FrozenLake", "CartPole", "Taxi"],
)
def test_act_returns_an_env_action_and_leaves_the_live_env_exactly_as_it_was(env_id, kwargs, steps):
    env = make(env_id, steps=steps, **kwargs)
    reference = copy.deepcopy(env)
    before = live_fingerprint(env)
    agent = MCTSAgent(iterations=100, rollout_limit=50, seed=0)
    action = agent.act(env)
    assert isinstance(action, int) and env.action_space.contains(action)
    assert_same(before, live_fingerprint(env))
    # The agent planned from the live position: its root is the env's state.
    root = agent.last_planner.tree[0].state
    np.testing.assert_array_equal(root.snapshot[0], before[0])
    # And the env still steps exactly as an untouched copy does.
    observation, reward, terminated, truncated, _ = env.step(action)
    expected = reference.step(action)
    np.testing.assert_array_equal(observation, expected[0])
    assert (reward, terminated, truncated) == expected[1:4]


def test_taxi_answer_is_legal_under_its_mask():
    env = make("Taxi-v4", seed=3)
    agent = MCTSAgent(iterations=200, rollout_limit=50, seed=1)
    for _ in range(5):
        action = agent.act(env)
        mask = env.unwrapped.action_mask(env.unwrapped.s)
        assert mask[action] == 1
        env.step(action)


def test_frozen_lake_next_to_the_goal_steps_onto_it():
    # SFFF / FHFH / FFFH / HFFG: from cell 14 (row 3, column 2), right (2) reaches the goal.
    env = make("FrozenLake-v1", is_slippery=False, steps=(1, 1, 2, 1, 2))
    assert env.unwrapped.s == 14
    agent = MCTSAgent(iterations=200, exploration=math.sqrt(2) / 2, gamma=0.95, seed=0)
    action = agent.act(env)
    assert action == 2
    assert env.step(action)[1:3] == (1.0, True)


def test_grid_maze_plans_on_the_maze_of_the_current_episode():
    env = gym.make("mcts_agent/GridMaze-v0")
    agent = MCTSAgent(iterations=100, rollout_limit=50, seed=0)
    planners = []
    for seed in (0, 1):
        env.reset(seed=seed)
        action = agent.act(env)
        root = agent.last_planner.tree[0].state
        assert root.snapshot == env.unwrapped.get_state()  # this episode's layout and cell
        assert env.unwrapped.action_mask()[action] == 1
        planners.append(agent.last_planner)
    assert planners[0] is planners[1]  # one model and planner per env, made once


def test_multidiscrete_answer_is_an_array_of_the_space():
    class Walker(gym.Env):
        observation_space = spaces.Discrete(21, start=-10)
        action_space = spaces.MultiDiscrete([2, 2])

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.position = 0
            return self.position, {}

        def step(self, action):
            self.position += int(action[0]) - int(action[1])
            reached = self.position == 3
            return self.position, float(reached), reached, False, {}

    env = gym.wrappers.TimeLimit(Walker(), max_episode_steps=20)
    env.reset(seed=0)
    agent = MCTSAgent(iterations=200, rollout_limit=10, gamma=0.9, seed=0)
    action = agent.act(env)
    assert isinstance(action, np.ndarray) and env.action_space.contains(action)
    np.testing.assert_array_equal(action, [1, 0])  # the only move towards the goal at +3


def test_the_agent_moves_between_envs_and_frees_the_ones_it_left():
    import gc
    import weakref

    agent = MCTSAgent(iterations=100, gamma=0.95, seed=0)
    first = make("FrozenLake-v1", is_slippery=False)
    second = make("FrozenLake-v1", seed=1, steps=(2,), is_slippery=False)
    for env in (first, second, first, second):
        assert agent.act(env) in range(4)
    assert agent.last_summary.player == 0
    dropped = weakref.ref(first.unwrapped)
    del first
    gc.collect()
    assert dropped() is None, "the agent still holds an env it no longer plans on"


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [("FrozenLake-v1", {"is_slippery": False}), ("CartPole-v1", {})],
    ids=["FrozenLake", "CartPole"],
)
def test_act_on_an_env_that_has_rendered(env_id, kwargs, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = make(env_id, render_mode="rgb_array", **kwargs)
    frame = env.render()
    clock = env.unwrapped.clock
    before = live_fingerprint(env)
    action = MCTSAgent(iterations=50, rollout_limit=30, seed=0).act(env)
    assert env.action_space.contains(action)
    assert_same(before, live_fingerprint(env))
    assert env.unwrapped.clock is clock
    np.testing.assert_array_equal(env.render(), frame)


@pytest.mark.parametrize("env_id", ["FrozenLake-v1", "Taxi-v4", "CliffWalking-v1"])
def test_act_on_an_env_never_reset_says_so(env_id):
    env = gym.make(env_id)
    with pytest.raises(ValueError, match=r"has not been reset: call env.reset\(seed=...\)"):
        MCTSAgent(iterations=50, seed=0).act(env)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "steps", "how"),
    [
        ("FrozenLake-v1", {"is_slippery": False}, (2, 1), "terminated"),  # cell 5: a hole
        ("CartPole-v1", {}, (1,) * 8, "terminated"),  # the pole falls on the 8th push
        ("CartPole-v1", {"max_episode_steps": 3}, (0, 1, 0), "truncated"),
    ],
    ids=["FrozenLake hole", "CartPole fallen", "CartPole truncated"],
)
@pytest.mark.parametrize("planned_before", [False, True], ids=["first move", "later move"])
def test_act_after_the_episode_ended_raises(env_id, kwargs, steps, how, planned_before):
    env = make(env_id, **kwargs)
    agent = MCTSAgent(iterations=50, rollout_limit=30, seed=0)
    if planned_before:  # the agent's model of this env is already built
        agent.act(env)
    for action in steps:
        outcome = env.step(action)
    assert outcome[2 if how == "terminated" else 3]  # the env's own flag
    before = live_fingerprint(env)
    message = rf"the episode is over \({how}\): call env.reset\(\) before planning"
    with pytest.raises(ValueError, match=message):
        agent.act(env)
    assert_same(before, live_fingerprint(env))


# ------------------------------------------------------ hardening (issue 17)


def _child_position(agent: MCTSAgent, action: int):
    """The position the last search reached by ``action`` from its root."""
    tree = agent.last_planner.tree
    root = tree[0]
    child = tree[root.children[root.actions.index(action)]]
    return child.state.snapshot[0]


@pytest.mark.parametrize(
    ("env_id", "kwargs", "change"),
    [
        ("CartPole-v1", {}, {"force_mag": 30.0}),
        ("CartPole-v1", {}, {"length": 1.5, "polemass_length": 0.15}),
        ("FrozenLake-v1", {"is_slippery": False}, "map"),
    ],
    ids=["CartPole force_mag", "CartPole length", "FrozenLake map"],
)
def test_the_agent_plans_with_the_parameters_the_env_has_now(env_id, kwargs, change):
    env = make(env_id, **kwargs)
    agent = MCTSAgent(iterations=60, rollout_limit=20, seed=0)
    agent.act(env)
    first = agent.last_planner
    inner = env.unwrapped
    if change == "map":  # another map: its desc and transition table P
        other = gym.make(env_id, desc=["SHFG", "FFFF", "FFFF", "FFFF"], **kwargs).unwrapped
        inner.desc, inner.P = other.desc, other.P
    else:
        for name, value in change.items():
            setattr(inner, name, value)
    agent.act(env)
    assert agent.last_planner is not first  # the model was rebuilt
    for action in (0, 1):  # and steps as the env does now
        expected = copy.deepcopy(inner).step(action)[0]
        np.testing.assert_array_equal(
            np.asarray(_child_position(agent, action), dtype=np.float32), expected
        )


def test_the_model_refuses_to_plan_once_the_parameters_changed():
    env = make("CartPole-v1")
    model = GymnasiumModel(env)
    assert model.changed_parameters() == []
    env.unwrapped.force_mag = 30.0
    assert model.changed_parameters() == ["force_mag"]
    with pytest.raises(ValueError, match=r"parameters changed .*\(force_mag\).*new GymnasiumModel"):
        model.state_of(env)


def test_the_agent_refuses_a_shared_handle_before_any_step_and_the_advice_works():
    env = SimulatorEnv()
    env.reset(seed=0)
    with pytest.raises(CloneCheckError, match=r"env\.world \(World object.*__deepcopy__"):
        MCTSAgent(iterations=20, seed=0).act(env)
    assert env.world.x == 1
    fixed = SimulatorEnv(CopiedWorld)
    fixed.reset(seed=0)
    assert MCTSAgent(iterations=50, rollout_limit=10, seed=0).act(fixed) == 1
    assert fixed.world.x == 1


class ForgetfulCounter(gym.Env):
    """Its own ``get_state`` forgets the speed that ``step`` reads."""

    action_space = spaces.Discrete(2)
    observation_space = spaces.Box(-1000, 1000, (2,), np.int64)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.position, self.speed = 0, 0
        return np.array([self.position, self.speed]), {}

    def step(self, action):
        self.speed += 1 if action else -1
        self.position += self.speed
        return np.array([self.position, self.speed]), float(self.position), False, False, {}

    def get_state(self):
        return self.position

    def set_state(self, state):
        self.position = state


def test_the_clone_check_advice_works_through_the_agent_and_the_adapter():
    env = ForgetfulCounter()
    env.reset(seed=0)
    with pytest.raises(CloneCheckError, match=r'clone="deepcopy" \(GymnasiumModel or MCTSAgent\)'):
        MCTSAgent(iterations=20, seed=0).act(env)
    assert GymnasiumModel(env, clone="deepcopy").clone_method == "deepcopy"
    agent = MCTSAgent(iterations=100, rollout_limit=10, seed=0, clone="deepcopy")
    assert agent.act(env) == 1
    assert agent.last_planner.model.clone_method == "deepcopy"
    assert (env.position, env.speed) == (0, 0)


def _global_generator_states():
    return random.getstate(), np.random.get_state()[1].tolist()


@pytest.mark.parametrize("source", ["np_random", "generator", "Random", "random", "np.random"])
def test_chance_after_the_first_moves_is_refused_while_planning(source):
    env = LateChance(source)
    env.reset(seed=0)
    before = (env.moves, env.position, env.np_random.bit_generator.state)
    generators = _global_generator_states()
    with pytest.raises(
        ValueError, match=r"LateChance is not deterministic: while planning"
    ) as caught:
        MCTSAgent(iterations=100, rollout_limit=50, seed=0).act(env)
    assert "so that it is planned with chance nodes" in str(caught.value)
    assert (env.moves, env.position, env.np_random.bit_generator.state) == before
    if source not in ("random", "np.random"):  # the env itself draws from those while planning
        assert _global_generator_states() == generators  # checking never advances them


@pytest.mark.parametrize("source", ["np_random", "generator", "Random"])
def test_an_env_drawing_from_its_own_generator_at_start_up_is_sampled(source):
    env = LateChance(source)
    env.FIRST_DRAW = 1
    env.reset(seed=0)
    model = GymnasiumModel(env)
    assert (model.clone_method, model.chance) == ("deepcopy", "sample_step")
    assert MCTSAgent(iterations=30, rollout_limit=5, seed=0).act(env) in (0, 1)
    assert env.moves == 0


def test_deterministic_planning_leaves_the_global_generators_alone():
    env = LateChance()
    env.FIRST_DRAW = 10**9  # never draws
    env.reset(seed=0)
    generators = _global_generator_states()
    agent = MCTSAgent(iterations=100, rollout_limit=50, seed=0)
    assert agent.act(env) == 1
    assert agent.last_planner.model._chance_checks > 0  # it checked, and put them back
    assert _global_generator_states() == generators


# ------------------------------------------------ rollout policies and evaluators as factories


@pytest.mark.parametrize(
    "factory",
    [CautiousRolloutPolicy, functools.partial(CautiousRolloutPolicy, loss_reward=0.0)],
    ids=["class", "partial"],
)
def test_a_rollout_policy_that_needs_the_model_is_given_as_a_factory(factory):
    # Issue 28, item 17: the agent builds the model, so it calls the class with it.
    env = make("FrozenLake-v1", is_slippery=True)
    # The README's best FrozenLake configuration: cautious rollouts, tree reuse.
    options = {"rollout_limit": 20, "reuse_tree": True}
    agent = MCTSAgent(iterations=60, seed=0, rollout_policy=factory, **options)
    action = agent.act(env)
    planner = agent.last_planner
    assert isinstance(planner.rollout_policy, CautiousRolloutPolicy)
    assert planner.rollout_policy.model is planner.model
    # The same search as an MCTS given CautiousRolloutPolicy(model) by hand, seeded as the
    # agent seeds its first adapter planner (after the two native planners' seeds).
    seeds = random.Random(0)
    seeds.getrandbits(63), seeds.getrandbits(63)
    model = GymnasiumModel(env)
    policy = CautiousRolloutPolicy(model)
    by_hand = MCTS(model, 60, seed=seeds.getrandbits(63), rollout_policy=policy, **options)
    assert action == by_hand(model.state_of(env))
    assert agent.last_summary.visit_counts == by_hand.summary().visit_counts


def test_a_factory_refusing_a_model_raises_when_the_agent_plans_on_it():
    agent = MCTSAgent(iterations=10, seed=0, rollout_policy=CautiousRolloutPolicy)  # no error
    with pytest.raises(TypeError, match="CautiousRolloutPolicy needs a model with outcomes"):
        agent.act(make("CartPole-v1"))  # planned by sampled steps: no outcomes to look at


def test_an_evaluator_class_is_called_with_the_model():
    class ModelValue:
        """An evaluator made from the model: the value 0.5, uniform priors."""

        def __init__(self, model):
            self.model = model
            self.calls = 0

        def __call__(self, state, actions):
            self.calls += 1
            return Evaluation(0.5, None)

    agent = MCTSAgent(iterations=20, seed=0, selection="puct", evaluator=ModelValue)
    agent.act(make("FrozenLake-v1", is_slippery=False))
    evaluator, tree = agent.last_planner.evaluator, agent.last_planner.tree
    assert evaluator.model is agent.last_planner.model
    assert evaluator.calls == sum(not node.terminated for node in tree)  # once a node
