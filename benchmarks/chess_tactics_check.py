"""Checks the chess tactics set (``tests/chess_tactics.py``) against Stockfish; prints a table.

For every position of :data:`chess_tactics.TACTICS`, Stockfish (``--engine``, one thread)
analyses at ``--depth`` plies (18 unless told) with MultiPV:

* **mate1 / mate2**: MultiPV 3 gives the fewest moves to mate, which must be the
  category's (1 or 2); then every legal move is searched alone (depth ``MOVE_DEPTH``)
  and the moves that mate in that fewest must be exactly the stored solutions.
* **hanging / fork**: MultiPV 3 (more while every line shown is a solution); the best
  move must win clearly (at least ``WINNING`` centipawns for the side to move), the
  stored solutions must be exactly the moves within ``MARGIN`` centipawns of the best,
  and the best move not a solution must be at least ``GAP`` centipawns worse (one
  clear answer).

``--suggest`` prints, instead of failing, each position's solution set as Stockfish
gives it, as the Python text to store. Exits with status 1 if any check fails.

Run::

    python benchmarks/chess_tactics_check.py --depth 18
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from chess_tactics import MATE_DISTANCE, TACTICS, Tactic  # noqa: E402

STOCKFISH = "/usr/games/stockfish"
MARGIN = 100
"""Centipawns: a move this close to the best one also solves a material position."""
GAP = 250
"""Centipawns: the least the best non-solution move must lose against the best move."""
WINNING = 200
"""Centipawns: the least the best move of a material position must be worth."""
MATE_CP = 100_000
MOVE_DEPTH = 12
"""Plies Stockfish searches each legal move of a mate position alone (mates in 2 are 3 plies)."""


def _centipawns(score: chess.engine.PovScore, turn: chess.Color) -> int:
    """The score for the side to move, mates as +-(MATE_CP - distance)."""
    return score.pov(turn).score(mate_score=MATE_CP)


def analyse(
    engine: chess.engine.SimpleEngine, board: chess.Board, multipv: int, depth: int
) -> list[tuple[str, int]]:
    """``[(uci, centipawns for the side to move)]`` of Stockfish's MultiPV lines, best first."""
    infos = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=multipv)
    return [(info["pv"][0].uci(), _centipawns(info["score"], board.turn)) for info in infos]


def mate_solutions(
    engine: chess.engine.SimpleEngine, board: chess.Board, depth: int
) -> tuple[int | None, set[str]]:
    """``(fewest moves to mate, the moves that mate in it)``.

    Stockfish's MultiPV 3 at ``depth`` gives the fewest; then each legal move is searched
    alone (``root_moves``, depth ``MOVE_DEPTH``) for the set of moves that mate in it.
    """
    lines = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=3)
    fewest = lines[0]["score"].pov(board.turn).mate()
    if fewest is None or fewest <= 0:
        return None, set()
    solutions = set()
    for move in board.legal_moves:
        info = engine.analyse(board, chess.engine.Limit(depth=MOVE_DEPTH), root_moves=[move])
        if info["score"].pov(board.turn).mate() == fewest:
            solutions.add(move.uci())
    return fewest, solutions


def material_solutions(
    engine: chess.engine.SimpleEngine, board: chess.Board, depth: int
) -> tuple[int, set[str], int | None]:
    """``(best centipawns, moves within MARGIN of it, best non-solution centipawns or None)``."""
    legal = board.legal_moves.count()
    multipv = min(3, legal)
    while True:
        lines = analyse(engine, board, multipv, depth)
        best = lines[0][1]
        solutions = {move for move, score in lines if score >= best - MARGIN}
        others = [score for move, score in lines if move not in solutions]
        if others or multipv == legal:
            return best, solutions, (others[0] if others else None)
        multipv = min(multipv + 3, legal)


def check(
    engine: chess.engine.SimpleEngine, tactic: Tactic, depth: int
) -> tuple[list[str], str, set[str]]:
    """``(problems, table row, Stockfish's solutions)`` for one position."""
    board = chess.Board(tactic.fen)
    problems = []
    if tactic.category in MATE_DISTANCE:
        fewest, solutions = mate_solutions(engine, board, depth)
        if fewest != MATE_DISTANCE[tactic.category]:
            problems.append(f"Stockfish mates in {fewest}, not {MATE_DISTANCE[tactic.category]}")
        detail = f"mate in {fewest}"
    else:
        best, solutions, other = material_solutions(engine, board, depth)
        if best < WINNING:
            problems.append(f"best move worth {best} cp < {WINNING}")
        if other is not None and best - other < GAP:
            problems.append(f"gap to the best non-solution {best - other} cp < {GAP}")
        gap = "-" if other is None else best - other
        detail = f"best {best:+d} cp, gap {gap}"
    if set(tactic.solutions) != solutions:
        problems.append(
            f"Stockfish's solutions {sorted(solutions)}, stored {list(tactic.solutions)}"
        )
    row = f"{tactic.category:8s} {','.join(sorted(solutions)):24s} {detail:28s} {tactic.fen}"
    return problems, row, solutions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=STOCKFISH)
    parser.add_argument("--depth", type=int, default=18)
    parser.add_argument("--suggest", action="store_true", help="print Stockfish's solution sets")
    args = parser.parse_args()
    if args.depth < 18:
        parser.error(f"--depth must be >= 18, got {args.depth}")
    failures = 0
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        engine.configure({"Threads": 1, "Hash": 64})
        print(f"Stockfish depth {args.depth}, {len(TACTICS)} positions")
        print(f"{'category':8s} {'solutions':24s} {'Stockfish':28s} FEN")
        for index, tactic in enumerate(TACTICS):
            problems, row, solutions = check(engine, tactic, args.depth)
            print(f"{'FAIL' if problems else 'ok  '} {row}")
            for problem in problems:
                print(f"     {index}: {problem}")
            if args.suggest:
                print(f"     suggest: solutions={tuple(sorted(solutions))!r}")
            failures += bool(problems)
    print(f"{len(TACTICS) - failures}/{len(TACTICS)} positions agree with Stockfish")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
