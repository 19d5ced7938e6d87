"""Conformance checks for models, in the spirit of Gymnasium's ``check_env``.

Use :func:`check_model` on your own model before you plan with it::

    from mcts_agent.testing import check_model
    check_model(MyModel(), initial_state, seed=0)
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mcts_agent._validation import require_int
from mcts_agent.model import Model

__all__ = ["ModelCheckError", "check_model"]


class ModelCheckError(AssertionError):
    """Raised by :func:`check_model` when a model breaks the protocol of ``docs/search.md``."""


def _fail(message: str) -> None:
    raise ModelCheckError(message)


def check_model(
    model: Model, state: Any, *, seed: int | None = 0, num_playouts: int = 20, max_moves: int = 200
) -> None:
    """Plays random games from ``state`` and checks the model protocol at every move.

    Checks, at every visited state: ``actions`` is a sequence (asked twice:
    the same order), every legal action steps to a 3-field result with a real
    ``reward`` and a bool-like ``terminated``; ``step`` is deterministic and
    does not change its input (compared with a deep copy taken before); a
    state with legal actions has a hashable ``player``; a state reached by a
    terminating move has no legal actions.

    Args:
        model: the model to check.
        state: a state with at least one legal action to start from.
        seed: int seed of the playouts' random generator, or None.
        num_playouts: int >= 1, random games played from ``state``.
        max_moves: int >= 1, most moves per game (a game may be endless).

    Raises:
        ModelCheckError: (an ``AssertionError``) naming the first violation,
            with the state and action involved (also when the model lacks a
            method, or ``step`` raises on an action ``actions`` called legal).
        TypeError, ValueError: if ``num_playouts`` or ``max_moves`` is not an
            int >= 1.
    """
    for method in ("actions", "step", "player"):
        if not callable(getattr(model, method, None)):
            _fail(
                f"a model needs actions, step and player methods; {type(model).__name__} "
                f"has no {method}()"
            )
    require_int("num_playouts", num_playouts, 1)
    require_int("max_moves", max_moves, 1)
    rng = random.Random(seed)
    if not list(model.actions(state)):
        _fail(f"check_model needs a state with legal actions; actions({state!r}) is empty")
    for _ in range(num_playouts):
        current = state
        for _ in range(max_moves):
            actions = model.actions(current)
            if not isinstance(actions, Sequence) or isinstance(actions, (str, bytes)):
                _fail(f"actions({current!r}) must return a sequence, got {type(actions).__name__}")
            if list(model.actions(current)) != list(actions):
                _fail(f"actions({current!r}) is not stable: two calls gave different orders")
            if not actions:
                break
            player = model.player(current)
            if not isinstance(player, Hashable):
                _fail(f"player({current!r}) must be hashable, got {player!r}")
            for action in actions:
                _check_step(model, current, action)
            action = actions[rng.randrange(len(actions))]
            previous = current
            current, _, terminated = model.step(current, action)
            if terminated and list(model.actions(current)):
                _fail(
                    f"step({previous!r}, {action!r}) said terminated, but actions({current!r}) "
                    "still lists legal actions"
                )
            if terminated:
                break


def _check_step(model: Model, state: Any, action: Any) -> None:
    before = copy.deepcopy(state)
    try:
        result = model.step(state, action)
    except Exception as error:
        raise ModelCheckError(
            f"step({state!r}, {action!r}) raised {type(error).__name__}: {error}, although "
            f"actions({state!r}) lists {action!r} as legal"
        ) from error
    if not isinstance(result, tuple) or len(result) != 3:
        _fail(
            f"step({state!r}, {action!r}) must return StepResult(next_state, reward, "
            f"terminated), got {result!r}"
        )
    next_state, reward, terminated = result
    if not isinstance(reward, (int, float)) or isinstance(reward, bool):
        try:
            reward = float(reward)
        except (TypeError, ValueError):
            _fail(f"step({state!r}, {action!r}) reward must be a real number, got {reward!r}")
    if not math.isfinite(float(reward)):
        _fail(f"step({state!r}, {action!r}) reward must be finite, got {reward!r}")
    if terminated not in (True, False):
        _fail(f"step({state!r}, {action!r}) terminated must be a bool, got {terminated!r}")
    if not _equal(state, before):
        _fail(f"step({before!r}, {action!r}) changed its input state to {state!r}")
    again = model.step(state, action)
    if not (_equal(again[0], next_state) and again[1] == result[1] and again[2] == terminated):
        _fail(f"step({state!r}, {action!r}) is not deterministic: {result!r} then {again!r}")


def _equal(a: Any, b: Any) -> bool:
    """Equality that also handles numpy arrays inside tuples and lists."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
