"""Native rollouts of the deterministic Gymnasium envs (mcts_agent/_gym_rollouts.c).

The C rollout of each env returns the Python fused rollout's return bit for bit
and leaves the generator where it leaves it; searches build the pure loop's
trees; the capsule follows the parameters; a difference is refused, not hidden.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from gymnasium_envs import make

from mcts_agent import MCTS, compiled
from mcts_agent.adapters import GymnasiumModel
from mcts_agent.adapters.gymnasium import native_rollouts
from mcts_agent.compiled import pure_python

CORE = compiled._core_module
pytestmark = pytest.mark.skipif(CORE is None, reason="the compiled core is not built")

ENVS = {
    "Taxi-v4": {},
    "FrozenLake-v1": {"is_slippery": False},
    "CliffWalking-v1": {},
    "CartPole-v1": {},
    "MountainCar-v0": {},
    "Acrobot-v1": {},
}
SLOW = {"MountainCar-v0", "Acrobot-v1"}  # Python steps of 30 us and 100 us: fewer, shorter


def positions(model, env, count, seed):
    """``count`` states: the live position and states along random walks from resets."""
    walk = random.Random(seed)
    states = []
    reset = 0
    while len(states) < count:
        env.reset(seed=seed * 100 + reset)
        reset += 1
        state = model.state_of(env)
        for _ in range(walk.randrange(40)):
            states.append(state)
            if state.actions is None:  # sampled (Box) actions
                action = model.sample_action(state, walk)
            else:
                action = state.actions[walk.randrange(len(state.actions))]
            result = model.step(state, action)
            if result.terminated:
                break
            state = result.next_state
    return states[:count]


def assert_same_rollouts(model, capsule, states, cases):
    for state in states:
        for seed, limit, gamma in cases:
            python_rng, native_rng = random.Random(seed), random.Random(seed)
            expected = model._native_rollouts.python_rollout(state, python_rng, limit, gamma)
            got = CORE.call_native(capsule, state, native_rng, limit, gamma)
            assert got.hex() == expected.hex(), (state, seed, limit, gamma)
            assert native_rng.getstate() == python_rng.getstate()


@pytest.mark.parametrize("rollout_actions", ["uniform", "repeated"])
@pytest.mark.parametrize("env_id", ENVS)
def test_the_native_rollout_returns_the_python_rollouts_return(env_id, rollout_actions):
    env = make(env_id, **ENVS[env_id])
    model = GymnasiumModel(env, rollout_actions=rollout_actions)
    capsule = model.native_rollout()
    assert capsule is not None, model.native_rollout_refusal
    assert model.native_rollout_refusal is None
    slow = env_id in SLOW
    states = positions(model, env, 12 if slow else 40, seed=1)
    limits = (1, 2, 7, 40) if slow else (1, 2, 7, 40, 300)
    cases = [
        (seed, limit, gamma)
        for seed in range(2 if slow else 3)
        for limit in limits
        for gamma in (1.0, 0.9, 0.0)
    ]
    assert_same_rollouts(model, capsule, states, cases)
    # whole episodes, to the TimeLimit or the end (CliffWalking has no TimeLimit): a few
    assert_same_rollouts(model, capsule, states[:3], [(7, 3000, 0.99)])


@pytest.mark.parametrize(
    ("env_id", "kwargs", "attributes"),
    [
        ("CartPole-v1", {"sutton_barto_reward": True}, {}),
        ("CartPole-v1", {}, {"kinematics_integrator": "semi-implicit euler"}),
        ("MountainCar-v0", {"goal_velocity": 0.01}, {}),
        ("Acrobot-v1", {}, {"book_or_nips": "nips"}),
    ],
)
def test_the_envs_variants_agree_too(env_id, kwargs, attributes):
    env = make(env_id, **kwargs)
    for name, value in attributes.items():
        setattr(env.unwrapped, name, value)
    model = GymnasiumModel(env)
    capsule = model.native_rollout()
    assert capsule is not None, model.native_rollout_refusal
    states = positions(model, env, 6, seed=7)
    assert_same_rollouts(model, capsule, states, [(s, 40, 0.9) for s in range(3)])


@pytest.mark.parametrize("rollout_actions", ["uniform", "repeated"])
def test_rollouts_that_reach_the_end_of_the_time_limit_agree(rollout_actions):
    env = make("CliffWalking-v1", max_episode_steps=30)  # steps left 30: most rollouts run out
    model = GymnasiumModel(env, rollout_actions=rollout_actions)
    capsule = model.native_rollout()
    states = positions(model, env, 20, seed=2)
    assert {s.steps_left for s in states} > {30, 29}
    assert_same_rollouts(model, capsule, states, [(s, 10**6, 0.95) for s in range(5)])


def test_mountain_cars_stop_at_the_left_wall_agrees():
    # At the left wall with a velocity < 0 the env's step sets it to the int 0.
    env = make("MountainCar-v0")
    env.unwrapped.state = np.array([-1.19, -0.05])
    model = GymnasiumModel(env)
    state = model.step(model.state_of(env), 0).next_state
    assert state.snapshot[0][1] == 0
    assert_same_rollouts(model, model.native_rollout(), [state], [(s, 30, 0.9) for s in range(6)])


def key_snapshot(planner):
    """The tree's fields (states by the model's key), the summary, the move, the generator."""
    tree = planner.tree
    fields = [list(getattr(tree, name)) for name in ("rewards", "discounts", "actions")]
    fields += [list(getattr(tree, name)) for name in ("children", "untried", "visits")]
    fields += [list(getattr(tree, name)) for name in ("value_sums", "values", "players")]
    states = [planner.model.key(state) for state in tree.states]
    summary = planner.summary()._replace(elapsed=0.0)
    return fields, states, summary, planner.best_action(), planner.rng.getstate()


@pytest.mark.parametrize("env_id", ENVS)
@pytest.mark.parametrize(
    ("config", "rollout_actions"),
    [
        ({"gamma": 1.0}, "uniform"),
        ({"gamma": 0.95, "value_normalization": True, "reuse_tree": True}, "uniform"),
        ({"gamma": 1.0, "value_normalization": True, "reuse_tree": True}, "repeated"),
    ],
)
def test_searches_with_the_native_rollout_build_the_pure_trees(env_id, config, rollout_actions):
    iterations, limit = {"MountainCar-v0": (12, 60), "Acrobot-v1": (12, 60)}.get(
        env_id, (120, 1000)
    )
    trees = []
    for backend in ("python", "compiled"):
        env = make(env_id, seed=3, **ENVS[env_id])
        model = GymnasiumModel(env, rollout_actions=rollout_actions)
        config = {"iterations": iterations, "rollout_limit": limit, "seed": 4, **config}
        if backend == "python":
            with pure_python():
                planner = MCTS(model, **config)
        else:
            planner = MCTS(model, **config)
            fused, _ = planner._rollouts()
            assert compiled._native(planner, fused) is model.native_rollout() is not None
        searches = []
        for _ in range(3):  # along the live episode, the tree reused
            if backend == "python":
                with pure_python():
                    planner.search(model.state_of(env))
            else:
                planner.search(model.state_of(env))
            action = planner.best_action()
            searches.append(key_snapshot(planner))
            _, _, terminated, truncated, _ = env.step(model.to_env_action(action))
            if terminated or truncated:
                break
        trees.append(searches)
    assert trees[0] == trees[1]


def scratch_of(model):
    """The object the model's rollout steps (its fast stepper or scratch env)."""
    return model._checkout(model._capture(model._unwrapped))


