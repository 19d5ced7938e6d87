"""A search's convergence: the root's visits and values recorded as it runs (``on_iteration``).

``RootTrace`` is an ``on_iteration`` callback (:class:`mcts_agent.search.MCTS`)::

    trace = RootTrace()
    planner = MCTS(model, 5000, on_iteration=trace)
    planner.search(state)
    trace.finish(planner)       # the last iteration and the move played
    plot_convergence(trace)     # mcts_agent.plots

It records the root's per-action visits N and values Q after iterations 1,
2, ... up to ``points_per_decade`` and then on a geometric schedule (about
``points_per_decade`` points per factor of 10), so that a long search keeps
a few hundred points, not one per iteration.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mcts_agent import information_sets
from mcts_agent._validation import require_int
from mcts_agent.tree import ROOT, UNVISITED

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = ["RootTrace"]


class RootTrace:
    """Records the root's visits and values during a search; an ``on_iteration`` callback.

    Each search starts a new trace (an iteration of 1 clears it). It never
    stops the search (it returns None).

    Args:
        points_per_decade: int >= 1: every iteration is recorded up to this
            many, then about this many per factor of 10 of iterations.

    Attributes:
        actions: tuple, shape ``[num_actions]``: the root's actions, in the
            model's order (empty before the first iteration).
        iterations: list of ints: the iterations recorded (this search's, 1 first).
        visit_counts: list of tuples of ints, one per recorded iteration,
            shape ``[num_actions]``: N of each action's child (0 if untried).
        values: list of tuples of floats, one per recorded iteration, shape
            ``[num_actions]``: Q of each action's child from the point of view
            of the player to move at the root (``nan`` if untried).
        action: the move played (``planner.best_action()``), set by
            :meth:`finish`; None before.

    Raises:
        TypeError, ValueError: if ``points_per_decade`` is not an int >= 1.
    """

    def __init__(self, points_per_decade: int = 20) -> None:
        self.points_per_decade = require_int("points_per_decade", points_per_decade, 1)
        self._factor = 10.0 ** (1.0 / self.points_per_decade)
        self._clear()

    def _clear(self) -> None:
        self.actions: tuple = ()
        self.iterations: list[int] = []
        self.visit_counts: list[tuple[int, ...]] = []
        self.values: list[tuple[float, ...]] = []
        self.action: Any = None
        self._next = 1

    def __call__(self, planner: MCTS, iteration: int) -> None:
        """Records the root after ``iteration`` if it is due (see the class docstring)."""
        if iteration == 1:
            self._clear()
        if iteration >= self._next:
            self._record(planner, iteration)
            later = math.ceil(iteration * self._factor)
            self._next = iteration + 1 if iteration < self.points_per_decade else later

    def _record(self, planner: MCTS, iteration: int) -> None:
        tree = planner.tree
        if planner.hidden:  # ISMCTS: the root's statistics per action (the same actions in
            # every world drawn: check_model checks it)
            self.actions, counts, values = information_sets.root_summary(tree)
            self.iterations.append(iteration)
            self.visit_counts.append(counts)
            self.values.append(values)
            return
        children = tree.children_by_action(ROOT)
        self.actions = tree.actions[ROOT]
        self.iterations.append(iteration)
        self.visit_counts.append(tuple(tree.visits[c] if c != UNVISITED else 0 for c in children))
        self.values.append(tuple(tree.values[c] if c != UNVISITED else math.nan for c in children))

    def finish(self, planner: MCTS) -> None:
        """Records the search's last iteration (if it was not) and the move played.

        Call it after ``planner.search``.

        Raises:
            RuntimeError: if no search has run yet.
            ValueError: if this trace recorded nothing (it was not the
                planner's ``on_iteration``).
        """
        summary = planner.summary()
        if not self.iterations:
            raise ValueError(
                "this RootTrace recorded no iteration: pass it as the planner's on_iteration "
                "(MCTS(model, ..., on_iteration=trace)) before searching"
            )
        if self.iterations[-1] != summary.iterations:
            self._record(planner, summary.iterations)
        self.action = summary.action
