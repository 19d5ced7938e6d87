"""The ways of cloning a Gymnasium env's position (:attr:`GymnasiumModel.clone_method`)."""

from __future__ import annotations

import copy
import operator
import sys
from collections.abc import Callable
from typing import Any

from mcts_agent.adapters.env_probe import deepest_nesting, is_render_object
from mcts_agent.adapters.errors import CloneCheckError
from mcts_agent.adapters.gymnasium.known_envs import FAST_STEPPERS, KNOWN_SNAPSHOTS

__all__ = ["bind_cloning", "detached_copy"]


def bind_cloning(
    clone_method: str,
    unwrapped: Any,
    get_state: Callable[[Any], Any] | None,
    set_state: Callable[[Any, Any], None] | None,
    *,
    fast: bool = True,
) -> tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any]]:
    """Returns ``(checkout, commit, capture)`` for a clone method.

    ``checkout(snapshot)`` returns an env in that position, free to step;
    ``commit(env)`` returns the snapshot of an env just stepped (it may
    take the env over); ``capture(live)`` returns an independent snapshot
    of the live unwrapped env.

    Args:
        clone_method: ``"snapshot"``, ``"user"``, ``"env_methods"`` or
            ``"deepcopy"`` (:attr:`GymnasiumModel.clone_method`).
        unwrapped: the live ``env.unwrapped`` (copied for the scratch env,
            never changed).
        get_state: the ``(env) -> snapshot`` of ``"user"`` and
            ``"env_methods"``, else None.
        set_state: the ``(env, snapshot) -> None`` of ``"user"`` and
            ``"env_methods"``, else None.
        fast: False to step a ``"snapshot"`` clone on a copy of the env itself
            rather than its faster replica (``FAST_STEPPERS``, which never
            draws): for an env whose steps are sampled.

    Raises:
        CloneCheckError: if the scratch env cannot be deep-copied.
    """
    env_class = type(unwrapped)
    if clone_method == "deepcopy":
        return copy.deepcopy, _identity, detached_copy
    stepper = FAST_STEPPERS.get(env_class) if clone_method == "snapshot" and fast else None
    scratch = detached_copy(unwrapped) if stepper is None else stepper(unwrapped)
    if clone_method == "snapshot":
        names = KNOWN_SNAPSHOTS[env_class]
        getter = operator.attrgetter(*names) if len(names) > 1 else _single_getter(names[0])
        update = scratch.__dict__.update

        def checkout(snapshot: tuple) -> Any:
            update(zip(names, snapshot, strict=True))
            return scratch

        return checkout, getter, lambda live: copy.deepcopy(getter(live))
    assert get_state is not None and set_state is not None

    def checkout(snapshot: Any) -> Any:
        set_state(scratch, snapshot)
        return scratch

    return checkout, get_state, lambda live: copy.deepcopy(get_state(live))


def _identity(value: Any) -> Any:
    return value


def _single_getter(name: str) -> Callable[[Any], tuple]:
    def getter(env: Any) -> tuple:
        return (getattr(env, name),)

    return getter


def _recursion_error(env: Any) -> CloneCheckError:
    """The error for a ``copy.deepcopy(env)`` that hit the recursion limit, with its cause."""
    name = type(env).__name__
    limit = sys.getrecursionlimit()
    path, depth = deepest_nesting(env)
    if depth > limit // 4:  # deepcopy takes 2 to 4 frames per level
        return CloneCheckError(
            f"copy.deepcopy({name}) hit Python's recursion limit ({limit}): {path} is nested "
            f"{depth} levels deep, and copy.deepcopy recurses once per level. Keep it flatter "
            f"(e.g. a flat list of moves), or give {name} a __deepcopy__ that copies it with a "
            "loop"
        )
    return CloneCheckError(
        f"copy.deepcopy({name}) recursed forever; the class probably forwards attribute "
        "look-ups (__getattr__) to an attribute that does not exist yet while copying. Make "
        "__getattr__ raise AttributeError for names starting with '__' and for its own "
        "attribute, or define __deepcopy__"
    )


def detached_copy(env: Any, memo: dict[int, Any] | None = None) -> Any:
    """``copy.deepcopy(env)`` for stepping only: no renderer is copied and it never draws.

    The env's rendering objects (:func:`is_render_object`: Gymnasium's
    toy-text ``window_surface``/``window``, ``clock`` and tile images,
    classic-control ``screen``, ``surf`` and ``clock``, any pygame object)
    are not deep-copied (pygame's ``Clock`` cannot be): the copy's attributes
    holding them are None. A ``"human"`` render mode is switched off, so that
    the copy's ``step`` does not draw. The env itself, renderer included, is
    not changed.

    Args:
        env: the env to copy.
        memo: the ``copy.deepcopy`` memo to fill (objects to share, e.g. the
            env's spaces); a new dict if None.

    Raises:
        CloneCheckError: if the deep copy fails, naming the cause: an
            attribute nested too deeply for ``copy.deepcopy``'s recursion, a
            ``__getattr__`` that recurses forever, or the error raised.
    """
    memo = {} if memo is None else memo
    memo.update((id(value), None) for value in vars(env).values() if is_render_object(value))
    try:
        clone = copy.deepcopy(env, memo)
    except RecursionError as error:
        raise _recursion_error(env) from error
    except Exception as error:
        raise CloneCheckError(
            f"copy.deepcopy({type(env).__name__}) failed ({type(error).__name__}: {error}); "
            "the planner needs a deep-copyable env"
        ) from error
    if getattr(clone, "render_mode", None) == "human":
        clone.render_mode = None
    return clone
