"""The Gymnasium envs the tests play, and before/after views of a live env."""

from __future__ import annotations

import collections
import copy
import dataclasses
import random

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


class World:
    """A handle to an external simulator: a deep copy shares it (``__deepcopy__`` returns it)."""

    def __init__(self, x: int = 1) -> None:
        self.x = x

    def __deepcopy__(self, memo: dict) -> World:
        return self


class CopiedWorld(World):
    """The fix the refusal advises: a deep copy gets its own simulator in the same state."""

    def __deepcopy__(self, memo: dict) -> CopiedWorld:
        return CopiedWorld(self.x)


class SimulatorEnv(gym.Env):
    """Moves the ``x`` of an external simulator, read through a handle in ``env.world``."""

    action_space = gym.spaces.Discrete(2)
    observation_space = gym.spaces.Discrete(1000)

    def __init__(self, world_class: type = World) -> None:
        self.world = world_class()

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.world.x = 1
        return self.world.x, {}

    def step(self, action):
        self.world.x += 1 + int(action)
        return self.world.x, float(action), self.world.x >= 999, False, {}


class LateChance(gym.Env):
    """Deterministic for its first 30 moves (as far as the start-up probe steps), then draws.

    ``source``: ``"np_random"`` (``self.np_random``), ``"generator"`` (its
    own ``np.random.Generator``), ``"Random"`` (its own ``random.Random``),
    ``"random"`` (Python's global generator) or ``"np.random"`` (numpy's).
    From the 31st move on, the draw is added to the observed position.
    """

    action_space = gym.spaces.Discrete(2)
    observation_space = gym.spaces.Box(-1e9, 1e9, (1,), np.float64)
    FIRST_DRAW = 31  # the start-up probe steps at most 30 moves

    def __init__(self, source: str = "np_random") -> None:
        self.source = source
        self.generator = np.random.default_rng(7)
        self.random = random.Random(7)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.moves = 0
        self.position = 0.0
        return np.array([self.position]), {}

    def draw(self) -> float:
        return {
            "np_random": lambda: self.np_random.random(),
            "generator": lambda: self.generator.random(),
            "Random": lambda: self.random.random(),
            "random": random.random,
            "np.random": np.random.random,
        }[self.source]()

    def step(self, action):
        self.moves += 1
        self.position += int(action)
        if self.moves >= self.FIRST_DRAW:
            self.position += self.draw()
        return np.array([self.position]), float(action), False, False, {}


@dataclasses.dataclass(slots=True)
class Pouch:
    """Holds a generator in a slot (no ``__dict__``)."""

    rng: np.random.Generator


class StubbornRandom(random.Random):
    """A ``random.Random`` whose ``seed`` does nothing after the first call (its constructor's)."""

    def seed(self, a=None, version=2):
        if not getattr(self, "seeded", False):
            self.seeded = True
            super().seed(a, version)


class FreshMemoBox:
    """Holds a generator; its ``__deepcopy__`` starts a fresh memo (the caller's memo never
    sees the generator's copy)."""

    def __init__(self, rng):
        self.rng = rng

    def __deepcopy__(self, memo):
        return FreshMemoBox(copy.deepcopy(self.rng))


class CoinGuess(gym.Env):
    """One step: guess a coin (action 0 or 1), drawn when stepping; reward 1 if right.

    ``holder`` says where the coin's generator (seeded at reset) lies:
    ``"np_random"``, ``"slots"`` (a ``@dataclass(slots=True)``), ``"deque"``
    (a ``collections.deque``), ``"method"`` (``self.draw = rng.integers``,
    a bound method of a numpy ``Generator``), ``"builtin"`` (``self.draw
    = rng.random`` of a ``random.Random``: a C method, which ``copy.deepcopy``
    copies as itself), ``"set"`` (a set: no path leads to it), ``"far"``
    (an attribute the walk for generators reaches only after a table of
    ``table`` lists: past ``MAX_OBJECTS_SEARCHED``, 5,000, by default),
    ``"random_in_set"`` / ``"random_as_key"`` (a ``random.Random`` in a set
    or under a dict's key, the coin ``randrange(2)``), ``"box_in_set"`` (a
    :class:`FreshMemoBox` in a set), ``"stubborn"`` (a :class:`StubbornRandom`)
    or ``"bit_generator"`` (a ``PCG64`` drawn from directly: ``random_raw() & 1``).
    """

    action_space = gym.spaces.Discrete(2)
    observation_space = gym.spaces.Discrete(3)

    def __init__(self, holder: str, table: int = 6000) -> None:
        self.holder = holder
        self.table_size = table

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        rng = np.random.default_rng(seed)
        if self.holder == "slots":
            self.pouch = Pouch(rng)
        elif self.holder == "deque":
            self.pouches = collections.deque([rng])
        elif self.holder == "method":
            self.draw = rng.integers
        elif self.holder == "builtin":
            self.draw = random.Random(seed).random
        elif self.holder == "set":
            self.pouches = {rng}
        elif self.holder == "far":
            self.far = rng
            self.table = [[i] for i in range(self.table_size)]
        elif self.holder == "random_in_set":
            self.pouches = {random.Random(seed)}
        elif self.holder == "random_as_key":
            self.pouches = {random.Random(seed): "coin"}
        elif self.holder == "box_in_set":
            self.pouches = {FreshMemoBox(rng)}
        elif self.holder == "stubborn":
            self.stubborn = StubbornRandom(seed)
        elif self.holder == "bit_generator":
            self.bits = np.random.PCG64(seed)
        return 0, {}

    def coin(self) -> int:
        if self.holder == "np_random":
            return int(self.np_random.integers(0, 2))
        if self.holder == "slots":
            return int(self.pouch.rng.integers(0, 2))
        if self.holder == "deque":
            return int(self.pouches[0].integers(0, 2))
        if self.holder == "method":
            return int(self.draw(0, 2))
        if self.holder == "set":
            return int(next(iter(self.pouches)).integers(0, 2))
        if self.holder == "far":
            return int(self.far.integers(0, 2))
        if self.holder in ("random_in_set", "random_as_key"):
            return next(iter(self.pouches)).randrange(2)
        if self.holder == "box_in_set":
            return int(next(iter(self.pouches)).rng.integers(0, 2))
        if self.holder == "stubborn":
            return self.stubborn.randrange(2)
        if self.holder == "bit_generator":
            return int(self.bits.random_raw() & 1)
        return int(self.draw() * 2)

    def step(self, action):
        coin = self.coin()
        return 1 + coin, float(action == coin), True, False, {}
