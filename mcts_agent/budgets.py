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

With an ``on_iteration`` callback (``MCTS(on_iteration=...)``) the loop runs
one iteration per chunk and the callback is called after each one, so it
sees every iteration and can stop the search (stop reason
``"on_iteration"``); without one (None, the default) nothing of this runs.

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

__all__ = ["CHUNK_SECONDS", "RUNNING", "STOP_REASONS", "Budget", "run"]

CHUNK_SECONDS = 0.001
"""Seconds one chunk of a timed search aims to last (the clock is read between chunks)."""

STOP_REASONS = ("iterations", "time_limit", "max_nodes", "solved", "on_iteration")
"""Why a search stopped, as ``SearchSummary.stop_reason`` reports it.

``"iterations"``: the iteration budget was spent; ``"time_limit"``: the time
limit passed; ``"max_nodes"``: the tree held ``max_nodes`` nodes;
``"solved"``: the solver proved the root; ``"on_iteration"``: the
``on_iteration`` callback returned True.
"""

RUNNING = "running"
"""``SearchSummary.stop_reason`` while a search runs (as ``on_iteration`` callbacks read it)."""


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
            rule = "> 0 (seconds)"
            time_limit = require_float("time_limit", time_limit, 0.0, rule=rule)
            if time_limit == 0.0:  # the one value require_float's range lets through
                raise ValueError(f"time_limit must be a finite number {rule}, got 0.0")
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
    on_iteration: Callable[[int], Any] | None = None,
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
        on_iteration: ``on_iteration(done) -> True | False | None``, called
            after every iteration with the iterations run so far (1, 2, ...);
            True stops the search (unless the root was just solved: then
            ``"solved"``). None: the chunks above.

    Returns:
        The iterations run (>= 1) and why the search stopped, one of
        :data:`STOP_REASONS`.

    Raises:
        TypeError: if ``on_iteration`` returns something else than True,
            False or None.
    """
    iterations, time_limit, max_nodes = budget
    deadline = math.inf if time_limit is None else start + time_limit
    if on_iteration is not None:
        return _run_each(
            loop, size, solved, budget, clock, deadline, nodes_per_iteration, on_iteration
        )
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


def _run_each(
    loop: Callable[[int], int],
    size: Callable[[], int],
    solved: Callable[[], bool],
    budget: Budget,
    clock: Callable[[], float],
    deadline: float,
    nodes_per_iteration: int,
    on_iteration: Callable[[int], Any],
) -> tuple[int, str]:
    """:func:`run` with a callback: one iteration per chunk, the callback after each."""
    iterations, time_limit, max_nodes = budget
    done = 0
    while True:
        if done:
            if max_nodes is not None and max_nodes - size() < nodes_per_iteration:
                return done, "max_nodes"
            if time_limit is not None and clock() >= deadline:
                return done, "time_limit"
        ran = loop(1)
        done += ran
        stop = on_iteration(done)
        if stop is not True and stop is not False and stop is not None:
            raise TypeError(
                f"on_iteration must return True (stop the search), False or None (go on); "
                f"got {stop!r} after iteration {done}"
            )
        if ran < 1 or solved():
            return done, "solved"
        if stop:
            return done, "on_iteration"
        if iterations is not None and done >= iterations:
            return done, "iterations"
