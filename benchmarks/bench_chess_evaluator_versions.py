"""The chess defaults' search with two versions of ``chess_evaluator.py``, side by side.

A change to :mod:`mcts_agent.envs.chess_evaluator` that is meant only to be faster must
give the same values, so the same trees. This script loads
``mcts_agent/envs/chess_evaluator.py`` as it is at a git revision (``--base``, default
``main``) next to the working copy's and runs the chess defaults
(:func:`~mcts_agent.defaults.chess_defaults`: PUCT, ``ChessEvaluator(search_depth=1)``,
``unvisited_value="parent"``) with each version's ``ChessEvaluator`` on the same positions,
``--iterations`` a search. The positions are middle games: ``--positions`` games of greedy
play (each move the one with the best :func:`~mcts_agent.envs.chess_evaluator.quiescence`
after it) from 4 uniformly random opening plies, each stopped at a random ply from 12 to 40
(``--seed``). Per position the two searches run back to back, in alternating order, so that
a busy machine slows them alike.

Prints the iterations per CPU second (``time.process_time``) of each, median over the
positions, with the median and 95th percentile of the CPU seconds a search, and the median
over the positions of the ratio new / base of the two searches' times. Every pair must give
the same root visit counts, else the script exits 1.

Run: ``python benchmarks/bench_chess_evaluator_versions.py --base bf98d8d~1`` (``--positions``,
``--iterations``, ``--repeats``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time

import chess
from machine import describe_machine
from revisions import module_at

from mcts_agent import MCTS
from mcts_agent.defaults import chess_defaults
from mcts_agent.envs import chess_evaluator as working_copy
from mcts_agent.envs.chess import ChessModel, board_of, history_of, move_of


def middle_game(seed: int) -> chess.Board:
    """A middle-game board: 4 random plies, then greedy play, stopped at ply 12 to 40."""
    rng = random.Random(seed)
    board = chess.Board()
    stop = rng.randrange(12, 41)
    while board.ply() < stop and not board.is_game_over():
        moves = list(board.legal_moves)
        if board.ply() < 4:
            board.push(rng.choice(moves))
            continue
        scores = []
        for move in moves:
            board.push(move)
            scores.append(-working_copy.quiescence(board))
            board.pop()
        best = max(scores)
        board.push(rng.choice([m for m, s in zip(moves, scores, strict=True) if s == best]))
    return board


def timed_search(evaluator_module, model, state, iterations: int) -> tuple[float, tuple]:
    """CPU seconds of one search with the chess defaults and that module's evaluator."""
    options = chess_defaults({})
    options["evaluator"] = evaluator_module.ChessEvaluator(
        board_of, move_of, search_depth=working_copy.SEARCH_DEPTH, history_of=history_of
    )
    planner = MCTS(model, iterations, seed=0, **options)
    start = time.process_time()
    planner(state)
    seconds = time.process_time() - start
    return seconds, tuple(planner.summary().visit_counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="git revision to compare with")
    parser.add_argument("--positions", type=int, default=20, help="middle games (default 20)")
    parser.add_argument("--iterations", type=int, default=300, help="a search (default 300)")
    parser.add_argument("--repeats", type=int, default=1, help="pairs per position (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    model = ChessModel()
    states = [
        model.state_of_board(middle_game(args.seed * 1000 + i)) for i in range(args.positions)
    ]
    print(describe_machine())
    with tempfile.TemporaryDirectory() as folder:
        base = module_at(args.base, "mcts_agent/envs/chess_evaluator.py", folder)
        versions = {"base": base, "new": working_copy}
        seconds: dict[str, list[float]] = {"base": [], "new": []}
        ratios = []
        same = True
        for index, state in enumerate(states):
            for repeat in range(args.repeats):
                order = ("base", "new") if (index + repeat) % 2 else ("new", "base")
                took, visits = {}, {}
                for name in order:
                    took[name], visits[name] = timed_search(
                        versions[name], model, state, args.iterations
                    )
                    seconds[name].append(took[name])
                same &= visits["base"] == visits["new"]
                ratios.append(took["new"] / took["base"])
    print(
        f"Base: mcts_agent/envs/chess_evaluator.py at {args.base}; new: the working copy. "
        f"{args.positions} middle games, {args.iterations} iterations a search."
    )
    print()
    print("| version | iterations a CPU second (median) | CPU s a search: median | 95th pct |")
    print("|---|---:|---:|---:|")
    for name, values in seconds.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        rate = statistics.median(args.iterations / s for s in values)
        print(f"| {name} | {rate:,.0f} | {statistics.median(values):.3f} | {p95:.3f} |")
    print()
    print(f"new / base time, median over the positions: {statistics.median(ratios):.3f}")
    print(f"Same root visit counts in every pair: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
