"""Search budgets: iterations, a time limit, a node cap (``docs/guides/anytime-and-solver.md``).

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
import numbers
from collections.abc import Callable
from typing import Any, NamedTuple

from mcts_agent._validation import require_float, require_int

__all__ = [
    "BLIND_CHUNK",
    "CHUNK_SECONDS",
    "RUNNING",
    "STALLED_CHUNKS",
    "STOP_REASONS",
    "Budget",
    "run",
]

CHUNK_SECONDS = 0.001
"""Seconds one chunk of a timed search aims to last (the clock is read between chunks)."""

BLIND_CHUNK = 1024
"""Most iterations in a chunk of a timed search while its clock has not advanced at all.

Before the clock has moved no rate can be measured: the chunks double from
one iteration, up to this size, until a reading shows time passing.
"""

STALLED_CHUNKS = 1000
"""Chunks in a row after which a timed search whose clock has not advanced raises ValueError.

A reading that is not later than the latest one (a frozen clock, or one going
backwards) counts as not advancing; once the clock reads a later time the
count starts again. With chunks of about :data:`CHUNK_SECONDS` this lets a
coarse clock stand still for about a second (at most :data:`BLIND_CHUNK`
times this many iterations before it first moves).
"""

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
            False or None; with a time limit, if the clock (or ``start``)
            reads something else than a real number.
        ValueError: with a time limit, if the clock reads NaN or an infinite
            time, or has not advanced over :data:`STALLED_CHUNKS` chunks in a
            row.
    """
    iterations, time_limit, max_nodes = budget
    deadline = math.inf
    if time_limit is not None:
        if start.__class__ is not float or start - start != 0.0:  # not a finite float
            start = _checked_reading(start)
        deadline = start + time_limit
    stall = _Stall(start)
    if on_iteration is not None:
        return _run_each(
            loop, size, solved, budget, clock, deadline, nodes_per_iteration, on_iteration, stall
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
            if now.__class__ is not float or now - now != 0.0:  # not a finite float
                now = _checked_reading(now)
            if done:
                if now >= deadline:
                    return done, "time_limit"
                stall.read(now)
                # As many as fill a chunk (or what is left before the deadline) at the rate so far;
                # doubling, up to BLIND_CHUNK, while the clock has not moved at all.
                rate = done / loop_time if loop_time > 0.0 else math.inf
                seconds = min(CHUNK_SECONDS, deadline - now)
                blind = min(2 * done, BLIND_CHUNK)
                n = min(n, max(1, int(rate * seconds)) if rate != math.inf else blind)
            else:
                n = 1  # the first iteration measures the rate
            ran = loop(n)
            end = clock()
            if end.__class__ is not float or end - end != 0.0:
                end = _checked_reading(end)
            loop_time += end - now
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
    stall: _Stall,
) -> tuple[int, str]:
    """:func:`run` with a callback: one iteration per chunk, the callback after each."""
    iterations, time_limit, max_nodes = budget
    done = 0
    while True:
        if done:
            if max_nodes is not None and max_nodes - size() < nodes_per_iteration:
                return done, "max_nodes"
            if time_limit is not None:
                now = clock()
                if now.__class__ is not float or now - now != 0.0:  # not a finite float
                    now = _checked_reading(now)
                if now >= deadline:
                    return done, "time_limit"
                stall.read(now)
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


def _checked_reading(reading: Any) -> float:
    """A clock's ``reading`` as a finite float.

    Raises:
        TypeError: if it is not a real number (a bool is not).
        ValueError: if it is NaN or infinite.
    """
    if isinstance(reading, bool) or not isinstance(reading, numbers.Real):
        raise TypeError(
            f"the planner's clock must return seconds as a real number, got {reading!r} "
            f"({type(reading).__name__})"
        )
    seconds = float(reading)
    if not math.isfinite(seconds):
        raise ValueError(
            f"the planner's clock must return a finite number of seconds, got {seconds}: "
            "a time_limit search would never reach its deadline"
        )
    return seconds


class _Stall:
    """Counts the chunks in a row over which a timed search's clock has not advanced."""

    __slots__ = ("latest", "chunks")

    def __init__(self, start: float) -> None:
        self.latest = start  # the latest time the clock read
        self.chunks = 0

    def read(self, now: float) -> None:
        """Notes the reading ``now`` before a chunk; ValueError after STALLED_CHUNKS standing."""
        if now > self.latest:
            self.latest = now
            self.chunks = 0
            return
        self.chunks += 1
        if self.chunks >= STALLED_CHUNKS:
            raise ValueError(
                f"the planner's clock has not advanced over {self.chunks} chunks of iterations "
                f"in a row (it read {now!r}, not later than {self.latest!r}), so the time_limit "
                "search would never end: give MCTS a clock that returns increasing seconds "
                "(time.perf_counter, the default)"
            )
