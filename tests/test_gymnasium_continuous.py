"""GymnasiumModel with sampled (continuous and composite) action spaces: Box, Dict, Tuple."""

from __future__ import annotations

import copy
import math
import random

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium_envs import assert_same, live_fingerprint, make

from mcts_agent import MCTS
from mcts_agent.adapters import GymnasiumModel

CONTINUOUS = ("Pendulum-v1", "MountainCarContinuous-v0")


def _space_fingerprint(env: gym.Env) -> tuple:
    """The live env's own generator and its action space's: what planning must never advance."""
    return (
        env.unwrapped.np_random.bit_generator.state,
        env.action_space.np_random.bit_generator.state,
    )


@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_sampled_actions_are_typed_in_bounds_and_reproducible(env_id):
    env = make(env_id)
    model = GymnasiumModel(env, clone="snapshot")
    assert model.actions is None and model.action_space is env.action_space
    state = model.state_of(env)
    assert state.actions is None
    low, high = float(env.action_space.low[0]), float(env.action_space.high[0])
    draws = [model.sample_action(state, random.Random(seed)) for seed in range(200)]
    for action in draws:
        assert type(action) is tuple and len(action) == 1 and type(action[0]) is float
        assert low <= action[0] <= high
        assert action[0] == float(np.float32(action[0]))  # typed as the space's float32
        assert env.action_space.contains(model.to_env_action(action))
    # the contract's formula: low + (high - low) * rng.random(), then float32
    expected = float(np.float32(low + (high - low) * random.Random(3).random()))
    assert draws[3] == (expected,)
    assert draws == [model.sample_action(state, random.Random(seed)) for seed in range(200)]
    assert min(a[0] for a in draws) < low + 0.1 and max(a[0] for a in draws) > high - 0.1


@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_steps_and_rollouts_agree_with_the_env_and_leave_it_alone(env_id):
    env = make(env_id)
    before, generators = live_fingerprint(env), _space_fingerprint(env)
    model = GymnasiumModel(env)
    assert model.clone_method == "snapshot" and model.chance is None
    reference = copy.deepcopy(env.unwrapped)
    state, rng = model.state_of(env), random.Random(5)
    for _ in range(40):
        action = model.sample_action(state, rng)
        result = model.step(state, action)
        observation, reward, terminated, truncated, _ = reference.step(model.to_env_action(action))
        np.testing.assert_array_equal(result.next_state.observation, observation)
        assert result.reward == float(reward) and result.terminated == (terminated or truncated)
        state = result.next_state
    # a rollout replayed by hand: each move drawn as sample_action, the same rng calls
    start = model.state_of(env)
    for rollout_actions in ("uniform", "repeated"):
        model = GymnasiumModel(env, rollout_actions=rollout_actions)
        rng, replay_rng = random.Random(11), random.Random(11)
        got = model.rollout(start, rng, 60, 0.9)
        replay, expected, coef, repeats = copy.deepcopy(env.unwrapped), 0.0, 1.0, 0
        for _ in range(60):
            if rollout_actions == "uniform" or repeats == 0:
                action = model.sample_action(start, replay_rng)
                if rollout_actions == "repeated":
                    repeats = int(1.0 / (1.0 - replay_rng.random()))
            repeats -= 1
            _, reward, terminated, truncated, _ = replay.step(model.to_env_action(action))
            expected += coef * reward
            coef *= 0.9
            if terminated or truncated:
                break
        assert got == expected and rng.getstate() == replay_rng.getstate()
    assert_same(live_fingerprint(env), before)
    assert _space_fingerprint(env) == generators


