"""The checks of :class:`GymnasiumModel`: the clone and the determinism.

At start-up (:func:`check_clone_and_determinism`) and while planning
(:func:`check_steps_again`); see the "Checks at start-up" and "Chance found
while planning" of :mod:`mcts_agent.adapters.gymnasium.model`.
"""

from __future__ import annotations

import copy
import operator
import os
import random
import re
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from mcts_agent.adapters.env_probe import (
    MAX_OBJECTS_SEARCHED,
    GeneratorPath,
    generators_at,
    generators_copied,
    global_generators_kept,
    instance,
    path_text,
    random_generators,
    require_reseedable,
    reseed,
    rng_state,
    same,
    shared_mutable_objects,
)
from mcts_agent.adapters.errors import CloneCheckError
from mcts_agent.adapters.gymnasium.cloning import detached_copy

if TYPE_CHECKING:
    from mcts_agent.adapters.gymnasium.model import GymnasiumModel, GymnasiumState

__all__ = [
    "CHECK_EVERY",
    "check_clone_and_determinism",
    "check_steps_again",
    "copied_observation",
]

_PROBE_STEPS = 30  # most steps of one start-up probe
_PROBE_TRIALS = 8  # random action sequences tried by the determinism check

_PROBE_SEED = 7_919  # seed of the generators at the first step of a probe

_PERTURBATIONS = 16  # perturbed deep copies compared when some generator lies out of reach

CHECK_EVERY = 32
"""While planning, one ``step`` in this many is stepped again (:func:`check_steps_again`)."""


def check_clone_and_determinism(model: GymnasiumModel, env: gym.Env) -> tuple[Any, bool]:
    """Runs the start-up checks of ``model`` on the live ``env`` (the model's module docstring).

    Args:
        model: the model being built (its cloning bound, its actions known).
        env: the live env, never stepped.

    Every step of the clone check is taken with the generators of the env
    stepped (the clone's, the deep copies') seeded alike (step ``i`` of a
    probe with ``_PROBE_SEED + i``), so that an env drawing from its own
    generators compares alike too; the determinism check then tells it
    apart.

    Returns:
        ``(probed, stochastic)``: the deep copy of ``env.unwrapped`` the
        checks stepped along the probe's actions (what its steps change tells
        its position apart), and True if the env's steps draw from its own
        generators (two seeds of them give different outcomes; the model then
        samples its steps, :mod:`~mcts_agent.adapters.gymnasium.stochastic`).

    Raises:
        CloneCheckError: if the clone does not behave like a deep copy of the
            env, or stepping it changed the live env.
        ValueError: if the env draws from outside itself, has no legal action, or
            reports masks in ``info`` only with no way to read the live one.

    Python's ``random`` and numpy's global ``np.random`` are put back as they
    were, however the checks end (a refusal included).
    """
    with global_generators_kept(exact=True):
        return _check_clone_and_determinism(model, env)


