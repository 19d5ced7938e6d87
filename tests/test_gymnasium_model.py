"""GymnasiumModel on real Gymnasium envs: cloning, time limits, masks, checks, planning."""

from __future__ import annotations

import copy
import importlib.util
import pickle
import random
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.envs.toy_text import TaxiEnv
from gymnasium.wrappers import ClipReward, DiscretizeAction
from gymnasium_envs import (
    CoinGuess,
    CopiedWorld,
    SimulatorEnv,
    assert_same,
    inner_position,
    live_fingerprint,
    make,
)

import mcts_agent.envs  # noqa: F401  (registers mcts_agent/GridMaze-v0)
from mcts_agent import MCTS
from mcts_agent.adapters import CloneCheckError, GymnasiumModel, env_probe
from mcts_agent.envs.grid_maze import GridMazeEnv, shortest_path
from mcts_agent.testing import check_model

# ------------------------------------------------------------------ helpers


# Mid-episode positions: (env id, make kwargs, actions played on the live env first).
MID_EPISODE = [
    ("FrozenLake-v1", {"is_slippery": False}, (2, 2, 1)),
    ("CartPole-v1", {}, (0, 1, 1, 0, 1)),
    ("Taxi-v4", {}, (0, 0, 2)),
]

# ------------------------------------------------------------------ cloning


@pytest.mark.parametrize("clone", [None, "deepcopy"])
@pytest.mark.parametrize(("env_id", "kwargs", "prefix"), MID_EPISODE, ids=lambda v: str(v))
def test_clone_steps_like_the_env_mid_episode(env_id, kwargs, prefix, clone):
    env = make(env_id, steps=prefix, **kwargs)
    model = GymnasiumModel(env, clone=clone)
    assert model.clone_method == ("snapshot" if clone is None else "deepcopy")
    reference = copy.deepcopy(env.unwrapped)
    state = model.state_of(env)
    rng = random.Random(1)
    for _ in range(12):
        if not state.actions:
            break
        action = state.actions[rng.randrange(len(state.actions))]
        _, reward, terminated, truncated, _ = reference.step(action)
        result = model.step(state, action)
        assert result.reward == float(reward)
        assert result.terminated == (terminated or truncated)
        stepped = result.next_state.snapshot
        position = inner_position(stepped) if clone == "deepcopy" else stepped[0]
        np.testing.assert_array_equal(position, inner_position(reference))
        state = result.next_state


@pytest.mark.parametrize(("env_id", "kwargs", "prefix"), MID_EPISODE, ids=lambda v: str(v))
def test_step_leaves_its_input_state_and_the_live_env_unchanged(env_id, kwargs, prefix):
    env = make(env_id, steps=prefix, **kwargs)
    before = live_fingerprint(env)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    check_model(model, state, seed=0, num_playouts=3, max_moves=40)
    MCTS(model, 100, seed=0).search(state)
    assert_same(live_fingerprint(env), before)


def test_state_of_is_an_independent_copy():
    env = make("CartPole-v1")
    model = GymnasiumModel(env)
    state = model.state_of(env)
    saved = np.array(state.snapshot[0])
    env.step(1)
    env.step(1)
    np.testing.assert_array_equal(state.snapshot[0], saved)
    assert state.steps_left == 500
    assert model.state_of(env).steps_left == 498


def test_user_get_state_and_set_state_are_used_and_checked():
    env = make("FrozenLake-v1", is_slippery=False, steps=(2,))
    model = GymnasiumModel(
        env,
        get_state=lambda e: (e.s, e.lastaction),
        set_state=lambda e, snap: setattr(e, "s", snap[0]) or setattr(e, "lastaction", snap[1]),
    )
    assert model.clone_method == "user"
    state = model.state_of(env)
    assert state.snapshot == (1, 2)
    assert model.step(state, 1).next_state.snapshot == (5, 1)  # down from cell 1: cell 5, a hole
    assert model.step(state, 1).terminated


def test_incomplete_user_snapshot_is_caught_at_start_up():
    env = make("FrozenLake-v1", is_slippery=False, steps=(2,))
    with pytest.raises(CloneCheckError, match="does not behave like the env"):
        GymnasiumModel(
            env,
            get_state=lambda e: e.lastaction,  # misses the agent's cell, e.s
            set_state=lambda e, snap: setattr(e, "lastaction", snap),
        )


def test_snapshot_sharing_a_mutable_array_with_the_env_is_caught():
    class InPlace(gym.Env):
        """Walks a counter; its state array is updated in place."""

        action_space = spaces.Discrete(2)
        observation_space = spaces.Box(-100, 100, (1,), np.float64)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.position = np.zeros(1)
            return self.position.copy(), {}

        def step(self, action):
            self.position += 1 if action else -1
            return self.position.copy(), float(self.position[0]), False, False, {}

    env = InPlace()
    env.reset(seed=0)
    with pytest.raises(CloneCheckError):
        GymnasiumModel(
            env,
            get_state=lambda e: e.position,  # no copy: clones step the live array
            set_state=lambda e, snap: setattr(e, "position", snap),
        )
    np.testing.assert_array_equal(env.position, [0.0])  # a failed check left it alone


