"""MCTS on tic-tac-toe: one search, the must-win / must-block positions, and matches.

1. A search of 5000 iterations from the empty board: each first move's visits
   and value for X, laid out as the board, and the move played.
2. The four must-win / must-block positions of the specification and the move played.
3. --games games as X and as O against the perfect and the random opponent at
   10, 100, 1000 and 5000 iterations per move: the wins / draws / losses of
   MCTS, played on every core (mcts_agent.evaluation).

Exits with status 1 unless, at 5000 iterations, MCTS plays every position
right, loses no game, and wins at least 95% of its games as X and 80% as O
against the random opponent (95 and 80 of 100; rounded down for fewer games).

    python examples/tic_tac_toe_mcts.py               # 100 games per seat
    python examples/tic_tac_toe_mcts.py --games 20    # quicker
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

from mcts_agent import MCTS
from mcts_agent.cli import format_root_statistics
from mcts_agent.envs.tic_tac_toe import (
    EMPTY_BOARD,
    TicTacToeModel,
    parse_board,
    perfect_moves,
    render_board,
)
from mcts_agent.evaluation import PerfectPlayer, RandomPlayer, make_game, sweep

EXPLORATION = 2 * math.sqrt(2)
ITERATIONS = (10, 100, 1000, 5000)
STRONG = 5000

# the search's specification, worked example 5: (board, side to move, right move).
POSITIONS = (
    ("XX.OO....", "X", 2, "win, not the block at 5"),
    ("X.O.O...X", "X", 6, "block; it also forks"),
    ("XX..O....", "O", 2, "block"),
    ("XX.OO...X", "O", 5, "win, not the block at 2"),
)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per seat per match")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="processes")
    parser.add_argument("--seed", type=int, default=0, help="master seed")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.seed < 0:
        parser.error("--games and --workers must be >= 1 and --seed >= 0")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    model = TicTacToeModel()
    failures = []

    print(f"1. Search from the empty board ({STRONG} iterations, c = 2*sqrt(2), seed {args.seed})")
    planner = MCTS(model, STRONG, exploration=EXPLORATION, seed=args.seed)
    move = planner(EMPTY_BOARD)
    print("visits and value for X of each first move:")
    print(format_root_statistics(EMPTY_BOARD, planner.summary()))
    print(f"move played: {move}\n")

    print(f"2. Must-win / must-block positions ({STRONG} iterations)")
    for board, side, right, why in POSITIONS:
        state = parse_board(board)
        assert right in perfect_moves(state), (board, right)  # the table agrees with minimax
        move = MCTS(model, STRONG, exploration=EXPLORATION, seed=args.seed)(state)
        verdict = "right" if move == right else f"WRONG (right: {right})"
        print(f"{board}  {side} to move, plays {move}: {verdict} ({why})")
        print("  " + render_board(state).replace("\n", "\n  "))
        if move != right:
            failures.append(f"{board}: played {move}, right move {right}")

    print(f"\n3. Matches: {args.games} games per seat, {args.workers} processes")
    start = time.perf_counter()
    result = sweep(
        make_game("tictactoe"),
        [RandomPlayer(), PerfectPlayer()],
        ITERATIONS,
        explorations=[EXPLORATION],
        seeds=[args.seed],
        games_per_seat=args.games,
        workers=args.workers,
        progress=sys.stderr.isatty(),
    )
    print(result.table())
    print(f"({time.perf_counter() - start:.1f} s)")

    need_x, need_o = math.floor(0.95 * args.games), math.floor(0.80 * args.games)
    for match in result.matches:
        if match.spec.agent.iterations != STRONG:
            continue
        opponent = match.spec.opponent.label
        for seat, name in enumerate(match.seat_names):
            tally = match.tally(seat)
            if tally.losses:
                failures.append(f"lost {tally.losses} games as {name} against {opponent}")
            need = need_x if seat == 0 else need_o
            if opponent == "random" and tally.wins < need:
                failures.append(f"won {tally.wins} < {need} games as {name} against random")
    if failures:
        print("\nFAILED at 5000 iterations:\n  " + "\n  ".join(failures))
        return 1
    print(
        f"\nOK at {STRONG} iterations: every position right, no game lost, "
        f">= {need_x} wins as X and >= {need_o} as O against random."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