def test_a_changed_parameter_gives_a_new_capsule():
    env = make("CartPole-v1", seed=5)
    model = GymnasiumModel(env)
    capsule = model.native_rollout()
    assert model.native_rollout() is capsule  # made once
    state = model.state_of(env)
    cases = [(s, 200, 1.0) for s in range(8)]
    old = [CORE.call_native(capsule, state, random.Random(s), 200, 1.0) for s, *_ in cases]

    # the live env's parameter: the model refuses it; a new model (MCTSAgent's) plans with it
    env.unwrapped.force_mag = 30.0
    with pytest.raises(ValueError, match="force_mag"):
        model.state_of(env)
    rebuilt = GymnasiumModel(env)
    new = rebuilt.native_rollout()
    assert_same_rollouts(rebuilt, new, [state], cases)
    assert [CORE.call_native(new, state, random.Random(s), 200, 1.0) for s, *_ in cases] != old

    # the parameter the model's rollout steps with: the next call makes a capsule for it
    model = GymnasiumModel(make("CartPole-v1", seed=5))
    capsule = model.native_rollout()
    scratch_of(model).force_mag = 30.0
    changed = model.native_rollout()
    assert changed is not capsule and changed is not None
    assert_same_rollouts(model, changed, [state], cases)


def test_a_changed_table_reward_is_planned_by_a_new_model():
    env = make("FrozenLake-v1", is_slippery=False)
    env.unwrapped.P[14][2] = [(1.0, 15, 5.0, True)]  # the goal pays 5
    model = GymnasiumModel(env)
    states = positions(model, env, 30, seed=6)
    assert_same_rollouts(model, model.native_rollout(), states, [(s, 100, 1.0) for s in range(6)])
    assert max(model.rollout(s, random.Random(k), 100, 1.0) for s in states for k in range(40)) == 5