def test_deepcopy_that_recurses_forever_gets_a_clear_error():
    class Forwarding(gym.Env):
        """Forwards every unknown attribute to ``inner``, even while being copied."""

        def __init__(self):
            self.inner = gym.make("CartPole-v1")
            self.action_space = self.inner.action_space
            self.observation_space = self.inner.observation_space

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def reset(self, *, seed=None, options=None):
            return self.inner.reset(seed=seed)

        def step(self, action):
            return self.inner.step(action)

    env = Forwarding()
    env.reset(seed=0)
    with pytest.raises(CloneCheckError, match="recursed forever.*__getattr__"):
        GymnasiumModel(env)


def test_env_methods_are_the_clone_of_grid_maze():
    env = make("mcts_agent/GridMaze-v0", seed=3)
    model = GymnasiumModel(env)
    assert model.clone_method == "env_methods"
    state = model.state_of(env)
    assert state.snapshot == env.unwrapped.get_state()
    check_model(model, state, seed=0, num_playouts=5, max_moves=60)


# Envs whose rgb_array renderer holds pygame objects that cannot be deep-copied (Clock):
# (env id, make kwargs, the renderer's attributes on env.unwrapped once it has drawn).
RENDERERS = [
    ("FrozenLake-v1", {"is_slippery": False}, ("window_surface", "clock")),
    ("CartPole-v1", {}, ("screen", "surf", "clock")),
    ("Taxi-v4", {}, ("window", "clock")),
]


@pytest.mark.parametrize("clone", [None, "deepcopy"])
@pytest.mark.parametrize(("env_id", "kwargs", "renderer"), RENDERERS, ids=lambda v: str(v))
def test_an_env_that_has_rendered_is_planned_and_keeps_its_renderer(
    env_id, kwargs, renderer, clone, monkeypatch
):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = make(env_id, render_mode="rgb_array", **kwargs)
    frame = env.render()
    objects = [getattr(env.unwrapped, name) for name in renderer]
    assert all(value is not None for value in objects)  # it has drawn: pygame objects exist
    before = live_fingerprint(env)
    model = GymnasiumModel(env, clone=clone)
    state = model.state_of(env)
    if clone == "deepcopy":  # the planner's copies leave the renderer out
        assert all(getattr(state.snapshot, name) is None for name in renderer)
    MCTS(model, 30, rollout_limit=10, seed=0).search(state)  # Taxi deep copies are slow
    assert_same(live_fingerprint(env), before)
    for name, value in zip(renderer, objects, strict=True):
        assert getattr(env.unwrapped, name) is value  # the live renderer is untouched
    np.testing.assert_array_equal(env.render(), frame)  # same position, same renderer


