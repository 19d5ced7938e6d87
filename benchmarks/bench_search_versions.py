"""The search loop of two versions of ``mcts_agent/search.py``, side by side in one process.

The rule for ``MCTS._run`` (the fast path): a change must build the same trees
and must not slow it. This script loads ``mcts_agent/search.py`` as it is at a
git revision (``--base``, default ``main``) next to the working copy's, runs both
on the same searches (both on the pure-Python loop, ``compiled.pure_python()``:
the compiled core runs only the package's own ``MCTS._run``), and prints for
each case the median rate of each (CPU time, ``time.process_time``) and the
median, over the repeats, of the ratio new / base of the two searches' times.
The two run back to back in every repeat, in alternating order, so that a busy
machine slows them alike; the ratio of each pair cancels most of the drift.
Every pair must build the same tree (every node's N, W and children), else the
script exits 1.

Cases (tic-tac-toe and connect four from the empty board, c = 2 sqrt(2)): the
fused rollout at 10k and 100k iterations, the generic rollout (the model
without its ``rollout``) at 5k, rollouts off with gamma = 0.9 at 50k, connect
four's fused rollout at 5k.

Run: ``python benchmarks/bench_search_versions.py`` (``--base REF``, ``--repeats``).
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import tempfile
import time
from types import SimpleNamespace
from typing import Any

from machine import describe_machine
from revisions import module_at

from mcts_agent import compiled
from mcts_agent import search as working_copy
from mcts_agent.envs.connect_four import EMPTY_BOARD as CONNECT_FOUR_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel

C = 2 * math.sqrt(2)
NO_ROLLOUT = {"rollout_limit": 0, "gamma": 0.9}


def timed_tree(planner: Any, state: Any) -> tuple[float, tuple]:
    """CPU seconds of one search (garbage collected before), and its tree's N, W, children."""
    gc.collect()
    start = time.process_time()
    planner.search(state)
    seconds = time.process_time() - start
    tree = planner.tree
    return seconds, (tree.visits, tree.value_sums, tree.children)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="git revision to compare with")
    parser.add_argument("--repeats", type=int, default=15, help="pairs of searches per case")
    args = parser.parse_args(argv)
    tic_tac_toe = TicTacToeModel()
    generic = SimpleNamespace(
        actions=tic_tac_toe.actions, step=tic_tac_toe.step, player=tic_tac_toe.player
    )
    cases = (
        ("tic-tac-toe, fused rollout", tic_tac_toe, EMPTY_BOARD, 10_000, {}),
        ("tic-tac-toe, fused rollout", tic_tac_toe, EMPTY_BOARD, 100_000, {}),
        ("tic-tac-toe, generic rollout", generic, EMPTY_BOARD, 5_000, {}),
        ("tic-tac-toe, no rollout, gamma 0.9", tic_tac_toe, EMPTY_BOARD, 50_000, NO_ROLLOUT),
        ("connect four, fused rollout", ConnectFourModel(), CONNECT_FOUR_START, 5_000, {}),
    )
    print(describe_machine())
    print()
    same_trees = True
    # A search.py loaded from a revision is not the MCTS class the compiled core runs
    # (compiled.plain_loop), so the working copy runs the pure loop too: like with like.
    with compiled.pure_python(), tempfile.TemporaryDirectory() as folder:
        base = module_at(args.base, "mcts_agent/search.py", folder)
        planners = {"base": base.MCTS, "new": working_copy.MCTS}
        print(f"Base: mcts_agent/search.py at {args.base}; new: the working copy.")
        print(f"Median of {args.repeats} pairs of searches, each pair back to back.")
        print()
        print(
            "| case | iterations | base (it/s) | new (it/s) | new / base time (median of pairs) |"
        )
        print("|---|---:|---:|---:|---:|")
        for label, model, state, iterations, options in cases:
            seconds: dict[str, list[float]] = {"base": [], "new": []}
            for repeat in range(args.repeats):
                order = ("base", "new") if repeat % 2 else ("new", "base")
                trees = {}
                for name in order:
                    planner = planners[name](
                        model, iterations, exploration=C, seed=repeat, **options
                    )
                    took, trees[name] = timed_tree(planner, state)
                    seconds[name].append(took)
                same_trees &= trees["base"] == trees["new"]
            ratio = statistics.median(
                new / old for new, old in zip(seconds["new"], seconds["base"], strict=True)
            )
            rates = {name: iterations / statistics.median(s) for name, s in seconds.items()}
            print(
                f"| {label} | {iterations:,} | {rates['base']:,.0f} | {rates['new']:,.0f} "
                f"| {ratio:.3f} |"
            )
    print()
    print(f"Same tree in every pair: {same_trees}")
    return 0 if same_trees else 1


if __name__ == "__main__":
    sys.exit(main())
