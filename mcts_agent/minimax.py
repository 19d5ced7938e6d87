"""Exhaustive minimax (negamax) for small deterministic models.

Values follow the search's sign rule (``SPEC.md``): the value of a move is the
reward its mover receives plus the value of the position after it when the
same player moves again, minus it when the other player does. Undiscounted:
this is the game-theoretic value, the oracle the tests check MCTS against.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from mcts_agent.model import Model

__all__ = ["ExhaustiveMinimax"]


class ExhaustiveMinimax:
    """Memoised exhaustive negamax over every position reachable from a state.

    Suitable for games whose reachable positions fit in memory (tic-tac-toe
    has 5,478). States must be hashable. Iterative (no recursion limit).

    Args:
        model: a deterministic model (``actions``, ``step``, ``player``) whose
            games always end.

    Raises:
        TypeError: (from :meth:`value`) if a state is not hashable.
    """

    def __init__(self, model: Model) -> None:
        self.model = model
        self._values: dict[Hashable, float] = {}

    def value(self, state: Any) -> float:
        """Returns the minimax value of ``state`` for the player to move (0.0 if over)."""
        values = self._values
        stack = [state]
        while stack:
            current = stack[-1]
            if current in values:
                stack.pop()
                continue
            unsolved = []
            best = None
            for _, q, next_state in self._moves(current):
                if q is None:
                    unsolved.append(next_state)
                elif best is None or q > best:
                    best = q
            if unsolved:
                stack.extend(unsolved)
            else:
                values[current] = 0.0 if best is None else best
                stack.pop()
        return values[state]

    def action_values(self, state: Any) -> dict[Any, float]:
        """Returns ``{action: minimax value of playing it}`` for every legal action.

        The value is from the point of view of the player to move in ``state``.
        """
        self.value(state)
        return {action: q for action, q, _ in self._moves(state)}

    def _moves(self, state: Any) -> list[tuple[Any, float | None, Any]]:
        """Returns ``(action, q, next_state)`` per legal action; q is None if unsolved."""
        model = self.model
        values = self._values
        player = None
        moves = []
        for action in model.actions(state):
            next_state, reward, terminated = model.step(state, action)
            q: float | None
            if terminated or not model.actions(next_state):
                q = float(reward)
            elif next_state in values:
                if player is None:
                    player = model.player(state)
                sign = 1.0 if model.player(next_state) == player else -1.0
                q = float(reward) + sign * values[next_state]
            else:
                q = None
            moves.append((action, q, next_state))
        return moves

    def best_actions(self, state: Any) -> tuple:
        """Returns every minimax-optimal action of ``state``, in the model's order.

        Raises:
            ValueError: if ``state`` has no legal actions.
        """
        values = self.action_values(state)
        if not values:
            raise ValueError(f"state {state!r} has no legal actions: the game is over")
        best = max(values.values())
        return tuple(a for a, v in values.items() if v == best)
