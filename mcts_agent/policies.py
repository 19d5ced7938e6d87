"""Policies: callables ``policy(state) -> action`` bound to a model.

A :class:`~mcts_agent.search.MCTS` planner is itself such a policy
(``planner(state)`` searches and returns its move), so planners, random players
and minimax players can face each other on any model.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from mcts_agent.minimax import AlphaBetaMinimax, ExhaustiveMinimax, PositionEvaluator
from mcts_agent.model import Model

__all__ = ["MinimaxPolicy", "PerfectPolicy", "Policy", "RandomPolicy"]


class Policy(Protocol):
    """Anything that maps a model state to one of its legal actions."""

    def __call__(self, state: Any) -> Any:
        """Returns the action to play in ``state``."""
        ...


def _legal_actions(model: Model, state: Any) -> tuple:
    actions = tuple(model.actions(state))
    if not actions:
        raise ValueError(f"state {state!r} has no legal actions: the game is over")
    return actions


class RandomPolicy:
    """Plays a uniformly random legal action, from its own seeded generator.

    Args:
        model: the model whose ``actions(state)`` gives the legal moves.
        seed: int seed of the policy's ``random.Random``, or None for fresh
            entropy.

    Raises:
        ValueError: (when called) if the state has no legal actions.
    """

    def __init__(self, model: Model, seed: int | None = None) -> None:
        self.model = model
        self.rng = random.Random(seed)

    def __call__(self, state: Any) -> Any:
        """Returns a uniformly random legal action of ``state``."""
        actions = _legal_actions(self.model, state)
        return actions[self.rng.randrange(len(actions))]


class PerfectPolicy:
    """Plays one of the minimax-optimal actions, chosen at random (seeded).

    Uses :class:`~mcts_agent.minimax.ExhaustiveMinimax`, so it suits games
    small enough to solve outright (tic-tac-toe).

    Args:
        model: a two-player (or one-player) deterministic model whose games end.
        seed: int seed of the tie-breaking generator, or None.
        solver: an existing solver to share its memo; made from ``model`` if None.

    Raises:
        ValueError: (when called) if the state has no legal actions.
    """

    def __init__(
        self, model: Model, seed: int | None = None, solver: ExhaustiveMinimax | None = None
    ) -> None:
        self.model = model
        self.solver = solver if solver is not None else ExhaustiveMinimax(model)
        self.rng = random.Random(seed)

    def __call__(self, state: Any) -> Any:
        """Returns a random one of the minimax-optimal actions of ``state``."""
        _legal_actions(self.model, state)
        best = self.solver.best_actions(state)
        return best[self.rng.randrange(len(best))]


class MinimaxPolicy:
    """Plays one of the best actions of a depth-limited alpha-beta search (seeded).

    Uses :class:`~mcts_agent.minimax.AlphaBetaMinimax`, for two-player zero-sum
    games too big to solve outright (connect four). Actions whose values are
    within :data:`~mcts_agent.minimax.TIE_TOLERANCE` of the best count as
    equally good; one of them is chosen at random.

    Args:
        model: a deterministic model whose games end.
        depth: int >= 1, plies searched ahead; None to search to the end of the
            game (then it plays perfectly, as :class:`PerfectPolicy` does).
        evaluation: optional ``state -> float``, the value at the depth limit of
            a non-terminal position for its player to move (0.0 without one).
        seed: int seed of the tie-breaking generator, or None.

    Raises:
        TypeError: if ``depth`` or ``evaluation`` has the wrong type.
        ValueError: if ``depth`` < 1; (when called) if the state has no legal
            actions.
    """

    def __init__(
        self,
        model: Model,
        depth: int | None = 4,
        evaluation: PositionEvaluator | None = None,
        seed: int | None = None,
    ) -> None:
        self.model = model
        self.solver = AlphaBetaMinimax(model, depth=depth, evaluation=evaluation)
        self.rng = random.Random(seed)

    def __call__(self, state: Any) -> Any:
        """Returns a random one of the best actions of ``state`` at the search depth."""
        _legal_actions(self.model, state)
        best = self.solver.best_actions(state)
        return best[self.rng.randrange(len(best))]
