"""Argument checks shared by the public constructors: errors say what was expected and what came."""

from __future__ import annotations

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