def test_the_plan_does_not_read_the_live_generators():
    """Clairvoyance: two copies of a position whose live generators differ plan alike."""
    first, second = make("Pendulum-v1"), make("Pendulum-v1")
    first.action_space.seed(1)
    second.action_space.seed(2)
    second.unwrapped.np_random = np.random.default_rng(12345)
    models = [GymnasiumModel(env) for env in (first, second)]
    generators = [_space_fingerprint(env) for env in (first, second)]
    states = [model.state_of(env) for model, env in zip(models, (first, second), strict=True)]
    assert [m.sample_action(s, random.Random(4)) for m, s in zip(models, states, strict=True)] == [
        models[0].sample_action(states[0], random.Random(4))
    ] * 2
    returns = [
        m.rollout(s, random.Random(8), 200, 1.0) for m, s in zip(models, states, strict=True)
    ]
    assert returns[0] == returns[1] and returns[0] < 0.0
    plans = []
    for model, state in zip(models, states, strict=True):
        planner = MCTS(model, iterations=200, seed=0)
        plans.append((planner(state), planner.summary()._replace(elapsed=None)))
    assert plans[0] == plans[1]
    assert [_space_fingerprint(env) for env in (first, second)] == generators


def test_known_continuous_env_refuses_a_finished_episode():
    env = make("MountainCarContinuous-v0")
    model = GymnasiumModel(env)
    near = model.state_of(env)._replace(snapshot=(np.array([0.449, 0.02]),))  # near the flag
    over = model.step(near, (1.0,))
    assert over.terminated and over.reward > 99.0 and over.next_state.actions == ()
    with pytest.raises(ValueError, match="episode is over"):
        model.sample_action(over.next_state, random.Random(0))
    with pytest.raises(ValueError, match=r"not legal here; legal actions: \[\]"):
        model.step(over.next_state, (1.0,))
    env.unwrapped.state = np.array([0.46, 0.01])  # past the flag, moving right
    with pytest.raises(ValueError, match="episode is over"):
        model.state_of(env)


class SpaceEnv(gym.Env):
    """A counter whose reward is the sum of the action's numbers (any action space)."""

    def __init__(self, action_space: gym.Space) -> None:
        self.action_space = action_space
        self.observation_space = spaces.Box(-np.inf, np.inf, (1,), np.float64)
        self.count = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.count = 0
        return self._get_obs(), {}

    def _get_obs(self):
        return np.array([self.count], dtype=np.float64)

    def step(self, action):
        assert self.action_space.contains(action), action
        self.count += 1
        return self._get_obs(), _total(action), False, self.count >= 50, {}


def _total(action) -> float:
    """The sum of every number in an action of any space (dicts, tuples, arrays, ints)."""
    if isinstance(action, dict):
        return sum(_total(v) for v in action.values())
    if isinstance(action, tuple):
        return sum(_total(v) for v in action)
    return float(np.sum(action))


def _model(space: gym.Space) -> tuple[GymnasiumModel, gym.Env]:
    env = SpaceEnv(space)
    env.reset(seed=0)
    return GymnasiumModel(env), env


def test_a_float64_box_of_shape_2_by_2():
    low, high = np.array([[-1.0, 0.0], [2.0, -5.0]]), np.array([[1.0, 0.5], [3.0, 5.0]])
    model, env = _model(spaces.Box(low, high, dtype=np.float64))
    state = model.state_of(env)
    action = model.sample_action(state, random.Random(0))
    r = random.Random(0)
    expected = tuple(
        lo + (hi - lo) * r.random() for lo, hi in zip(low.ravel(), high.ravel(), strict=True)
    )
    assert action == expected  # C order, float64: not rounded
    env_action = model.to_env_action(action)
    assert env_action.shape == (2, 2) and env_action.dtype == np.float64
    assert env.action_space.contains(env_action)
    np.testing.assert_array_equal(env_action, np.array(expected).reshape(2, 2))
    assert model.step(state, action).reward == pytest.approx(sum(expected))
    assert model.step(state, (1.0, 0.5, 3.0, 5.0)).reward == 9.5  # the bounds are in


