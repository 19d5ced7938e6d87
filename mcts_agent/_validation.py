"""Checks of arguments and of what a model returns: errors say what was expected and what came.

The ``require_*`` functions check the public constructors' arguments; the
``checked_*`` functions check a model's answers against the protocol of
``docs/refusals.md`` (used by ``MCTS`` off its fast path and by ``check_model``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def require_int(name: str, value: Any, minimum: int) -> int:
    """Returns ``value`` as an int if it is an integer (not a bool) >= ``minimum``.

    Raises:
        TypeError: if ``value`` is not an integer (numpy integers are accepted).
        ValueError: if it is below ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def require_seed(name: str, seed: Any) -> int | None:
    """Returns ``seed`` as an int, or None.

    Raises:
        TypeError: if ``seed`` is neither None nor an integer (not a bool).
    """
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name} must be an int or None, got {seed!r}")
    return int(seed)


def require_float(
    name: str, value: Any, minimum: float, maximum: float = math.inf, *, rule: str | None = None
) -> float:
    """Returns ``value`` as a float if it is a real number in ``[minimum, maximum]``.

    Args:
        name: the argument's name, for the message.
        value: the argument.
        minimum: smallest allowed value.
        maximum: largest allowed value (``inf`` for none; then the value must be finite).
        rule: how to say the range in the message; made from the bounds if None.

    Raises:
        TypeError: if ``value`` is not a real number (a bool or a str is not).
        ValueError: if it is NaN, infinite, or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if rule is None:
        rule = f">= {minimum}" if maximum == math.inf else f"in [{minimum}, {maximum}]"
    if not (math.isfinite(value) and minimum <= value <= maximum):
        raise ValueError(f"{name} must be a finite number {rule}, got {value}")
    return value


# ------------------------------------------------------- what a model returns
#
# The search calls these only off its fast path (when a value is not of the
# common type); check_model calls them on every value. Each raises the
# protocol's words: the method, what it returned, what was expected.

MAX_SHOWN = 200
"""Most characters of a value shown in an error message."""


def describe(value: Any) -> str:
    """Returns ``repr(value)``, cut to ``MAX_SHOWN`` characters, never raising."""
    try:
        text = repr(value)
    except Exception as error:  # a broken __repr__ must not hide the real error
        return f"<{type(value).__name__} object; its repr raised {type(error).__name__}>"
    if len(text) > MAX_SHOWN:
        text = text[: MAX_SHOWN - 3] + "..."
    return text


def _returned(value: Any) -> str:
    """``repr (type)``, e.g. ``'1.0' (str)``, for saying what a method returned."""
    return f"{describe(value)} ({type(value).__name__})"


def checked_actions(actions: Any, state: Any) -> tuple:
    """Returns the legal actions that ``actions(state)`` returned, as a tuple.

    Args:
        actions: what ``model.actions(state)`` returned.
        state: the state it was asked about (for the message).

    Raises:
        TypeError: if ``actions`` is not a sequence (a tuple, a list, a range or
            another ``collections.abc.Sequence``), or is a str or bytes: an
            iterator, a generator, a set, a dict or a numpy array is refused.
    """
    if actions.__class__ is tuple:
        return actions
    if isinstance(actions, Sequence) and not isinstance(actions, (str, bytes, bytearray)):
        return tuple(actions)
    hint = " (use .tolist() or tuple(...))" if isinstance(actions, np.ndarray) else ""
    raise TypeError(
        f"actions({describe(state)}) returned {_returned(actions)}; expected a sequence of "
        f"the legal actions in a fixed order, a tuple or a list{hint}"
    )


def checked_player(player: Any, state: Any) -> Any:
    """Returns ``player`` if it is hashable (the search compares players with ``==``).

    Raises:
        TypeError: if ``player(state)`` returned an unhashable value (a list, a dict,
            a numpy array...).
    """
    try:
        hash(player)
    except TypeError:
        raise TypeError(
            f"player({describe(state)}) returned {_returned(player)}; expected a hashable "
            "player id, e.g. an int or a str"
        ) from None
    return player


def checked_step_result(result: Any, state: Any, action: Any) -> tuple[Any, Any, Any]:
    """Returns ``(next_state, reward, terminated)`` from what ``step`` returned.

    Raises:
        TypeError: if ``result`` does not unpack into exactly three values.
    """
    try:
        next_state, reward, terminated = result
    except (TypeError, ValueError):
        size = f" of {len(result)} fields" if isinstance(result, tuple) else ""
        raise TypeError(
            f"step({describe(state)}, {describe(action)}) returned {describe(result)} "
            f"({type(result).__name__}{size}); expected StepResult(next_state, reward, "
            "terminated)"
        ) from None
    return next_state, reward, terminated


def checked_reward(reward: Any, state: Any, action: Any) -> float:
    """Returns the reward of ``step(state, action)`` as a finite float.

    Args:
        reward: the reward ``step`` returned.
        state: the state stepped (for the message).
        action: the action played (for the message).

    Raises:
        TypeError: if ``reward`` is not a real number (Python or numpy; a str, None
            or an array is refused; a bool is accepted as 0 or 1).
        ValueError: if it is NaN or infinite.
    """
    if not isinstance(reward, numbers.Real):
        every = (
            " (a mapping {player: reward} is every player's reward: give the model the "
            "attribute reward_players, the tuple of every player's id; mcts_agent.maxn)"
            if isinstance(reward, Mapping)
            else ""
        )
        raise TypeError(
            f"step({describe(state)}, {describe(action)}) returned the reward "
            f"{_returned(reward)}; expected a real number (a float){every}"
        )
    value = float(reward)
    if not math.isfinite(value):
        raise ValueError(
            f"step({describe(state)}, {describe(action)}) returned the reward {value}; "
            "expected a finite number (the search averages returns: NaN or infinity "
            "would make every value meaningless)"
        )
    return value


def checked_terminated(terminated: Any, state: Any, action: Any) -> bool:
    """Returns the ``terminated`` flag of ``step(state, action)`` as a bool.

    Raises:
        TypeError: if ``terminated`` is not a bool, a ``numpy.bool_`` or an integer 0
            or 1 (an array, a float or None is refused).
    """
    if isinstance(terminated, (bool, np.bool_)):
        return bool(terminated)
    if isinstance(terminated, numbers.Integral) and terminated in (0, 1):
        return bool(terminated)
    raise TypeError(
        f"step({describe(state)}, {describe(action)}) returned terminated="
        f"{_returned(terminated)}; expected a bool"
    )


def checked_return(value: Any, state: Any) -> float:
    """Returns a rollout's return from ``state`` as a finite float.

    Raises:
        TypeError: if it is not a real number.
        ValueError: if it is NaN or infinite (a reward along the rollout was, or
            the rewards overflowed the float range).
    """
    if not isinstance(value, numbers.Real):
        raise TypeError(
            f"the rollout from state {describe(state)} returned {_returned(value)}; "
            "expected a real number (the return)"
        )
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(
            f"the rollout from state {describe(state)} gave the return {result}; expected "
            "a finite number (a reward along it was NaN or infinite, or the rewards "
            "overflowed the float range)"
        )
    return result


def values_equal(a: Any, b: Any) -> bool:
    """``a == b`` as a bool, also for numpy arrays inside tuples, lists and dicts.

    Arrays compare by :func:`numpy.array_equal` (shape and values); tuples and
    lists item by item, dicts key by key; anything else by ``==``.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    return bool(a == b)
