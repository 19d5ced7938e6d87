"""Probing the Python objects of an env, for the adapters' start-up checks.

What :mod:`mcts_agent.adapters.gymnasium` and
:mod:`mcts_agent.adapters.pettingzoo` both need to look inside an env without
changing it: finding and reseeding its random generators, telling its render
objects (pygame) apart, finding the mutable objects a copy of it shares with it,
comparing what it returns, and describing objects in error messages.

Two near-equivalents are kept apart on purpose, as unifying them would change
behaviour: :func:`same` (Gymnasium outcomes: ``np.array_equal``, NaN equal to
NaN) and :func:`freeze` (PettingZoo fingerprints: arrays compared by their
bytes); and :func:`is_render_object` (Gymnasium: a pygame object or a list or
tuple of them) and the test of
:func:`mcts_agent.adapters.pettingzoo.cloning.copy_attributes` (one object
whose module starts with ``"pygame"``).
"""

from __future__ import annotations

import enum
import math
import random
import re
import types
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec

__all__ = [
    "MAX_OBJECTS_COMPARED",
    "MAX_OBJECTS_SEARCHED",
    "freeze",
    "generators_at",
    "instance",
    "is_render_object",
    "random_generator_paths",
    "random_generators",
    "reseed",
    "rng_state",
    "deepest_nesting",
    "same",
    "shared_mutable_objects",
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
    return [generator for generator, _ in _generators_and_paths(root) if id(generator) not in skip]


GeneratorPath = tuple[tuple[str, Any], ...]
"""Where a generator lies under an object: ``("attribute", name)`` / ``("item", key)`` steps."""


def random_generator_paths(root: Any) -> list[GeneratorPath]:
    """Where :func:`random_generators` finds ``root``'s generators, as paths (one walk).

    Follow them with :func:`generators_at` on ``root`` or on a copy of it:
    far cheaper than walking again an env that holds large tables (Taxi's
    ``P``), though a generator the object makes later is not on them.
    Members of sets have no path and are left out.
    """
    return [path for _, path in _generators_and_paths(root) if path is not None]


def generators_at(root: Any, paths: list[GeneratorPath]) -> list[Any]:
    """The generators at ``paths`` under ``root`` (a path that leads nowhere is skipped)."""
    found = []
    for path in paths:
        value = root
        try:
            for kind, key in path:
                value = vars(value)[key] if kind == "attribute" else value[key]
        except (KeyError, IndexError, TypeError):
            continue
        if isinstance(value, _RANDOM_GENERATORS):
            found.append(value)
    return found


def _generators_and_paths(root: Any) -> list[tuple[Any, GeneratorPath | None]]:
    """The generators reachable from ``root``, each once, with a path to it (None in a set)."""
    found = []
    seen: set[int] = set()
    stack: list[tuple[Any, GeneratorPath | None]] = [(root, ())]
    while stack and len(seen) < MAX_OBJECTS_SEARCHED:
        value, path = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, _RANDOM_GENERATORS):
            found.append((value, path))
        elif isinstance(value, dict):
            stack.extend(
                (item, None if path is None else (*path, ("item", key)))
                for key, item in value.items()
            )
        elif isinstance(value, (list, tuple)):
            stack.extend(
                (item, None if path is None else (*path, ("item", i)))
                for i, item in enumerate(value)
            )
        elif isinstance(value, (set, frozenset)):
            stack.extend((item, None) for item in value)
        elif isinstance(value, _NOT_SEARCHED):
            continue
        elif isinstance(getattr(value, "__dict__", None), dict):
            stack.extend(
                (item, None if path is None else (*path, ("attribute", key)))
                for key, item in vars(value).items()
            )
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


# ---------------------------------------------------------------- shared objects

MAX_OBJECTS_COMPARED = 200_000
"""Most objects :func:`shared_mutable_objects` visits on each side."""

_ATOMS = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    range,
    type(Ellipsis),
    type(NotImplemented),
    enum.Enum,
    np.generic,
    np.dtype,
    re.Pattern,
    weakref.ref,
    property,
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.CodeType,
)
"""Immutable values (or values ``copy.deepcopy`` itself shares): never reported, never walked."""

_SHARED_BY_DESIGN = (spaces.Space, EnvSpec)
"""Mutable objects a copy may share with its env: never reported, never walked."""


