"""The error the adapters raise when they cannot copy an env exactly."""

from __future__ import annotations

__all__ = ["CloneCheckError"]


class CloneCheckError(ValueError):
    """The model's clone of the env is not an exact, independent copy.

    Raised by :class:`~mcts_agent.adapters.PettingZooModel` and
    :class:`~mcts_agent.adapters.GymnasiumModel` when their start-up check
    fails. The message names the clone method that failed, what differed, and
    what to pass instead.
    """
