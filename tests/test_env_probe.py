"""env_probe: what the adapters' start-up checks find inside an env."""

from __future__ import annotations

import collections
import copy
import random
import sys

import numpy as np
import pytest
from gymnasium_envs import FreshMemoBox, Pouch, StubbornRandom, make

from mcts_agent.adapters.env_probe import (
    deepest_nesting,
    generators_at,
    generators_copied,
    random_generator_paths,
    random_generators,
    require_reseedable,
    reseed,
    shared_mutable_objects,
)


class Handle:
    """A handle to an external simulator: deep copies share it."""

    def __init__(self) -> None:
        self.x = 1

    def __deepcopy__(self, memo: dict) -> Handle:
        return self


class Env:
    def __init__(self) -> None:
        self.world = Handle()
        self.board = [[0, 0], [0, 0]]
        self.cells = np.zeros(4)
        self.name = "plain"


class Slotted:
    __slots__ = ("__private", "items")

    def __init__(self, items: list) -> None:
        self.__private = {"a": 1}
        self.items = items


def test_a_handle_whose_deepcopy_returns_itself_is_found_with_its_path():
    env = Env()
    env.handles = [None, None, Handle()]
    clone = copy.deepcopy(env)
    assert clone.world is env.world and clone.board is not env.board
    assert shared_mutable_objects(env, clone) == ["env.world", "env.handles[2]"]


@pytest.mark.parametrize("env_id", ["FrozenLake-v1", "CartPole-v1", "Taxi-v4"])
def test_a_deep_copy_of_a_real_env_shares_nothing(env_id):
    env = make(env_id, steps=(1, 0)).unwrapped
    assert shared_mutable_objects(env, copy.deepcopy(env)) == []


def test_a_real_env_and_itself_share_everything():
    env = make("CartPole-v1").unwrapped
    assert shared_mutable_objects(env, env) == ["env"]
    # A shallow copy shares its state array and its generator.
    shared = shared_mutable_objects(env, copy.copy(env))
    assert "env.state" in shared and "env._np_random" in shared


def test_arrays_sharing_memory_lists_dicts_sets_slots_and_methods_are_found():
    env = Env()
    env.table = {"row": [1, 2]}
    env.members = {(1, (2, 3))}
    env.slotted = Slotted([5])
    clone = copy.deepcopy(env)
    clone.cells = env.cells[1:3]  # a view: shares memory, another object
    clone.table = {"row": env.table["row"]}
    clone.slotted = Slotted(env.slotted.items)
    clone.callback = env.slotted.__init__  # bound to the original's object
    clone.frozen = (1, (env.board,))
    assert shared_mutable_objects(env, clone, name="e") == [
        "e.world",
        "e.cells",
        "e.table['row']",
        "e.slotted.items",
        "e.callback.__self__",
        "e.frozen[1][0]",
    ]
    # A copied array (even an equal one) and an equal tuple of immutables are not shared.
    clone = copy.deepcopy(env)
    clone.world = Handle()
    clone.members = {(1, (2, 3))} | env.members
    assert shared_mutable_objects(env, clone) == []


def test_slots_with_mangled_names_are_walked():
    env = Env()
    env.slotted = Slotted([5])
    clone = copy.deepcopy(env)
    clone.world = Handle()
    clone.slotted._Slotted__private = env.slotted._Slotted__private
    assert shared_mutable_objects(env, clone) == ["env.slotted._Slotted__private"]


def test_random_generators_are_not_exempt_spaces_and_immutables_are():
    env = make("FrozenLake-v1").unwrapped
    clone = copy.deepcopy(env)
    clone.action_space = env.action_space
    clone.spec = env.spec
    clone.desc = env.desc.copy()
    assert shared_mutable_objects(env, clone) == []
    clone.rng = env.rng = random.Random(0)
    assert shared_mutable_objects(env, clone) == ["env.rng"]


def test_a_5000_deep_nested_list_is_walked_without_recursion():
    depth = 5000
    assert depth > sys.getrecursionlimit()
    original, inner = [], Handle()
    node = original
    for _ in range(depth):
        node.append([])
        node = node[0]
    node.append(inner)
    env, clone = Env(), Env()
    env.history, clone.history = original, copy.copy(original)
    found = shared_mutable_objects(env, clone, limit=10_000)
    assert found == ["env.history[0]"]
    # Unshared but for the innermost handle, which is found at depth 5000.
    rebuilt = node = []
    for _ in range(depth):
        node.append([])
        node = node[0]
    node.append(inner)
    clone.history = rebuilt
    assert shared_mutable_objects(env, clone, limit=10_000) == ["env.history" + "[0]" * (depth + 1)]