@pytest.mark.parametrize(
    ("env_id", "kwargs", "arguments", "reason"),
    [
        ("FrozenLake-v1", {"is_slippery": True}, {}, "stochastic"),
        ("CartPole-v1", {}, {"clone": "deepcopy"}, '"deepcopy"'),
        (
            "FrozenLake-v1",
            {"is_slippery": False},
            {"action_mask": lambda env: np.ones(4, np.int8)},
            "action_mask",
        ),
        ("Pendulum-v1", {}, {}, "not ints"),
        ("Pendulum-v1", {"wrapper": "rescale"}, {}, "action wrappers"),
    ],
)
def test_models_without_a_native_rollout_say_why(env_id, kwargs, arguments, reason):
    wrapper = kwargs.pop("wrapper", "discretize")
    env = make(env_id, **kwargs)
    if env_id == "Pendulum-v1":
        from gymnasium.wrappers import DiscretizeAction, RescaleAction

        if wrapper == "discretize":
            env = DiscretizeAction(env, bins=3)
        else:
            env = RescaleAction(env, -1.0, 1.0)
    model = GymnasiumModel(env, **arguments)
    assert model.native_rollout() is None
    assert reason in model.native_rollout_refusal


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCar-v0", "Acrobot-v1"])
def test_a_native_rollout_that_differs_by_a_bit_is_refused_at_start_up(monkeypatch, env_id):
    made = native_rollouts.native_parameters

    def nudged(model, scratch):  # the first parameter (a gravity, a mass) a few ulps off
        kind, push, parameters, table = made(model, scratch)
        return kind, push, (parameters[0] * (1 + 2**-45), *parameters[1:]), table

    monkeypatch.setattr(native_rollouts, "native_parameters", nudged)
    model = GymnasiumModel(make(env_id))
    assert model.native_rollout() is None
    assert "the native step differs from the Python one" in model.native_rollout_refusal


def test_the_capsule_plays_the_models_rollout_actions():
    # the same env and generator: the repeated capsule returns the repeated Python rollout's
    # returns and draws, the uniform one the uniform one's, and the two differ
    env = make("Taxi-v4", seed=8)
    uniform = GymnasiumModel(env)
    repeated = GymnasiumModel(env, rollout_actions="repeated")
    state = uniform.state_of(env)
    returns = {}
    for model in (uniform, repeated):
        capsule = model.native_rollout()
        assert_same_rollouts(model, capsule, [state], [(s, 200, 1.0) for s in range(6)])
        returns[model.rollout_actions] = [
            CORE.call_native(capsule, state, random.Random(s), 200, 1.0) for s in range(6)
        ]
    assert returns["uniform"] != returns["repeated"]
    with pytest.raises(TypeError, match="repeated must be a bool"):
        CORE.gym_rollout("table", {0: 0}, (), (), ([0], [0.0], [False], [(0,)]), 1)


def test_a_repeated_capsule_that_differs_from_python_is_refused_at_start_up(monkeypatch):
    # the capsule made with uniform draws for a "repeated" model: the check sees it
    made = CORE.gym_rollout

    class Core:
        def __getattr__(self, name):
            return getattr(CORE, name)

        @staticmethod
        def gym_rollout(*arguments):
            return made(*arguments[:-1], False)

    monkeypatch.setattr(compiled, "_core_module", Core())
    model = GymnasiumModel(make("CartPole-v1"), rollout_actions="repeated")
    assert model.native_rollout() is None
    assert "the native rollout differs from the Python one" in model.native_rollout_refusal


CONTINUOUS = {  # sampled (Box) actions; variants with a changed parameter
    "Pendulum-v1": [{}, {"g": 9.81}, {"g": 2.5}],
    "MountainCarContinuous-v0": [{}, {"power": 0.0025}],
}


