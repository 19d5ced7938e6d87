"""What seeing the search costs (issue 13): the DEBUG record, and the on_iteration callback.

Three comparisons, each as the median over ``--repeats`` pairs of the ratio of
two timings run back to back (alternating which runs first), CPU time
(``time.process_time``), each timing a batch of searches so that it lasts
about 20 ms:

* ``off``: the working copy with logging at its default (no DEBUG) and no
  callback, against ``mcts_agent/search.py`` and ``mcts_agent/budgets.py`` as
  they are at ``--base`` (default: the merge base with main, before this
  work), loaded side by side, both on the pure-Python loop
  (``compiled.pure_python()``: the compiled core runs only the package's own
  class). This is the cost of the ``isEnabledFor`` guard and of the
  ``on_iteration is None`` test to everyone who uses neither: it should be
  1.00. Each pair must build the same tree (else exit 1).
* ``debug``: ``logging.getLogger("mcts_agent")`` at DEBUG with a handler
  writing to a StringIO, against the same without DEBUG (what the record
  costs when asked for).
* ``callback``: ``on_iteration=lambda planner, i: None`` against no callback
  (one iteration per chunk, and a call per iteration).

Small searches show per-search costs best (10 iterations), large ones per
iteration costs (1000).

Run: ``python benchmarks/bench_observe.py`` (``--repeats``, ``--base``).
"""

from __future__ import annotations

import argparse
import gc
import io
import logging
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from machine import describe_machine
from revisions import module_at

from mcts_agent import compiled
from mcts_agent import search as working_copy
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel

C = 2 * math.sqrt(2)
ROOT = Path(__file__).resolve().parent.parent
BATCH_SECONDS = 0.02


def batch_seconds(make: Callable[[], object], state: object, count: int) -> tuple[float, tuple]:
    """CPU seconds per search of ``count`` searches by new planners, and the last tree."""
    setup = getattr(make, "setup", None)
    if setup is not None:
        setup()
    gc.collect()
    start = time.process_time()
    for _ in range(count):
        planner = make()
        planner.search(state)
    seconds = (time.process_time() - start) / count
    tree = planner.tree
    return seconds, (tree.visits, tree.value_sums, tree.children)


def compare(
    label: str, makers: dict[str, Callable[[], object]], state: object, repeats: int
) -> tuple[str, bool]:
    """One table row: each side's searches per second, the median ratio second / first."""
    names = list(makers)
    one, _ = batch_seconds(makers[names[0]], state, 1)
    count = max(1, int(BATCH_SECONDS / max(one, 1e-6)))
    seconds: dict[str, list[float]] = {name: [] for name in names}
    same = True
    for repeat in range(repeats):
        order = names if repeat % 2 else names[::-1]
        trees = {}
        for name in order:
            took, trees[name] = batch_seconds(makers[name], state, count)
            seconds[name].append(took)
        same &= trees[names[0]] == trees[names[1]]
    ratio = statistics.median(
        b / a for a, b in zip(seconds[names[0]], seconds[names[1]], strict=True)
    )
    times = [statistics.median(seconds[name]) * 1e3 for name in names]
    row = f"| {label} | {times[0]:.3f} | {times[1]:.3f} | {ratio:.3f} |"
    return row, same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=None, help="git revision (default: merge base with main)")
    parser.add_argument("--repeats", type=int, default=21, help="pairs of batches per case")
    args = parser.parse_args(argv)
    base_revision = (
        args.base
        or subprocess.run(
            ["git", "merge-base", "HEAD", "main"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    cases = [
        ("tic-tac-toe UCT", TicTacToeModel(), EMPTY_BOARD, 10, {}),
        ("tic-tac-toe UCT", TicTacToeModel(), EMPTY_BOARD, 1000, {}),
        ("connect four UCT", ConnectFourModel(), C4_START, 1000, {}),
        ("tic-tac-toe PUCT", TicTacToeModel(), EMPTY_BOARD, 10, {"selection": "puct"}),
        ("tic-tac-toe PUCT", TicTacToeModel(), EMPTY_BOARD, 1000, {"selection": "puct"}),
    ]
    print(describe_machine())
    print(f"Median of {args.repeats} pairs of batches (about {BATCH_SECONDS * 1e3:.0f} ms each).")
    logger = logging.getLogger("mcts_agent")
    same_trees = True
    # A search.py loaded from a revision is not the MCTS class the compiled core runs
    # (compiled.plain_loop), so the working copy runs the pure loop too: like with like.
    with compiled.pure_python(), tempfile.TemporaryDirectory() as folder:
        base = module_at(base_revision, "mcts_agent/search.py", folder)
        base.budgets = module_at(base_revision, "mcts_agent/budgets.py", folder)
        print(f"\nBase: search.py and budgets.py at {base_revision[:12]}; new: the working copy.")

        def planner(module: ModuleType, model, iterations, **options) -> Callable[[], object]:
            return lambda: module.MCTS(model, iterations, exploration=C, seed=0, **options)

        sections = {
            "off": ("no DEBUG, no callback: base | new | new / base", "base", "new"),
            "debug": ("DEBUG record: off | on | on / off", "off", "on"),
            "callback": ("on_iteration: None | returns None | ratio", "none", "callback"),
        }
        for section, (title, first, second) in sections.items():
            print(f"\n{section}: ms per search, {title}\n")
            print("| case | ms | ms | ratio |\n|---|---:|---:|---:|")
            for label, model, state, iterations, options in cases:
                if section == "off":
                    makers = {
                        first: planner(base, model, iterations, **options),
                        second: planner(working_copy, model, iterations, **options),
                    }
                elif section == "callback":
                    makers = {
                        first: planner(working_copy, model, iterations, **options),
                        second: planner(
                            working_copy,
                            model,
                            iterations,
                            on_iteration=lambda planner, i: None,
                            **options,
                        ),
                    }
                else:
                    stream = io.StringIO()
                    handler = logging.StreamHandler(stream)
                    logger.addHandler(handler)
                    quiet = planner(working_copy, model, iterations, **options)
                    loud = planner(working_copy, model, iterations, **options)
                    quiet.setup = lambda: logger.setLevel(logging.WARNING)
                    loud.setup = lambda: logger.setLevel(logging.DEBUG)
                    makers = {first: quiet, second: loud}
                row, same = compare(f"{label}, {iterations:,} it", makers, state, args.repeats)
                if section == "debug":
                    logger.setLevel(logging.NOTSET)
                    logger.removeHandler(handler)
                    assert stream.getvalue().count("search: ") > 0  # the records were written
                same_trees &= same
                print(row, flush=True)
    print(f"\nSame tree in every pair: {same_trees}")
    return 0 if same_trees else 1


if __name__ == "__main__":
    sys.exit(main())
