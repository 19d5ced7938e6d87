"""Cost of the PettingZoo adapter's checks while planning, side by side, in one run.

``PettingZooModel`` checks, for every game but the snapshot ones (tic-tac-toe
and connect four by default), the rewards of every step it takes (two-player
zero-sum) and re-steps new edges in a reseeded copy (determinism): the first 4
at each depth below the root of each search, and one in 32 of the others. This
times searches through the generic ``clone="attributes"`` copy on PettingZoo's
tic-tac-toe and connect four (``reset(seed=0)``, the empty board, c = 2*sqrt(2),
the same seed every time) with the checks on and off (the same
model with its checks switched off), interleaved: round i runs "on" then "off"
(or "off" then "on" in odd rounds). It prints the median iterations per second
of each and the median of the per-round ratios. Run::

    python benchmarks/bench_pettingzoo_checks.py --iterations 2000 --rounds 7
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import pettingzoo

from mcts_agent import MCTS
from mcts_agent.adapters import PettingZooModel

GAMES = ("classic/tictactoe-v3", "classic/connect_four-v3")


def search_seconds(model, state, iterations):
    """CPU seconds of one search of ``iterations`` from ``state`` (seed 0)."""
    planner = MCTS(model, iterations, exploration=2 * math.sqrt(2), seed=0)
    start = time.process_time()
    planner.search(state)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    for game in GAMES:
        env = pettingzoo.make("aec", game)
        env.reset(seed=0)
        checked = PettingZooModel(env, clone="attributes")
        unchecked = PettingZooModel(env, clone="attributes")
        unchecked._checks_steps = False  # the same model without its planning checks
        state = checked.state_of(env)
        seconds: dict[str, list[float]] = {"on": [], "off": []}
        for round_number in range(args.rounds):
            order = ("on", "off") if round_number % 2 == 0 else ("off", "on")
            for label in order:
                model = checked if label == "on" else unchecked
                seconds[label].append(search_seconds(model, state, args.iterations))
        ratios = [on / off for on, off in zip(seconds["on"], seconds["off"], strict=True)]
        rate = {label: args.iterations / statistics.median(s) for label, s in seconds.items()}
        print(
            f"{game}: checks on {rate['on']:,.0f} it/s, off {rate['off']:,.0f} it/s; "
            f"median time ratio on/off {statistics.median(ratios):.3f} "
            f"(min {min(ratios):.3f}, max {max(ratios):.3f}; {args.rounds} rounds of "
            f"{args.iterations} iterations)"
        )


if __name__ == "__main__":
    main()