def test_user_clone_of_an_env_that_has_rendered(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = make("FrozenLake-v1", render_mode="rgb_array", is_slippery=False, steps=(2,))
    env.render()
    model = GymnasiumModel(
        env,
        get_state=lambda e: (e.s, e.lastaction),
        set_state=lambda e, snap: e.__dict__.update(s=snap[0], lastaction=snap[1]),
    )
    state = model.state_of(env)
    assert model.step(state, 2).next_state.snapshot == (2, 2)  # right from cell 1: cell 2


# ------------------------------------------------------------- time limits


def test_time_limit_steps_left_end_the_plan_and_rollouts():
    env = make("CartPole-v1", max_episode_steps=10, steps=(0, 1, 0, 1, 0, 1, 0))
    model = GymnasiumModel(env)
    state = model.state_of(env)
    assert state.steps_left == 3
    # From an upright pole three steps never fall, so every rollout earns exactly 3.
    returns = {model.rollout(state, random.Random(seed), 1000, 1.0) for seed in range(30)}
    assert returns == {3.0}
    for action in (1, 0):
        result = model.step(state, action)
        assert not result.terminated
        state = result.next_state
    last = model.step(state, 1)
    assert last.terminated and last.reward == 1.0
    assert last.next_state.steps_left == 0 and model.actions(last.next_state) == ()


def test_planning_does_not_advance_the_live_time_limit():
    env = make("CartPole-v1", steps=(0, 1))
    model = GymnasiumModel(env)
    MCTS(model, 200, seed=0).search(model.state_of(env))
    assert env._elapsed_steps == 2
    assert model.state_of(env).steps_left == 498


def test_an_env_without_time_limit_has_no_horizon():
    env = gym.make("CliffWalking-v1")
    env.reset(seed=0)
    assert GymnasiumModel(env).state_of(env).steps_left is None


# ------------------------------------------------------------------- actions


class StrictTaxi(TaxiEnv):
    """Taxi that fails the test if it is ever stepped with a masked action."""

    def step(self, a):
        assert self.action_mask(self.s)[a] == 1, f"masked action {a} tried in state {self.s}"
        return super().step(a)


def test_taxi_never_tries_a_masked_action():
    env = gym.wrappers.TimeLimit(StrictTaxi(), max_episode_steps=200)
    env.reset(seed=2)
    model = GymnasiumModel(  # the env's own step runs for every edge and rollout move
        env,
        get_state=lambda e: (e.s, e.lastaction),
        set_state=lambda e, snap: e.__dict__.update(s=snap[0], lastaction=snap[1]),
    )
    planner = MCTS(model, 300, rollout_limit=50, seed=0)
    planner.search(model.state_of(env))
    for node in planner.tree:
        if not node.terminated:
            legal = np.flatnonzero(env.unwrapped.action_mask(node.state.snapshot[0]))
            assert node.actions == tuple(legal.tolist())


def test_taxi_snapshot_actions_follow_its_mask():
    env = make("Taxi-v4", seed=5)
    model = GymnasiumModel(env)
    planner = MCTS(model, 300, seed=0)
    planner.search(model.state_of(env))
    taxi = env.unwrapped
    assert len(planner.tree) > 50
    for node in planner.tree:
        if not node.terminated:
            legal = np.flatnonzero(taxi.action_mask(node.state.snapshot[0]))
            assert node.actions == tuple(legal.tolist())


def test_user_action_mask_is_honoured_and_validated():
    env = make("CartPole-v1")
    model = GymnasiumModel(env, action_mask=lambda e: np.array([0, 1], dtype=np.int8))
    state = model.state_of(env)
    assert state.actions == (1,)
    assert model.step(state, 1).next_state.actions == (1,)
    with pytest.raises(ValueError, match="not legal"):
        model.step(state, 0)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        GymnasiumModel(env, action_mask=lambda e: np.ones(3))


class Walker(gym.Env):
    """A deterministic walk on a line; the action space is given."""

    observation_space = spaces.Discrete(41, start=-20)

    def __init__(self, action_space):
        self.action_space = action_space

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.position = 0
        return self.position, {}

    def step(self, action):
        move = int(np.sum(action))
        self.position = max(-20, min(20, self.position + move))
        return self.position, float(move), abs(self.position) == 20, False, {}


def test_discrete_start_is_honoured():
    env = Walker(spaces.Discrete(3, start=-1))
    env.reset(seed=0)
    model = GymnasiumModel(env, clone="deepcopy")
    state = model.state_of(env)
    assert state.actions == (-1, 0, 1)
    assert model.step(state, -1).reward == -1.0
    assert model.to_env_action(-1) == -1 and env.action_space.contains(model.to_env_action(-1))


def test_multidiscrete_gives_every_combination():
    space = spaces.MultiDiscrete([2, 3], start=[0, -1])
    env = Walker(space)
    env.reset(seed=0)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    assert state.actions == ((0, -1), (0, 0), (0, 1), (1, -1), (1, 0), (1, 1))
    assert model.step(state, (1, 1)).reward == 2.0
    action = model.to_env_action((1, -1))
    assert isinstance(action, np.ndarray) and space.contains(action)
    np.testing.assert_array_equal(action, [1, -1])
    with pytest.raises(ValueError, match="not an action of this model"):
        model.to_env_action((2, 0))


def test_discretised_pendulum_is_planned_through_the_wrapper():
    env = DiscretizeAction(gym.make("Pendulum-v1"), bins=5)
    env.reset(seed=0)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    assert state.actions == (0, 1, 2, 3, 4)
    reference = copy.deepcopy(env.unwrapped)
    _, reward, *_ = reference.step(np.array([1.6], dtype=np.float32))  # bin 4's centre
    assert model.step(state, 4).reward == pytest.approx(reward)


# ------------------------------------------------------------- what it refuses


def test_blackjack_is_refused_as_hidden_information_not_chance():
    env = make("Blackjack-v1", seed=1)
    with pytest.raises(ValueError, match=r"BlackjackEnv hides information, which is not chance"):
        GymnasiumModel(env)


class CoinLine(gym.Env):
    """Walks a line one way or the other by a coin flipped with a global generator."""

    action_space = spaces.Discrete(2)
    observation_space = spaces.Discrete(201, start=-100)

    def __init__(self, source):
        self.source = source  # "random" (Python's) or "np.random" (numpy's global generator)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.position = 0
        return self.position, {}

    def step(self, action):
        coin = random.random() if self.source == "random" else np.random.random()
        self.position = max(-100, min(100, self.position + (1 if coin < 0.5 else -1)))
        return self.position, float(action), False, False, {}


@pytest.fixture
def seeded_global_generators():
    """Seeds Python's and numpy's global generators, and puts them back afterwards."""
    python_state, numpy_state = random.getstate(), np.random.get_state()
    random.seed(0)
    np.random.seed(0)
    yield
    random.setstate(python_state)
    np.random.set_state(numpy_state)


@pytest.mark.usefixtures("seeded_global_generators")
@pytest.mark.parametrize("clone", ["deepcopy", "user"])
@pytest.mark.parametrize("source", ["random", "np.random"])
def test_an_env_drawing_from_a_global_generator_is_called_not_deterministic(source, clone):
    env = CoinLine(source)
    env.reset(seed=0)
    methods = {}
    if clone == "user":  # a complete snapshot: the clone is not what is wrong
        methods = {
            "get_state": lambda e: e.position,
            "set_state": lambda e, position: setattr(e, "position", position),
        }
    global_states = random.getstate(), np.random.get_state()
    with pytest.raises(ValueError, match="CoinLine is not deterministic") as caught:
        GymnasiumModel(env, **methods)
    # the refusal put Python's and numpy's global generators back as they were
    assert random.getstate() == global_states[0]
    assert_same(np.random.get_state(), global_states[1])
    assert not isinstance(caught.value, CloneCheckError)
    message = str(caught.value)
    assert "two copies of the same position" in message
    assert "random or numpy's global np.random rather than self.np_random" in message
    assert "plans chance drawn from the env's own generators" in message
    assert env.position == 0


def test_a_c_method_bound_to_the_env_s_generator_is_refused_as_shared():
    env = CoinGuess("builtin")  # self.draw = random.Random(seed).random
    env.reset(seed=0)
    draw = env.draw.__self__.getstate()
    with pytest.raises(CloneCheckError, match=r"shares env\.draw .* keep the object rather"):
        GymnasiumModel(env)
    assert env.draw.__self__.getstate() == draw


@pytest.mark.parametrize(
    "holder, kind",
    [
        ("set", "Generator"),
        ("far", "Generator"),
        # Random(1) and Random(2) draw the same first coin: two perturbed copies saw no
        # difference (40 right guesses out of 40)
        ("random_in_set", "Random"),
        ("random_as_key", "Random"),
        # its __deepcopy__ starts a fresh memo: a memo noting generators never saw it
        ("box_in_set", "Generator"),
    ],
)
def test_a_generator_the_planner_cannot_reach_to_reseed_is_refused(holder, kind, monkeypatch):
    # sampled steps would reseed the generators on the paths found, not this one: every
    # clone would draw the live env's next coin
    monkeypatch.setattr(env_probe, "MAX_OBJECTS_SEARCHED", 100)  # "far": a table of 150 lists
    for seed in range(3):
        env = CoinGuess(holder, table=150)
        env.reset(seed=seed)
        message = rf"CoinGuess draws from a random generator the planner cannot reseed \({kind}\)"
        with pytest.raises(ValueError, match=message):
            GymnasiumModel(env)


def test_a_generator_that_ignores_its_seed_is_refused():
    # seed() does nothing after the constructor's: every clone would draw the live env's coin
    env = CoinGuess("stubborn")
    env.reset(seed=0)
    live = env.stubborn.getstate()
    message = (
        r"random generator env\.stubborn \(gymnasium_envs\.StubbornRandom\) cannot be "
        r"reseeded \(seeds 1 and 2 left it in the same state\)"
    )
    with pytest.raises(ValueError, match=message):
        GymnasiumModel(env)
    assert env.stubborn.getstate() == live


def test_a_reward_wrapper_is_refused():
    env = ClipReward(gym.make("CartPole-v1"), 0.0, 0.5)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="ClipReward"):
        GymnasiumModel(env)


