"""Argument checks shared by the public constructors: errors say what was expected and what came."""

from __future__ import annotations

import math
import numbers
from typing import Any


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
