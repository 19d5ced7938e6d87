"""Probing the Python objects of an env, for the adapters' start-up checks.

What :mod:`mcts_agent.adapters.gymnasium` and
:mod:`mcts_agent.adapters.pettingzoo` both need to look inside an env without
changing it: finding and reseeding its random generators, telling its render
objects (pygame) apart, comparing what it returns, and describing objects in
error messages.

Two near-equivalents are kept apart on purpose, as unifying them would change
behaviour: :func:`same` (Gymnasium outcomes: ``np.array_equal``, NaN equal to
NaN) and :func:`freeze` (PettingZoo fingerprints: arrays compared by their
bytes); and :func:`is_render_object` (Gymnasium: a pygame object or a list or
tuple of them) and the test of
:func:`mcts_agent.adapters.pettingzoo.cloning.copy_attributes` (one object
whose module starts with ``"pygame"``).
"""

from __future__ import annotations

import math
import random
import types
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = [
    "MAX_OBJECTS_SEARCHED",
    "freeze",
    "instance",
    "is_render_object",
    "random_generators",
    "reseed",
    "rng_state",
    "same",
]

_RANDOM_GENERATORS = (random.Random, np.random.Generator, np.random.RandomState)

_NOT_SEARCHED = (
    spaces.Space,
    np.ndarray,
    type,
    types.ModuleType,
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
)
"""What :func:`random_generators` does not look into."""

MAX_OBJECTS_SEARCHED = 5000
"""Most objects visited when looking for an env's random generators."""


# ------------------------------------------------------------ random generators


def random_generators(root: Any, skip: frozenset[int] = frozenset()) -> list[Any]:
    """The random generators reachable from ``root``'s attributes, containers included.

    Follows instance ``__dict__``s, dicts, lists, tuples and sets (at most
    :data:`MAX_OBJECTS_SEARCHED` objects); not gymnasium spaces (shared with
    the live env), arrays, classes, modules or functions.

    Args:
        root: the object to search from (an env, usually).
        skip: ``id`` of the generators to leave out (e.g. the live env's own).

    Returns:
        The ``random.Random``, ``numpy.random.Generator`` and
        ``numpy.random.RandomState`` objects found, each once.
    """
    found = []
    seen: set[int] = set()
    stack = [root]
    while stack and len(seen) < MAX_OBJECTS_SEARCHED:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, _RANDOM_GENERATORS):
            if id(value) not in skip:
                found.append(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            stack.extend(value)
        elif isinstance(value, _NOT_SEARCHED):
            continue
        elif isinstance(getattr(value, "__dict__", None), dict):
            stack.extend(vars(value).values())
    return found


def reseed(generator: Any, seed: int) -> None:
    """Reseeds ``generator`` in place (objects sharing it see the new stream).

    Args:
        generator: a ``random.Random``, ``numpy.random.Generator`` or
            ``numpy.random.RandomState``.
        seed: int, the new seed.
    """
    if isinstance(generator, np.random.Generator):
        bit_generator = generator.bit_generator
        bit_generator.state = type(bit_generator)(seed).state
    else:  # random.Random, np.random.RandomState
        generator.seed(seed)


def rng_state(env: Any) -> Any:
    """The bit generator state of a Gymnasium env's ``np_random``, without creating one.

    Args:
        env: an unwrapped ``gymnasium.Env`` (its ``_np_random`` is read).

    Returns:
        The state dict of its bit generator, or None if it has none yet.
    """
    generator = getattr(env, "_np_random", None)
    return None if generator is None else generator.bit_generator.state


# ---------------------------------------------------------------- render objects


def is_render_object(value: Any) -> bool:
    """True for a pygame object (window, surface, clock, font...) or a list or tuple of them."""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(is_render_object(item) for item in value)
    return type(value).__module__.partition(".")[0] == "pygame"


# ------------------------------------------------------------------- comparisons


def same(a: Any, b: Any) -> bool:
    """Structural equality through tuples, lists, dicts and numpy arrays (NaN equals NaN).

    Args:
        a: a value an env returned (observation, reward, flags...).
        b: another such value.

    Returns:
        True if they are equal: arrays of the same shape and elements (float
        NaNs equal), containers of equal items, else ``a == b``.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" and b.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def freeze(value: Any) -> Any:
    """A comparable copy of an observation (dicts, tuples, lists, arrays, scalars).

    Args:
        value: the observation.

    Returns:
        Nested tuples: dict items sorted by the keys' ``repr``, arrays as
        ``("ndarray", shape, dtype, bytes)``; other values as they are.
    """
    if isinstance(value, dict):
        return tuple((key, freeze(value[key])) for key in sorted(value, key=repr))
    if isinstance(value, (tuple, list)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    return value


# ------------------------------------------------------------------ descriptions


def instance(obj: Any) -> str:
    """``obj``'s class and ``id``, to tell two objects with the same repr apart."""
    return f"{type(obj).__name__} object at {id(obj):#x}"
