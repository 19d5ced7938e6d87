"""Pig, the dice game, as a two-player stochastic model, with its optimal policy.

Rules (Neller & Presser 2004, "Optimal play of the dice game Pig", The UMAP
Journal 25(1)): the player to move rolls a die as often as they like. A 1
loses the turn total and passes the turn; 2 to 6 add to the turn total.
Holding banks the turn total and passes the turn. The first player whose
banked score plus turn total reaches ``goal`` (default 30; 100 in the
paper) wins: the game ends at once, as in the paper's equations (holding
then is always best).

Players are 1 (moves first) and 2. The move that wins earns its player 1.0;
every other move 0.0 (zero-sum: the backup's sign rule makes the loser's
value -1). Actions: :data:`ROLL` (0) and :data:`HOLD` (1), both always legal
(holding a turn total of 0 passes). A state is a :class:`PigState`
``(player, score, other, turn_total)`` from the point of view of the player
to move, the paper's ``(i, j, k)``; it is a hashable NamedTuple of ints.

:class:`PigModel` is a :class:`~mcts_agent.model.StochasticModel`: a roll's
``outcomes`` are the six faces, each with probability 1/6; it also has a
fused ``rollout`` drawing from the planner's generator.

:func:`win_probabilities` solves the game by value iteration (the paper's
equations, Gauss-Seidel sweeps to a tolerance of 1e-13) and
:class:`OptimalPigPolicy` plays by it; :func:`match_probability` computes
exactly how often one policy beats another.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any, NamedTuple

from mcts_agent._validation import require_int
from mcts_agent.model import StepResult

__all__ = [
    "HOLD",
    "ROLL",
    "HoldAtPolicy",
    "OptimalPigPolicy",
    "PigModel",
    "PigState",
    "match_probability",
    "win_probabilities",
]

ROLL = 0
"""Roll the die."""
HOLD = 1
"""Bank the turn total and pass the turn."""

_SIXTH = 1.0 / 6.0
_ACTIONS = (ROLL, HOLD)


class PigState(NamedTuple):
    """A position of Pig, from the point of view of the player to move.

    Attributes:
        player: int, the player to move (1 or 2); after the winning move, the
            loser.
        score: int, the banked score of the player to move (the paper's i).
        other: int, the opponent's banked score (j); ``>= goal`` once the
            opponent has won.
        turn_total: int, the points rolled in this turn, not banked yet (k).
    """

    player: int
    score: int
    other: int
    turn_total: int


class PigModel:
    """Pig to ``goal`` points as a two-player stochastic model (players 1 and 2).

    Args:
        goal: int >= 1, the points that win.

    Raises:
        TypeError, ValueError: if ``goal`` is not an int >= 1.
    """

    def __init__(self, goal: int = 30) -> None:
        self.goal = require_int("goal", goal, 1)

    def initial_state(self) -> PigState:
        """Returns the start: player 1 to move, no points."""
        return PigState(1, 0, 0, 0)

    def actions(self, state: PigState) -> tuple[int, ...]:
        """Returns ``(ROLL, HOLD)``, or ``()`` once a player has won."""
        return () if state.other >= self.goal else _ACTIONS

    def player(self, state: PigState) -> int:
        """Returns the player to move."""
        return state.player

    def outcomes(self, state: PigState, action: int) -> list[tuple[float, StepResult]]:
        """Returns the outcomes of ``action``: one for ``HOLD``, faces 1 to 6 for ``ROLL``.

        Raises:
            ValueError: if the game is over or ``action`` is neither ROLL nor HOLD.
        """
        player, i, j, k = state
        if j >= self.goal:
            raise ValueError(f"the game is over in {state}: player {player} lost")
        if action == HOLD:
            return [(1.0, self._bank(player, i + k, j))]
        if action != ROLL:
            raise ValueError(f"a Pig action is ROLL (0) or HOLD (1), got {action!r}")
        return [(_SIXTH, self._face(state, face)) for face in range(1, 7)]

    def _bank(self, player: int, banked: int, other: int) -> StepResult:
        """The turn passes with ``banked`` points; reaching the goal wins."""
        won = banked >= self.goal
        return StepResult(PigState(3 - player, other, banked, 0), 1.0 if won else 0.0, won)

    def _face(self, state: PigState, face: int) -> StepResult:
        player, i, j, k = state
        if face == 1:
            return StepResult(PigState(3 - player, j, i, 0), 0.0, False)
        if i + k + face >= self.goal:
            return self._bank(player, i + k + face, j)
        return StepResult(PigState(player, i, j, k + face), 0.0, False)

    def native_chance(self) -> Any:
        """The compiled core's :meth:`rollout` and records, or None (``compiled-core.md``).

        The same rollout in C, drawing the same random numbers, and the same
        outcomes for a new chance node
        (:func:`mcts_agent.compiled_chance.pig_rollout`); the search uses the
        rollout in place of :meth:`rollout` while ``rollout`` is this class's.
        None without the core, or when ``outcomes`` is not this class's or a
        ``key`` was added (a subclass or the instance changed what it fuses).
        """
        from mcts_agent.compiled_chance import pig_rollout  # compiled_chance imports search's

        outcomes = getattr(self.outcomes, "__func__", None)
        if outcomes is not PigModel.outcomes or hasattr(self, "key"):
            return None
        return pig_rollout(self.goal, PigState, StepResult)

    def rollout(self, state: PigState, rng: random.Random, limit: int, gamma: float) -> float:
        """Plays uniformly random actions and fair dice from ``state``; returns the return.

        The fused rollout of :class:`~mcts_agent.model.RolloutModel`, drawing
        as the search's own rollout does (the action
        ``actions[int(rng.random() * 2)]``, then the face of the first running
        sum of sixths above ``rng.random()``; a hold, a sure outcome, draws
        nothing), from the point of view of
        ``player(state)``.
        """
        _, i, j, k = state
        goal = self.goal
        random_ = rng.random
        coef = 1.0  # the discount and sign of the next move's reward
        for _ in range(limit):
            if _ACTIONS[int(random_() * 2)] == ROLL:
                u = random_()
                face = 6
                running = 0.0
                for f in range(1, 7):
                    running += _SIXTH
                    if u < running:
                        face = f
                        break
                if face != 1:
                    k += face
                    if i + k >= goal:
                        return coef  # the mover wins: reward 1
                    coef *= gamma  # the same player moves again
                    continue
                i, j, k = j, i, 0  # a 1: the turn total is lost
            else:
                if i + k >= goal:
                    return coef
                i, j, k = j, i + k, 0
            coef *= -gamma
        return 0.0


@functools.lru_cache(maxsize=8)
def win_probabilities(goal: int = 30) -> tuple[tuple[tuple[float, ...], ...], ...]:
    """Solves Pig to ``goal``: the optimal player to move's probability of winning.

    Neller & Presser (2004), value iteration on
    ``P(i, j, k) = max(P_roll, P_hold)`` with ``P_hold = 1 - P(j, i + k, 0)``
    and ``P_roll = (1 - P(j, i, 0)) / 6 + sum over r = 2..6 of P(i, j, k + r)
    / 6``, where ``P = 1`` once ``i + k >= goal``; Gauss-Seidel sweeps until
    no value changes by more than 1e-13.

    Args:
        goal: int >= 1.

    Returns:
        ``P[i][j][k]`` for ``0 <= i, j < goal`` and ``0 <= k < goal - i``.
    """
    goal = require_int("goal", goal, 1)
    table = [[[0.0] * (goal - i) for _ in range(goal)] for i in range(goal)]
    while _sweep(table, goal) > 1e-13:
        pass
    return tuple(tuple(tuple(row) for row in plane) for plane in table)


def _sweep(table: list, goal: int) -> float:
    """One Gauss-Seidel sweep of the optimal equations; returns the largest change."""
    largest = 0.0
    for total in range(2 * goal - 2, -1, -1):  # scores i + j, highest first
        for i in range(max(0, total - goal + 1), min(goal, total + 1)):
            j = total - i
            plane_i = table[i][j]
            lose_all = 1.0 - table[j][i][0]
            for k in range(goal - i - 1, -1, -1):
                roll = lose_all * _SIXTH
                for face in range(2, 7):
                    roll += (plane_i[k + face] if k + face < goal - i else 1.0) * _SIXTH
                hold = 1.0 - table[j][i + k][0] if i + k < goal else 1.0
                value = roll if roll > hold else hold
                change = abs(value - plane_i[k])
                if change > largest:
                    largest = change
                plane_i[k] = value
    return largest


class OptimalPigPolicy:
    """Plays Pig optimally (Neller & Presser 2004): roll exactly when rolling wins more often.

    Args:
        goal: int >= 1, the model's goal.
    """

    def __init__(self, goal: int = 30) -> None:
        self.goal = require_int("goal", goal, 1)
        self.table = win_probabilities(self.goal)

    def decide(self, i: int, j: int, k: int) -> int:
        """The optimal action with score ``i``, opponent's ``j``, turn total ``k``."""
        return _optimal_action(self.table, self.goal, i, j, k)

    def __call__(self, state: PigState) -> int:
        """Returns ROLL or HOLD in ``state`` (ties hold)."""
        return self.decide(state.score, state.other, state.turn_total)