def test_an_integer_box_draws_ints_between_the_bounds():
    model, env = _model(spaces.Box(-3, 3, (3,), dtype=np.int64))
    state = model.state_of(env)
    draws = {model.sample_action(state, random.Random(seed)) for seed in range(300)}
    assert all(type(x) is int for action in draws for x in action)
    assert {x for action in draws for x in action} == set(range(-3, 4))
    r = random.Random(7)
    assert model.sample_action(state, random.Random(7)) == tuple(
        -3 + int(r.random() * 7) for _ in range(3)
    )
    for action in draws:
        assert env.action_space.contains(model.to_env_action(action))
    with pytest.raises(ValueError, match=r"entry 1\) must be an int in \[-3, 3\].*got 1.5"):
        model.step(state, (0, 1.5, 0))


def test_a_dict_of_box_and_discrete_in_key_order():
    space = spaces.Dict(
        {"steer": spaces.Box(-1.0, 1.0, (1,), np.float32), "gear": spaces.Discrete(3, start=1)}
    )
    model, env = _model(space)
    state = model.state_of(env)
    action = model.sample_action(state, random.Random(0))
    r = random.Random(0)
    gear = 1 + int(r.random() * 3)  # "gear" before "steer": the space's (sorted) key order
    steer = float(np.float32(-1.0 + 2.0 * r.random()))
    assert action == (gear, (steer,))
    env_action = model.to_env_action(action)
    assert env_action.keys() == {"gear", "steer"} and env.action_space.contains(env_action)
    assert model.step(state, action).reward == pytest.approx(gear + steer)
    with pytest.raises(ValueError, match=r"tuple of 2 parts, keys \['gear', 'steer'\]"):
        model.step(state, (2,))
    with pytest.raises(ValueError, match=r"part 'gear' must be an int in \[1, 3\].*got 4"):
        model.step(state, (4, (0.5,)))


def test_a_nested_tuple():
    space = spaces.Tuple(
        (
            spaces.Discrete(2),
            spaces.Box(0.0, 1.0, (2,), np.float32),
            spaces.Tuple((spaces.MultiDiscrete([2, 3]), spaces.MultiBinary(2))),
        )
    )
    model, env = _model(space)
    state = model.state_of(env)
    for seed in range(30):
        action = model.sample_action(state, random.Random(seed))
        assert type(action) is tuple and len(action) == 3 and type(action[0]) is int
        assert type(action[2][0]) is tuple and len(action[2][1]) == 2
        assert env.action_space.contains(model.to_env_action(action))
    r = random.Random(1)
    u = [r.random() for _ in range(7)]  # one per number, in the action's order
    assert model.sample_action(state, random.Random(1)) == (
        int(u[0] * 2),
        tuple(float(np.float32(x)) for x in u[1:3]),
        ((int(u[3] * 2), int(u[4] * 3)), (int(u[5] * 2), int(u[6] * 2))),
    )


def test_what_has_no_list_refuses_list_questions():
    model, env = _model(spaces.Box(-1.0, 1.0, (2,), np.float32))
    state = model.state_of(env)
    view = model.env_view(state)
    assert view.action_mask is None and view.observation.tolist() == [0.0]
    with pytest.raises(ValueError, match="sampled, not listed"):
        model.action_index((0.0, 0.0))
    with pytest.raises(ValueError, match=r"tuple of 2 number\(s\).*got \(0.0,\)"):
        model.step(state, (0.0,))
    with pytest.raises(ValueError, match=r"entry 0\) must be a number in \[-1.0, 1.0\]"):
        model.to_env_action((1.5, 0.0))
    with pytest.raises(ValueError, match="action_mask is for listed actions"):
        GymnasiumModel(env, action_mask=lambda env: np.ones(2))


def test_multibinary_is_listed_like_multidiscrete():
    model, env = _model(spaces.MultiBinary(2))
    state = model.state_of(env)
    assert model.actions(state) == ((0, 0), (0, 1), (1, 0), (1, 1))
    action = model.sample_action(state, random.Random(0))
    assert action == state.actions[int(random.Random(0).random() * 4)]  # "beside"
    env_action = model.to_env_action((1, 0))
    assert env_action.dtype == np.int8 and env.action_space.contains(env_action)
    assert model.step(state, (1, 1)).reward == 2.0


