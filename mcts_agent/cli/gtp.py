"""``mcts-agent gtp``: MCTS on :class:`~mcts_agent.envs.go.GoModel` as a GTP engine on stdin/stdout.

The protocol itself is :class:`mcts_agent.gtp.GTPEngine`'s; this command reads one command
a line from stdin, writes each response to stdout (flushed, so a controller such as GoGui
or Sabaki sees it at once) and stops after ``quit`` or at the end of stdin.
"""

from __future__ import annotations

import argparse
import re
from typing import TextIO

from mcts_agent.cli.options import (
    _add_settings_option,
    _add_time_limit,
    _check_planner_options,
    _planner_options,
    int_at_least,
    number_in,
    parse_exploration,
)
from mcts_agent.defaults import GO_EXPLORATION
from mcts_agent.envs.go import GoModel
from mcts_agent.evaluation import make_game
from mcts_agent.gtp import MAX_BOARD_SIZE, GTPEngine

_OWN_FLAGS = ("iterations", "time_limit", "exploration", "seed")

DEFAULT_TIME_LIMIT = 1.0
"""Seconds per ``genmove`` when neither ``--iterations`` nor ``--time-limit`` is given."""

_GAME = re.compile(r"go:(\d+)")


def _go_size(text: str) -> int:
    """The board size of ``--game go:N``, N in 2..25; an argument error otherwise."""
    match = _GAME.fullmatch(text.strip().lower())
    if match is None or not 2 <= int(match.group(1)) <= MAX_BOARD_SIZE:
        raise argparse.ArgumentTypeError(
            f"expected go:N with a board size N in 2..{MAX_BOARD_SIZE} (e.g. go:9), got {text!r}"
        )
    return int(match.group(1))


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``gtp`` to the ``mcts-agent`` commands."""
    gtp = commands.add_parser(
        "gtp",
        help="play Go as a GTP engine on stdin/stdout (GoGui, Sabaki)",
        description="Speaks the Go Text Protocol version 2 on stdin/stdout, so a GTP "
        "controller (GoGui, Sabaki, gogui-twogtp) plays MCTS on our Go model (GRAVE with "
        "MCTSAgent's go defaults, mcts_agent.defaults.go_defaults). Commands: "
        "protocol_version, name, version, known_command, list_commands, quit, boardsize, "
        "clear_board, komi, play, genmove, showboard.",
    )
    gtp.add_argument(
        "--game",
        type=_go_size,
        default=9,
        metavar="go:N",
        help="the board until the controller's boardsize: go:N, N in 2..25 (default: go:9)",
    )
    gtp.add_argument(
        "--komi",
        type=number_in(-1e9, 1e9),
        default=7.5,
        help="points given to white until the controller's komi (default: 7.5)",
    )
    gtp.add_argument(
        "--iterations",
        type=int_at_least(1),
        help="iterations per move; with --time-limit, whichever comes first "
        f"(default: a time limit of {DEFAULT_TIME_LIMIT:g} s a move)",
    )
    _add_time_limit(gtp)
    gtp.add_argument(
        "--exploration",
        type=parse_exploration,
        default=None,
        help="c of GRAVE's UCB1 term: a number or e.g. 2*sqrt(2) "
        f"(default: {GO_EXPLORATION:g}, MCTSAgent's go default)",
    )
    gtp.add_argument(
        "--seed", type=int_at_least(0), default=0, help="seed of the searches (default: 0)"
    )
    _add_settings_option(
        gtp, "any other MCTS option, e.g. --option rollout_limit=100 (over the go defaults)"
    )
    gtp.set_defaults(subparser=gtp)


def run(
    args: argparse.Namespace, parser: argparse.ArgumentParser, stdin: TextIO, out: TextIO
) -> int:
    """Runs ``mcts-agent gtp`` with its parsed ``args``: answers ``stdin``'s commands on ``out``.

    Returns 0 after ``quit`` or the end of ``stdin``; bad ``--options`` (MCTS refuses them)
    exit with an argument error before any command is read.
    """
    time_limit = args.time_limit
    if args.iterations is None and time_limit is None:
        time_limit = DEFAULT_TIME_LIMIT
    options = _planner_options(parser, args, make_game("classic/go_v5"), _OWN_FLAGS)
    _check_planner_options(parser, options, GoModel(args.game, args.komi))
    try:
        engine = GTPEngine(
            args.game,
            args.komi,
            iterations=args.iterations,
            time_limit=time_limit,
            exploration=args.exploration,
            seed=args.seed,
            options=options,
        )
    except (TypeError, ValueError) as error:
        parser.error(f"argument --options: {error}")
    for line in stdin:
        response = engine.respond(line)
        if response:
            out.write(response)
            out.flush()
        if engine.quit:
            break
    return 0
