"""Solve rate of MCTS on the chess tactics set (tests/chess_tactics.py), per category.

Two searches on ``ChessModel``, each at every budget of ``--time-limit`` (CPU seconds a
move: the planner's clock is ``time.process_time``, one core's seconds, immune to a busy
machine) and ``--iterations``:

* ``defaults``: ``MCTS(ChessModel(), ..., **chess_defaults({}))``, PUCT guided by
  ``ChessEvaluator`` (what ``MCTSAgent`` plays chess with);
* ``uct-random``: plain UCT with uniformly random rollouts of at most 10 moves
  (``rollout_limit=10``), for comparison.

A position is solved when the move played is one of its Stockfish-checked solutions. One
search per position, ``--seed``, one core. Prints a table of solve rates per category and
the failures of the first budget of the defaults.

Run::

    python benchmarks/chess_tactics.py --time-limit 1 --iterations 100 200 300
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import chess

from mcts_agent import MCTS
from mcts_agent.defaults import chess_defaults
from mcts_agent.envs.chess import ChessModel, move_of

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from chess_tactics import CATEGORIES, TACTICS  # noqa: E402


def searchers() -> dict[str, dict]:
    """Name -> MCTS options of the compared searches."""
    return {
        "defaults": chess_defaults({}),
        "uct-random": {"rollout_limit": 10},
    }


def run(options: dict, budget: dict, seed: int) -> tuple[dict[str, list[bool]], list[str], float]:
    """``(category -> solved flags, failure lines, seconds)`` of one search over the set."""
    model = ChessModel()
    solved: dict[str, list[bool]] = {category: [] for category in CATEGORIES}
    failures = []
    start = time.perf_counter()
    for tactic in TACTICS:
        state = model.state_of_board(chess.Board(tactic.fen))
        planner = MCTS(model, seed=seed, **budget, **options)
        move = move_of(state, planner(state)).uci()
        solved[tactic.category].append(move in tactic.solutions)
        if move not in tactic.solutions:
            summary = planner.summary()
            top = sorted(
                zip(
                    summary.visit_counts,
                    summary.actions,
                    summary.priors,
                    summary.values,
                    strict=True,
                ),
                key=lambda row: row[0],
                reverse=True,
            )[:3]
            visits = ", ".join(
                f"{move_of(state, a).uci()} N={n} P={p:.2f} Q={q:+.2f}" for n, a, p, q in top
            )
            failures.append(
                f"{tactic.category} {tactic.fen}: {move} ({visits}); {tactic.solutions}"
            )
    return solved, failures, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--time-limit", type=float, nargs="*", default=[1.0], help="CPU seconds a move"
    )
    parser.add_argument("--iterations", type=int, nargs="*", default=[100, 200, 300])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-uct", action="store_true", help="only the chess defaults")
    args = parser.parse_args()
    budgets = [{"time_limit": t, "clock": time.process_time} for t in args.time_limit]
    budgets += [{"iterations": n} for n in args.iterations]
    if not budgets:
        parser.error("give at least one --time-limit or --iterations")
    warnings.simplefilter("ignore", UserWarning)  # random rollouts on chess: on purpose here
    counts = {c: sum(t.category == c for t in TACTICS) for c in CATEGORIES}
    print(f"{len(TACTICS)} positions: " + ", ".join(f"{c} {n}" for c, n in counts.items()))
    print(
        f"{'search':11s} {'budget':14s} "
        + " ".join(f"{c:>8s}" for c in CATEGORIES)
        + "   all  secs"
    )
    first_failures = None
    for name, options in searchers().items():
        if args.skip_uct and name != "defaults":
            continue
        for budget in budgets:
            solved, failures, seconds = run(options, budget, args.seed)
            label = ", ".join(f"{k}={v}" for k, v in budget.items() if k != "clock")
            if first_failures is None:
                first_failures = (label, failures)
            rates = " ".join(f"{sum(s) / len(s):8.0%}" for s in solved.values())
            total = sum(sum(s) for s in solved.values()) / len(TACTICS)
            print(f"{name:11s} {label:14s} {rates} {total:5.0%} {seconds:5.1f}", flush=True)
    label, failures = first_failures
    print(f"\nfailures of the defaults at {label} (top 3 root moves by visits):")
    for line in failures:
        print(f"  {line}")


if __name__ == "__main__":
    main()
