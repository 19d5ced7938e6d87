"""Speed of the native Go model against stepping PettingZoo's go_v5 env, in one run.

Random playouts from the empty board (uniformly random legal actions, the pass included,
until two passes in a row), the same games in both. Measured (CPU time, median of
``--repeats`` interleaved runs), in moves per second:

* ``GoModel``: ``actions`` then ``step``, as the search's generic rollout plays it;
* PettingZoo's ``classic/go_v5`` env stepped directly (no clone: the least any planner on
  the env pays), reading the legal actions from ``action_mask``.

And ``MCTS(GoModel(...), iterations)``'s time for one move from the empty board.

Run::

    python benchmarks/bench_go.py --size 9 --games 20 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
import pettingzoo

from mcts_agent import MCTS
from mcts_agent.envs.go import GoModel


def model_games(model: GoModel, seeds: range) -> int:
    """Plays one random game per seed with the model; returns the moves played."""
    moves = 0
    for seed in seeds:
        choice = random.Random(seed).choice
        state = model.initial_state()
        actions = model.actions(state)
        while actions:
            state = model.step(state, choice(actions)).next_state
            actions = model.actions(state)
            moves += 1
    return moves


def env_games(size: int, komi: float, seeds: range) -> int:
    """Plays the same random games in PettingZoo's env; returns the moves played."""
    moves = 0
    env = pettingzoo.make("aec", "classic/go_v5", board_size=size, komi=komi)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    model = GoModel(args.size, args.komi)
    seeds = range(args.games)
    rates: dict[str, list[float]] = {"GoModel": [], "PettingZoo go_v5": []}
    search_times = []
    for _ in range(args.repeats):  # interleaved
        start = time.process_time()
        moves = model_games(model, seeds)
        rates["GoModel"].append(moves / (time.process_time() - start))
        start = time.process_time()
        env_moves = env_games(args.size, args.komi, seeds)
        rates["PettingZoo go_v5"].append(env_moves / (time.process_time() - start))
        assert env_moves == moves  # the same games
        start = time.process_time()
        MCTS(model, args.iterations, seed=0).search(model.initial_state())
        search_times.append(time.process_time() - start)
    print(
        f"{args.size}x{args.size}, komi {args.komi}: {args.games} random games "
        f"({moves} moves, {moves / args.games:.1f} a game), median of {args.repeats} runs"
    )
    for name, values in rates.items():
        print(f"  {name:18s} {statistics.median(values):10,.0f} moves/s")
    ratio = statistics.median(rates["GoModel"]) / statistics.median(rates["PettingZoo go_v5"])
    print(f"  GoModel / PettingZoo: {ratio:.1f}x")
    print(
        f"  MCTS({args.iterations} iterations) from the empty board: "
        f"{statistics.median(search_times):.3f} s a move"
    )


if __name__ == "__main__":
    main()
