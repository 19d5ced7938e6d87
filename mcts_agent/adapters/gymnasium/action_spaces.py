"""How a Gymnasium action space becomes the actions of :class:`GymnasiumModel`.

Two kinds (:func:`read_action_space`):

* listed (:class:`ListedActions`): ``Discrete``, ``MultiDiscrete`` and
  ``MultiBinary`` spaces have a finite set of actions, every one enumerated
  (an int for ``Discrete``, a tuple of ints in C order for the others, each
  combination one action, at most :data:`MAX_ACTIONS`);
* sampled (:class:`SampledActions`): ``Box`` spaces (finite bounds, any
  shape, float or integer dtype) and ``Dict``/``Tuple`` spaces made of
  ``Box``, ``Discrete``, ``MultiDiscrete``, ``MultiBinary`` and nested
  ``Dict``/``Tuple`` parts cannot be listed, and their actions are drawn
  uniformly within the bounds from the planner's generator (progressive
  widening, Couëtoux et al. 2011, "Continuous upper confidence trees"),
  never from the env's ``action_space.sample()`` (which would advance the
  live env's generator).

A sampled action is hashable and compares with ``==`` (the search keeps
them as dict keys), made of Python numbers:

* a ``Box`` part: a tuple of ``prod(shape)`` numbers in C order (a Box of
  shape ``(1,)`` gives ``(x,)``). Float dtypes: dimension ``d`` is drawn as
  ``low[d] + (high[d] - low[d]) * rng.random()``, clipped to ``high[d]``
  and rounded through the space's dtype (float32: ``float(np.float32(x))``),
  so that the tuple is exactly what the env sees. Integer dtypes: an int
  drawn uniformly among ``low[d] .. high[d]`` as
  ``low[d] + int(rng.random() * (high[d] - low[d] + 1))`` (clipped to
  ``high[d]``, which only rounding of spans beyond 2**53 could pass);
* a ``Discrete(n, start)`` part: an int ``start + int(rng.random() * n)``;
  a ``MultiDiscrete`` or ``MultiBinary`` part: a tuple of ints, each drawn
  as a ``Discrete`` (a ``MultiBinary`` dimension is ``Discrete(2)``);
* a ``Dict`` or ``Tuple`` space: a tuple with one entry per part (a
  ``Dict``'s in the space's key order), each drawn as above, in that order.

Exactly one ``rng.random()`` per number, in the order the numbers appear in
the action (so a C replica can draw the same).
"""

from __future__ import annotations

import itertools
import math
import numbers
from array import array
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.wrappers import TransformAction

__all__ = ["MAX_ACTIONS", "ListedActions", "SampledActions", "read_action_space"]

MAX_ACTIONS = 100_000
"""Most actions a ``MultiDiscrete`` or ``MultiBinary`` space may have (every combination is one)."""

_SUPPORTED = (
    "Discrete, MultiDiscrete or MultiBinary (listed), or Box (finite bounds), or a Dict or "
    "Tuple of those (sampled)"
)


class ListedActions(NamedTuple):
    """The actions of a ``Discrete``, ``MultiDiscrete`` or ``MultiBinary`` space, enumerated.

    Attributes:
        actions: tuple, every action in the model's order (ints for
            ``Discrete``; tuples of ints, C order, for the others).
        env_actions: dict, action -> the env's action (an int; an
            ``np.ndarray`` of the space's shape and dtype).
        inner_actions: dict, action -> what ``env.unwrapped`` is stepped with
            (the env's action through the action wrappers, outermost first).
        mask_shape: ``(number of actions,)``, the shape of a flat mask.
        dimensions: the number of values of each dimension (``MultiDiscrete``,
            ``MultiBinary``), or None for ``Discrete``.
    """

    actions: tuple
    env_actions: dict
    inner_actions: dict
    mask_shape: tuple[int, ...]
    dimensions: tuple[int, ...] | None