@pytest.mark.parametrize("rollout_actions", ["uniform", "repeated"])
@pytest.mark.parametrize(
    ("env_id", "attributes"),
    [(env_id, attributes) for env_id, variants in CONTINUOUS.items() for attributes in variants],
)
def test_continuous_envs_native_steps_and_rollouts_are_the_python_ones(
    env_id, attributes, rollout_actions
):
    env = make(env_id, seed=11)
    for name, value in attributes.items():
        setattr(env.unwrapped, name, value)
    model = GymnasiumModel(env, rollout_actions=rollout_actions)
    capsule = model.native_rollout()
    assert capsule is not None, model.native_rollout_refusal
    # every step along long random walks: the state's floats bit for bit, the reward
    walk = random.Random(12)
    state, steps = model.state_of(env), 0
    while steps < 1500:
        action = model.sample_action(state, walk)
        result = model.step(state, action)
        position, reward, terminated = CORE.gym_step(capsule, state.snapshot, action)
        expected = tuple(float(v).hex() for v in result.next_state.snapshot[0])
        assert tuple(v.hex() for v in position) == expected, (state, action)
        assert reward.hex() == result.reward.hex()
        assert terminated == result.terminated or result.next_state.steps_left == 0  # TimeLimit
        steps += 1
        if result.terminated:
            env.reset(seed=steps)  # the reset position (float64 for MountainCarContinuous)
            state = model.state_of(env)
        else:
            state = result.next_state
    # rollouts from reset and walked positions, long ones included
    env.reset(seed=13)
    states = positions(model, env, 6, seed=14)
    cases = [
        (seed, limit, gamma) for seed in range(2) for limit in (1, 7, 200) for gamma in (1.0, 0.9)
    ]
    assert_same_rollouts(model, capsule, states, cases)


def test_mountain_car_continuous_reaches_the_flag_natively():
    # a position next to the flag at full speed: rollouts that terminate with the +100
    env = make("MountainCarContinuous-v0", seed=15)
    env.unwrapped.state = np.array([0.44, 0.05], dtype=np.float32)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    returns = [model.rollout(state, random.Random(s), 50, 1.0) for s in range(20)]
    assert max(returns) > 90
    assert_same_rollouts(model, model.native_rollout(), [state], [(s, 50, 1.0) for s in range(20)])


@pytest.mark.skipif(compiled._core is None, reason="the compiled core is off")
def test_the_models_rollout_runs_the_capsule_and_returns_the_python_rollouts(monkeypatch):
    env = make("Pendulum-v1", seed=16)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    calls = []
    run = native_rollouts.NativeRollouts.run

    def counted(self, *arguments):
        calls.append(arguments[0])
        return run(self, *arguments)

    monkeypatch.setattr(native_rollouts.NativeRollouts, "run", counted)
    for seed in range(3):
        rng, python_rng = random.Random(seed), random.Random(seed)
        got = model.rollout(state, rng, 200, 0.99)
        expected = model._native_rollouts.python_rollout(state, python_rng, 200, 0.99)
        assert got.hex() == expected.hex() and rng.getstate() == python_rng.getstate()
    assert calls == [model.native_rollout()] * 3  # the Python reference did not run it
    with pure_python():  # the core off: the Python rollout, the reference
        model.rollout(state, random.Random(0), 200, 0.99)
    assert len(calls) == 3


@pytest.mark.parametrize("env_id", CONTINUOUS)
def test_progressive_widening_searches_build_the_pure_trees(env_id):
    # the general loop calls model.rollout: native with the core on, Python with it off
    config = {"iterations": 40, "rollout_limit": 100, "seed": 18, "gamma": 0.99}
    python, native = pure_and_compiled_trees(env_id, 17, "repeated", config)
    assert python == native


def pure_and_compiled_trees(env_id, seed, rollout_actions, config):
    """``key_snapshot`` of one search from the reset env, pure-Python loop, then compiled."""
    trees = []
    for backend in ("python", "compiled"):
        env = make(env_id, seed=seed)
        model = GymnasiumModel(env, rollout_actions=rollout_actions)
        if backend == "python":
            with pure_python():
                planner = MCTS(model, **config)
                planner.search(model.state_of(env))
        else:
            planner = MCTS(model, **config)
            assert model.native_rollout() is not None, model.native_rollout_refusal
            planner.search(model.state_of(env))
        trees.append(key_snapshot(planner))
    return trees


def robot_states(env, model):
    """Live positions of the point robot: by the walls, the obstacle's and the goal's edges."""
    robot = env.unwrapped
    places = [(0.0, 0.0), (10.0, 10.0), (0.1, 9.9), (9.95, 0.3), (0.0, 5.0), (5.0, 10.0)]
    places += [(5.0 + 2.05 * c, 5.0 + 2.05 * s) for c, s in ((1, 0), (0, -1), (0.6, 0.8))]
    places += [(9.0 - 0.6, 9.0), (9.0, 9.0 - 0.55), (9.3, 9.4), (7.0, 7.0), (3.5, 2.9)]
    states = []
    for x, y in places:
        robot.set_state((x, y, False))
        states.append(model.state_of(env))
    return states


