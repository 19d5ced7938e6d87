"""``mcts-agent play``: a person plays the planner of ``search`` in the terminal."""

from __future__ import annotations

import argparse
from typing import TextIO

from mcts_agent.boards import Board
from mcts_agent.cli.options import _add_game_option
from mcts_agent.cli.search import (
    BOARD_GAMES,
    _add_search_options,
    _board,
    _budget,
    _planner,
)
from mcts_agent.summary import search_line


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``play`` to the ``mcts-agent`` commands."""
    play = commands.add_parser(
        "play",
        help="play against MCTS in the terminal",
        description="Plays one game against MCTS in the terminal: enter your move (a cell "
        "number for tic-tac-toe, a column for connect four, a UCI move such as e2e4 for "
        "chess, a vertex such as D4 or pass for go, or the env's action number), or q to "
        "quit; after each of its moves MCTS says how many visits the move got and its value.",
    )
    _add_game_option(play, ", ".join(BOARD_GAMES))
    play.add_argument(
        "--position",
        default=None,
        help="the position to start from, as search's --position (default: the start)",
    )
    play.add_argument(
        "--human",
        default=None,
        help="your side: X or O, white or black, or first or second (default: the first)",
    )
    _add_search_options(play, iterations=2000)
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
        parser.error(f"argument --position: {args.position!r} is a finished game; nothing to play")
    seat = _human_seat(parser, board, args.human)
    human = board.players[seat]
    you, machine = board.seat_names[seat], board.seat_names[1 - seat]
    planner = _planner(parser, args, game, board.model)
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
                    return 0
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
    return 0