def _with_low(space: spaces.Box, low: list[float]) -> spaces.Box:
    """``space`` with its ``low`` set after construction (Gymnasium checks none of it then)."""
    space.low = np.array(low, dtype=space.dtype)
    return space


@pytest.mark.parametrize(
    ("space", "error", "message"),
    [
        (
            spaces.Box(np.array([-np.inf, 0.0, -1.0]), np.array([1.0, 1.0, np.inf])),
            ValueError,
            r"unbounded in dimension\(s\) \(0,\), \(2,\)",
        ),
        (spaces.Text(5), TypeError, "must be Discrete, MultiDiscrete.*got Text"),
        (
            spaces.Dict({"say": spaces.Text(5), "go": spaces.Discrete(2)}),
            TypeError,
            "the action's part 'say' is of Text",
        ),
        (spaces.Tuple(()), ValueError, "empty Tuple"),
        (spaces.Dict({}), ValueError, "empty Dict"),
        (spaces.Box(0, 1, (1,), dtype=np.bool_), TypeError, "neither float nor integer"),
        (_with_low(spaces.Box(-1.0, 1.0, (2,)), [0.0, np.nan]), ValueError, r"\[nan, 1.0\]"),
        (_with_low(spaces.Box(-1.0, 1.0, (2,)), [0.0, 2.0]), ValueError, "dimension 1"),
        (spaces.Box(-1e308, 1e308, (1,), dtype=np.float64), ValueError, "a finite range"),
    ],
)
def test_refused_action_spaces_name_their_cause(space, error, message):
    env = SpaceEnv(space)
    env.reset(seed=0)
    with pytest.raises(error, match=message):
        GymnasiumModel(env)


class NoisyPush(SpaceEnv):
    """A Box action whose outcome draws from the env's own generator."""

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        return observation, reward + self.np_random.random(), terminated, truncated, info


def test_a_stochastic_env_with_sampled_actions_is_planned_with_chance_nodes():
    env = NoisyPush(spaces.Box(-1.0, 1.0, (1,), np.float32))
    env.reset(seed=0)
    generator_state = env.np_random.bit_generator.state
    model = GymnasiumModel(env)
    assert model.chance == "sample_step" and model.actions is None
    state = model.state_of(env)
    # A draw depends on the planner's generator only: equal generators, equal outcomes.
    first = model.sample_step(state, (0.5,), random.Random(1))
    again = model.sample_step(state, (0.5,), random.Random(1))
    other = model.sample_step(state, (0.5,), random.Random(2))
    assert first.reward == again.reward != other.reward
    assert 0.5 <= first.reward < 1.5 and first.next_state.actions is None
    with pytest.raises(ValueError, match="must be a number in"):
        model.sample_step(state, (2.0,), random.Random(1))
    trees = []
    for _ in range(2):
        planner = MCTS(model, iterations=150, seed=0, rollout_limit=5, state_widening=(1.0, 0.5))
        action = planner(state)
        trees.append((action, planner.tree.visits, planner.tree.value_sums))
    assert trees[0] == trees[1]
    assert action[0] > 0.5  # the reward is the push plus noise in [0, 1): push hard
    tree = planner.tree
    chance_nodes = [n for n in range(len(tree)) if tree.chance_records[n] is not None]
    for node in chance_nodes:  # double progressive widening: ceil(n**0.5) outcomes at most
        assert len(tree.actions[node]) <= math.ceil(tree.visits[node] ** 0.5)
    assert env.np_random.bit_generator.state == generator_state  # the live env's, untouched


def test_listed_actions_offer_sample_action_beside():
    env = make("FrozenLake-v1", is_slippery=False)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    draws = [model.sample_action(state, random.Random(seed)) for seed in range(20)]
    assert draws == [state.actions[int(random.Random(s).random() * 4)] for s in range(20)]
    assert set(draws) == {0, 1, 2, 3}