def _optimal_action(table: tuple, goal: int, i: int, j: int, k: int) -> int:
    roll = (1.0 - table[j][i][0]) * _SIXTH
    for face in range(2, 7):
        roll += (table[i][j][k + face] if i + k + face < goal else 1.0) * _SIXTH
    hold = 1.0 - table[j][i + k][0] if i + k < goal else 1.0
    return ROLL if roll > hold else HOLD


class HoldAtPolicy:
    """Rolls until the turn total reaches ``threshold``, then holds ("hold at 20").

    Args:
        threshold: int >= 1.
    """

    def __init__(self, threshold: int) -> None:
        self.threshold = require_int("threshold", threshold, 1)

    def decide(self, i: int, j: int, k: int) -> int:
        """ROLL while ``k < threshold``, else HOLD."""
        return ROLL if k < self.threshold else HOLD

    def __call__(self, state: PigState) -> int:
        """Returns ROLL or HOLD in ``state``."""
        return self.decide(state.score, state.other, state.turn_total)


def match_probability(
    first: Callable[[int, int, int], int], second: Callable[[int, int, int], int], goal: int = 30
) -> tuple[float, float]:
    """Exactly how often ``first`` beats ``second`` at Pig to ``goal``.

    Policy evaluation by Gauss-Seidel sweeps (to 1e-13) of the two coupled
    tables ``A(i, j, k)``, ``first``'s probability of winning when it is to
    move, and ``B(i, j, k)``, ``second``'s.

    Args:
        first: ``decide(i, j, k) -> ROLL or HOLD`` of one player (e.g.
            ``OptimalPigPolicy(goal).decide``).
        second: the other player's.
        goal: int >= 1.

    Returns:
        ``(moving_first, alternating)``: ``first``'s probability of winning
        when it moves first, and its mean over both seats.
    """
    goal = require_int("goal", goal, 1)
    a = [[[0.0] * (goal - i) for _ in range(goal)] for i in range(goal)]
    b = [[[0.0] * (goal - i) for _ in range(goal)] for i in range(goal)]
    largest = 1.0
    while largest > 1e-13:
        largest = max(_evaluate(a, b, first, goal), _evaluate(b, a, second, goal))
    moving_first = a[0][0][0]
    return moving_first, (moving_first + 1.0 - b[0][0][0]) / 2


def _evaluate(mine: list, theirs: list, decide: Callable[[int, int, int], int], goal: int) -> float:
    """One sweep of ``mine`` (the mover's win probability under ``decide``); the largest change."""
    largest = 0.0
    for total in range(2 * goal - 2, -1, -1):
        for i in range(max(0, total - goal + 1), min(goal, total + 1)):
            j = total - i
            plane = mine[i][j]
            lose_all = 1.0 - theirs[j][i][0]
            for k in range(goal - i - 1, -1, -1):
                if decide(i, j, k) == ROLL:
                    value = lose_all * _SIXTH
                    for face in range(2, 7):
                        value += (plane[k + face] if k + face < goal - i else 1.0) * _SIXTH
                else:
                    value = 1.0 - theirs[j][i + k][0] if i + k < goal else 1.0
                change = abs(value - plane[k])
                if change > largest:
                    largest = change
                plane[k] = value
    return largest