def test_bad_arguments_and_other_envs_are_refused():
    env = make("CartPole-v1")
    with pytest.raises(TypeError, match="gymnasium.Env"):
        GymnasiumModel("CartPole-v1")
    with pytest.raises(ValueError, match="together"):
        GymnasiumModel(env, get_state=lambda e: e.state)
    with pytest.raises(ValueError, match="clone must be"):
        GymnasiumModel(env, clone="pickle")
    with pytest.raises(ValueError, match='clone="snapshot" knows'):
        GymnasiumModel(make("mcts_agent/GridMaze-v0"), clone="snapshot")
    model = GymnasiumModel(env)
    other = make("CartPole-v1")
    assert repr(other) == repr(env)  # the reprs cannot tell them apart, the message must
    with pytest.raises(ValueError, match="got a different env instance") as caught:
        model.state_of(other)
    assert f"CartPoleEnv object at {id(other.unwrapped):#x}" in str(caught.value)
    assert f"CartPoleEnv object at {id(env.unwrapped):#x}" in str(caught.value)
    with pytest.raises(TypeError, match="takes a gymnasium.Env, got str"):
        model.state_of("CartPole-v1")


@pytest.mark.parametrize("bare", [False, True], ids=["made", "bare"])
@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("FrozenLake-v1", {"is_slippery": False}),
        ("Taxi-v4", {}),
        ("CliffWalking-v1", {}),
        ("CartPole-v1", {}),
        ("MountainCar-v0", {}),
    ],
)
def test_an_env_never_reset_is_refused(env_id, kwargs, bare):
    env = gym.make(env_id, **kwargs)
    if bare:  # no OrderEnforcing or TimeLimit to ask: the env's own attributes tell
        env = env.unwrapped
    with pytest.raises(ValueError, match=r"has not been reset: call env.reset\(seed=...\) first"):
        GymnasiumModel(env)


def test_an_order_enforced_env_never_reset_is_refused():
    env = gym.wrappers.OrderEnforcing(GridMazeEnv())  # no TimeLimit: OrderEnforcing tells
    with pytest.raises(ValueError, match="GridMazeEnv.* has not been reset"):
        GymnasiumModel(env)