def test_cycles_end_the_walk():
    env = Env()
    env.loop = [env]
    env.world.owner = env
    clone = copy.deepcopy(env)
    assert clone.loop[0] is clone
    assert shared_mutable_objects(env, clone) == ["env.world"]
    clone.world = Handle()
    clone.world.owner = clone
    assert shared_mutable_objects(env, clone) == []


def test_more_objects_than_the_limit_is_an_error_not_a_partial_answer():
    env = Env()
    env.history = [[i] for i in range(100)]
    with pytest.raises(ValueError, match="more than 50 objects"):
        shared_mutable_objects(env, copy.deepcopy(env), limit=50)
    env.history = list(range(10_000))  # numbers and strings are not counted
    env.names = {str(i): float(i) for i in range(10_000)}
    assert shared_mutable_objects(env, copy.deepcopy(env), limit=50) == ["env.world"]


def test_deepest_nesting_names_the_attribute_and_counts_its_levels_without_recursion():
    env = Env()
    env.history = []
    for _ in range(5000):
        env.history = [env.history]
    env.loop = [env]
    assert deepest_nesting(env) == ("env.history", 5001)
    env.history = [1, 2]
    # board (2 levels) and world (1) are the deepest now; the cycle through loop ends.
    assert deepest_nesting(env) == ("env.board", 2)


def test_generators_are_found_wherever_a_deep_copy_carries_them():
    env = Env()
    env.world = None
    env.pouch = Pouch(np.random.default_rng(1))  # a slot
    env.queue = collections.deque([0, random.Random(2)])
    env.table = np.array([None, np.random.RandomState(3)], dtype=object)
    env.draw = np.random.default_rng(4).integers  # a bound method's __self__
    expected = [env.pouch.rng, env.queue[1], env.table[1], env.draw.__self__]
    key = {id(g): i for i, g in enumerate(expected)}.__getitem__
    assert sorted(map(id, random_generators(env)), key=key) == [id(g) for g in expected]
    # The paths lead to the copy's own generators, in the same places.
    clone = copy.deepcopy(env)
    in_clone = [clone.pouch.rng, clone.queue[1], clone.table[1], clone.draw.__self__]
    found = generators_at(clone, random_generator_paths(env))
    assert sorted(map(id, found)) == sorted(map(id, in_clone))
    assert not {id(g) for g in found} & {id(g) for g in expected}


def test_a_c_method_bound_to_an_object_of_the_env_is_shared_by_a_deep_copy():
    env = Env()
    env.world = None
    env.roll = random.Random(5).random  # copy.deepcopy copies it as itself
    env.uniform, env.size = random.random, len  # the global generator's, a module's: exempt
    clone = copy.deepcopy(env)
    assert clone.roll is env.roll
    assert shared_mutable_objects(env, clone) == ["env.roll"]
    assert random_generators(env) == [env.roll.__self__]


def test_every_generator_a_deep_copy_makes_is_noted_wherever_it_lies():
    env = Env()
    env.world = None
    env.boxes = {FreshMemoBox(np.random.default_rng(1))}  # a fresh memo, in a set
    env.keys = {random.Random(2): 0}
    env.bits = np.random.PCG64(3)  # drawn from directly
    env.rng = np.random.default_rng(4)  # its own bit generator is not noted apart
    with generators_copied() as made:
        clone = copy.deepcopy(env)
    in_clone = [next(iter(clone.boxes)).rng, next(iter(clone.keys)), clone.bits, clone.rng]
    assert sorted(map(id, made)) == sorted(map(id, in_clone))
    assert copy.deepcopy(env.rng) is not env.rng  # copy's table is as it was after the block
    originals = [next(iter(env.boxes)).rng, next(iter(env.keys)), env.bits, env.rng]
    assert sorted(map(id, random_generators(env))) == sorted(map(id, originals))
    found = generators_at(clone, random_generator_paths(env))  # no path into a set or a key
    assert sorted(map(id, found)) == sorted(map(id, [clone.bits, clone.rng]))


def test_a_generator_that_ignores_its_seed_is_not_reseedable():
    for generator in (
        random.Random(1),
        np.random.RandomState(1),
        np.random.default_rng(1),
        np.random.PCG64(1),
    ):
        require_reseedable(generator, "env.rng")  # no error
    bits = np.random.PCG64(5)
    reseed(bits, 9)
    assert bits.random_raw() == np.random.PCG64(9).random_raw()
    stubborn = StubbornRandom(7)
    state = stubborn.getstate()
    with pytest.raises(ValueError, match=r"env\.x \(gymnasium_envs\.StubbornRandom\) cannot be"):
        require_reseedable(stubborn, "env.x")
    assert stubborn.getstate() == state  # tried on a copy
    with pytest.raises(
        ValueError, match=r"SystemRandom\) cannot be reseeded \(NotImplementedError"
    ):
        require_reseedable(random.SystemRandom(), "env.x")
