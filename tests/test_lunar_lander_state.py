"""mcts_agent.envs.lunar_lander_state on Gymnasium's LunarLander (needs Box2D)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

pytest.importorskip("Box2D", reason="LunarLander needs Box2D (pip install -e '.[box2d]')")

import gymnasium as gym  # noqa: E402
from gymnasium.envs.box2d.lunar_lander import heuristic  # noqa: E402

from mcts_agent.envs.lunar_lander_state import LanderSnapshot, get_state, set_state  # noqa: E402


def _lander(continuous: bool = False):
    return gym.make("LunarLander-v3", continuous=continuous).unwrapped


def _landing(seed: int, steps: int):
    """A live lander flown by Gymnasium's heuristic for ``steps`` steps (legs down by ~150)."""
    env = _lander()
    observation, _ = env.reset(seed=seed)
    for _ in range(steps):
        observation, _, terminated, _, _ = env.step(heuristic(env, observation))
        assert not terminated
    return env


def _play(env, actions, generator_state):
    env.np_random.bit_generator.state = copy.deepcopy(generator_state)
    outcomes = []
    for action in actions:
        observation, reward, terminated, _, _ = env.step(action)
        outcomes.append((observation.tobytes(), reward, terminated))
        if terminated:
            break
    return outcomes


@pytest.mark.parametrize("steps", [20, 150])  # in flight; a leg on the pad
def test_outcome_depends_on_the_snapshot_only(steps):
    """Restoring a snapshot into a scratch env moved elsewhere in between: bit-identical steps."""
    live = _landing(seed=3, steps=steps)
    snapshot = get_state(live)
    generator_state = live.np_random.bit_generator.state
    elsewhere = get_state(_landing(seed=4, steps=40))
    actions = list(np.random.default_rng(0).integers(4, size=20))
    scratch = _lander()  # never reset, like the deep copy the model restores into
    runs = []
    for moves in ([], [2, 2, 1], [0, 3, 3, 3, 2]):
        set_state(scratch, elsewhere)
        for action in moves:
            scratch.step(action)
        set_state(scratch, snapshot)
        assert get_state(scratch) == snapshot
        runs.append(_play(scratch, actions, generator_state))
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0]) == 20
    if steps == 150:
        assert any(snapshot.ground_contact)


def test_restored_steps_are_close_to_the_live_env_in_flight():
    """In flight the live env and a restored copy agree to ~1e-6 (warm starting is lost)."""
    live = _landing(seed=1, steps=30)
    snapshot = get_state(live)
    generator_state = copy.deepcopy(live.np_random.bit_generator.state)
    scratch = _lander()
    set_state(scratch, snapshot)
    actions = [0, 2, 1, 3, 2]
    restored = _play(scratch, actions, generator_state)
    reference = _play(live, actions, generator_state)
    for (obs_a, reward_a, end_a), (obs_b, reward_b, end_b) in zip(restored, reference, strict=True):
        a, b = np.frombuffer(obs_a, np.float32), np.frombuffer(obs_b, np.float32)
        np.testing.assert_allclose(a, b, atol=1e-5)
        assert abs(reward_a - reward_b) < 1e-3
        assert end_a == end_b


def test_snapshot_is_immutable_and_survives_later_steps():
    live = _landing(seed=2, steps=10)
    snapshot = get_state(live)
    kept = copy.deepcopy(snapshot)
    for _ in range(5):
        live.step(2)
    assert snapshot == kept
    assert get_state(live) != snapshot
    hash(snapshot)


def test_continuous_lander_restores_too():
    live = _lander(continuous=True)
    live.reset(seed=5)
    for _ in range(10):
        live.step(np.array([0.5, -0.8], np.float32))
    snapshot = get_state(live)
    generator_state = copy.deepcopy(live.np_random.bit_generator.state)
    actions = [np.array([u, v], np.float32) for u, v in [(1, 0), (-1, 1), (0.7, -0.9)]]
    scratch = _lander(continuous=True)
    set_state(scratch, snapshot)
    first = _play(scratch, actions, generator_state)
    set_state(scratch, snapshot)
    assert _play(scratch, actions, generator_state) == first


def test_bad_input():
    with pytest.raises(TypeError, match="expected a LunarLander"):
        get_state(gym.make("CartPole-v1").unwrapped)
    with pytest.raises(ValueError, match="has been reset"):
        get_state(_lander())
    live = _landing(seed=0, steps=1)
    with pytest.raises(TypeError, match="LanderSnapshot"):
        set_state(live, tuple(get_state(live)))
    assert isinstance(get_state(live), LanderSnapshot)