def shared_mutable_objects(
    original: Any,
    copy: Any,
    *,
    name: str = "env",
    limit: int = MAX_OBJECTS_COMPARED,
    exempt: tuple[type, ...] = (),
) -> list[str]:
    """The paths of the mutable objects of ``copy`` that are reachable from ``original`` too.

    Stepping a copy that shares a mutable object with the live env changes
    the live env through it: a list, a dict, an array sharing memory, or a
    handle to an external simulator whose ``__deepcopy__`` returns itself.
    Both objects are walked iteratively (no recursion: any nesting depth)
    through instance ``__dict__``s and ``__slots__``, dicts (keys and
    values), lists, tuples, sets, frozensets, object arrays and bound
    methods' ``__self__``. An object of ``copy`` that *is* (identity) one of
    ``original``'s is reported and not walked further; a numpy array is
    reported if it shares memory (``np.shares_memory``) with one of
    ``original``'s arrays.

    Exempt (never reported, never walked):

    * immutable values: None, bools, numbers, strings, bytes, ranges, enum
      members, numpy scalars and dtypes; tuples and frozensets themselves
      (their items are walked);
    * what ``copy.deepcopy`` itself shares: classes, modules, functions,
      code objects, compiled regular expressions, weak references,
      properties;
    * what describes the env rather than its position, which no ``step``
      changes: Gymnasium spaces (``observation_space``, ``action_space``) and
      the registration ``EnvSpec`` (``spec``);
    * render objects (:func:`is_render_object`: pygame windows, surfaces,
      clocks), which drawing changes but no ``step`` reads.

    Random generators are *not* exempt: a copy stepping the live env's
    generator changes the live env's future draws.

    Args:
        original: the live object (an env, usually), not changed.
        copy: its copy (an env, a snapshot...), not changed.
        name: how paths start (``"env"`` gives ``"env.world"``).
        limit: most non-atomic objects visited on each side.
        exempt: classes whose instances the caller knows are never changed
            once made, so copies may share them (e.g. python-chess's
            ``_BoardState``, which ``chess.Board.__deepcopy__`` shares): never
            reported.

    Returns:
        The paths, in the order found, of ``copy``'s shared objects:
        attributes as ``.name``, items as ``[key]`` (``repr`` of the key or
        index), dict keys as ``.keys()[i]``, set items as ``{i}``, a bound
        method's object as ``.__self__``. Empty if nothing is shared.

    Raises:
        ValueError: if either side has more than ``limit`` objects to visit
            (the check cannot be complete).
    """
    seen: set[int] = set()
    arrays_by_owner: dict[int, list[np.ndarray]] = {}
    for value, _ in _walk(original, None, limit, "original"):
        if isinstance(value, np.ndarray):
            arrays_by_owner.setdefault(id(_memory_owner(value)), []).append(value)
        seen.add(id(value))
    shared = []
    for value, node in _walk(copy, seen, limit, "copy"):
        if id(value) in seen and not isinstance(value, (tuple, frozenset, *exempt)):
            shared.append(_path(name, node))
        elif isinstance(value, np.ndarray) and any(
            np.shares_memory(value, other)
            for other in arrays_by_owner.get(id(_memory_owner(value)), ())
        ):
            shared.append(_path(name, node))
    return shared


def deepest_nesting(
    root: Any, *, name: str = "env", limit: int = MAX_OBJECTS_COMPARED
) -> tuple[str, int]:
    """The most deeply nested object reachable from ``root``, found without recursion.

    Walks what :func:`shared_mutable_objects` walks (each object once,
    exempt objects left out), depth first. ``copy.deepcopy`` and ``pickle``
    recurse once or more per level, so an attribute nested deeper than
    about a quarter of ``sys.getrecursionlimit()`` cannot be copied.

    Args:
        root: the object to search from (an env, usually), not changed.
        name: how the path starts.
        limit: most objects visited; past it the deepest found so far is returned.

    Returns:
        ``(path, depth)``: the path of ``root``'s attribute (or item) under
        which the deepest object lies, e.g. ``"env.history"``, and the
        number of levels from that attribute down to the deepest object,
        both included (1 for an attribute holding no object); ``(name, 0)``
        if ``root`` holds nothing to walk.
    """
    best: tuple[str, int] = (name, 0)
    visited: set[int] = {id(root)}
    stack = [(child, 1, (None, kind, key)) for child, kind, key in _children(root)]
    stack = [entry for entry in reversed(stack) if not _is_exempt(entry[0])]
    while stack and len(visited) < limit:
        value, depth, top = stack.pop()
        if id(value) in visited:
            continue
        visited.add(id(value))
        if depth > best[1]:
            best = (name + _step(top[1], top[2]), depth)
        stack.extend(
            (child, depth + 1, top)
            for child, _, _ in reversed(_children(value))
            if not _is_exempt(child)
        )
    return best


