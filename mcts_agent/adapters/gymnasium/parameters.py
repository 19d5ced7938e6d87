"""The parameters of a Gymnasium env a model has read: noticing that they changed.

A :class:`~mcts_agent.adapters.GymnasiumModel` reads an env's parameters once,
when it is built: CartPole's ``force_mag`` and ``length`` into its fast
stepper, a toy-text env's transition table ``P`` into its table stepper, any
other attribute into the scratch env of its ``"snapshot"``, ``"user"`` and
``"env_methods"`` clones. Changing them on the live env afterwards would
leave the model planning on the old dynamics. So at every
:meth:`~mcts_agent.adapters.GymnasiumModel.state_of` the model compares the
live env's parameters with copies kept when it was built (``"snapshot"``
clone), or with those of its scratch env put in the live position by
``set_state`` (``"user"`` and ``"env_methods"`` clones: what ``set_state``
restores, e.g. a maze's layout, is position, not parameters).

The parameters are the live env's instance attributes (``vars(env)``) except
its position and what is not dynamics:

* the position: the ``"snapshot"`` clone's attributes
  (:data:`~mcts_agent.adapters.gymnasium.known_envs.KNOWN_SNAPSHOTS`) and
  the attributes the start-up probe's steps changed;
* random generators (``np_random`` and its seed), Gymnasium spaces, the
  registration ``spec``, ``render_mode`` and render objects (pygame);
* values that do not compare equal to a copy of themselves (objects without
  ``__eq__``), which cannot be compared cheaply: they are not watched.

An attribute added or removed counts as changed (e.g. a class constant such
as Acrobot's ``LINK_LENGTH_1`` shadowed on the instance). The ``"deepcopy"``
clone watches nothing: each of its root states is a fresh deep copy of the
whole env, parameters included.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec

from mcts_agent.adapters.env_probe import is_render_object, same

__all__ = ["Parameters", "changed_parameters", "read_parameters"]

_NOT_PARAMETERS = frozenset({"_np_random", "_np_random_seed", "np_random", "spec", "render_mode"})
_NOT_DYNAMICS = (random.Random, np.random.Generator, np.random.RandomState, spaces.Space, EnvSpec)


class Parameters(NamedTuple):
    """Which attributes of an env are its parameters, as :func:`read_parameters` found them.

    Attributes:
        watched: frozenset of the names compared at every check.
        known: frozenset of every instance attribute's name when read (an
            attribute outside it, added later, counts as a change).
        saved: ``{name: deep copy}`` of the watched values when read.
    """

    watched: frozenset[str]
    known: frozenset[str]
    saved: dict[str, Any]


def read_parameters(env: Any, position: Iterable[str]) -> Parameters:
    """Reads ``env``'s parameters (the module docstring).

    Args:
        env: the live unwrapped env, not changed.
        position: the names of the attributes holding its position.

    Returns:
        The watched names, every name, and copies of the watched values.
    """
    skipped = _NOT_PARAMETERS.union(position)
    attributes = vars(env)
    saved = {}
    for name, value in attributes.items():
        if name in skipped or _not_dynamics(value):
            continue
        try:
            copied = copy.deepcopy(value)
        except Exception:  # an uncopyable object: not watched
            continue
        if _equal(copied, value):
            saved[name] = copied
    return Parameters(frozenset(saved), frozenset(attributes), saved)


def changed_parameters(
    parameters: Parameters, env: Any, reference: Mapping[str, Any] | None = None
) -> list[str]:
    """The names of the parameters of ``env`` that changed, were added or removed.

    Args:
        parameters: what :func:`read_parameters` returned when the model was built.
        env: the live unwrapped env, not changed.
        reference: the values to compare with, by name (e.g. ``vars()`` of a
            scratch env put in the live env's position); by default the
            copies saved when read.

    Returns:
        The attribute names, sorted; empty if nothing changed.
    """
    current = vars(env)
    reference = parameters.saved if reference is None else reference
    changed = {name for name in parameters.known if name not in current}
    for name in parameters.watched & current.keys():
        if name not in reference or not _equal(reference[name], current[name]):
            changed.add(name)
    for name in current.keys() - parameters.known:
        if not (name in _NOT_PARAMETERS or _not_dynamics(current[name])):
            changed.add(name)
    return sorted(changed)


def _not_dynamics(value: Any) -> bool:
    return isinstance(value, _NOT_DYNAMICS) or is_render_object(value)


def _equal(saved: Any, value: Any) -> bool:
    """``saved == value`` (C speed for tables of numbers), else :func:`same` (arrays, NaN)."""
    try:
        if bool(saved == value):
            return True
    except (ValueError, TypeError):  # an array's truth value, an incomparable object
        pass
    try:
        return same(saved, value)
    except (ValueError, TypeError, RecursionError):
        return False
