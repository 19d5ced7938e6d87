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

import collections
import contextlib
import copy
import copyreg
import ctypes
import enum
import math
import random
import re
import threading
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
    "generator_state",
    "generators_at",
    "generators_copied",
    "global_generators_kept",
    "instance",
    "is_render_object",
    "path_text",
    "random_generator_paths",
    "random_generators",
    "require_reseedable",
    "reseed",
    "rng_state",
    "deepest_nesting",
    "same",
    "shared_mutable_objects",
]

_RANDOM_GENERATORS = (
    random.Random,
    np.random.Generator,
    np.random.RandomState,
    np.random.BitGenerator,
)

_NOT_SEARCHED = (spaces.Space, type, types.ModuleType, types.FunctionType)
"""What :func:`random_generators` does not look into (a space's generator only samples it)."""

MAX_OBJECTS_SEARCHED = 5000
"""Most objects visited when looking for an env's random generators."""


# ------------------------------------------------------------ random generators


def random_generators(root: Any, skip: frozenset[int] = frozenset()) -> list[Any]:
    """The random generators reachable from ``root``, wherever a deep copy carries them.

    Follows what :func:`shared_mutable_objects` walks (at most
    :data:`MAX_OBJECTS_SEARCHED` objects): instance ``__dict__`` and
    ``__slots__`` (``@dataclass(slots=True)``), dicts, lists, tuples,
    ``collections.deque``, sets, object arrays and bound methods'
    ``__self__`` (``self.draw = rng.integers``); not gymnasium spaces (their
    generator only samples them), classes, modules or functions.

    Args:
        root: the object to search from (an env, usually).
        skip: ``id`` of the generators to leave out (e.g. the live env's own).

    Returns:
        The ``random.Random``, ``numpy.random.Generator``,
        ``numpy.random.RandomState`` and ``numpy.random.BitGenerator`` (a
        ``PCG64`` drawn from directly) objects found, each once.
    """
    return [
        generator
        for generator, _ in _generators_and_paths(root, with_paths=False)
        if id(generator) not in skip
    ]


GeneratorPath = tuple[tuple[str, Any], ...]
"""Where a generator lies under an object: ``("attribute", name)`` (an instance attribute, a
slot, a bound method's ``__self__``), ``("item", key)`` (a dict's) or ``("index", i)`` (a
list's, tuple's, deque's or object array's) steps."""


def random_generator_paths(root: Any) -> list[GeneratorPath]:
    """Where :func:`random_generators` finds ``root``'s generators, as paths (one walk).

    Follow them with :func:`generators_at` on ``root`` or on a copy of it:
    far cheaper than walking again an env that holds large tables (Taxi's
    ``P``), though a generator the object makes later is not on them.
    Members of sets (and what lies under a dict's keys) have no path and are
    left out.
    """
    return [path for _, path in _generators_and_paths(root) if path is not None]


def path_text(path: GeneratorPath, name: str = "env") -> str:
    """A :data:`GeneratorPath` as text: ``env.table[3].rng``."""
    return name + "".join(_step(kind, key) for kind, key in path)


def generators_at(root: Any, paths: list[GeneratorPath]) -> list[Any]:
    """The generators at ``paths`` under ``root`` (a path that leads nowhere is skipped)."""
    found = []
    for path in paths:
        value = root
        try:
            for kind, key in path:
                value = _part(value, kind, key)
        except (KeyError, IndexError, TypeError, AttributeError):
            continue
        if isinstance(value, _RANDOM_GENERATORS):
            found.append(value)
    return found


def _part(value: Any, kind: str, key: Any) -> Any:
    """One step of a :data:`GeneratorPath` from ``value``."""
    if kind == "item":
        return value[key]
    if kind == "index":
        return value.flat[key] if isinstance(value, np.ndarray) else value[key]
    try:
        attributes = object.__getattribute__(value, "__dict__")
    except AttributeError:
        attributes = None
    if isinstance(attributes, dict) and key in attributes:
        return attributes[key]
    return object.__getattribute__(value, key)  # a slot, a bound method's __self__


