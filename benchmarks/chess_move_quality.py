"""Move quality in one run: MCTSAgent's chess defaults and minimax, each move judged by Stockfish.

A match against ``minimax:depth=2`` takes hours and its score has a wide interval; this asks
a narrower question faster. Both players choose a move in the same positions, and Stockfish
(``--engine``, one thread, ``--depth`` plies) scores each choice: the centipawns it loses
against Stockfish's best move, capped at ``CAP`` (a mate is worth ``CAP``). It prints, per
player, the average loss (ACPL, as chess sites report it), the moves that lose
``BLUNDER`` centipawns or more, and the median seconds a move, with the players interleaved
position by position so that a busy machine slows both alike.

The positions are middle games and endings of real play, not random ones: from 4 random
opening plies (``--seed``), Stockfish at ``Skill Level`` 5 (5 ms a move) plays on for a random
number of plies (8 to 60); a finished game is skipped.

The players: ``mcts`` is ``MCTS`` on ``ChessModel`` with ``chess_defaults`` (MCTSAgent's
chess search) at ``--iterations`` a move; ``minimax`` is ``AlphaBetaMinimax`` at ``--depth-
minimax`` plies with the same evaluator's capture search at its depth limit (the
``minimax:depth=2`` of ``chess_matches.py``).

Run::

    python benchmarks/chess_move_quality.py --positions 200 --iterations 300

(Stockfish: ``apt-get install stockfish``; Debian puts it in ``/usr/games``.)
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import time

import chess
import chess.engine

from mcts_agent import MCTS
from mcts_agent.defaults import chess_defaults
from mcts_agent.envs.chess import ChessModel, board_of, move_of
from mcts_agent.envs.chess_evaluator import quiescence
from mcts_agent.minimax import AlphaBetaMinimax

CAP = 500
"""Centipawns: the most one move can lose in the average (a mate, or a queen, counts as this)."""
BLUNDER = 150
"""Centipawns: a move losing this much or more is counted as a blunder."""


def positions(count: int, seed: int, engine: chess.engine.SimpleEngine) -> list[str]:
    """``count`` FENs: random openings played on by Stockfish at Skill Level 5."""
    rng = random.Random(seed)
    engine.configure({"Skill Level": 5})
    fens = []
    while len(fens) < count:
        board = chess.Board()
        for _ in range(4):
            board.push(rng.choice(list(board.legal_moves)))
        for _ in range(rng.randrange(8, 61)):
            if board.is_game_over(claim_draw=True):
                break
            board.push(engine.play(board, chess.engine.Limit(time=0.005)).move)
        if not board.is_game_over(claim_draw=True):
            fens.append(board.fen())
    engine.configure({"Skill Level": 20})
    return fens


def loss(engine: chess.engine.SimpleEngine, fen: str, move: chess.Move, depth: int) -> int:
    """Centipawns ``move`` loses against Stockfish's best move in ``fen``, in [0, CAP]."""
    board = chess.Board(fen)
    limit = chess.engine.Limit(depth=depth)
    best = engine.analyse(board, limit)["score"].pov(board.turn).score(mate_score=10 * CAP)
    board.push(move)
    if board.is_checkmate():
        after = 10 * CAP
    elif board.is_game_over(claim_draw=True):
        after = 0
    else:
        after = -engine.analyse(board, limit)["score"].pov(board.turn).score(mate_score=10 * CAP)
    return max(0, min(CAP, best - after))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100, help="positions (default 100)")
    parser.add_argument("--iterations", type=int, default=300, help="MCTS iterations a move")
    parser.add_argument("--depth-minimax", type=int, default=2, help="minimax plies (default 2)")
    parser.add_argument("--depth", type=int, default=12, help="Stockfish's plies (default 12)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions (default 0)")
    parser.add_argument("--engine", default=None, help="Stockfish's path (default: found)")
    args = parser.parse_args()
    path = args.engine or shutil.which("stockfish") or "/usr/games/stockfish"
    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Threads": 1})
    model = ChessModel()
    minimax = AlphaBetaMinimax(
        model, depth=args.depth_minimax, evaluation=lambda state: quiescence(board_of(state))
    )

    def mcts_move(state):
        planner = MCTS(model, args.iterations, seed=0, **chess_defaults({}))
        return planner(state)

    players = {
        f"mcts ({args.iterations} iterations)": mcts_move,
        f"minimax (depth {args.depth_minimax})": lambda state: minimax.best_actions(state)[0],
    }
    losses: dict[str, list[int]] = {name: [] for name in players}
    seconds: dict[str, list[float]] = {name: [] for name in players}
    try:
        fens = positions(args.positions, args.seed, engine)
        for fen in fens:
            state = model.state_of_board(chess.Board(fen))
            for name, choose in players.items():
                start = time.perf_counter()
                action = choose(state)
                seconds[name].append(time.perf_counter() - start)
                losses[name].append(loss(engine, fen, move_of(state, action), args.depth))
    finally:
        engine.quit()
    print(
        f"{len(fens)} positions (seed {args.seed}), each move judged by Stockfish at depth "
        f"{args.depth}; losses capped at {CAP} cp"
    )
    for name in players:
        values = losses[name]
        blunders = sum(value >= BLUNDER for value in values)
        print(
            f"{name:>26}: ACPL {statistics.mean(values):6.1f}  blunders (>= {BLUNDER} cp) "
            f"{blunders:3d}/{len(values)}  median {statistics.median(seconds[name]):.2f} s a move"
        )


if __name__ == "__main__":
    main()