def actions_to_termination(env: gym.Env) -> list[int]:
    """A shortest list of actions whose last step terminates a toy-text env (BFS over ``P``)."""
    table = env.unwrapped.P
    start = int(env.unwrapped.s)
    paths = {start: []}
    frontier = [start]
    while frontier:
        following = []
        for s in frontier:
            for action, [(_, next_s, _, terminated)] in table[s].items():
                if terminated:
                    return [*paths[s], action]
                if next_s not in paths:
                    paths[next_s] = [*paths[s], action]
                    following.append(next_s)
        frontier = following
    raise AssertionError("no terminal transition reachable")


def placed_at(state, action):
    """Returns ``finish(env)`` for a classic-control env: sets its ``state``; ``action`` ends it."""

    def finish(env):
        env.unwrapped.state = np.array(state)
        return [action]

    return finish


def cartpole_falls(env):
    return [1] * 12  # pushing right from upright: the pole falls within 12 steps


def frozen_lake_goal(env):
    # SFFF / FHFH / FFFH / HFFG: down, down, right, down, right, right reaches the goal.
    return [1, 1, 2, 1, 2, 2]


def grid_maze_goal(env):
    layout = env.unwrapped.layout
    path = shortest_path(layout, layout.start, layout.goal, avoid_traps=True)
    move = {-layout.size: 0, 1: 1, layout.size: 2, -1: 3}  # up, right, down, left
    return [move[b - a] for a, b in zip(path, path[1:], strict=False)]


# finish(env) -> actions whose last step ends the episode of the reset env.
FINISHED = {
    "FrozenLake hole": ("FrozenLake-v1", {"is_slippery": False}, actions_to_termination),
    "FrozenLake goal": ("FrozenLake-v1", {"is_slippery": False}, frozen_lake_goal),
    "CliffWalking goal": ("CliffWalking-v1", {}, actions_to_termination),
    "Taxi delivered": ("Taxi-v4", {}, actions_to_termination),
    "CartPole fallen": ("CartPole-v1", {}, cartpole_falls),
    "MountainCar goal": ("MountainCar-v0", {}, placed_at([0.49, 0.06], 2)),
    "Acrobot up": ("Acrobot-v1", {}, placed_at([3.0, 0.0, 0.0, 0.0], 1)),
    "GridMaze goal (is_terminal)": ("mcts_agent/GridMaze-v0", {}, grid_maze_goal),
}


def finish_episode(env_id, kwargs, finish):
    """A reset env and its model built then; the env is then stepped until it terminates."""
    env = make(env_id, **kwargs)
    model = GymnasiumModel(env)
    for action in finish(env):
        _, _, terminated, truncated, _ = env.step(action)
        if terminated:
            break
    assert terminated and not truncated  # the env itself says the episode is over
    return env, model


@pytest.mark.parametrize(("env_id", "kwargs", "finish"), FINISHED.values(), ids=list(FINISHED))
def test_a_terminated_episode_is_refused(env_id, kwargs, finish):
    env, model = finish_episode(env_id, kwargs, finish)
    message = r"the episode is over \(terminated\): call env.reset\(\) before planning"
    with pytest.raises(ValueError, match=message):
        model.state_of(env)
    with pytest.raises(ValueError, match=message):
        GymnasiumModel(env)
    env.reset(seed=1)
    assert model.state_of(env).actions  # a new episode plans again


def test_a_truncated_episode_is_refused():
    env = make("CartPole-v1", max_episode_steps=3)
    model = GymnasiumModel(env)
    for action in (0, 1, 0):
        _, _, terminated, truncated, _ = env.step(action)
    assert truncated and not terminated
    message = r"the episode is over \(truncated\): call env.reset\(\) before planning"
    with pytest.raises(ValueError, match=message):
        model.state_of(env)
    with pytest.raises(ValueError, match=message):
        GymnasiumModel(env)


# ------------------------------------------------------------------- rollouts


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [("CartPole-v1", {}), ("Taxi-v4", {}), ("FrozenLake-v1", {"is_slippery": False})],
)
def test_fused_rollout_equals_the_step_by_step_rollout(env_id, kwargs):
    """Same draws from the same generator: the fused rollout returns exactly what stepping does."""
    env = make(env_id, **kwargs)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    for seed in range(10):
        fused = model.rollout(state, random.Random(seed), 40, 0.9)
        rng = random.Random(seed)
        g, coef, current = 0.0, 1.0, state
        for _ in range(40):
            actions = current.actions
            current, reward, terminated = model.step(
                current, actions[int(rng.random() * len(actions))]
            )
            g += coef * reward
            coef *= 0.9
            if terminated or not current.actions:
                break
        assert fused == pytest.approx(g)


