"""Issue 34's yardsticks: MCTSAgent's chess defaults against random, minimax and Stockfish.

``MCTSAgent`` on PettingZoo's ``classic/chess_v6`` (planning on
:class:`~mcts_agent.envs.chess.ChessModel` with its chess defaults: PUCT guided by
:class:`~mcts_agent.envs.chess_evaluator.ChessEvaluator`,
:func:`~mcts_agent.defaults.chess_defaults`) at ``--iterations`` a move or ``--seconds`` of
CPU time a move (the planner's clock is ``time.process_time``: one core's seconds, as the
issue counts them, immune to a busy machine; on an idle core the same as the wall-clock
seconds ``MCTSAgent`` counts by default), against ``--opponent`` (an agent spec: ``random``,
``minimax:depth=2`` with the same evaluator at its depth limit, ``uci:stockfish:Skill
Level=0,movetime=10``...), seats alternating, ``--games`` games in all. Each pair of games
starts from the same ``--opening-plies`` uniformly random moves, once from each side
(:class:`~mcts_agent.evaluation.MatchSpec`'s ``opening_plies``): PUCT with an evaluator and
minimax are deterministic and would otherwise replay one game.

Prints the agent's score (a draw half a point) with its 95% Wilson interval, the wins, draws
and losses, and writes one JSON line per game to ``--jsonl`` (the moves in UCI, how it ended,
the seconds per move of both sides).

Run::

    python benchmarks/chess_matches.py --opponent random --games 20 --seconds 1 --jobs 2
    python benchmarks/chess_matches.py --opponent minimax:depth=2 --games 40 --seconds 1 --jobs 2
    python benchmarks/chess_matches.py --opponent 'uci:stockfish:Skill Level=0,movetime=10' \\
        --games 40 --seconds 1 --jobs 2

(Stockfish: ``apt-get install stockfish``; Debian puts it in ``/usr/games``, found there.)
"""

import argparse
import time

import chess
from logged_matches import play_logged_match

from mcts_agent.defaults import CHESS_EXPLORATION
from mcts_agent.envs.chess import ChessModel, move_of
from mcts_agent.evaluation import MCTSPlayer, make_game, make_player


def game_line(record) -> dict:
    """The JSON line of one game (``GameRecord``): replays its moves on ``ChessModel``.

    How it ended is read from a ``chess.Board`` with the whole game on its move stack (a
    state's board holds only the last move, too little to see a repetition).
    """
    model = ChessModel()
    state = model.initial_state()
    board = chess.Board()
    moves = []
    for action in record.moves:
        move = move_of(state, action)
        moves.append(move.uci())
        board.push(move)
        state = model.step(state, action).next_state
    outcome = board.outcome(claim_draw=True)
    return {
        "index": record.index,
        "agent": ("white", "black")[record.agent_seat],
        "outcome": record.outcome,
        "ended": outcome.termination.name.lower() if outcome else "unfinished",
        "plies": len(moves),
        "seconds_per_move": record.seconds / max(1, len(moves)),
        "moves": moves,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games in all, even (default 20)")
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="agent's CPU seconds a move (default 1)"
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="the agent's iterations a move instead of --seconds (immune to a busy machine)",
    )
    parser.add_argument("--opponent", default="random", help="an agent spec (default random)")
    parser.add_argument(
        "--exploration",
        type=float,
        default=CHESS_EXPLORATION,
        help=f"the agent's c (default {CHESS_EXPLORATION:g}: MCTSAgent's chess default)",
    )
    parser.add_argument(
        "--opening-plies", type=int, default=4, help="random moves that start a pair (default 4)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--jsonl", default=None, help="write one JSON line per game here")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error(f"--games is even and >= 2 (half in each seat), got {args.games}")
    game = make_game("classic/chess_v6")
    opponent = make_player(args.opponent, game)
    # MCTSPlayer passes an exploration constant, which would override the agent's chess
    # default: pass the default itself (--exploration), with the rest of chess_defaults.
    budget = {}
    if args.iterations is None:
        budget = {"time_limit": args.seconds, "clock": time.process_time}
    agent = MCTSPlayer(args.iterations, exploration=args.exploration, **budget)
    _, score = play_logged_match(
        game,
        agent,
        opponent,
        args.games,
        game_line,
        args.jsonl,
        seed=args.seed,
        opening_plies=args.opening_plies,
        workers=args.jobs,
    )
    budget_text = (
        f"{args.seconds:g} CPU s a move"
        if args.iterations is None
        else f"{args.iterations} iterations"
    )
    print(
        f"MCTSAgent ({budget_text}, c = {args.exploration:g}) vs {args.opponent}, "
        f"{args.opening_plies} random opening plies: {score}"
    )


if __name__ == "__main__":
    main()
