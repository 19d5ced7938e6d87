"""The ``mcts-agent`` command line: its nine commands, one module each.

evaluate, tournament, plan, search, multiplayer, play, gtp, uci, train:

::

    mcts-agent evaluate --game classic/tictactoe-v3 --opponent random perfect
        --iterations 10 100 1000 --games 100 --seed 0 [--options gamma=0.9,1.0]
        [--json F] [--csv F] [--plot F.png] [--jsonl F]
    mcts-agent tournament --game connect_four --agents mcts:iterations=30
        mcts:iterations=600 random --games 20 [--sprt 0,100] [--json F] [--plot F.png]
    mcts-agent plan --env FrozenLake-v1:is_slippery=False --iterations 20 200
        [--env-kwargs map_name="'8x8'"] [--time-limit S] [--options gamma=0.95,exploration=0.7]
    mcts-agent search --game tictactoe --position "XX.OO...." --iterations 5000
        [--time-limit S] [--options evaluator=heuristic] [--dot F] [--json F]
        [--plot F.png] [--trace F.png]
    mcts-agent play --game tictactoe --iterations 2000 --human X
    mcts-agent multiplayer --game three_in_a_row --agents mcts:iterations=300
        mcts:iterations=30 random --games 6 --seed 0 [--json F]
    mcts-agent gtp --game go:9 [--komi 7.5] [--iterations N] [--time-limit S] [--option K=V]
    mcts-agent uci [--iterations N] [--time-limit S] [--seed N] [--options NAME=VALUE,...]
    mcts-agent train --game connect_four --minutes 30 --out net.pt [--generations N]
        [--seed N] [--iterations N] [--plot curve.png]

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
:mod:`mcts_agent.boards`. ``search`` prints :func:`mcts_agent.summary.format_summary`'s
text, what ``str(summary)`` prints in Python; ``plan`` plays MCTS and a random policy in a
Gymnasium env (:mod:`mcts_agent.evaluation.planning`). A user's own env or game is named
``module:attr`` (``plan --env my_envs:MyEnv-v0``, ``--game my_envs:env``), as
``make_game`` and ``planning.make_env`` read it: :mod:`mcts_agent.evaluation.user_modules`.
``gtp`` speaks the Go Text Protocol on stdin/stdout (:mod:`mcts_agent.gtp`), so MCTS on
our Go model plays in GoGui, Sabaki or any GTP controller; ``uci`` speaks the Universal
Chess Interface (:mod:`mcts_agent.uci`), so MCTS on our chess model plays in cutechess, Arena
or any UCI GUI. ``train`` trains a policy-value network by self-play (:mod:`mcts_agent.learning`,
PyTorch), whose checkpoint every command then takes as ``--option evaluator=net.pt``.

Every command that plans takes ``--options NAME=VALUE,...`` (repeatable) for the MCTS
options it has no flag for (in ``tournament`` and ``multiplayer``, added to every ``mcts``
agent's spec; in ``evaluate``, several values sweep an option), also spelled ``--option``
(one option, two names). Every command that takes an iteration count takes ``--time-limit``
too; times print with three significant digits.

One module a command (``evaluate``, ``tournament``, ``plan``, ``search`` with what
``play`` shares of it, ``play``, ``multiplayer``, ``gtp``, ``uci``, ``train``: each its
``add_parser`` and ``run``);
:mod:`mcts_agent.cli.options` holds the argument types, the options several commands take
and the checks made before any game (the output files among them), and
:mod:`mcts_agent.cli.runs` the run of games logged as they finish and its exit statuses.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import warnings
from collections.abc import Sequence
from typing import TextIO

from mcts_agent import __version__, core_backend
from mcts_agent.cli import (
    evaluate,
    gtp,
    multiplayer,
    plan,
    play,
    search,
    tournament,
    train,
    uci,
)
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
from mcts_agent.cli.search import BOARD_GAMES, format_root_statistics, tree_json
from mcts_agent.cli.tournament import parse_sprt
from mcts_agent.summary import ROOT_TABLE_MOVES, format_root_table

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


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help, each command's description on its name's line.

    argparse measures the commands' names without their indentation, so a name as long
    as ``multiplayer`` would push its description to the next line.
    """

    def add_argument(self, action: argparse.Action) -> None:
        """Adds ``action`` to the help, counting its subactions' (commands') indentation."""
        super().add_argument(action)
        if action.help is not argparse.SUPPRESS:
            for subaction in self._iter_indented_subactions(action):  # indented while iterated
                width = len(self._format_action_invocation(subaction)) + self._current_indent
                self._action_max_length = max(self._action_max_length, width)


def build_parser() -> argparse.ArgumentParser:
    """Returns the ``mcts-agent`` argument parser, its help naming each command in a line.

    Commands: evaluate, tournament, plan, search, multiplayer, play, gtp, uci, train.
    """
    parser = argparse.ArgumentParser(
        prog="mcts-agent",
        description="Monte Carlo Tree Search planning: evaluate, tournament, plan, search, "
        "multiplayer, play, gtp, uci, train. 'mcts-agent COMMAND --help' describes a command's "
        "options; MCTS options without a flag of their own go in --options NAME=VALUE,...",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__} (core: {core_backend()})",
        help="print the version and the active core (compiled or python) and exit",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # in this order in the help
    for command in (evaluate, tournament, plan, search, multiplayer, play, gtp, uci, train):
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None) -> int:
    """Runs the ``mcts-agent`` command line.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        stdin: where ``play`` reads the person's moves and ``gtp`` and ``uci`` the
            controller's commands (default: ``sys.stdin``).

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
    previous_format = warnings.formatwarning
    warnings.formatwarning = _format_warning
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
        if args.command == "gtp":
            return gtp.run(args, args.subparser, stdin if stdin is not None else sys.stdin, out)
        if args.command == "train":
            return train.run(args, args.subparser, out)
        if args.command == "uci":
            return uci.run(args, args.subparser, stdin if stdin is not None else sys.stdin, out)
        return play.run(args, args.subparser, stdin if stdin is not None else sys.stdin, out)
    except KeyboardInterrupt:
        print("\nmcts-agent: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        warnings.formatwarning = previous_format
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def _format_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """The command line's form of a warning: ``mcts-agent: warning: MESSAGE``, one line.

    Python's own form names the library's file and line and shows its source, which
    tells a user of the command nothing.
    """
    return f"mcts-agent: warning: {message}\n"


def _interrupt(signum: int, frame: object) -> None:
    """The command line's ``SIGTERM`` handler: raises KeyboardInterrupt, as Ctrl-C does."""
    raise KeyboardInterrupt