def _generators_and_paths(
    root: Any, with_paths: bool = True
) -> list[tuple[Any, GeneratorPath | None]]:
    """The generators reachable from ``root``, each once, with a path to it (None: no path)."""
    found = []
    seen: set[int] = set()
    stack: list[tuple[Any, GeneratorPath | None]] = [(root, () if with_paths else None)]
    common = _COMMON_ATOMS
    while stack and len(seen) < MAX_OBJECTS_SEARCHED:
        value, path = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, _RANDOM_GENERATORS):
            found.append((value, path))
            continue
        if isinstance(value, _NOT_SEARCHED):
            continue
        for child, kind, key in _children(value):
            if type(child) in common or id(child) in seen or _is_exempt(child):
                continue
            if path is None or kind == "key" or kind == "member":
                stack.append((child, None))
            else:
                stack.append((child, (*path, (kind, key))))
    return found


@contextlib.contextmanager
def generators_copied() -> Iterator[list[Any]]:
    """Notes every random generator ``copy.deepcopy`` makes in this thread, within the block.

    Wherever a deep copy carries them: in a set, under a dict's key, past
    :data:`MAX_OBJECTS_SEARCHED` objects (where :func:`random_generator_paths`
    does not reach), or under an object whose ``__deepcopy__`` starts a fresh
    memo (``return Box(copy.deepcopy(self.g))``), so that a copy's every
    generator can be perturbed. ``copy``'s table of copiers gets an entry for
    each generator class (``random.Random``, numpy's ``Generator``,
    ``RandomState`` and bit generators, their subclasses included) for the
    block; a generator is copied as ``copy.deepcopy`` copies it otherwise.

    Yields:
        The list, filled as the block copies, of the generators made (each a
        copy; in the order made). Copies made by other threads are not listed.
    """
    made: list[Any] = []
    thread = threading.get_ident()
    inside = [0]  # generators being copied: a Generator's own bit generator is not listed

    def copier(generator: Any, memo: dict[int, Any]) -> Any:
        mine = threading.get_ident() == thread
        inside[0] += mine
        try:
            own = getattr(generator, "__deepcopy__", None)
            if own is not None:
                made_copy = own(memo)
            else:  # what copy.deepcopy does for a class without a copier
                reductor = copyreg.dispatch_table.get(type(generator))
                reduced = reductor(generator) if reductor else generator.__reduce_ex__(4)
                if isinstance(reduced, str):
                    return generator
                made_copy = copy._reconstruct(generator, memo, *reduced)
        finally:
            inside[0] -= mine
        if mine and inside[0] == 0:
            made.append(made_copy)
        return made_copy

    classes = list(_RANDOM_GENERATORS)
    for cls in classes:
        classes.extend(sub for sub in cls.__subclasses__() if sub not in classes)
    table = copy._deepcopy_dispatch
    replaced = {cls: table[cls] for cls in classes if cls in table}
    table.update(dict.fromkeys(classes, copier))
    try:
        yield made
    finally:
        for cls in classes:
            if table.get(cls) is copier:
                del table[cls]
        table.update(replaced)


def reseed(generator: Any, seed: int) -> None:
    """Reseeds ``generator`` in place (objects sharing it see the new stream).

    Args:
        generator: a ``random.Random``, ``numpy.random.Generator``,
            ``numpy.random.RandomState`` or ``numpy.random.BitGenerator``.
        seed: int, the new seed.
    """
    if isinstance(generator, np.random.Generator):
        generator = generator.bit_generator
    if isinstance(generator, np.random.BitGenerator):
        generator.state = type(generator)(seed).state
    else:  # random.Random, np.random.RandomState
        generator.seed(seed)


def generator_state(generator: Any) -> Any:
    """The state of a random generator, to compare (``getstate``, ``get_state``, ``.state``).

    Args:
        generator: a ``random.Random``, ``numpy.random.Generator``,
            ``numpy.random.RandomState`` or ``numpy.random.BitGenerator``.

    Returns:
        Its state (a tuple or dict, :func:`same` compares them); a copy.
    """
    if isinstance(generator, random.Random):
        return generator.getstate()
    if isinstance(generator, np.random.RandomState):
        return generator.get_state()
    if isinstance(generator, np.random.Generator):
        generator = generator.bit_generator
    return generator.state


