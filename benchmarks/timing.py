"""Shared by the benchmarks: best-of-repeats timing of a call, random games in a PettingZoo env."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any


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


def env_random_games(env: Any, seeds: range) -> int:
    """Plays one uniformly random game per seed in the PettingZoo AEC ``env``; returns the moves.

    Game ``seed`` resets the env with ``seed`` and picks each move with
    ``random.Random(seed).choice`` among the ``action_mask``'s legal actions, so a model
    playing ``random.Random(seed).choice`` over the same legal actions in the same order
    plays the same games.
    """
    import numpy as np

    moves = 0
    for seed in seeds:
        choice = random.Random(seed).choice
        env.reset(seed=seed)
        while True:
            observation, _, termination, _, _ = env.last()
            if termination:
                break
            env.step(choice(np.flatnonzero(observation["action_mask"]).tolist()))
            moves += 1
    return moves