def _check_clone_and_determinism(model: GymnasiumModel, env: gym.Env) -> tuple[Any, bool]:
    live = model._unwrapped
    name = type(live).__name__
    root = model.state_of(env)
    if root.actions == ():  # None: sampled actions, never empty while the episode runs
        raise ValueError(
            "the env has no legal action in its current position (is its episode over?): "
            "call env.reset() before planning"
        )
    live_rng = rng_state(live)
    reference_env = detached_copy(live)
    _refuse_sharing(model, reference_env, f"copy.deepcopy({name})")
    if model.clone_method in ("user", "env_methods"):
        _refuse_sharing(model, root.snapshot, f"the snapshot of get_state({name})")
        _refuse_sharing(model, model._checkout(root.snapshot), "the env the clone steps")
    try:
        actions = _probe_actions(model, root, random.Random(0))
        reference = _play(reference_env, model._inner_actions, actions, model._generator_paths)
        # The clone: every step restores a position into an env moved elsewhere first.
        snapshot = root.snapshot
        others = actions if root.actions is None else root.actions  # to move the scratch env
        for i, action in enumerate(actions):
            elsewhere = model._checkout(root.snapshot)
            elsewhere.step(model._inner_actions[others[(i + 1) % len(others)]])
            clone = model._checkout(snapshot)
            _reseed_clone(clone, _PROBE_SEED + i, model._generator_paths)
            outcome = clone.step(model._inner_actions[action])
            snapshot = model._commit(clone)
            if not _same_outcome(outcome, reference[i]):
                if model.clone_method == "deepcopy":  # the clone is a deep copy too
                    raise _outside_randomness(name, actions[: i + 1], outcome, reference[i])
                _check_deep_copies_agree(model, actions)
                raise CloneCheckError(
                    f"the {model.clone_method} clone of {name} does not behave like the env: "
                    f"after actions {list(actions[: i + 1])!r} from the live position the "
                    f"clone gives {_describe(outcome)} but a deep copy of the env gives "
                    f"{_describe(reference[i])}. The snapshot misses part of the env's "
                    "state or shares mutable objects with it: make get_state return all of "
                    "it as copies (the env's get_state() method, or get_state= of "
                    'GymnasiumModel), or plan on deep copies of the env: clone="deepcopy" '
                    "(GymnasiumModel or MCTSAgent)"
                )
        _check_generators(model, actions)
        stochastic = _check_determinism(model, root)
    except ValueError:
        raise
    except Exception as error:
        raise ValueError(
            f"stepping a clone of {name} failed at start-up ({_failure(error)}): either the "
            "env was not reset, or its state does not survive the copy (Box2D worlds, for "
            "one, lose their bodies in copy.deepcopy, so LunarLander and BipedalWalker "
            "cannot be planned on copies): give GymnasiumModel get_state= and set_state= "
            "that save and restore the whole position"
        ) from error
    if model._position_mask is None and any("action_mask" in out[4] for out in reference):
        raise ValueError(
            f"{name} reports info['action_mask'] after a step, but the model cannot tell "
            "the mask of the live env's current position: give the env an action_mask() "
            "method (GymnasiumModel and MCTSAgent read it), or pass action_mask=lambda env: "
            "... to GymnasiumModel"
        )
    # The live env is untouched: the same generator state and the same behaviour.
    replay = _play(detached_copy(live), model._inner_actions, actions, model._generator_paths)
    if rng_state(live) != live_rng or not all(
        _same_outcome(a, b) for a, b in zip(replay, reference, strict=True)
    ):
        _check_deep_copies_agree(model, actions)
        raise CloneCheckError(
            f"stepping a {model.clone_method} clone of {name} changed the live env: the "
            "snapshot shares mutable objects with it; make get_state return a copy"
        )
    return reference_env, stochastic


def _refuse_sharing(model: GymnasiumModel, copied: Any, what: str) -> None:
    """Raises CloneCheckError if ``copied`` shares a mutable object with the live env.

    Run before anything is stepped: stepping a copy that shares, say, a
    handle to an external simulator would change the live env. The
    ``"snapshot"`` clone of a known env is not walked (its step only replaces
    the snapshot's attributes); its reference deep copy is.
    """
    live = model._unwrapped
    try:
        shared = shared_mutable_objects(live, copied)
    except ValueError as error:
        raise CloneCheckError(
            f"{error}: the env is too large to check that {what} is independent of it; keep "
            "large data outside the env's instance (e.g. in a module or class attribute)"
        ) from error
    if not shared:
        return
    name = type(live).__name__
    described = ", ".join(f"{path} ({_kind_at(copied, path)})" for path in shared[:3])
    more = f" and {len(shared) - 3} more" if len(shared) > 3 else ""
    raise CloneCheckError(
        f"{what} shares {described}{more} with the live env: stepping it would change the "
        "live env. A class whose __deepcopy__ returns the object itself does that (e.g. a "
        "handle to an external simulator or a connection), as does a get_state that returns "
        "the env's own objects, or a method of a C object kept as an attribute (self.draw = "
        "rng.random: copy.deepcopy copies it as itself, still bound to the live env's "
        f"generator). Fix: give that class (or {name}) a __deepcopy__ that returns "
        "an independent copy in the same state (e.g. a new simulator set to the same state), "
        "make get_state return copies, and keep the object rather than its method (call "
        "self.rng.random()); nothing was stepped"
    )


