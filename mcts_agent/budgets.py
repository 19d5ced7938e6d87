"""Search budgets: an iteration count, a time limit and a node cap (``docs/search.md``, "Budgets").

A search stops at whichever of its budgets comes first, after at least one
iteration: ``iterations`` run, ``time_limit`` seconds passed (read on the
planner's clock, :func:`time.perf_counter` by default), ``max_nodes`` nodes
held, or (with the solver) the root proven.

The loops themselves are not changed by a budget: :func:`run` calls a loop
for a number of iterations at a time (a *chunk*) and reads the clock and the
tree's size between chunks, so the inner loop never reads the clock. A chunk
is sized from the rate measured so far to last about :data:`CHUNK_SECONDS`
(never past the deadline at that rate), never more than the iterations left,
and never more than the nodes the cap still allows (each iteration adds at
most ``nodes_per_iteration`` nodes), so:

* an iteration budget alone runs in one chunk, exactly as before;
* a time limit overshoots by at most the end of one chunk (about
  :data:`CHUNK_SECONDS`, plus one iteration), and never stops early: the
  search goes on, one iteration at a time if need be, until the clock has
  passed the deadline;
* a node cap is never passed (except by the one iteration every search runs).

Trees do not depend on the chunking: a loop continues the same tree and the
same generator from one chunk to the next, so a search that ran k iterations
under a time limit built the same tree as one of ``iterations=k``.

OpenSpiel's C++ ``MCTSBot`` has ``max_wall_clock_time`` and ``max_memory_mb``
for the same purposes; a node count is exact where a memory figure in Python
is not (states are the model's objects).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from mcts_agent._validation import require_float, require_int

__all__ = ["CHUNK_SECONDS", "STOP_REASONS", "Budget", "run"]

CHUNK_SECONDS = 0.001
"""Seconds one chunk of a timed search aims to last (the clock is read between chunks)."""

STOP_REASONS = ("iterations", "time_limit", "max_nodes", "solved")
"""Why a search stopped, as ``SearchSummary.stop_reason`` reports it."""


class Budget(NamedTuple):
    """What one search may spend; at least one of ``iterations`` and ``time_limit`` is set.

    Attributes:
        iterations: int >= 1, most iterations, or None.
        time_limit: float > 0, most seconds on the planner's clock, or None.
        max_nodes: int >= 1, the search stops before an iteration when the
            tree holds this many nodes; None for no cap.
    """

    iterations: int | None
    time_limit: float | None
    max_nodes: int | None

    @classmethod
    def checked(cls, iterations: Any, time_limit: Any, max_nodes: Any) -> Budget:
        """Returns the budget of these arguments, checked.

        Raises:
            TypeError: if neither ``iterations`` nor ``time_limit`` is given, or
                one has the wrong type.
            ValueError: if one is out of range (iterations, max_nodes < 1;
                time_limit <= 0, NaN or infinite).
        """
        if iterations is None and time_limit is None:
            raise TypeError(
                "a search needs a budget: give iterations (an int >= 1), time_limit "
                "(seconds, a float > 0), or both; got neither"
            )
        if iterations is not None:
            iterations = require_int("iterations", iterations, 1)
        if time_limit is not None:
            time_limit = require_float("time_limit", time_limit, 0.0)
            if time_limit == 0.0:
                raise ValueError("time_limit must be > 0 seconds, got 0.0")
        if max_nodes is not None:
            max_nodes = require_int("max_nodes", max_nodes, 1)
        return cls(iterations, time_limit, max_nodes)


def run(
    loop: Callable[[int], int],
    size: Callable[[], int],
    solved: Callable[[], bool],
    budget: Budget,
    clock: Callable[[], float],
    start: float,
    nodes_per_iteration: int = 1,
) -> tuple[int, str]:
    """Runs ``loop`` in chunks until the budget is spent; returns ``(iterations, stop_reason)``.

    Args:
        loop: ``loop(n) -> done``: runs up to ``n >= 1`` iterations on the
            tree, fewer only if the root got solved (then it returns how many).
        size: ``size() -> int``, the number of nodes the tree holds.
        solved: ``solved() -> bool``, True once the root is proven.
        budget: the budget of this search.
        clock: the planner's clock, seconds as a float.
        start: the clock's reading when the search started (the time limit
            counts from there).
        nodes_per_iteration: most nodes one iteration adds.

    Returns:
        The iterations run (>= 1) and why the search stopped, one of
        :data:`STOP_REASONS`.
    """
    iterations, time_limit, max_nodes = budget
    deadline = math.inf if time_limit is None else start + time_limit
    done = 0
    loop_time = 0.0  # seconds spent in chunks so far: the measured rate is done / loop_time
    while True:
        n = iterations - done if iterations is not None else 1 << 62
        if max_nodes is not None:
            room = (max_nodes - size()) // nodes_per_iteration
            if room < 1:
                if done:
                    return done, "max_nodes"
                room = 1  # every search runs at least one iteration
            n = min(n, room)
        if time_limit is not None:
            now = clock()
            if done:
                if now >= deadline:
                    return done, "time_limit"
                # As many as fill a chunk (or what is left before the deadline) at the rate so far.
                rate = done / loop_time if loop_time > 0.0 else math.inf
                seconds = min(CHUNK_SECONDS, deadline - now)
                n = min(n, max(1, int(rate * seconds)) if rate != math.inf else 2 * done)
            else:
                n = 1  # the first iteration measures the rate
            ran = loop(n)
            loop_time += clock() - now
        else:
            ran = loop(n)
        done += ran
        if ran < n or solved():
            return done, "solved"
        if iterations is not None and done >= iterations:
            return done, "iterations"