@pytest.mark.parametrize("rollout_actions", ["uniform", "repeated"])
def test_the_point_robots_native_steps_and_rollouts_are_the_python_ones(rollout_actions):
    env = make("mcts_agent/PointRobot-v0", seed=21)
    model = GymnasiumModel(env, rollout_actions=rollout_actions)
    assert model.clone_method == "env_methods"
    capsule = model.native_rollout()
    assert capsule is not None, model.native_rollout_refusal
    # every step along random walks from the edge positions: (x, y) bit for bit, the reward
    walk = random.Random(22)
    starts = robot_states(env, model)
    ends = {"crash": 0, "goal": 0, "wall": 0}
    for start in starts * 4:
        state = start
        while True:
            action = model.sample_action(state, walk)
            result = model.step(state, action)
            position, reward, terminated = CORE.gym_step(capsule, state.snapshot, action)
            x, y, ended = result.next_state.snapshot
            assert (position[0].hex(), position[1].hex()) == (x.hex(), y.hex()), (state, action)
            assert reward.hex() == result.reward.hex()
            assert terminated == ended
            ends["crash"] += reward < -5
            ends["goal"] += reward > 5
            ends["wall"] += x in (0.0, 10.0) or y in (0.0, 10.0)
            if result.terminated:
                break
            state = result.next_state
    assert min(ends.values()) > 0, ends  # crashes, goal hits and clipping at the walls
    # rollouts from them, and from positions along walks from resets (the TimeLimit's steps)
    states = starts + positions(model, env, 8, seed=23)
    cases = [
        (seed, limit, gamma)
        for seed in range(4)
        for limit in (1, 2, 9, 150)
        for gamma in (1.0, 0.9, 0.0)
    ]
    assert_same_rollouts(model, capsule, states, cases)
    returns = [model.rollout(s, random.Random(k), 150, 1.0) for s in states for k in range(4)]
    assert min(returns) < -5 and max(returns) > 5  # rollouts that crash, that reach the goal


def test_the_point_robots_capsule_follows_its_constants_and_refuses_a_difference(monkeypatch):
    from mcts_agent.envs import point_robot

    env = make("mcts_agent/PointRobot-v0", seed=24)
    model = GymnasiumModel(env)
    capsule = model.native_rollout()
    states = robot_states(env, model)
    cases = [(s, 60, 1.0) for s in range(3)]
    monkeypatch.setattr(point_robot, "STEP_LENGTH", 0.3)  # the env's step reads the module's
    changed = model.native_rollout()
    assert changed is not capsule and changed is not None
    assert_same_rollouts(model, changed, states, cases)
    monkeypatch.undo()

    made = native_rollouts.native_parameters

    def nudged(model, scratch):  # the goal's radius (after the bounds and 7 constants) nudged
        kind, push, parameters, table = made(model, scratch)
        return (
            kind,
            push,
            (*parameters[:13], parameters[13] * (1 + 2**-40), *parameters[14:]),
            table,
        )

    monkeypatch.setattr(native_rollouts, "native_parameters", nudged)
    env.unwrapped.set_state((9.0, 8.45, False))  # a step from the goal's edge
    model = GymnasiumModel(env)
    assert model.native_rollout() is None
    assert "differs from the Python one" in model.native_rollout_refusal


@pytest.mark.parametrize(
    ("arguments", "wrapper", "reason"),
    [({"clone": "deepcopy"}, False, 'not by the known "env_methods"'), ({}, True, "wrappers")],
)
def test_point_robot_models_without_a_native_rollout_say_why(arguments, wrapper, reason):
    from gymnasium.wrappers import RescaleAction

    env = make("mcts_agent/PointRobot-v0")
    model = GymnasiumModel(
        RescaleAction(env, np.float32(-0.5), np.float32(0.5)) if wrapper else env, **arguments
    )
    assert model.native_rollout() is None
    assert reason in model.native_rollout_refusal


def test_a_widened_point_robot_search_builds_the_pure_tree():
    config = {"iterations": 200, "seed": 0, "widening": (1.0, 0.5)}
    python, native = pure_and_compiled_trees("mcts_agent/PointRobot-v0", 25, "uniform", config)
    assert len(python[0][0]) > 20  # a tree of many widened children
    assert python == native