def _kind_at(root: Any, path: str) -> str:
    """What lies at ``path`` under ``root`` (``"env.a.b"`` paths only), for messages."""
    if re.fullmatch(r"env(\.\w+)+", path) is None:
        return "shared"
    try:
        return instance(operator.attrgetter(path[4:])(root))
    except AttributeError:
        return "shared"


def _probe_actions(model: GymnasiumModel, root: GymnasiumState, rng: random.Random) -> list:
    """A random sequence of legal actions from ``root`` (at most ``_PROBE_STEPS``).

    Listed actions are drawn with ``rng.randrange``; sampled ones (``Box``,
    ``Dict``, ``Tuple`` spaces, ``root.actions`` None) as the model samples
    them, from ``rng``: never from the env's or its action space's generators.
    """
    env = model._checkout(root.snapshot)
    steps = _PROBE_STEPS if root.steps_left is None else min(_PROBE_STEPS, root.steps_left)
    sequence = []
    actions = root.actions
    while actions != () and len(sequence) < steps:
        if actions is None:
            action = model.sample_action(root, rng)
        else:
            action = actions[rng.randrange(len(actions))]
        _reseed_clone(env, _PROBE_SEED + len(sequence), model._generator_paths)  # as checked
        sequence.append(action)
        _, _, terminated, truncated, info = env.step(model._inner_actions[action])
        if terminated or truncated:
            actions = ()
        elif actions is not None:
            actions = model._next_actions(env, info)
    return sequence


def _check_generators(model: GymnasiumModel, actions: Sequence) -> None:
    """Raises ValueError if a generator of the env cannot be reseeded or lies out of reach.

    Every generator a deep copy of the env carries (wherever it lies:
    :func:`~mcts_agent.adapters.env_probe.generators_copied`) must take a
    reseed (:func:`~mcts_agent.adapters.env_probe.require_reseedable`). The
    planner reseeds those at ``model._generator_paths``; if a deep copy carries
    others (in a set, under a dict's key, past the first
    :data:`~mcts_agent.adapters.env_probe.MAX_OBJECTS_SEARCHED` objects, under
    an object whose ``__deepcopy__`` starts a fresh memo), deep copies with
    those left as they are and perturbed (reseeded 1 to ``_PERTURBATIONS``)
    step ``actions`` with the reachable generators seeded alike: any
    difference means the clones would draw from those others what the live
    env will draw (a plan knowing the dice). A coin drawn once differs in one
    of 17 copies but with probability 2**-16.
    """
    outcomes = []
    hidden_kinds: set[str] = set()
    for perturbation in range(_PERTURBATIONS + 1):
        clone, hidden = _copy_with_generators(model, check=perturbation == 0)
        if not hidden:
            return
        hidden_kinds.update(type(g).__name__ for g in hidden)
        for generator in hidden if perturbation else ():
            reseed(generator, perturbation)
        outcomes.append(_play(clone, model._inner_actions, actions, model._generator_paths))
        for i, (first, other) in enumerate(zip(outcomes[0], outcomes[-1], strict=True)):
            if not _same_outcome(first, other):
                raise ValueError(
                    f"{type(model._unwrapped).__name__} draws from a random generator the "
                    f"planner cannot reseed ({', '.join(sorted(hidden_kinds))}): the same actions "
                    f"{list(actions[: i + 1])!r} gave {_describe(first)} and {_describe(other)} "
                    "in two deep copies, one with those generators perturbed, though those the "
                    "planner reseeds were seeded alike. It lies where the planner does not look "
                    "(in a set, under a dict's key, under an object whose __deepcopy__ starts a "
                    f"fresh memo, or past the first {MAX_OBJECTS_SEARCHED} objects of the env), "
                    "so every clone would draw what the live env will draw. Keep it in an "
                    "attribute, a slot, a list, a tuple, a deque or a dict's value, near the "
                    "env's top, copied with the env's memo"
                )


