"""Evaluators: leaf values and priors that guide the search (``docs/guides/guided-search.md``).

An evaluator is any callable ``evaluator(state, actions) -> Evaluation(value,
priors)``. The search calls it once for every non-terminal node when the node
is made, and once for the root (whose value is not used):

* ``value``: the expected discounted return from the point of view of
  ``model.player(state)``, the same quantity a rollout returns, used instead
  of a rollout at that node; None to roll out as usual.
* ``priors``: one non-negative finite number per action, in the order of
  ``actions``; the search divides them by their sum. None means uniform.

This is OpenSpiel's ``Evaluator`` (``evaluate`` and ``prior`` in one call) and
the ``(value, policy)`` output of AlphaZero's network (Silver et al., 2018).

Batching a network: the search asks for one state at a time, so put the batch
behind the callable. A common shape is a cache keyed by the position, filled
by evaluating a batch of positions at once (for example the new node's
children, or the states a self-play worker pool has queued), then answered
from the cache::

    class CachedNet:
        def __init__(self, net):
            self.net, self.cache = net, {}

        def __call__(self, state, actions):
            key = model.key(state)            # any hashable id of the position
            if key not in self.cache:
                batch = [state] + [model.step(state, a).next_state for a in actions]
                for s, (v, p) in zip(batch, self.net(batch)):   # one forward pass
                    self.cache[model.key(s)] = (v, p)
            value, logits = self.cache[key]
            return Evaluation(value, softmax(logits[list(actions)]))
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

__all__ = ["Evaluation", "Evaluator", "checked_evaluation", "uniform_priors"]


class Evaluation(NamedTuple):
    """What an evaluator says about one state.

    Attributes:
        value: float or None: the expected discounted return from the point
            of view of the player to move in the state (the same quantity a
            rollout returns); None to roll out instead.
        priors: sequence of floats, shape ``[len(actions)]``, or None: one
            non-negative finite weight per action, in the order of
            ``actions``, normalised by the search; None for uniform priors.
    """

    value: float | None
    priors: Sequence[float] | None


Evaluator = Callable[[Any, Sequence[Any]], Evaluation]
"""``(state, actions) -> Evaluation``: the search's leaf evaluator."""

_INF = math.inf


@functools.lru_cache(maxsize=256)
def uniform_priors(count: int) -> tuple[float, ...]:
    """Returns ``count`` equal priors, ``1 / count`` each (``count`` >= 1; one shared tuple)."""
    return (1.0 / count,) * count


def checked_evaluation(
    result: Any, state: Any, actions: Sequence[Any]
) -> tuple[float | None, tuple[float, ...]]:
    """Returns an evaluator's answer as ``(value, normalised priors)``, checked.

    Args:
        result: what the evaluator returned for ``(state, actions)``: an
            :class:`Evaluation` or any pair ``(value, priors)``.
        state: the state evaluated (named in the errors).
        actions: its legal actions (non-empty).

    Returns:
        ``(value, priors)``: ``value`` a float or None; ``priors`` a tuple of
        floats of length ``len(actions)`` summing to 1 (uniform when the
        evaluator gave None; priors whose sum overflows a float are divided
        by the largest first).

    Raises:
        TypeError: if ``result`` is not a pair, or the value or a prior is not
            a real number.
        ValueError: if the value is NaN or infinite, or the priors have the
            wrong length, a negative or non-finite entry, or a zero sum.
    """
    if not (isinstance(result, tuple) and len(result) == 2):
        raise TypeError(
            "an evaluator must return Evaluation(value, priors), got "
            f"{result!r} for state {state!r}"
        )
    value, priors = result
    if priors is None and value.__class__ is float and -_INF < value < _INF:
        return value, uniform_priors(len(actions))  # the common case, checked quickly
    if value is not None:
        if value.__class__ is not float:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(
                    f"the evaluator's value must be a real number or None, got {value!r} for "
                    f"state {state!r}"
                )
            value = float(value)
        if not -_INF < value < _INF:
            raise ValueError(
                f"the evaluator's value must be finite, got {value} for state {state!r}"
            )
    count = len(actions)
    if priors is None:
        return value, uniform_priors(count)
    try:
        weights = list(map(float, priors))
    except (TypeError, ValueError):
        raise TypeError(
            f"the evaluator's priors must be real numbers, one per action, got {priors!r} for "
            f"state {state!r}"
        ) from None
    if len(weights) != count:
        raise ValueError(
            f"the evaluator gave {len(weights)} priors for the {count} actions "
            f"{list(actions)!r} of state {state!r}; expected one per action, in their order"
        )
    try:
        total = math.fsum(weights)  # NaN or infinite if any weight is
    except (OverflowError, ValueError):  # finite weights past the largest float, or inf - inf
        total = _INF
    if not (0.0 < total < _INF and min(weights) >= 0.0):  # else find the culprit
        for action, p in zip(actions, weights, strict=True):
            if not (math.isfinite(p) and p >= 0.0):
                raise ValueError(
                    f"the evaluator's prior of action {action!r} is {p}; priors must be finite "
                    f"and >= 0 (state {state!r})"
                )
        if total == _INF:  # finite priors whose sum overflows: normalised by the largest first
            largest = max(weights)
            weights = [p / largest for p in weights]
            total = math.fsum(weights)
            return value, tuple([p / total for p in weights])
        raise ValueError(
            f"the evaluator's priors sum to 0 for state {state!r}; at least one must be > 0"
        )
    return value, tuple([p / total for p in weights])