def require_reseedable(generator: Any, where: str) -> None:
    """Raises ValueError unless reseeding ``generator`` takes (tried on a deep copy of it).

    The planner plans an env's chance by reseeding its generators; one that
    ignores :func:`reseed` (a subclass whose ``seed`` does nothing, a
    ``random.SystemRandom``) would draw in every clone what the live env will
    draw. A copy reseeded 1, 2 and 1 again must be in two different states,
    the first and last alike.

    Args:
        generator: the generator (not changed).
        where: where it lies, for the message (``"env.rng"``).

    Raises:
        ValueError: if it cannot be reseeded, naming its type and ``where``.
    """
    try:
        trial = copy.deepcopy(generator)
        states = []
        for seed in (1, 2, 1):
            reseed(trial, seed)
            states.append(generator_state(trial))
        taken = same(states[0], states[2]) and not same(states[0], states[1])
        cause = "seeds 1 and 2 left it in the same state" if not taken else ""
    except Exception as error:  # getstate or seed refused
        taken, cause = False, f"{type(error).__name__}: {error}"
    if not taken:
        raise ValueError(
            f"the env's random generator {where} ({type(generator).__module__}."
            f"{type(generator).__qualname__}) cannot be reseeded ({cause}): every clone would "
            "draw what the live env will draw, and the plan would know its dice. The planner "
            "plans chance by reseeding the env's generators: use a generator whose seed() (or "
            "numpy bit generator's state) takes, e.g. self.np_random, random.Random or "
            "np.random.default_rng"
        )


_MT19937_STATE_BYTES = 624 * 4 + 4
"""Size of numpy's ``mt19937_state`` (``uint32_t key[624]; int pos``)."""


@contextlib.contextmanager
def global_generators_kept(*, exact: bool = False) -> Iterator[None]:
    """Puts Python's ``random`` and numpy's global ``np.random`` back as they were, on exit.

    However the block exits (an error included). Cheap enough to run at
    every check while planning: Python's state by ``random.getstate``;
    numpy's by the bytes of the Mersenne Twister behind ``np.random``
    (``np.random.get_state`` takes 85 us), which leaves out the Gaussian
    numpy keeps for the next ``np.random.normal`` call.

    Args:
        exact: True to put numpy's state back whole (``np.random.get_state``
            and ``set_state``: the kept Gaussian too), for the start-up checks.
    """
    python_state = random.getstate()
    if exact:
        numpy_state = np.random.get_state()
    else:  # the MT19937 behind np.random's functions (np.random.get_bit_generator() from 1.25)
        address = np.random.mtrand._rand._bit_generator.ctypes.state_address
        numpy_bytes = ctypes.string_at(address, _MT19937_STATE_BYTES)
    try:
        yield
    finally:
        random.setstate(python_state)
        if exact:
            np.random.set_state(numpy_state)
        else:
            ctypes.memmove(address, numpy_bytes, _MT19937_STATE_BYTES)


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
    if isinstance(value, (list, tuple, collections.deque)):
        return [(item, "index", i) for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        return [(item, "member", i) for i, item in enumerate(value)]
    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return []
        return [(item, "index", i) for i, item in enumerate(value.flat)]
    if isinstance(value, (types.MethodType, types.BuiltinMethodType)):
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


_GLOBAL_GENERATORS = (random._inst, np.random.mtrand._rand)
"""Python's and numpy's global generators (behind ``random.random``, ``np.random.random``...)."""


def _is_exempt(value: Any) -> bool:
    if type(value) in _COMMON_ATOMS:
        return True
    if isinstance(value, types.BuiltinMethodType) and _bound_to_an_object(value):
        return False  # copy.deepcopy shares it, and its object with it
    return (
        isinstance(value, _ATOMS) or isinstance(value, _SHARED_BY_DESIGN) or is_render_object(value)
    )


def _bound_to_an_object(method: Any) -> bool:
    """True for a C method bound to an object of the env's (``rng.random`` of a ``random.Random``).

    ``copy.deepcopy`` copies such a method as itself, so a copy calling it
    changes the object it is bound to. Not for functions of a module
    (``len``), methods of a class (``dict.fromkeys``) or of Python's and
    numpy's global generators (``random.random``, ``np.random.random``: a
    draw from outside the env, which the determinism checks tell).
    """
    owner = method.__self__
    return not (
        owner is None
        or isinstance(owner, (types.ModuleType, tuple, frozenset, *_ATOMS))
        or any(owner is generator for generator in _GLOBAL_GENERATORS)
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
    # getattr: some extension types (Box2D's SWIG proxies) raise AttributeError for __module__.
    module = getattr(type(value), "__module__", None)
    return isinstance(module, str) and module.partition(".")[0] == "pygame"


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