def _copy_with_generators(model: GymnasiumModel, check: bool) -> tuple[Any, list[Any]]:
    """A deep copy of the live env and the generators it carries out of the planner's reach.

    With ``check``, every generator the copy carries must take a reseed
    (ValueError otherwise, naming where it lies).
    """
    live = model._unwrapped  # its spaces are shared: a step never samples them
    memo = {id(v): v for v in vars(live).values() if isinstance(v, gym.Space)}
    with generators_copied() as made:
        clone = detached_copy(live, memo)
    places = {}
    for path in model._generator_paths:
        for generator in generators_at(clone, [path]):
            places[id(generator)] = path_text(path)
    if check:
        for generator in made:
            require_reseedable(
                generator,
                places.get(
                    id(generator),
                    "held out of the planner's reach (in a set, under a "
                    "dict's key, deep in the env or under a __deepcopy__ of its own)",
                ),
            )
    return clone, [g for g in made if id(g) not in places]


def _failure(error: Exception) -> str:
    """``Type: message``, and where it was raised when the message is empty (a bare assert)."""
    if str(error) or error.__traceback__ is None:
        return f"{type(error).__name__}: {error}"
    frame = traceback.extract_tb(error.__traceback__)[-1]
    where = f"{os.path.basename(frame.filename)}:{frame.lineno}"
    return f"{type(error).__name__} at {where}: `{frame.line}`"


def _check_deep_copies_agree(model: GymnasiumModel, actions: Sequence) -> None:
    """Raises ValueError if two deep copies of the live env step ``actions`` differently."""
    paths = model._generator_paths
    first, second = (
        _play(detached_copy(model._unwrapped), model._inner_actions, actions, paths)
        for _ in range(2)
    )
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        if not _same_outcome(a, b):
            raise _outside_randomness(type(model._unwrapped).__name__, actions[: i + 1], a, b)


def _reseeded_play(
    model: GymnasiumModel, root: GymnasiumState, seed: int, actions: Sequence
) -> list[tuple]:
    """Plays ``actions`` from a clone of ``root`` whose generators are seeded ``seed``."""
    clone = model._checkout(root.snapshot)
    _reseed_clone(clone, seed, _known_paths(model))
    return _play(clone, model._inner_actions, actions)


def _known_paths(model: GymnasiumModel) -> list[GeneratorPath] | None:
    """The generators' paths of an env the adapter knows (``"snapshot"`` clone), else None.

    The envs of :data:`~mcts_agent.adapters.gymnasium.known_envs.KNOWN_SNAPSHOTS`
    (exact classes) make no generator while they step, so the paths found
    once hold every generator of their clones; any other env's clone is
    walked again (a generator it made since would not be on the paths).
    Taxi's walk takes 0.3 s: its start-up checks walked it 16 times.
    """
    return model._generator_paths if model.clone_method == "snapshot" else None


def _reseed_clone(clone: Any, seed: int, paths: list[GeneratorPath] | None = None) -> None:
    """Seeds a clone's ``np_random`` and its other generators (``random.Random``, numpy's).

    The other generators are found by a walk of the clone, or at ``paths``
    (:func:`~mcts_agent.adapters.env_probe.random_generator_paths`, far
    cheaper) if given.
    """
    clone.np_random = np.random.default_rng(seed)
    found = random_generators(clone) if paths is None else generators_at(clone, paths)
    for generator in found:
        reseed(generator, seed)


def check_steps_again(
    model: GymnasiumModel, snapshot: Any, actions: Sequence, outcomes: Sequence, seed: int
) -> None:
    """Steps ``actions`` again from ``snapshot`` with every generator reseeded; compares outcomes.

    The chance check while planning: the start-up probe steps a few random
    action sequences, so an env that draws only in positions it did not
    reach would be planned with one frozen draw per edge. The clone's
    ``np_random`` and other generators and Python's and numpy's global
    generators are seeded ``seed`` for the steps; the global ones are put
    back as they were, so checking never advances them.

    Args:
        model: the model planning.
        snapshot: the position stepped from (a state's snapshot, not changed).
        actions: the model actions stepped from there, in order.
        outcomes: what the model's steps gave, their observations copied.
        seed: int, the seed of this check.

    Raises:
        ValueError: if an outcome differs (the message of the start-up
            determinism check's).
    """
    clone = model._checkout(snapshot)
    _reseed_clone(clone, seed, _known_paths(model))
    with global_generators_kept(exact=True):
        random.seed(seed)
        np.random.seed(seed % 2**32)
        again = _play(clone, model._inner_actions, actions)
    for i, (first, second) in enumerate(zip(outcomes, again, strict=True)):
        if not _same_outcome(first, second):
            raise _chance_error(
                type(model._unwrapped).__name__,
                f"while planning, the same actions {list(actions[: i + 1])!r} from the same "
                f"position gave {_describe(first)} and {_describe(second)} under two seeds of "
                "its random generators (np_random, its own generators, Python's random and "
                "numpy's global np.random); the start-up check had not reached that position",
            )