_Node = tuple  # (parent node or None, kind, key): a path, built only when reported


def _walk(root: Any, stop: set[int] | None, limit: int, side: str) -> Iterator[tuple[Any, _Node]]:
    """Yields ``(object, node)`` for the non-atomic objects reachable from ``root``, each once.

    Depth first, in attribute and item order. ``node`` leads back to the
    root (:func:`_path`). The parts of an object whose ``id`` is in ``stop``
    (other than tuples and frozensets, which cannot be shared mutably) are
    not visited.

    Raises:
        ValueError: past ``limit`` objects.
    """
    visited: set[int] = set()
    stack: list[tuple[Any, _Node]] = [(root, (None, "root", None))]
    while stack:
        value, node = stack.pop()
        if id(value) in visited:
            continue
        visited.add(id(value))
        if len(visited) > limit:
            raise ValueError(
                f"the {side} has more than {limit} objects to compare; cannot check that "
                "the copy shares no mutable object with the original"
            )
        yield value, node
        if stop is not None and id(value) in stop and not isinstance(value, (tuple, frozenset)):
            continue
        stack.extend(
            (child, (node, kind, key))
            for child, kind, key in reversed(_children(value))
            if not _is_exempt(child)
        )


def _path(name: str, node: _Node) -> str:
    """The path of ``node`` from the root called ``name``."""
    steps = []
    while node[0] is not None:
        node, kind, key = node
        steps.append(_step(kind, key))
    return name + "".join(reversed(steps))


def _children(value: Any) -> list[tuple[Any, str, Any]]:
    """``value``'s direct parts as ``(object, kind, key)``, formatted by :func:`_step`."""
    if isinstance(value, dict):
        return [(item, "item", key) for key, item in value.items()] + [
            (key, "key", i) for i, key in enumerate(value)
        ]
    if isinstance(value, (list, tuple)):
        return [(item, "index", i) for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        return [(item, "member", i) for i, item in enumerate(value)]
    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return []
        return [(item, "index", i) for i, item in enumerate(value.flat)]
    if isinstance(value, types.MethodType):
        return [(value.__self__, "attribute", "__self__")]
    children = []
    try:
        attributes = object.__getattribute__(value, "__dict__")
    except (AttributeError, TypeError):
        attributes = None
    if isinstance(attributes, dict):
        children.extend((item, "attribute", key) for key, item in attributes.items())
    for slot in _slot_names(type(value)):
        try:
            children.append((object.__getattribute__(value, slot), "attribute", slot))
        except AttributeError:  # an empty slot
            pass
    return children


def _step(kind: str, key: Any) -> str:
    """One step of a path: ``.name``, ``[key]``, ``.keys()[i]`` or ``{i}``."""
    if kind == "attribute":
        return f".{key}"
    if kind == "item":
        return f"[{key!r}]"
    if kind == "key":
        return f".keys()[{key}]"
    if kind == "member":
        return f"{{{key}}}"
    return f"[{key}]"


def _slot_names(cls: type) -> list[str]:
    """The attribute names of ``cls``'s ``__slots__``, its bases' included (names mangled)."""
    names = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot in ("__dict__", "__weakref__"):
                continue
            if slot.startswith("__") and not slot.endswith("__"):
                slot = f"_{klass.__name__.lstrip('_')}{slot}"
            names.append(slot)
    return names


_COMMON_ATOMS = frozenset(
    {type(None), bool, int, float, str, bytes, np.float64, np.int64, np.bool_}
)
"""Exact types of :data:`_ATOMS` tested first, for speed."""


def _is_exempt(value: Any) -> bool:
    return type(value) in _COMMON_ATOMS or (
        isinstance(value, _ATOMS) or isinstance(value, _SHARED_BY_DESIGN) or is_render_object(value)
    )


def _memory_owner(array: np.ndarray) -> Any:
    """The object owning ``array``'s memory: its base array, or the buffer under it."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    owner = array if array.base is None else array.base
    return owner.obj if isinstance(owner, memoryview) else owner


# ---------------------------------------------------------------- render objects


def is_render_object(value: Any) -> bool:
    """True for a pygame object (window, surface, clock, font...) or a list or tuple of them."""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_is_pygame_object(item) for item in value)
    return _is_pygame_object(value)


def _is_pygame_object(value: Any) -> bool:
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