class Corridor(gym.Env):
    """Cells 0 to 3 on a line: action a moves by a - 1 and pays a; no step leaves the line."""

    action_space = spaces.Discrete(3)
    observation_space = spaces.Discrete(4)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.x = 0
        return self.x, {"action_mask": self.action_mask()}

    def step(self, action):
        self.x += int(action) - 1
        return self.x, float(action), False, False, {"action_mask": self.action_mask()}

    def action_mask(self):  # left is illegal at 0, right at 3
        return np.array([self.x > 0, 1, self.x < 3], dtype=np.int8)

    def get_state(self):
        return self.x

    def set_state(self, state):
        self.x = state


def test_repeated_rollout_actions_worked_by_hand():
    env = Corridor()
    env.reset(seed=0)
    model = GymnasiumModel(env, rollout_actions="repeated")
    assert model.rollout_actions == "repeated"
    # random.Random(0)'s draws r0.. r9: .844 .758 .421 .259 .511 .405 .784 .303 .477 .583.
    # x=0, legal (1, 2): r0 -> (1, 2)[int(1.69)] = 2, r1 -> int(1 / .242) = 4 steps:
    #   2 2 2 (x 1, 2, 3); at x=3 right is illegal, one repeat left unused:
    # legal (0, 1): r2 -> (0, 1)[int(.84)] = 0, r3 -> int(1 / .741) = 1 step: 0 (x 2);
    # legal (0, 1, 2): r4 -> int(1.53) = 1, r5 -> int(1 / .595) = 1 step: 1 (x 2);
    # r6 -> int(2.35) = 2, r7 -> int(1 / .697) = 1 step: 2 (x 3);
    # legal (0, 1): r8 -> int(.95) = 0, r9 -> int(1 / .417) = 2 steps: 0 0 (x 2, 1).
    # Rewards = actions 2 2 2 0 1 2 0 0, discounted by 0.1: the digits of 2.22012.
    rng = random.Random(0)
    g = model.rollout(model.state_of(env), rng, 8, 0.1)
    assert g == pytest.approx(2.22012, abs=1e-12)
    expected = random.Random(0)
    for _ in range(10):  # two draws per action drawn, none per repeat
        expected.random()
    assert rng.getstate() == expected.getstate()
    # uniform: one draw a step, 2 2 1 0 1 (x 1, 2, 2, 1, 1) ...
    uniform = GymnasiumModel(env)
    assert uniform.rollout_actions == "uniform"
    assert uniform.rollout(uniform.state_of(env), random.Random(0), 5, 0.1) == pytest.approx(
        2.2101, abs=1e-12
    )


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [("CartPole-v1", {}), ("Taxi-v4", {}), ("FrozenLake-v1", {"is_slippery": False})],
)
def test_fused_repeated_rollout_equals_the_step_by_step_rollout(env_id, kwargs):
    """The rule stepped by hand: a drawn action, its duration, kept while it lasts and is legal."""
    env = make(env_id, **kwargs)
    model = GymnasiumModel(env, rollout_actions="repeated")
    state = model.state_of(env)
    lengths = set()
    for seed in range(20):
        rng, reference = random.Random(seed), random.Random(seed)
        fused = model.rollout(state, rng, 60, 0.9)
        g, coef, current, action, left, played = 0.0, 1.0, state, None, 0, []
        for _ in range(60):
            if left == 0 or action not in current.actions:
                action = current.actions[int(reference.random() * len(current.actions))]
                left = int(1.0 / (1.0 - reference.random()))
                lengths.add(left)
            left -= 1
            played.append(action)
            current, reward, terminated = model.step(current, action)
            g += coef * reward
            coef *= 0.9
            if terminated or not current.actions:
                break
        assert fused == pytest.approx(g, abs=1e-12), played
        assert rng.getstate() == reference.getstate()
    assert max(lengths) >= 5  # long repeats were played


def test_rollout_actions_is_validated_and_pickled():
    env = make("CartPole-v1")
    with pytest.raises(ValueError, match='rollout_actions must be "uniform" or "repeated"'):
        GymnasiumModel(env, rollout_actions="sticky")
    with pytest.raises(ValueError, match="needs a deterministic env"):
        GymnasiumModel(make("FrozenLake-v1", is_slippery=True), rollout_actions="repeated")
    model = GymnasiumModel(env, rollout_actions="repeated")
    copied = pickle.loads(pickle.dumps(model))
    assert copied.rollout_actions == "repeated"
    state = model.state_of(env)
    for seed in range(5):
        assert copied.rollout(copied.state_of(copied.env), random.Random(seed), 500, 1.0) == (
            model.rollout(state, random.Random(seed), 500, 1.0)
        )


# ------------------------------------------------------------------- planning


def test_frozen_lake_4x4_reaches_the_goal_in_20_of_20_episodes():
    """The README's row: 200 iterations per step, c = sqrt(2)/2, gamma 0.95."""
    env = gym.make("FrozenLake-v1", is_slippery=False)
    env.reset(seed=0)
    model = GymnasiumModel(env)
    planner = MCTS(model, 200, exploration=2**0.5 / 2, gamma=0.95, rollout_limit=100, seed=0)
    goals = 0
    for episode in range(20):
        env.reset(seed=episode)
        while True:
            action = model.to_env_action(planner(model.state_of(env)))
            _, reward, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                goals += reward == 1.0
                break
    assert goals == 20


