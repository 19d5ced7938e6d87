"""Players: picklable factories that make a fresh, seeded policy for every game.

A *player* is a picklable factory ``player(model, seed) -> policy`` that makes a
fresh, seeded policy (``policy(state) -> action``, see
:mod:`mcts_agent.policies`) for every game: :class:`RandomPlayer`,
:class:`PerfectPlayer`, :class:`MinimaxPlayer`, :class:`MCTSPlayer`, or any
function of that shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcts_agent._validation import require_float, require_int
from mcts_agent.minimax import ExhaustiveMinimax, PositionEvaluator, check_alpha_beta_settings
from mcts_agent.model import Model
from mcts_agent.policies import MinimaxPolicy, PerfectPolicy, Policy, RandomPolicy
from mcts_agent.search import MCTS

__all__ = [
    "DEFAULT_EXPLORATION",
    "MCTSPlayer",
    "MinimaxPlayer",
    "PerfectPlayer",
    "Player",
    "RandomPlayer",
]

DEFAULT_EXPLORATION = 2 * math.sqrt(2)
"""c for games whose returns lie in [-1, 1] (UCB1's sqrt(2) scaled by the range 2)."""

Player = Callable[[Model, int], Policy]
"""``player(model, seed) -> policy``: makes a fresh seeded policy for one game."""


def _label(player: Any) -> str:
    label = getattr(player, "label", None)
    if isinstance(label, str):
        return label
    return getattr(player, "__name__", None) or repr(player)


@dataclass(frozen=True)
class RandomPlayer:
    """Makes :class:`~mcts_agent.policies.RandomPolicy`: uniformly random legal moves."""

    label = "random"

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns a random policy on ``model`` seeded with ``seed``."""
        return RandomPolicy(model, seed=seed)

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {"kind": "random"}


_SOLVERS: dict[int, tuple[Model, ExhaustiveMinimax]] = {}


def _shared_solver(model: Model) -> ExhaustiveMinimax:
    """Returns one memoised solver per model object in this process (last four kept)."""
    entry = _SOLVERS.get(id(model))
    if entry is None or entry[0] is not model:
        if len(_SOLVERS) >= 4:
            _SOLVERS.pop(next(iter(_SOLVERS)))
        entry = (model, ExhaustiveMinimax(model))
        _SOLVERS[id(model)] = entry
    return entry[1]


@dataclass(frozen=True)
class PerfectPlayer:
    """Makes :class:`~mcts_agent.policies.PerfectPolicy`: exhaustive minimax play.

    One of the minimax-optimal moves, chosen at random with the game's seed.
    The solver's memo is shared by the games one process plays on one model.
    Only for games small enough to solve outright (tic-tac-toe).
    """

    label = "perfect"

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns a perfect policy on ``model`` breaking ties with ``seed``."""
        return PerfectPolicy(model, seed=seed, solver=_shared_solver(model))

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {"kind": "perfect"}


@dataclass(frozen=True)
class MinimaxPlayer:
    """Makes :class:`~mcts_agent.policies.MinimaxPolicy`: depth-limited alpha-beta.

    Attributes:
        depth: int >= 1, plies searched ahead; None to search to the end.
        evaluation: optional picklable ``state -> float`` for positions at the
            depth limit (0.0 without one).

    A numpy integer ``depth`` is stored as an ``int``.

    Raises:
        TypeError, ValueError: if ``depth`` is not an int >= 1 or None, or
            ``evaluation`` is not callable (:func:`~mcts_agent.minimax.check_alpha_beta_settings`).
    """

    depth: int | None = 4
    evaluation: PositionEvaluator | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "depth", check_alpha_beta_settings(self.depth, self.evaluation))

    @property
    def label(self) -> str:
        """Short name for tables, e.g. ``minimax(depth=4)``."""
        return f"minimax(depth={'full' if self.depth is None else self.depth})"

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns an alpha-beta policy on ``model`` breaking ties with ``seed``."""
        return MinimaxPolicy(model, depth=self.depth, evaluation=self.evaluation, seed=seed)

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        evaluation = None if self.evaluation is None else _label(self.evaluation)
        return {"kind": "minimax", "depth": self.depth, "evaluation": evaluation}


@dataclass(frozen=True)
class MCTSPlayer:
    """Makes an :class:`~mcts_agent.search.MCTS` planner (itself a policy).

    Attributes:
        iterations: int >= 1, iterations per move.
        exploration: c >= 0 of UCB1 (default 2*sqrt(2), for returns in [-1, 1]).
        rollout_limit: int >= 0, most moves in one rollout.

    Numpy numbers are stored as ``int`` and ``float`` (so :meth:`describe` is
    JSON-ready); the checks are :class:`~mcts_agent.search.MCTS`'s.

    Raises:
        TypeError, ValueError: if a setting has the wrong type or range.
    """

    iterations: int
    exploration: float = DEFAULT_EXPLORATION
    rollout_limit: int = 1000

    def __post_init__(self) -> None:
        for name, value in (
            ("iterations", require_int("iterations", self.iterations, 1)),
            ("exploration", require_float("exploration", self.exploration, 0.0)),
            ("rollout_limit", require_int("rollout_limit", self.rollout_limit, 0)),
        ):
            object.__setattr__(self, name, value)

    @property
    def label(self) -> str:
        """Short name for tables, e.g. ``mcts(iterations=100, c=2.83)``."""
        return f"mcts(iterations={self.iterations}, c={self.exploration:.3g})"

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns a planner on ``model`` whose rollouts are seeded with ``seed``."""
        return MCTS(
            model,
            self.iterations,
            exploration=self.exploration,
            rollout_limit=self.rollout_limit,
            seed=seed,
        )

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {
            "kind": "mcts",
            "iterations": self.iterations,
            "exploration": self.exploration,
            "rollout_limit": self.rollout_limit,
        }
