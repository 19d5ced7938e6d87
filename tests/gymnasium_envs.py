"""The Gymnasium envs the tests play, and before/after views of a live env."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np


def make(env_id: str, seed: int = 0, steps: tuple = (), **kwargs) -> gym.Env:
    """A reset env, stepped along ``steps`` (its live position mid-episode)."""
    env = gym.make(env_id, **kwargs)
    env.reset(seed=seed)
    for action in steps:
        env.step(action)
    return env


def inner_position(env: gym.Env):
    """What the env's own step reads: toy-text ``s``, classic-control ``state``."""
    inner = env.unwrapped if isinstance(env, gym.Wrapper) else env
    return inner.s if hasattr(inner, "s") else np.array(inner.state, dtype=np.float64)


def live_fingerprint(env: gym.Env) -> tuple:
    """Everything an agent must leave as it was: position, generator, time limit."""
    inner = env.unwrapped
    position = copy.deepcopy(inner_position(env))
    elapsed = env._elapsed_steps if isinstance(env, gym.wrappers.TimeLimit) else None
    return (
        position,
        getattr(inner, "lastaction", None),
        inner.np_random.bit_generator.state,
        elapsed,
    )


def assert_same(a, b) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            np.testing.assert_array_equal(x, y)
        elif isinstance(x, tuple) and isinstance(y, tuple):
            assert_same(x, y)
        else:
            assert x == y