def test_grid_maze_reaches_the_goal_in_at_least_18_of_20_mazes():
    """The README's row: 300 iterations per step, c = sqrt(2), gamma 1."""
    env = gym.make("mcts_agent/GridMaze-v0")
    env.reset(seed=0)
    model = GymnasiumModel(env)
    planner = MCTS(model, 300, exploration=2**0.5, rollout_limit=100, seed=0)
    goals = 0
    for episode in range(20):
        env.reset(seed=episode)  # a new maze
        while True:
            action = model.to_env_action(planner(model.state_of(env)))
            _, reward, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                goals += terminated and reward > 0
                break
    assert goals >= 18


@pytest.mark.parametrize("integrator", ["euler", "semi-implicit euler"])
def test_cartpole_snapshot_steps_bit_for_bit_like_the_env_for_500_steps(integrator):
    env = make("CartPole-v1", seed=3)
    env.unwrapped.kinematics_integrator = integrator
    model = GymnasiumModel(env)
    state = model.state_of(env)
    reference = copy.deepcopy(env.unwrapped)
    steps = 0
    while state.actions:
        x, x_dot, theta, theta_dot = reference.state
        action = int(theta + 0.5 * theta_dot > 0)  # a balancing policy: long episodes
        observation, reward, terminated, _, _ = reference.step(action)
        result = model.step(state, action)
        assert result.next_state.snapshot[0] == tuple(reference.state.tolist())
        time_is_up = state.steps_left == 1
        assert (result.reward, result.terminated) == (reward, terminated or time_is_up)
        state = result.next_state
        steps += 1
    assert steps == 500  # balanced to the time limit, every step identical