def read_action_space(
    space: Any, translators: list[TransformAction]
) -> ListedActions | SampledActions:
    """Returns the actions of ``space``: listed if finite, else sampled.

    Args:
        space: the env's (outer) ``action_space``.
        translators: the env's stateless action wrappers, outermost first; a
            model action becomes the inner env's through each one's ``action``.

    Raises:
        TypeError: for a space (or a part of one) that is none of
            :data:`_SUPPORTED`, or a ``Box`` whose dtype is neither float nor
            integer.
        ValueError: for a ``MultiDiscrete``/``MultiBinary`` space of more than
            :data:`MAX_ACTIONS` actions, a ``Box`` with an infinite bound
            (naming the dimensions), or an empty ``Dict``/``Tuple``.
    """
    if isinstance(space, spaces.Discrete):
        start = int(space.start)
        actions: tuple = tuple(range(start, start + int(space.n)))
        env_actions: dict[Any, Any] = {a: a for a in actions}
        dimensions = None
    elif isinstance(space, spaces.MultiDiscrete | spaces.MultiBinary):
        if isinstance(space, spaces.MultiDiscrete):
            nvec, starts = np.asarray(space.nvec), np.asarray(space.start).ravel().tolist()
        else:
            nvec, starts = np.full(space.shape, 2), [0] * math.prod(space.shape)
        count = math.prod(nvec.ravel().tolist())  # Python ints: no overflow
        if count > MAX_ACTIONS:
            raise ValueError(
                f"{space} has {count} combinations of actions, more than MAX_ACTIONS "
                f"({MAX_ACTIONS}); plan with a smaller action space"
            )
        ranges = [range(s, s + n) for s, n in zip(starts, nvec.ravel().tolist(), strict=True)]
        actions = tuple(itertools.product(*ranges))
        env_actions = {a: np.array(a, dtype=space.dtype).reshape(nvec.shape) for a in actions}
        dimensions = tuple(nvec.ravel().tolist())
    elif isinstance(space, spaces.Box | spaces.Dict | spaces.Tuple):
        return SampledActions(space, translators)
    else:
        raise TypeError(f"the action space must be {_SUPPORTED}; got {space}")
    inner_actions = {a: _inward(env_action, translators) for a, env_action in env_actions.items()}
    return ListedActions(actions, env_actions, inner_actions, (len(actions),), dimensions)


def _inward(env_action: Any, translators: list[TransformAction]) -> Any:
    """The env's action through the action wrappers, outermost first: what the inner env takes."""
    for wrapper in translators:
        env_action = wrapper.action(env_action)
    return env_action


class SampledActions:
    """The actions of a ``Box``, ``Dict`` or ``Tuple`` space: drawn, checked and converted.

    The module docstring says how an action is drawn and what it looks like.
    ``sampled[action]`` (a mapping, as :attr:`ListedActions.inner_actions`)
    checks the action and returns what ``env.unwrapped`` is stepped with.

    Args:
        space: the env's (outer) action space.
        translators: the env's stateless action wrappers, outermost first.

    Attributes:
        space: the space, as given.

    Raises:
        TypeError, ValueError: as :func:`read_action_space`.
    """

    def __init__(self, space: Any, translators: list[TransformAction]) -> None:
        self.space = space
        self._translators = translators
        self._root = _part(space, "the action")
        self.draw: Callable[[Callable[[], float]], Any] = self._root.draw
        """``draw(random) -> action``: ``random`` is the planner's ``rng.random``."""

    def __getitem__(self, action: Any) -> Any:
        """The inner env's action for ``action``; ValueError if it is not one of the space's."""
        self._root.check(action)
        return _inward(self._root.convert(action), self._translators)

    def inner(self, action: Any) -> Any:
        """The inner env's action for an action of :attr:`draw` (not checked: rollouts)."""
        return _inward(self._root.convert(action), self._translators)

    def env_action(self, action: Any) -> Any:
        """The env's (outer) action: an array of a Box's shape and dtype, a dict or a tuple.

        Raises:
            ValueError: if ``action`` is not an action of the space (the
                message says what was expected and what came).
        """
        self._root.check(action)
        return self._root.convert(action)


def _part(space: Any, where: str) -> _Numbers | _Composite:
    """The drawing, checking and converting of one part of a sampled space."""
    if isinstance(space, spaces.Dict | spaces.Tuple):
        return _Composite(space, where)
    if isinstance(space, spaces.Box | spaces.Discrete | spaces.MultiDiscrete | spaces.MultiBinary):
        return _Numbers(space, where)
    raise TypeError(
        f"the action space must be {_SUPPORTED}; {where} is of {space}"
        if where != "the action"
        else f"the action space must be {_SUPPORTED}; got {space}"
    )


def _float_rounding(dtype: np.dtype) -> Callable[[list[float]], list[float]]:
    """Rounds Python floats through a float dtype (what the env's array will hold)."""
    if dtype == np.float64:
        return _identity
    if dtype == np.float32:
        return _float32
    return lambda values: np.array(values, dtype=dtype).tolist()


def _identity(values: list[float]) -> list[float]:
    return values


def _float32(values: list[float]) -> list[float]:
    return array("f", values).tolist()  # C's double -> float: round to nearest, as numpy


