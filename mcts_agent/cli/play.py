"""``mcts-agent play``: a person plays the planner of ``search`` in the terminal."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from mcts_agent.boards import Board, ChessBoard
from mcts_agent.cli.options import (
    _add_game_option,
    _add_pgn_option,
    _check_files,
    _check_pgn,
    _outputs,
)
from mcts_agent.cli.search import (
    BOARD_GAMES,
    _add_fen_option,
    _add_search_options,
    _board,
    _budget,
    _finished,
    _planner,
)
from mcts_agent.evaluation import write_atomically
from mcts_agent.summary import search_line


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``play`` to the ``mcts-agent`` commands."""
    play = commands.add_parser(
        "play",
        help="play against MCTS in the terminal",
        description="Plays one game against MCTS in the terminal: enter your move (a cell "
        "number for tic-tac-toe, a column for connect four, a move in UCI or SAN such as "
        "e2e4 or e4 for chess, a vertex such as D4 or pass for go, or the env's action "
        "number), or q to quit; after each of its moves MCTS says how many visits the move "
        "got and its value.",
    )
    _add_game_option(play, ", ".join(BOARD_GAMES))
    play.add_argument(
        "--position",
        default=None,
        help="the position to start from, as search's --position (default: the start)",
    )
    _add_fen_option(play)
    play.add_argument(
        "--human",
        default=None,
        help="your side: X or O, white or black, or first or second (default: the first)",
    )
    _add_search_options(play, iterations=2000)
    _add_pgn_option(play, "the game (when it ends, or is left with q; result * then)")
    play.set_defaults(subparser=play)


def _human_seat(parser: argparse.ArgumentParser, board: Board, text: str | None) -> int:
    """The seat (0 or 1) ``--human`` names; exits with an argument error for another name."""
    if text is None:
        return 0
    names = [name.lower() for name in board.seat_names]
    for seat, words in enumerate(zip(names, ("first", "second"), strict=True)):
        if text.lower() in words:
            return seat
    choices = ", ".join(repr(name) for name in board.seat_names)
    parser.error(
        f"argument --human: {text!r} is not a side of {board.name} (choose from {choices}, "
        "'first', 'second')"
    )


def run(
    args: argparse.Namespace, parser: argparse.ArgumentParser, stdin: TextIO, out: TextIO
) -> int:
    """Runs ``mcts-agent play`` with its parsed ``args``, the moves read from ``stdin``."""
    game, board = _board(parser, args)
    if not board.legal:
        _finished(parser, args, board, "play")
    seat = _human_seat(parser, board, args.human)
    if args.pgn is not None:
        _check_pgn(parser, game)
        _check_files(parser, _outputs(args, ("--pgn",)))
    planner = _planner(parser, args, game, board.model)
    _play_game(board, planner, board.players[seat], stdin, out)
    if args.pgn is not None and isinstance(board, ChessBoard):
        names = ["you", f"mcts ({_budget(planner)} a move)"]
        white, black = names if seat == 0 else names[::-1]
        try:
            with write_atomically(args.pgn) as f:
                print(board.pgn_game(white, black, event=parser.prog), file=f)
        except OSError as error:
            print(f"mcts-agent: error: {error}", file=sys.stderr)
            return 1
        print(f"wrote {args.pgn}", file=out)
    return 0


def _play_game(board: Board, planner: Any, human: Any, stdin: TextIO, out: TextIO) -> None:
    """Plays the game from ``board``, ``human`` (a player) against ``planner``, to its end or q."""
    seat = board.players.index(human)
    you, machine = board.seat_names[seat], board.seat_names[1 - seat]
    print(
        f"You play {you}, MCTS plays {machine} ({_budget(planner)} per move). "
        f"Enter {board.move_help}, or q to quit.",
        file=out,
    )
    while board.legal:
        if board.player() == human:
            print(board.render_to_move(), file=out)
            while True:
                print("your move: ", end="", file=out, flush=True)
                line = stdin.readline()
                if not line or line.strip().lower() in ("q", "quit"):
                    print("\ngame abandoned", file=out)
                    return
                try:
                    action = board.parse_move(line)
                    break
                except ValueError as error:
                    print(error, file=out)
        else:
            action = planner(board.state)
            summary = planner.summary()
            index = summary.actions.index(action)
            print(
                f"MCTS plays {board.label(action)} ({summary.visit_counts[index]} of "
                f"{sum(summary.visit_counts)} visits, value {summary.values[index]:+.2f}; "
                f"{search_line(summary)})",
                file=out,
            )
        board.play(action)
    print(board.render_to_move(), file=out)
    returns = board.returns()
    mine, theirs = returns.get(human, 0.0), returns.get(board.players[1 - seat], 0.0)
    if mine == theirs:
        print("draw", file=out)
    else:
        print("you win" if mine > theirs else f"MCTS ({machine}) wins", file=out)
