"""The ``mcts-agent`` command line: evaluate, tournament, search, play.

::

    mcts-agent evaluate --game classic/tictactoe-v3 --opponent random perfect
        --iterations 10 100 1000 --games 100 --seed 0 [--json F] [--csv F] [--plot F.png]
        [--jsonl F]
    mcts-agent tournament --game connect_four --agents mcts:iterations=30
        mcts:iterations=600 random --games 20 [--sprt 0,100] [--json F] [--plot F.png]
    mcts-agent search --game tictactoe --position "XX.OO...." --iterations 5000
        [--time-limit S] [--dot F] [--json F] [--plot F.png] [--trace F.png]
    mcts-agent play --game tictactoe --iterations 2000 --human X
    mcts-agent multiplayer --game three_in_a_row --agents mcts:iterations=300
        mcts:iterations=30 random --games 6 --seed 0 [--json F]

``evaluate`` runs :func:`mcts_agent.evaluation.sweep` and prints the agent's
wins / draws / losses per opponent, setting and seat; ``tournament`` runs
:func:`mcts_agent.evaluation.tournament` (a round robin and Elo ratings) or,
with ``--sprt``, :func:`mcts_agent.evaluation.sprt_match`. Games and agents
are specs (:mod:`mcts_agent.evaluation.specs`), checked before any game. Each
game is written to a JSON Lines file as it finishes
(:class:`~mcts_agent.evaluation.GameLog`), so Ctrl-C or SIGTERM (exit status 130), a dead
worker or a full disk keep every finished game; the final files are written
atomically. ``search`` shows the root's statistics of one search (laid out on
the board for tic-tac-toe), the principal variation and the move played, and
can write the tree (DOT, JSON) and plots; ``play`` lets a person play against
the planner in the terminal; ``multiplayer`` plays a game of n players or a
cooperative one, seats rotated, and prints every player's mean return and wins
(:mod:`mcts_agent.evaluation.multiplayer`). Both take every game ``make_game`` knows by id
(our models ``tictactoe``, ``connect_four``; PettingZoo's two-player games the
adapter plans, such as ``classic/chess-v6``), shown through
:mod:`mcts_agent.boards`.

One module a command (``evaluate``, ``tournament``, ``plan``, ``search`` with what
``play`` shares of it, ``play``, ``multiplayer``: each its ``add_parser`` and ``run``);
:mod:`mcts_agent.cli.options` holds the argument types, the options several commands take
and the checks made before any game (the output files among them), and
:mod:`mcts_agent.cli.runs` the run of games logged as they finish and its exit statuses.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from typing import TextIO

from mcts_agent import __version__, core_backend
from mcts_agent.cli import evaluate, multiplayer, plan, play, search, tournament
from mcts_agent.cli.evaluate import default_opponents
from mcts_agent.cli.options import (
    MAX_GAMES,
    OPPONENTS,
    games_log_path,
    int_at_least,
    number_in,
    parse_exploration,
)
from mcts_agent.cli.runs import EXIT_INTERRUPTED
from mcts_agent.cli.search import (
    BOARD_GAMES,
    ROOT_TABLE_MOVES,
    format_root_statistics,
    format_root_table,
    tree_json,
)
from mcts_agent.cli.tournament import parse_sprt

__all__ = [
    "BOARD_GAMES",
    "EXIT_INTERRUPTED",
    "MAX_GAMES",
    "OPPONENTS",
    "ROOT_TABLE_MOVES",
    "build_parser",
    "default_opponents",
    "format_root_statistics",
    "format_root_table",
    "games_log_path",
    "int_at_least",
    "main",
    "number_in",
    "parse_exploration",
    "parse_sprt",
    "tree_json",
]


def build_parser() -> argparse.ArgumentParser:
    """Returns the ``mcts-agent`` argument parser (evaluate, tournament, search, play)."""
    parser = argparse.ArgumentParser(
        prog="mcts-agent",
        description="UCT Monte Carlo Tree Search: evaluate, tournament, search, play.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__} (core: {core_backend()})",
        help="print the version and the active core (compiled or python) and exit",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # in this order in the help
    for command in (evaluate, tournament, plan, search, multiplayer, play):
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None) -> int:
    """Runs the ``mcts-agent`` command line.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        stdin: where ``play`` reads the person's moves (default: ``sys.stdin``).

    Returns:
        The exit status: 0 on success; 1 if ``evaluate`` stopped on a failure
        (a full disk, dead workers), after one line saying how many games were
        kept and where; 130 (:data:`EXIT_INTERRUPTED`) after Ctrl-C or
        ``SIGTERM`` (handled alike, worker processes ended), with that line and
        no traceback. Bad arguments exit with status 2 and an argparse
        error naming the valid choices.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    out = sys.stdout
    in_main_thread = threading.current_thread() is threading.main_thread()
    if in_main_thread:  # SIGTERM (kill, timeout, systemd, container stops) is Ctrl-C
        previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.command == "evaluate":
            return evaluate.run(args, args.subparser, out)
        if args.command == "tournament":
            return tournament.run(args, args.subparser, out)
        if args.command == "plan":
            return plan.run(args, args.subparser, out)
        if args.command == "search":
            return search.run(args, args.subparser, out)
        if args.command == "multiplayer":
            return multiplayer.run(args, args.subparser, out)
        return play.run(args, args.subparser, stdin if stdin is not None else sys.stdin, out)
    except KeyboardInterrupt:
        print("\nmcts-agent: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    """The command line's ``SIGTERM`` handler: raises KeyboardInterrupt, as Ctrl-C does."""
    raise KeyboardInterrupt
