"""``mcts-agent uci``: MCTS on :class:`~mcts_agent.envs.chess.ChessModel` as a UCI engine.

The protocol itself is :class:`mcts_agent.uci.UCIEngine`'s; this command reads one command
a line from stdin, writes each line the engine answers to stdout (flushed, so a GUI such as
cutechess, Arena or python-chess's client sees it at once) and stops after ``quit`` (a running
search stopped, without a ``bestmove``) or at the end of stdin (a running search first ends on
its budget, ``go infinite`` at once, and writes its ``bestmove``, as Stockfish does).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from mcts_agent.cli.options import (
    CLI_ROLLOUT_ADVICE,
    _add_settings_option,
    _add_time_limit,
    _check_planner_options,
    _planner_options,
    int_at_least,
    parse_exploration,
)
from mcts_agent.defaults import (
    CHESS_EXPLORATION,
    CHESS_TIME_LIMIT,
    chess_defaults,
    warn_random_rollouts,
)
from mcts_agent.evaluation import make_game
from mcts_agent.uci import MAX_SEED, UCIEngine

_OWN_FLAGS = ("iterations", "time_limit", "seed", "exploration")
"""The MCTS options ``uci`` sets with flags of its own (as ``search`` does), refused in
``--options``."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``uci`` to the ``mcts-agent`` commands."""
    uci = commands.add_parser(
        "uci",
        help="play chess as a UCI engine on stdin/stdout (cutechess, Arena)",
        description="Speaks the Universal Chess Interface on stdin/stdout, so a UCI GUI "
        "(cutechess, Arena, python-chess's client) plays MCTS on our chess model (PUCT with "
        "ChessEvaluator, MCTSAgent's chess defaults, mcts_agent.defaults.chess_defaults). "
        "Commands: uci, isready, setoption (Seed), ucinewgame, position, go (movetime, "
        "wtime/btime/winc/binc/movestogo, nodes, infinite), stop, quit.",
    )
    uci.add_argument(
        "--iterations",
        type=int_at_least(1),
        help="iterations for a go with no budget of its own; with --time-limit, whichever "
        f"comes first (default: a time limit of {CHESS_TIME_LIMIT:g} s)",
    )
    _add_time_limit(uci)
    uci.add_argument(
        "--seed",
        type=int_at_least(0),
        default=0,
        help="seed of the searches until the GUI's setoption name Seed (default: 0)",
    )
    uci.add_argument(
        "--exploration",
        type=parse_exploration,
        default=None,
        help=f"PUCT's c (default: {CHESS_EXPLORATION:g}, the chess defaults'), as in search",
    )
    _add_settings_option(
        uci, "any other MCTS option, e.g. --options max_depth=12 (over the chess defaults)"
    )
    uci.set_defaults(subparser=uci)


def run(
    args: argparse.Namespace, parser: argparse.ArgumentParser, stdin: TextIO, out: TextIO
) -> int:
    """Runs ``mcts-agent uci`` with its parsed ``args``: answers ``stdin``'s commands on ``out``.

    Returns 0 after ``quit`` or the end of ``stdin``; bad ``--options`` (MCTS refuses them)
    exit with an argument error before any command is read.
    """
    if args.seed > MAX_SEED:
        parser.error(f"argument --seed: expected an int in 0..{MAX_SEED}, got {args.seed}")
    game = make_game("classic/chess-v6")  # its evaluator by name (heuristic), as search's
    options = _planner_options(parser, args, game, _OWN_FLAGS)
    if args.exploration is not None:
        options["exploration"] = args.exploration
    _check_planner_options(parser, options, game.model)
    warn_random_rollouts("chess", {**chess_defaults(options), **options}, advice=CLI_ROLLOUT_ADVICE)

    def write(line: str) -> None:  # the engine serialises its calls
        out.write(line + "\n")
        out.flush()

    try:
        engine = UCIEngine(
            write,
            iterations=args.iterations,
            time_limit=args.time_limit,
            seed=args.seed,
            options=options,
        )
    except (TypeError, ValueError) as error:
        parser.error(f"argument --options: {error}")
    try:
        for line in stdin:
            engine.respond(line)
            if engine.quit:
                break
        else:  # the input ended without quit: a running search ends and says its bestmove
            engine.finish()
    finally:
        engine.close()
    return 0