def _check_determinism(model: GymnasiumModel, root: GymnasiumState) -> bool:
    """True if two seeds of the env's own generators give different outcomes.

    Raises:
        ValueError: if one seed, twice, gives different outcomes too (the env
            draws from outside itself).
    """
    for trial in range(_PROBE_TRIALS):
        actions = _probe_actions(model, root, random.Random(trial + 1))
        seeds = (2 * trial + 1, 2 * trial + 2)
        outcomes = [_reseeded_play(model, root, seed, actions) for seed in seeds]
        for i, (first, second) in enumerate(zip(*outcomes, strict=True)):
            if not _same_outcome(first, second):
                again = _reseeded_play(model, root, seeds[0], actions[: i + 1])[i]
                if not _same_outcome(first, again):  # the same seed twice differs too
                    raise _outside_randomness(
                        type(model._unwrapped).__name__, actions[: i + 1], first, again
                    )
                return True
    return False


def _chance_error(name: str, what: str) -> ValueError:
    """The error for an env whose step draws from its random generators."""
    return ValueError(
        f"{name} is not deterministic: {what}. The model was built as deterministic (its "
        "start-up probe met no chance), and planning on one outcome per edge would be "
        "silently wrong: build the model (or MCTSAgent) from a position where the env's "
        "chance shows within its first steps, so that it is planned with chance nodes"
    )


def _outside_randomness(name: str, actions: Sequence, first: tuple, second: tuple) -> ValueError:
    """The error for an env whose copies, stepped alike, differ: it draws from outside itself."""
    return ValueError(
        f"{name} is not deterministic: two copies of the same position (deep copies, same "
        f"np_random state) stepped with the same actions {list(actions)!r} gave "
        f"{_describe(first)} and {_describe(second)}. Its step draws from something outside "
        "the env: Python's random or numpy's global np.random rather than self.np_random, "
        "or the clock, a file, another process... The planner plans chance drawn from the "
        "env's own generators (self.np_random, or a random.Random or numpy generator it "
        "holds), which it reseeds; draw from those"
    )


def _play(
    env: Any, inner_actions: dict, actions: Sequence, paths: list[GeneratorPath] | None = None
) -> list[tuple]:
    """Steps ``env`` along ``actions``; returns each step's 5-tuple, its observation copied.

    With ``paths`` (where its generators are), the env's generators are
    seeded ``_PROBE_SEED + i`` before step ``i`` (the clone check's seeds).

    The copy keeps an observation that the env returns without copying (its
    internal array, changed in place by the next step) as it was.
    """
    outcomes = []
    for i, action in enumerate(actions):
        if paths is not None:
            _reseed_clone(env, _PROBE_SEED + i, paths)
        outcomes.append(copied_observation(env.step(inner_actions[action])))
    return outcomes


def copied_observation(outcome: tuple) -> tuple:
    """``outcome`` (a step's 5-tuple) with its observation copied, kept as it was."""
    observation = outcome[0]
    if isinstance(observation, np.ndarray):
        return (observation.copy(), *outcome[1:])
    return (copy.deepcopy(observation), *outcome[1:])


def _same_outcome(a: tuple, b: tuple) -> bool:
    """Equal observation, reward, terminated and truncated (``info`` is not compared)."""
    first, second = a[0], b[0]
    if (  # the common case, ~50x faster than same()
        type(first) is np.ndarray
        and type(second) is np.ndarray
        and first.shape == second.shape
        and first.dtype == second.dtype
        and first.tobytes() == second.tobytes()
        and a[1:4] == b[1:4]
    ):
        return True
    return same(first, second) and same(a[1:4], b[1:4])


def _describe(outcome: tuple) -> str:
    observation, reward, terminated, truncated, _ = outcome
    return (
        f"(observation {observation!r}, reward {reward!r}, terminated {terminated!r}, "
        f"truncated {truncated!r})"
    )
