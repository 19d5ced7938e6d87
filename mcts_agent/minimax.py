"""Minimax (negamax) for deterministic models: exhaustive, and depth-limited alpha-beta.

Values follow the search's sign rule (``docs/concepts/iteration.md``): the value of a move is the
reward its mover receives plus the value of the position after it when the
same player moves again, minus it when the other player does. Undiscounted:
this is the game-theoretic value, the oracle the tests check MCTS against.

:class:`ExhaustiveMinimax` solves small games outright (memoised);
:class:`AlphaBetaMinimax` searches bigger ones to a fixed depth, with an
optional evaluation function at the horizon.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

from mcts_agent._validation import require_int
from mcts_agent.model import Model

__all__ = [
    "TIE_TOLERANCE",
    "AlphaBetaMinimax",
    "ExhaustiveMinimax",
    "PositionEvaluator",
    "check_alpha_beta_settings",
    "check_mover_reward",
    "reports_mover_reward",
]


def reports_mover_reward(model: Any) -> bool:
    """True if ``model``'s ``step`` reports the mover's reward, the one reward minimax searches.

    Minimax's sign rule (the module docstring) reads ``step``'s reward as a
    float received by the player who moved: the model of a two-player
    zero-sum game, or of one player. A model that reports every player's
    reward has ``reward_players`` set instead (:mod:`mcts_agent.maxn`; e.g. a
    :class:`~mcts_agent.adapters.PettingZooModel` of a game not known to be
    zero-sum), which MCTS's max^n backup searches and minimax cannot.
    """
    return getattr(model, "reward_players", None) is None


def check_mover_reward(model: Any) -> None:
    """Checks that minimax can search ``model`` (:func:`reports_mover_reward`, nothing hidden).

    Raises:
        ValueError: if ``model`` reports every player's reward, naming its
            ``reward_players``; if it is a hidden-information model (with
            ``information_set`` and ``sample_world``): minimax would search its
            states, hidden cards and all.
    """
    if callable(getattr(model, "information_set", None)) and callable(
        getattr(model, "sample_world", None)
    ):
        raise ValueError(
            f"minimax searches games of perfect information; this {type(model).__name__} "
            "hides information (it has information_set and sample_world), and minimax on "
            "its states would see the hidden cards or moves: plan it with MCTS "
            "(information-set MCTS)"
        )
    if not reports_mover_reward(model):
        raise ValueError(
            f"minimax searches models that report the mover's reward (two-player zero-sum "
            f"games); this {type(model).__name__} reports every player's reward "
            f"(reward_players={model.reward_players!r}): plan it with MCTS"
        )


class ExhaustiveMinimax:
    """Memoised exhaustive negamax over every position reachable from a state.

    Suitable for games whose reachable positions fit in memory (tic-tac-toe
    has 5,478). States must be hashable. Iterative (no recursion limit).

    Args:
        model: a deterministic model (``actions``, ``step``, ``player``) whose
            games always end, reporting the mover's reward.

    Raises:
        ValueError: if ``model`` reports every player's reward
            (:func:`check_mover_reward`).
        TypeError: (from :meth:`value`) if a state is not hashable.
    """

    def __init__(self, model: Model) -> None:
        check_mover_reward(model)
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


PositionEvaluator = Callable[[Any], float]
"""``evaluation(state) -> float``: a heuristic value of a non-terminal ``state``
for the player to move there, on the scale of the rewards (e.g. in [-1, 1])."""

TIE_TOLERANCE = 1e-9
"""Action values within this of the best count as equally good (alpha-beta)."""


def check_alpha_beta_settings(depth: Any, evaluation: Any) -> int | None:
    """Checks the settings of :class:`AlphaBetaMinimax` (and of players that make one).

    Args:
        depth: int >= 1 (numpy integers too), or None for no limit.
        evaluation: a callable ``state -> float``, or None.

    Returns:
        ``depth`` as an int, or None.

    Raises:
        TypeError: if ``depth`` is neither None nor an int (a bool is not), or
            ``evaluation`` is neither None nor callable.
        ValueError: if ``depth`` < 1.
    """
    if depth is not None:
        try:
            depth = require_int("depth", depth, 1)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{error}; or None for no limit") from None
    if evaluation is not None and not callable(evaluation):
        raise TypeError(f"evaluation must be a callable state -> float, got {evaluation!r}")
    return depth


class AlphaBetaMinimax:
    """Depth-limited negamax with alpha-beta pruning, for models too big to solve.

    The value of a move follows the same sign rule as :class:`ExhaustiveMinimax`
    (and the search's backup): the reward its mover receives, plus the value of
    the next position if the same player moves again, minus it otherwise.
    Undiscounted. Below ``depth`` plies a non-terminal position is worth
    ``evaluation(state)`` (0.0 without one), from the point of view of its player
    to move. With ``depth=None`` the search goes to the end of every game and
    gives the game-theoretic value, as :class:`ExhaustiveMinimax` does, without
    its memory (no transposition table: time grows with the game tree, pruned).

    Fail-soft alpha-beta in negamax form (Knuth & Moore, 1975, "An analysis of
    alpha-beta pruning"), with the window mapped through each move's reward and
    sign: for ``q = r - v(child)`` the child's window is ``(r - beta, r - alpha)``,
    for ``q = r + v(child)`` it is ``(alpha - r, beta - r)``. Actions are tried in
    the model's order. Recursive: the recursion is as deep as ``depth`` (or the
    longest game), which must stay below Python's recursion limit.

    Args:
        model: a deterministic model (``actions``, ``step``, ``player``) whose
            games always end (or searched with a finite ``depth``), reporting
            the mover's reward.
        depth: int >= 1, plies searched below a position; None for no limit.
        evaluation: optional ``state -> float`` for positions at the depth limit.

    Raises:
        TypeError: if ``depth`` is not an int or None, or ``evaluation`` is not
            callable.
        ValueError: if ``depth`` < 1, or ``model`` reports every player's
            reward (:func:`check_mover_reward`).
    """

    def __init__(
        self, model: Model, depth: int | None = None, evaluation: PositionEvaluator | None = None
    ) -> None:
        check_mover_reward(model)
        self.model = model
        self.depth = check_alpha_beta_settings(depth, evaluation)
        self.evaluation = evaluation

    def value(self, state: Any) -> float:
        """Returns the value of ``state`` for the player to move (0.0 if over)."""
        if not self.model.actions(state):
            return 0.0
        return self._search(state, self._plies(), -math.inf, math.inf)

    def action_values(self, state: Any) -> dict[Any, float]:
        """Returns ``{action: value of playing it}`` for every legal action.

        Each value is exact (searched with a full window), from the point of
        view of the player to move in ``state``, with ``depth`` plies counted
        from ``state`` (the move itself is the first).
        """
        player = self.model.player(state) if self.model.actions(state) else None
        plies = self._plies()
        return {
            action: self._move_value(state, player, action, plies, -math.inf, math.inf)
            for action in self.model.actions(state)
        }

    def best_actions(self, state: Any) -> tuple:
        """Returns every best action of ``state`` (within ``TIE_TOLERANCE``), in order.

        Later actions are searched with a window just below the best value so
        far, so that equally good moves are found without exact values of the
        worse ones.

        Raises:
            ValueError: if ``state`` has no legal actions.
        """
        actions = tuple(self.model.actions(state))
        if not actions:
            raise ValueError(f"state {state!r} has no legal actions: the game is over")
        player = self.model.player(state)
        plies = self._plies()
        best = -math.inf
        best_actions: list[Any] = []
        for action in actions:
            alpha = best - 2 * TIE_TOLERANCE
            q = self._move_value(state, player, action, plies, alpha, math.inf)
            if q > best + TIE_TOLERANCE:
                best = q
                best_actions = [action]
            elif q >= best - TIE_TOLERANCE:
                best_actions.append(action)
        return tuple(best_actions)

    def _plies(self) -> float:
        return math.inf if self.depth is None else self.depth

    def _search(self, state: Any, plies: float, alpha: float, beta: float) -> float:
        """Fail-soft negamax value of a non-terminal ``state`` within ``(alpha, beta)``."""
        if plies <= 0:
            return 0.0 if self.evaluation is None else float(self.evaluation(state))
        player = self.model.player(state)
        best = -math.inf
        for action in self.model.actions(state):
            q = self._move_value(state, player, action, plies, alpha, beta)
            if q > best:
                best = q
                if best > alpha:
                    alpha = best
                    if alpha >= beta:
                        break
        return best

    def _move_value(
        self, state: Any, player: Any, action: Any, plies: float, alpha: float, beta: float
    ) -> float:
        """Fail-soft value of playing ``action`` in ``state`` within ``(alpha, beta)``."""
        model = self.model
        next_state, reward, terminated = model.step(state, action)
        reward = float(reward)
        if terminated or not model.actions(next_state):
            return reward
        if model.player(next_state) == player:
            return reward + self._search(next_state, plies - 1, alpha - reward, beta - reward)
        return reward - self._search(next_state, plies - 1, reward - beta, reward - alpha)