@pytest.fixture(scope="module")
def example():
    path = Path(__file__).resolve().parents[1] / "examples" / "gymnasium_planning.py"
    spec = importlib.util.spec_from_file_location("gymnasium_planning", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_planning_example_runs_and_reports_consistently(example, capsys):
    summary = example.main(
        ["--env", "FrozenLake-v1", "--episodes", "3", "--iterations", "50", "--quiet"]
    )
    assert summary["episodes"] == 3
    # FrozenLake pays 1 at the goal and 0 otherwise: the mean return counts the successes.
    assert summary["mean_return"] == pytest.approx(summary["successes"] / 3)
    assert "reached the goal in" in capsys.readouterr().out


def test_planning_example_help_gives_every_default(example, capsys):
    with pytest.raises(SystemExit) as exit_:
        example.main(["--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert "--episodes EPISODES episodes to play (default: 10)" in text
    assert "(default: FrozenLake-v1)" in text and "(default: random)" in text
    assert "UCT iterations per step (default: the env's preset)" in text
    assert "FrozenLake-v1 iterations 200, rollout-limit 100, gamma 0.95" in text  # the presets


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--episodes", "0"], "argument --episodes: expected an int >= 1, got 0"),
        (["--iterations", "many"], "argument --iterations: expected an int >= 1, got 'many'"),
        (["--gamma", "2"], r"argument --gamma: expected a number in \[0, 1\], got 2"),
        (["--exploration", "-1"], "argument --exploration: expected a number >= 0, got -1"),
        (["--env", "NoSuchEnv-v0"], "argument --env: cannot make 'NoSuchEnv-v0'.*expected a reg"),
        (["--env-kwargs", "map_name=9x9"], r"argument --env-kwargs: gymnasium.make\('FrozenLake"),
        (
            ["--env", "Blackjack-v1"],
            r"argument --env: cannot plan in Blackjack-v1 .*hides information",
        ),
    ],
    ids=["episodes", "iterations", "gamma", "exploration", "env", "kwargs", "blackjack"],
)
def test_planning_example_bad_arguments_are_usage_errors(example, argv, expected, capsys):
    with pytest.raises(SystemExit) as exit_:
        example.main(argv)
    assert exit_.value.code == 2  # argparse's usage error, not a traceback
    error = capsys.readouterr().err
    assert error.startswith("usage: ")
    assert re.search(expected, error)


# ------------------------------------------------------ hardening (issue 17)


@pytest.mark.parametrize("clone", ["deepcopy", "user"])
def test_a_handle_shared_by_deep_copies_is_refused_before_any_step(clone):
    env = SimulatorEnv()
    env.reset(seed=0)
    env.step(1)
    methods = {}
    if clone == "user":  # a complete snapshot: the scratch env shares the handle all the same
        methods = {
            "get_state": lambda e: e.world.x,
            "set_state": lambda e, x: setattr(e.world, "x", x),
        }
    with pytest.raises(CloneCheckError) as caught:
        GymnasiumModel(env, **methods)
    message = str(caught.value)
    assert "env.world (World object" in message
    assert "shares" in message and "__deepcopy__" in message
    assert env.world.x == 3  # nothing was stepped


def test_following_the_shared_handle_advice_plans_through_the_adapter_and_the_agent():
    env = SimulatorEnv(CopiedWorld)
    env.reset(seed=0)
    model = GymnasiumModel(env)
    assert model.clone_method == "deepcopy"
    state = model.state_of(env)
    result = model.step(state, 1)
    assert (result.next_state.snapshot.world.x, result.reward) == (3, 1.0)
    assert state.snapshot.world.x == 1
    from mcts_agent.agent import MCTSAgent

    assert MCTSAgent(iterations=50, rollout_limit=10, seed=0).act(env) == 1
    assert env.world.x == 1


class NoCopyObservation(gym.Env):
    """Returns its internal observation array itself, then changes it in place on the next step."""

    action_space = spaces.Discrete(2)
    observation_space = spaces.Box(-100, 100, (1,), np.float64)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.observation = np.zeros(1)
        return self.observation, {}

    def step(self, action):
        self.observation += 1 if action else -1
        at_goal = self.observation[0] >= 3
        return self.observation, float(at_goal), bool(at_goal), False, {}


def test_an_env_returning_its_own_observation_array_is_planned():
    env = NoCopyObservation()
    env.reset(seed=0)
    model = GymnasiumModel(env)
    planner = MCTS(model, 200, seed=0)
    assert planner(model.state_of(env)) == 1  # towards the goal at +3
    np.testing.assert_array_equal(env.observation, [0.0])


class DeepHistory(gym.Env):
    """Keeps every move in a history nested one list deeper per move (5,000 deep at reset)."""

    action_space = spaces.Discrete(2)
    observation_space = spaces.Discrete(10_000)
    DEPTH = 5000

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.history = []
        for _ in range(self.DEPTH):
            self.history = [self.history]
        self.moves = 0
        return self.moves, {}

    def step(self, action):
        self.history = [self.history, action]
        self.moves += 1
        return self.moves, float(action), self.moves >= 50, False, {}


class FlatCopiedHistory(DeepHistory):
    """The fix the refusal advises: a ``__deepcopy__`` that copies the history without recursion."""

    def __deepcopy__(self, memo):
        clone = copy.copy(self)
        memo[id(self)] = clone
        for name, value in vars(self).items():
            if name != "history":
                setattr(clone, name, copy.deepcopy(value, memo))
        levels = []  # the nested lists, outermost first, copied from the innermost out
        node = self.history
        while node:
            levels.append(node[1:])
            node = node[0]
        copied: list = []
        for rest in reversed(levels):
            copied = [copied, *rest]
        clone.history = copied
        return clone


def test_a_deeply_nested_attribute_is_refused_with_its_true_cause():
    env = DeepHistory()
    env.reset(seed=0)
    with pytest.raises(CloneCheckError) as caught:
        GymnasiumModel(env)
    message = str(caught.value)
    assert "env.history is nested 5001 levels deep" in message
    assert "recursion limit" in message and "__getattr__" not in message
    assert "__deepcopy__" in message


def test_following_the_deep_nesting_advice_plans_through_the_adapter_and_the_agent():
    env = FlatCopiedHistory()
    env.reset(seed=0)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    assert model.step(state, 1).next_state.snapshot.history[1] == 1
    from mcts_agent.agent import MCTSAgent

    assert MCTSAgent(iterations=30, rollout_limit=5, seed=0).act(env) == 1
    assert env.moves == 0


def test_multidiscrete_too_large_for_int64_is_refused_by_its_action_count():
    class Huge(gym.Env):
        action_space = spaces.MultiDiscrete([2**32, 2**32])
        observation_space = spaces.Discrete(1)

        def step(self, action):
            return 0, 0.0, False, False, {}

    with pytest.raises(ValueError, match=r"has 18446744073709551616 combinations .*MAX_ACTIONS"):
        GymnasiumModel(Huge())


def test_an_env_too_large_to_check_for_sharing_is_refused_with_the_limit(monkeypatch):
    import functools

    from mcts_agent.adapters.env_probe import shared_mutable_objects
    from mcts_agent.adapters.gymnasium import checks

    # MAX_OBJECTS_COMPARED (200,000) lowered to 500, to keep the test fast.
    limited = functools.partial(shared_mutable_objects, limit=500)
    monkeypatch.setattr(checks, "shared_mutable_objects", limited)
    env = NoCopyObservation()
    env.reset(seed=0)
    env.table = [[i] for i in range(600)]  # one list per entry
    with pytest.raises(CloneCheckError, match=r"more than 500 objects.*too large to check"):
        GymnasiumModel(env)
    np.testing.assert_array_equal(env.observation, [0.0])
    env.table = [list(range(600))]  # numbers are not counted
    assert GymnasiumModel(env).clone_method == "deepcopy"


def test_lunar_lander_is_refused_with_its_cause():
    """Box2D's world does not survive copy.deepcopy: the refusal says so and where it failed."""
    pytest.importorskip("Box2D", reason="LunarLander needs Box2D (pip install -e '.[box2d]')")
    env = gym.make("LunarLander-v3")
    env.reset(seed=0)
    failure = r"AssertionError at lunar_lander\.py:\d+: .*lander"
    with pytest.raises(ValueError, match=failure) as info:
        GymnasiumModel(env)
    assert "Box2D worlds" in str(info.value)
