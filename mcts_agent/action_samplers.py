"""Action samplers for progressive widening: where the new actions of a widened node come from.

``MCTS(..., action_sampler=sampler)`` calls ``sampler(state, rng, tried)``
when a widened node may have one more child (:mod:`mcts_agent.widening`),
in place of the model's ``sample_action``: ``state`` is the node's state,
``rng`` the planner's ``random.Random`` (the only randomness a sampler may
use, so that a seed gives one tree), ``tried`` the node's children so far
as ``(action, visits, value)`` tuples, values from the point of view of the
player choosing, in the order first drawn. Any callable of that signature
will do, e.g. a prior policy's samples::

    def policy_sampler(state, rng, tried):
        mean = my_policy(state)                      # the policy's mean action
        return tuple(min(2.0, max(-2.0, rng.gauss(m, 0.3))) for m in mean)

:class:`GaussianActionSampler` draws near the best action found so far, the
local refinement of Couëtoux et al. (2011, §3) and of "kernel" samplers: a
continuous action's neighbours are likely about as good as it is.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from mcts_agent._validation import require_float

__all__ = ["GaussianActionSampler"]


class GaussianActionSampler:
    """Draws a new action near the best child so far, or uniformly within the bounds.

    For actions that are tuples of floats (a ``Box`` action space's, as
    :class:`~mcts_agent.adapters.gymnasium.GymnasiumModel` gives them), with
    the bounds ``low`` and ``high`` (one per entry). A call draws:

    * with probability ``uniform_fraction``, or when nothing was tried yet,
      a uniform action: entry ``d`` is ``low[d] + (high[d] - low[d]) *
      rng.random()``;
    * otherwise, around the best child (most visits, then highest value, then
      first drawn): entry ``d`` is ``x[d] + rng.gauss(0, scale * (high[d] -
      low[d]))``, clipped to ``[low[d], high[d]]``.

    Args:
        low: sequence of floats, the lower bounds, e.g. ``env.action_space.low``
            (an array of any shape is flattened in C order).
        high: sequence of floats of the same length, each > its ``low``.
        scale: float > 0, the Gaussian's standard deviation as a fraction of
            each entry's range.
        uniform_fraction: float in [0, 1], how often a uniform action is drawn.
        dtype: a float dtype, the action space's (``env.action_space.dtype``):
            every action is rounded through it, so the tree's action is
            exactly what the env receives (float32 for most Gymnasium envs).

    Raises:
        TypeError: if a bound or an option is not a real number.
        ValueError: if the bounds differ in length, are empty or not finite, a
            ``high`` is below its ``low``, ``scale <= 0``,
            ``uniform_fraction`` is outside [0, 1], or ``dtype`` is not a float dtype.
    """

    def __init__(
        self,
        low: Sequence[float] | np.ndarray,
        high: Sequence[float] | np.ndarray,
        *,
        scale: float = 0.1,
        uniform_fraction: float = 0.5,
        dtype: Any = np.float64,
    ) -> None:
        finite = "(finite)"
        lows = [require_float("low", x, -math.inf, math.inf, rule=finite) for x in _flat(low)]
        highs = [require_float("high", x, -math.inf, math.inf, rule=finite) for x in _flat(high)]
        if not lows or len(lows) != len(highs):
            raise ValueError(
                f"low and high must be non-empty and of the same length, got {len(lows)} and "
                f"{len(highs)} entries"
            )
        for d, (lo, hi) in enumerate(zip(lows, highs, strict=True)):
            if not hi >= lo:
                raise ValueError(f"entry {d}: high ({hi}) must not be below low ({lo})")
        self.scale = require_float("scale", scale, 0.0)
        if self.scale == 0.0:
            raise ValueError("scale must be > 0 (a fraction of each entry's range)")
        self.uniform_fraction = require_float("uniform_fraction", uniform_fraction, 0.0, 1.0)
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise ValueError(
                f"GaussianActionSampler draws floats; got dtype {self.dtype} (an integer Box's "
                "actions are not Gaussian steps: pass your own action_sampler)"
            )
        self.low = tuple(lows)
        self.high = tuple(highs)

    def __call__(self, state: Any, rng: random.Random, tried: tuple) -> tuple[float, ...]:
        """Returns a new action: a tuple of floats within the bounds (see the class)."""
        low, high = self.low, self.high
        if not tried or rng.random() < self.uniform_fraction:
            return self._typed(
                [min(lo + (hi - lo) * rng.random(), hi) for lo, hi in zip(low, high, strict=True)]
            )
        best = max(range(len(tried)), key=lambda j: (tried[j][1], tried[j][2], -j))
        center = tried[best][0]
        if len(center) != len(low):
            raise ValueError(
                f"GaussianActionSampler has {len(low)} bounds, but the best action so far is "
                f"{center!r} ({len(center)} entries)"
            )
        scale = self.scale
        return self._typed(
            [
                min(hi, max(lo, x + rng.gauss(0.0, scale * (hi - lo))))
                for x, lo, hi in zip(center, low, high, strict=True)
            ]
        )

    def _typed(self, values: list[float]) -> tuple[float, ...]:
        """``values`` rounded through the sampler's dtype (what the env's array will hold)."""
        if self.dtype == np.float64:
            return tuple(values)
        return tuple(np.array(values, dtype=self.dtype).tolist())

    def __repr__(self) -> str:
        return (
            f"GaussianActionSampler(low={self.low}, high={self.high}, scale={self.scale}, "
            f"uniform_fraction={self.uniform_fraction}, dtype={self.dtype})"
        )


def _flat(values: Any) -> list:
    """``values`` as a flat list (an array flattened in C order)."""
    if isinstance(values, np.ndarray):
        return values.ravel().tolist()
    return list(values)
