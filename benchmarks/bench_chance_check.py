"""The cost of GymnasiumModel's chance check while planning: on versus off, side by side.

The check steps one ``step`` or rollout in ``CHECK_EVERY`` again on a reseeded
clone (``mcts_agent.adapters.gymnasium.checks``). It runs for the ``"user"``,
``"env_methods"`` and ``"deepcopy"`` clones only; the known envs' snapshot
clones (the default for CartPole and FrozenLake) never check, so only their
deepcopy clones are compared here. Searches with the check on and off are
interleaved in one run, and the medians are printed.

Usage::

    python benchmarks/bench_chance_check.py [--iterations 300] [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym

from mcts_agent import MCTS
from mcts_agent.adapters import GymnasiumModel
from mcts_agent.adapters.gymnasium.checks import CHECK_EVERY

CASES = [
    ("CartPole-v1", {}, 50),
    ("FrozenLake-v1", {"is_slippery": False}, 100),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print(
        f"MCTS iterations per search: {args.iterations}; medians of {args.repeats} interleaved "
        f"runs; CHECK_EVERY = {CHECK_EVERY}\n"
    )
    for env_id, kwargs, rollout_limit in CASES:
        env = gym.make(env_id, **kwargs)
        env.reset(seed=0)
        searches = {}
        for checking in (True, False):
            model = GymnasiumModel(env, clone="deepcopy")
            model._checks_chance = checking
            planner = MCTS(model, args.iterations, rollout_limit=rollout_limit, seed=0)
            searches[checking] = (planner, model.state_of(env))
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.repeats):
            for checking, (planner, state) in searches.items():
                start = time.perf_counter()
                planner.search(state)
                times[checking].append(time.perf_counter() - start)
        on, off = (statistics.median(times[checking]) for checking in (True, False))
        print(
            f"{env_id:14s} deepcopy clone: {args.iterations / off:6.0f} it/s without the check, "
            f"{args.iterations / on:6.0f} it/s with it ({(on / off - 1) * 100:+.1f}% time)"
        )


if __name__ == "__main__":
    main()
