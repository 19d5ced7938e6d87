"""Best-of-repeats timing of a call (shared by the benchmarks)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(
    function: Callable[[], object],
    repeats: int,
    number: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """The fastest of ``repeats`` runs of ``number`` calls, in seconds per call.

    Args:
        function: the call to time, with no arguments.
        repeats: int >= 1, runs; the fastest is kept (the least disturbed).
        number: int >= 1, calls per run.
        clock: seconds now: ``time.perf_counter`` (wall) or ``time.process_time`` (CPU).
    """
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        for _ in range(number):
            function()
        best = min(best, (clock() - start) / number)
    return best