class _Numbers:
    """A ``Box``, ``Discrete``, ``MultiDiscrete`` or ``MultiBinary`` part: numbers in bounds."""

    def __init__(self, space: Any, where: str) -> None:
        self.space = space
        self.where = where
        self.scalar = isinstance(space, spaces.Discrete)
        self.shape = space.shape
        self.dtype = space.dtype
        if isinstance(space, spaces.Box):
            if not (
                np.issubdtype(space.dtype, np.floating) or np.issubdtype(space.dtype, np.integer)
            ):
                raise TypeError(f"{where} is of {space}, whose dtype is neither float nor integer")
            unbounded = ~(space.bounded_below & space.bounded_above)
            if unbounded.any():
                dims = [tuple(int(i) for i in d) for d in np.argwhere(unbounded)]
                shown = ", ".join(map(str, dims[:10])) + (", ..." if len(dims) > 10 else "")
                raise ValueError(
                    f"{where} is of {space}, unbounded in dimension(s) {shown} (index in the "
                    "Box's shape): actions are drawn uniformly within the bounds, which must "
                    "be finite. Give the env's action space finite low and high (Gymnasium's "
                    "ClipAction declares an unbounded space, and RescaleAction needs finite "
                    "bounds inside it)"
                )
            self.lows = space.low.ravel().tolist()
            self.highs = space.high.ravel().tolist()
            for d, (low, high) in enumerate(zip(self.lows, self.highs, strict=True)):
                if not low <= high or not math.isfinite(high - low):
                    raise ValueError(
                        f"{where} is of {space}, whose bounds in dimension {d} (flat, C order) "
                        f"are [{low}, {high}]: expected low <= high and a finite range "
                        "(high - low), within which actions are drawn uniformly"
                    )
            self.integer = bool(np.issubdtype(space.dtype, np.integer))
        else:
            if isinstance(space, spaces.Discrete):
                starts, counts = [int(space.start)], [int(space.n)]
            elif isinstance(space, spaces.MultiDiscrete):
                starts, counts = space.start.ravel().tolist(), space.nvec.ravel().tolist()
            else:
                starts, counts = [0] * math.prod(space.shape), [2] * math.prod(space.shape)
            self.lows = starts
            self.highs = [s + n - 1 for s, n in zip(starts, counts, strict=True)]
            self.integer = True
        if self.integer:
            self.spans = [h - low + 1 for low, h in zip(self.lows, self.highs, strict=True)]
        else:
            self.spans = [h - low for low, h in zip(self.lows, self.highs, strict=True)]
        self.rounding = _float_rounding(space.dtype) if not self.integer else _identity
        self.bounds = list(zip(self.lows, self.spans, self.highs, strict=True))

    def draw(self, random_: Callable[[], float]) -> Any:
        if self.integer:
            values = [min(low + int(random_() * n), h) for low, n, h in self.bounds]
        else:
            values = self.rounding([min(low + s * random_(), h) for low, s, h in self.bounds])
        return values[0] if self.scalar else tuple(values)

    def check(self, action: Any) -> None:
        kind = "int" if self.integer else "number"
        if self.scalar:
            values: Any = (action,)
        elif type(action) is tuple and len(action) == len(self.bounds):
            values = action
        else:
            raise ValueError(
                f"{self.where} must be a tuple of {len(self.bounds)} {kind}(s) (C order) for "
                f"{self.space}; got {action!r}"
            )
        number = numbers.Integral if self.integer else numbers.Real
        for d, (x, (low, _, high)) in enumerate(zip(values, self.bounds, strict=True)):
            if isinstance(x, bool) or not isinstance(x, number) or not low <= x <= high:
                at = "" if self.scalar else f" (entry {d})"
                article = "an" if self.integer else "a"
                raise ValueError(
                    f"{self.where}{at} must be {article} {kind} in [{low}, {high}] for "
                    f"{self.space}; got {x!r}"
                )

    def convert(self, action: Any) -> Any:
        if self.scalar:
            return action
        return np.array(action, dtype=self.dtype).reshape(self.shape)


class _Composite:
    """A ``Dict`` or ``Tuple`` part: a tuple with one entry per part, in the space's order."""

    def __init__(self, space: Any, where: str) -> None:
        self.space = space
        self.where = where
        if isinstance(space, spaces.Dict):
            self.keys: list[Any] | None = list(space.spaces)
            labelled = list(space.spaces.items())
        else:
            self.keys = None
            labelled = list(enumerate(space.spaces))
        if not labelled:
            raise ValueError(f"{where} is of an empty {space}: it has no action to plan")
        self.parts = [_part(sub, f"{where}'s part {key!r}") for key, sub in labelled]

    def draw(self, random_: Callable[[], float]) -> tuple:
        return tuple([part.draw(random_) for part in self.parts])

    def check(self, action: Any) -> None:
        if type(action) is not tuple or len(action) != len(self.parts):
            order = f", keys {self.keys!r} in this order" if self.keys is not None else ""
            raise ValueError(
                f"{self.where} must be a tuple of {len(self.parts)} parts{order} for "
                f"{self.space}; got {action!r}"
            )
        for part, value in zip(self.parts, action, strict=True):
            part.check(value)

    def convert(self, action: tuple) -> Any:
        converted = [part.convert(value) for part, value in zip(self.parts, action, strict=True)]
        if self.keys is None:
            return tuple(converted)
        return dict(zip(self.keys, converted, strict=True))
