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
(:class:`~mcts_agent.evaluation.GameLog`), so Ctrl-C (exit status 130), a dead
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
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import json
import math
import os
import re
import stat
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from mcts_agent import __version__, core_backend
from mcts_agent.boards import Board, ModelBoard, board_for
from mcts_agent.evaluation import (
    AGENT_KINDS,
    BACKENDS,
    DEFAULT_EXPLORATION,
    GAME_NAMES,
    SPRT,
    Game,
    GameLog,
    MCTSPlayer,
    ModelGame,
    PettingZooGame,
    Player,
    SPRTResult,
    SweepResult,
    TournamentResult,
    WorkerDiedError,
    WorkerDiedWarning,
    check_ray_address,
    make_game,
    make_player,
    parse_spec,
    parse_sweep,
    ray_session,
    sprt_match,
    sweep,
    tournament,
    write_atomically,
)
from mcts_agent.evaluation.multiplayer import (
    MULTIPLAYER_GAMES,
    make_multiplayer_game,
    play_multiplayer,
)
from mcts_agent.evaluation.results import save_figure
from mcts_agent.search import MCTS, SearchSummary
from mcts_agent.trace import RootTrace

__all__ = [
    "EXIT_INTERRUPTED",
    "MAX_GAMES",
    "OPPONENTS",
    "build_parser",
    "default_opponents",
    "format_root_statistics",
    "format_root_table",
    "games_log_path",
    "main",
    "parse_exploration",
]

OPPONENTS = AGENT_KINDS
"""The kinds of agent ``--opponent`` and ``--agents`` accept (specs such as ``minimax:depth=2``)."""

MAX_GAMES = 100_000
"""The most games per seat and match ``evaluate --games`` accepts (every game is held in memory)."""

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it)."""

BOARD_GAMES = (
    "tictactoe",
    "connect_four",
    "classic/tictactoe-v3",
    "classic/connect_four-v3",
    "classic/chess-v6",
)
"""The games ``search`` and ``play`` name in their help (they take any PettingZoo AEC id)."""

ROOT_TABLE_MOVES = 15
"""The most moves (most visited first) ``search`` lists in its table of the root's moves."""

_SQRT = re.compile(
    r"^\s*(?:(?P<k>\d+(?:\.\d*)?|\.\d+)\s*\*?\s*)?sqrt\s*\(?\s*(?P<x>\d+(?:\.\d*)?|\.\d+)\s*\)?\s*$"
)


def parse_exploration(text: str) -> float:
    """Returns the exploration constant written as a number or a multiple of a square root.

    Args:
        text: e.g. ``"2.83"``, ``"sqrt(2)"``, ``"2*sqrt(2)"`` or ``"2sqrt2"``.

    Returns:
        The value, a finite float >= 0.

    Raises:
        argparse.ArgumentTypeError: if ``text`` is neither form, or is negative or
            not finite.
    """
    match = _SQRT.match(text)
    if match:
        value = float(match["k"] or 1.0) * math.sqrt(float(match["x"]))
    else:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(
            f"expected a number >= 0 such as 2.83, sqrt(2) or 2*sqrt(2); got {text!r}"
        )
    return value


def int_at_least(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """Returns an argparse ``type`` that reads an int >= ``minimum`` (and <= ``maximum``).

    Raises:
        argparse.ArgumentTypeError: (from the returned parser) naming what came.
    """
    rule = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an int {rule}, got {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected an int {rule}, got {value}")
        return value

    parse.__name__ = f"int {rule}"
    return parse


def number_in(minimum: float, maximum: float = math.inf) -> Callable[[str], float]:
    """Returns an argparse ``type`` that reads a finite float in ``[minimum, maximum]``.

    Raises:
        argparse.ArgumentTypeError: (from the returned parser) naming what came.
    """
    rule = f">= {minimum:g}" if maximum == math.inf else f"in [{minimum:g}, {maximum:g}]"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number {rule}, got {text!r}") from None
        if not (math.isfinite(value) and minimum <= value <= maximum):
            raise argparse.ArgumentTypeError(f"expected a number {rule}, got {text}")
        return value

    parse.__name__ = f"number {rule}"
    return parse


def _add_search_options(parser: argparse.ArgumentParser, iterations: int) -> None:
    parser.add_argument(
        "--iterations",
        type=int_at_least(1),
        help=f"iterations per move (default: {iterations}); with --time-limit, only if given",
    )
    parser.set_defaults(default_iterations=iterations)
    _add_anytime_options(
        parser, "play: from move to move; search runs one search, so nothing to reuse"
    )
    parser.add_argument(
        "--exploration",
        type=parse_exploration,
        default=DEFAULT_EXPLORATION,
        help="c of UCB1: a number or e.g. 2*sqrt(2) (default: 2*sqrt(2))",
    )
    parser.add_argument(
        "--rollout-limit",
        type=int_at_least(0),
        default=1000,
        help="most moves per rollout; 0 for none (chess: try 10) (default: 1000)",
    )
    parser.add_argument(
        "--seed", type=int_at_least(0), default=0, help="seed of the rollouts (default: 0)"
    )


def _add_anytime_options(parser: argparse.ArgumentParser, reuse_note: str) -> None:
    """``--time-limit``, ``--solve`` and ``--reuse-tree``: MCTS's budget, solver and reuse."""
    parser.add_argument(
        "--time-limit",
        type=number_in(1e-9),
        metavar="SECONDS",
        help="seconds per move; with --iterations, whichever comes first",
    )
    parser.add_argument(
        "--solve",
        action="store_true",
        help="MCTS-Solver: prove wins, losses and draws (value bounds -1, 1, the rewards of "
        "these games); a search stops once its root is proven",
    )
    parser.add_argument(
        "--reuse-tree",
        action="store_true",
        help=f"keep the subtree of the position reached from one search to the next ({reuse_note})",
    )


def _anytime_options(args: argparse.Namespace) -> dict[str, Any]:
    """The MCTS options of ``--time-limit``, ``--solve`` and ``--reuse-tree`` (those given)."""
    options: dict[str, Any] = {}
    if args.time_limit is not None:
        options["time_limit"] = args.time_limit
    if args.solve:
        options.update(solve=True, value_bounds=(-1.0, 1.0))
    if args.reuse_tree:
        options["reuse_tree"] = True
    return options


def _sweep_option(text: str) -> tuple[str, list[Any]]:
    try:
        return parse_sweep(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_game_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        default="tictactoe",
        metavar="GAME",
        help=f"{', '.join(GAME_NAMES)}, or any PettingZoo AEC env id with its options, "
        "e.g. classic/chess-v6 or classic/go-v5:board_size=9 (default: tictactoe)",
    )


def _add_run_options(parser: argparse.ArgumentParser, plot_help: str) -> None:
    """The options of every command that plays games: backends, output files, progress."""
    parser.add_argument(
        "--workers", type=int_at_least(1), default=None, help="local processes (default: cores)"
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help="local processes, or a Ray cluster (pip install 'mcts-agent[ray]') (default: process)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="Ray cluster address with --backend ray: host:port, ray://host:port or auto "
        "(default: a new local Ray instance)",
    )
    parser.add_argument(
        "--json", metavar="FILE", help="write the tables' rows and every game to FILE as JSON"
    )
    parser.add_argument("--csv", metavar="FILE", help="write the table's rows to FILE as CSV")
    parser.add_argument("--plot", metavar="FILE", help=plot_help)
    parser.add_argument(
        "--jsonl",
        metavar="FILE",
        help="write each game to FILE as it finishes, one JSON object per line (default: "
        "the --json file with .jsonl for .json; without --json, a temporary file, removed "
        "if the run completes)",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (shown on a terminal)"
    )


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

    evaluate = commands.add_parser(
        "evaluate",
        help="play MCTS against opponents and print a wins/draws/losses table",
        description="Plays MCTS at each iteration count (and exploration constant and seed) "
        "against each opponent, --games games in each seat, and prints the wins / draws / "
        "losses of MCTS. A value given twice counts once. Each game is written to a JSON "
        "Lines file as it finishes (see --jsonl), so Ctrl-C (exit status 130) or a failure "
        "keeps every finished game; --json, --csv and --plot are written at the end, "
        "atomically (an existing file is replaced whole or left as it was).",
    )
    evaluate.set_defaults(subparser=evaluate)
    _add_game_option(evaluate)
    evaluate.add_argument(
        "--opponent",
        nargs="+",
        metavar="SPEC",
        default=None,
        help="opponents: agent specs (random, perfect, minimax, minimax:depth=2, "
        "mcts:iterations=50...); perfect only for tic-tac-toe; minimax alone searches "
        "--minimax-depth plies (default: random perfect for tic-tac-toe, random minimax "
        "otherwise)",
    )
    evaluate.add_argument(
        "--iterations",
        nargs="+",
        type=int_at_least(1),
        default=[10, 100, 1000],
        help="MCTS iterations per move, one match each (default: 10 100 1000)",
    )
    evaluate.add_argument(
        "--games",
        type=int_at_least(1, MAX_GAMES),
        default=100,
        help=f"games as each seat (X and O) per match, at most {MAX_GAMES:,} (default: 100)",
    )
    evaluate.add_argument(
        "--seed", nargs="+", type=int_at_least(0), default=[0], help="master seeds (default: 0)"
    )
    evaluate.add_argument(
        "--exploration",
        nargs="+",
        type=parse_exploration,
        default=[DEFAULT_EXPLORATION],
        help="c values of UCB1, e.g. sqrt(2) 2*sqrt(2) (default: 2*sqrt(2))",
    )
    evaluate.add_argument(
        "--option",
        action="append",
        type=_sweep_option,
        default=None,
        metavar="NAME=V1,V2,...",
        help="sweep any other MCTS option too, one match per value (repeatable), e.g. "
        "--option gamma=0.9,1.0 --option selection=uct,puct",
    )
    _add_anytime_options(evaluate, "from move to move within each game")
    evaluate.add_argument(
        "--rollout-limit",
        type=int_at_least(0),
        default=1000,
        help="most moves per rollout (default: 1000)",
    )
    evaluate.add_argument(
        "--minimax-depth",
        type=int_at_least(1),
        default=4,
        help="plies searched by the minimax opponent (default: 4)",
    )
    _add_run_options(evaluate, "draw win and loss rates against iterations (PNG...)")

    tournament_parser = commands.add_parser(
        "tournament",
        help="play a round robin of agents and rate them (Elo)",
        description="Plays every pair of --agents --games games, seats alternating, and "
        "prints each pair's wins / draws / losses (of the first agent) with a 95%% interval "
        "of its score, and the agents' Elo ratings: a Bradley-Terry maximum-likelihood fit "
        "(draws half a point, --prior-draws virtual draws per pair) anchored on --anchor, "
        "with 95%% profile-likelihood intervals. With --sprt and two agents, plays until the "
        "sequential probability ratio test decides (at most --games games). Each game is "
        "written to a JSON Lines file as it finishes (see --jsonl).",
    )
    tournament_parser.set_defaults(subparser=tournament_parser)
    _add_game_option(tournament_parser)
    tournament_parser.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        required=True,
        help="agent specs: random, perfect, minimax:depth=4, mcts:iterations=400,"
        "exploration=2.83,selection=puct,... (every MCTS option by name)",
    )
    tournament_parser.add_argument(
        "--games",
        type=int_at_least(2, MAX_GAMES),
        default=None,
        help="games per pair, even (half in each seat); with --sprt the most games "
        "(default: 20; with --sprt 2000)",
    )
    tournament_parser.add_argument(
        "--seed", type=int_at_least(0), default=0, help="master seed (default: 0)"
    )
    tournament_parser.add_argument(
        "--anchor",
        default=None,
        help="the agent rated 0 (default: random if it plays, else the first agent)",
    )
    tournament_parser.add_argument(
        "--prior-draws",
        type=number_in(0.0),
        default=2.0,
        help="virtual draws added to each pair in the fit, as BayesElo's prior; 0 for "
        "the plain maximum-likelihood fit (default: 2)",
    )
    tournament_parser.add_argument(
        "--sprt",
        type=parse_sprt,
        metavar="ELO0,ELO1",
        default=None,
        help="two agents: stop as soon as the GSPRT of H0 elo=ELO0 against H1 elo=ELO1 "
        "(the first agent's advantage) decides",
    )
    tournament_parser.add_argument(
        "--alpha",
        type=number_in(0.0, 1.0),
        default=0.05,
        help="--sprt: chance of accepting H1 when H0 holds (default: 0.05)",
    )
    tournament_parser.add_argument(
        "--beta",
        type=number_in(0.0, 1.0),
        default=0.05,
        help="--sprt: chance of accepting H0 when H1 holds (default: 0.05)",
    )
    _add_run_options(tournament_parser, "draw the ratings with their intervals (PNG...)")

    plan = commands.add_parser(
        "plan",
        help="plan in a Gymnasium env: MCTS against a random policy",
        description="Plays --episodes episodes of a deterministic Gymnasium env with the MCTS "
        "agent at each --iterations (and --time-limit), and with a random policy (legal moves "
        "only where the env reports info['action_mask']); prints the mean return with a 95%% "
        "Student-t interval, the success rate where the env has a goal, the mean length and "
        "the seconds per move. Episode i is seeded from --seed and i.",
    )
    plan.set_defaults(subparser=plan)
    plan.add_argument(
        "--env",
        required=True,
        metavar="ID",
        help="a Gymnasium id with its options, e.g. FrozenLake-v1:is_slippery=False, "
        "CliffWalking-v1, Taxi-v4, mcts_agent/GridMaze-v0",
    )
    plan.add_argument(
        "--episodes",
        type=int_at_least(1, MAX_GAMES),
        default=20,
        help="episodes per policy (default: 20)",
    )
    plan.add_argument(
        "--iterations",
        nargs="+",
        type=int_at_least(1),
        default=None,
        help="MCTS iterations per move, one row each (default: 200, or none with --time-limit)",
    )
    plan.add_argument(
        "--time-limit",
        type=number_in(0.0),
        default=None,
        help="seconds per move (with --iterations: whichever ends first)",
    )
    plan.add_argument(
        "--options",
        default="",
        metavar="NAME=VALUE,...",
        help="other MCTSAgent options, e.g. gamma=0.95,exploration=0.7,rollout_limit=100 "
        "(default: none: c = 2*sqrt(2))",
    )
    plan.add_argument("--seed", type=int_at_least(0), default=0, help="master seed (default: 0)")
    plan.add_argument(
        "--workers", type=int_at_least(1), default=None, help="local processes (default: cores)"
    )
    plan.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help="local processes, or a Ray cluster, one task per episode (default: process)",
    )
    plan.add_argument(
        "--address",
        default=None,
        help="Ray cluster address with --backend ray (default: a new local Ray instance)",
    )
    plan.add_argument("--json", metavar="FILE", help="write every episode to FILE as JSON")
    plan.add_argument(
        "--jsonl",
        metavar="FILE",
        help="write each episode to FILE as it finishes, one JSON object per line",
    )
    plan.add_argument(
        "--plot", metavar="FILE", help="draw the mean return against iterations (PNG...)"
    )
    plan.add_argument(
        "--no-progress", action="store_true", help="no progress bar (shown on a terminal)"
    )

    games = ", ".join(BOARD_GAMES)
    search = commands.add_parser(
        "search",
        help="search one position and show why it plays its move",
        description="Runs one search and shows each move's visits and value (for the "
        "player to move), laid out on the board for tic-tac-toe, the principal variation "
        "(the line the search expects) and the move played; optionally writes the tree "
        "(--dot, --json) and plots (--plot, --trace). Every output file is checked before "
        "the search and written atomically.",
    )
    search.add_argument(
        "--game",
        default="tictactoe",
        metavar="GAME",
        help=f"{games}, or another PettingZoo AEC id, options after a colon as for "
        "evaluate (default: tictactoe)",
    )
    search.add_argument(
        "--position",
        "--board",
        dest="position",
        default=None,
        help="tictactoe, connect_four: a board, row by row, X, O or '.' (9 or 42 cells, "
        "e.g. 'XX.OO....'), or the moves from the start ('4 0 8'); PettingZoo games: the "
        "moves from reset(seed=0), by name (chess: e2e4) or number (default: the start)",
    )
    _add_search_options(search, iterations=5000)
    search.add_argument(
        "--dot", metavar="FILE", help="write the tree (3 plies deep) as Graphviz DOT text"
    )
    search.add_argument(
        "--json", metavar="FILE", help="write the whole tree as JSON (mcts_agent.export.to_dict)"
    )
    search.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the root's visits and values, over the board where the game has one "
        "(PNG, SVG, PDF...)",
    )
    search.add_argument(
        "--trace",
        metavar="FILE",
        help="draw each root move's visits and value against the iterations (PNG...)",
    )
    search.set_defaults(subparser=search)

    multiplayer = commands.add_parser(
        "multiplayer",
        help="play a game of n players (or a cooperative one) and print every player's results",
        description="Plays --games games of a game of two or more players with any rewards "
        "(every player's reward planned: max^n), game g seating agent (k + g) mod n at seat "
        "k, and prints each agent's mean return, wins (the highest return alone) and shared "
        "wins (the highest, tied).",
    )
    multiplayer.add_argument("--game", required=True, choices=MULTIPLAYER_GAMES)
    multiplayer.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="SPEC",
        help="one agent per seat: random or mcts:name=value,... (e.g. mcts:iterations=300)",
    )
    multiplayer.add_argument(
        "--games", type=int, default=None, help="games to play (default: one per seat)"
    )
    multiplayer.add_argument(
        "--seed",
        type=int,
        default=0,
        help="agent i of game g is seeded seed + 1000 * g + i (default: 0)",
    )
    multiplayer.add_argument("--json", metavar="FILE", help="write the games and results as JSON")
    multiplayer.set_defaults(subparser=multiplayer)

    play = commands.add_parser(
        "play",
        help="play against MCTS in the terminal",
        description="Plays one game against MCTS in the terminal: enter your move (a cell "
        "number for tic-tac-toe, a column for connect four, a UCI move such as e2e4 for "
        "chess, or the env's action number), or q to quit; after each of its moves MCTS "
        "says how many visits the move got and its value.",
    )
    play.add_argument(
        "--game",
        default="tictactoe",
        metavar="GAME",
        help=f"{games}, or another PettingZoo AEC id, options after a colon as for "
        "evaluate (default: tictactoe)",
    )
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
    return parser


# --------------------------------------------------------------- evaluate


def default_opponents(solvable: bool) -> list[str]:
    """Returns ``evaluate``'s default opponents: perfect play where the game is solvable.

    Args:
        solvable: whether the game is small enough for perfect play (``game.solvable``).

    Returns:
        ``["random", "perfect"]`` (tic-tac-toe) or ``["random", "minimax"]`` (connect four).
    """
    return ["random", "perfect" if solvable else "minimax"]


def games_log_path(json_path: str | None, jsonl_path: str | None) -> str | None:
    """Returns where ``evaluate`` writes each game as it finishes.

    Args:
        json_path: the ``--json`` file, or None.
        jsonl_path: the ``--jsonl`` file, or None.

    Returns:
        ``jsonl_path`` if given; else ``json_path`` with ``.jsonl`` in place of a
        final ``.json`` (or ``.jsonl`` added); else None (a temporary file).
    """
    if jsonl_path is not None:
        return jsonl_path
    if json_path is None:
        return None
    stem, extension = os.path.splitext(json_path)
    return (stem if extension.lower() == ".json" else json_path) + ".jsonl"


def _check_output_file(
    parser: argparse.ArgumentParser, option: str, path: str, name: str | None = None
) -> None:
    """Exits with an argument error unless ``path`` can be written as a new or existing file.

    What is checked before any game: the name is not empty, is not a dangling
    symbolic link, a directory or anything but a regular file (a device such
    as /dev/full, a FIFO: the files are renamed into place), not a read-only
    file, and a file can be created in its directory (which catches a missing
    directory, /proc, a read-only file system). A disk that fills up during
    the run cannot be foreseen: the run stops then, keeping what was written.

    Args:
        parser: the parser whose ``error`` exits (status 2).
        option: the option named in the message.
        path: the file.
        name: how the message names the file (default: ``repr(path)``).
    """
    name = repr(path) if name is None else name
    if not path:
        parser.error(f"argument {option}: expected a file name, got ''")
    if os.path.islink(path) and not os.path.exists(path):
        parser.error(
            f"argument {option}: {name} is a symbolic link to {os.readlink(path)!r}, "
            "which does not exist"
        )
    target = os.path.realpath(path)
    if os.path.isdir(target):
        parser.error(f"argument {option}: {name} is a directory; give a file name")
    if os.path.exists(target):
        if not stat.S_ISREG(os.stat(target).st_mode):
            parser.error(
                f"argument {option}: {name} is not a regular file (a device, FIFO or "
                "socket); results are written to a new file renamed into place"
            )
        if not os.access(target, os.W_OK):
            parser.error(f"argument {option}: {name} is read-only")
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        parser.error(f"argument {option}: the directory {directory!r} of {name} does not exist")
    try:
        descriptor, probe = tempfile.mkstemp(dir=directory, prefix=".mcts-agent-probe-")
    except OSError as error:
        parser.error(
            f"argument {option}: cannot create files in the directory {directory!r} of "
            f"{name} ({error.strerror})"
        )
    os.close(descriptor)
    os.unlink(probe)


def _check_plot_file(parser: argparse.ArgumentParser, path: str, option: str = "--plot") -> None:
    """Exits with an argument error unless matplotlib can draw to ``path`` (by its extension)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        parser.error(f"argument {option}: needs matplotlib (pip install 'mcts-agent[plot]')")
    formats = Figure().canvas.get_supported_filetypes()
    extension = os.path.splitext(path)[1].lower().removeprefix(".")
    if extension not in formats:
        parser.error(
            f"argument {option}: matplotlib cannot write {path!r}; end the file name in one of "
            f"{', '.join('.' + name for name in sorted(formats))}"
        )


def _outputs(args: argparse.Namespace, options: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(option, path, how messages name it)`` of each of ``options`` (``--json``...) given."""
    paths = ((option, getattr(args, option.removeprefix("--"))) for option in options)
    return [(option, path, repr(path)) for option, path in paths if path is not None]


def _check_files(
    parser: argparse.ArgumentParser,
    outputs: list[tuple[str, str, str]],
    plots: Sequence[str] = ("--plot",),
) -> None:
    """Checks every output file (``plots``: also their image format), and that no two are one."""
    for option, path, name in outputs:
        _check_output_file(parser, option, path, name)
    for option, path, _ in outputs:
        if option in plots:
            _check_plot_file(parser, path, option)
    seen: dict[str, str] = {}
    for option, path, name in outputs:
        target = os.path.realpath(path)
        if target in seen:
            parser.error(
                f"argument {option}: {name} is the same file as {seen[target]}; "
                "give each output its own file"
            )
        seen[target] = f"{option} {name}"


def _check_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Checks every output file, and that no two outputs are the same file."""
    outputs = _outputs(args, ("--json", "--csv", "--plot", "--jsonl"))
    if args.jsonl is None and args.json is not None:
        log = games_log_path(args.json, None)
        outputs.append(("--json", log, f"its game log {log!r} (see --jsonl)"))
    _check_files(parser, outputs)


def _check_backend(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.address is not None and args.backend != "ray":
        parser.error("argument --address: only with --backend ray")
    if args.backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError as error:
            parser.error(
                f"argument --backend: 'ray' needs Ray: pip install 'mcts-agent[ray]' ({error})"
            )
    try:
        check_ray_address(args.address)
    except (ValueError, ConnectionError) as error:
        parser.error(f"argument --address: {error}")


def _kept(log: GameLog, total: int) -> str:
    if not log.kept:
        return f"no game of {total} had finished"
    return f"{log.kept} of {total} games kept in {log.path} (JSON Lines, one game per line)"


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"mcts-agent: warning: {message}", file=sys.stderr)


def _game(parser: argparse.ArgumentParser, name: str) -> Game:
    """The game ``--game`` names, checked (and its env made) before any worker starts."""
    try:
        game = make_game(name)
        if isinstance(game, PettingZooGame):
            game.make_env().close()
    except (ImportError, TypeError, ValueError) as error:
        parser.error(f"argument --game: {error}")
    return game


def _players(
    parser: argparse.ArgumentParser, option: str, specs: Sequence[str], game: Game
) -> dict[str, Player]:
    """``{spec: player}`` for each spec once, in order, each checked against ``game``."""
    players = {}
    for spec in dict.fromkeys(specs):
        try:
            players[spec] = make_player(spec, game)
        except (TypeError, ValueError) as error:
            parser.error(f"argument {option}: {error}")
    return players


def _run_logged(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    out: TextIO,
    total: int,
    play: Callable[[Callable], Any],
    report: Callable[[Any, float], list[tuple[str | None, Callable[[str], None]]]],
) -> int:
    """Runs ``play(on_game)`` with every game logged as it finishes; the CLI's error handling.

    ``report(result, seconds)`` prints the result and returns the
    ``(path, write)`` pairs of the final files (written if ``path`` is given).
    Returns the exit status (see :func:`main`).
    """
    log = GameLog(games_log_path(args.json, args.jsonl))
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", WorkerDiedWarning)
            warnings.showwarning = _show_warning
            result = play(log.write)
        for path, write in report(result, time.perf_counter() - start):
            if path is not None:
                try:
                    write(path)
                except OSError as error:
                    raise OSError(
                        error.errno, f"{error.strerror}; {path} is left as it was", path
                    ) from error
                print(f"wrote {path}", file=out)
    except KeyboardInterrupt:
        log.close()
        print(f"mcts-agent: interrupted; {_kept(log, total)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ConnectionError as error:
        log.close()
        if log.kept:  # a cluster lost during the run
            print(f"mcts-agent: error: {error}; {_kept(log, total)}", file=sys.stderr)
            return 1
        parser.error(f"argument --address: {error}")  # Ray found no cluster: before any game
    except (OSError, WorkerDiedError) as error:
        log.close()
        print(f"mcts-agent: error: {error}; {_kept(log, total)}", file=sys.stderr)
        return 1
    except BaseException:
        log.close()
        print(f"mcts-agent: stopped; {_kept(log, total)}", file=sys.stderr)
        raise
    log.close()
    if args.json is None and args.jsonl is None:
        if log.path is not None:
            os.unlink(log.path)  # the temporary log: the run completed and nothing asked for it
    else:
        print(f"wrote {log.path} (each game as it finished)", file=out)
    return 0


def _progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


def _evaluate(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    game = _game(parser, args.game)
    opponent_specs = [
        f"minimax:depth={args.minimax_depth}" if spec == "minimax" else spec
        for spec in args.opponent or default_opponents(game.solvable)
    ]
    # Each value once, in the order given: a repeated value would repeat its matches' rows.
    opponents = list(_players(parser, "--opponent", opponent_specs, game).values())
    _check_backend(parser, args)
    _check_outputs(parser, args)
    iterations = list(dict.fromkeys(args.iterations))
    explorations = list(dict.fromkeys(args.exploration))
    seeds = list(dict.fromkeys(args.seed))
    swept: dict[str, list[Any]] = {}
    for name, values in args.option or []:
        if name in swept:
            parser.error(f"argument --option: {name!r} given twice")
        if name in ("iterations", "exploration", "rollout_limit", "seed"):
            parser.error(f"argument --option: sweep {name} with --{name.replace('_', '-')}")
        if name == "evaluator":  # the game's evaluators by name, as in agent specs
            evaluators = dict(game.evaluators)
            for value in values:
                if isinstance(value, str) and value not in evaluators:
                    parser.error(f"argument --option: {game.name} has no evaluator {value!r}")
            values = [evaluators.get(v, v) if isinstance(v, str) else v for v in values]
        swept[name] = list({repr(v): v for v in values}.values())
    for name, value in _anytime_options(args).items():  # one value each: in the title
        if name in swept:
            parser.error(f"argument --option: {name} is set by its own flag too")
        swept[name] = [value]
    for values in itertools.product(*swept.values()):
        try:  # each combination checked before any game
            MCTSPlayer(1, **dict(zip(swept, values, strict=True))).check(
                game.model if isinstance(game, ModelGame) else None
            )
        except (TypeError, ValueError) as error:
            parser.error(f"argument --option: {error}")
    combinations = math.prod(len(v) for v in swept.values())
    total = (
        len(opponents)
        * len(iterations)
        * len(explorations)
        * len(seeds)
        * combinations
        * 2
        * args.games
    )

    def play(on_game: Callable) -> SweepResult:
        return sweep(
            game,
            opponents,
            iterations,
            explorations=explorations,
            seeds=seeds,
            games_per_seat=args.games,
            rollout_limit=args.rollout_limit,
            options=swept,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            progress=_progress(args),
            on_game=on_game,
        )

    def report(result: SweepResult, seconds: float) -> list:
        print(result.table(), file=out)
        moves = sum(m.mean_length * len(m.records) for m in result.matches)
        print(f"{total} games, {moves / total:.2f} moves per game, {seconds:.1f} s", file=out)
        return [
            (args.json, result.save_json),
            (args.csv, result.save_csv),
            (args.plot, result.plot),
        ]

    return _run_logged(args, parser, out, total, play, report)


def parse_sprt(text: str) -> tuple[float, float]:
    """Reads ``--sprt``'s ``elo0,elo1`` (two numbers, elo0 < elo1).

    Raises:
        argparse.ArgumentTypeError: if ``text`` is not two finite numbers in increasing order.
    """
    parts = text.split(",")
    try:
        elo0, elo1 = (float(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected elo0,elo1 such as 0,10; got {text!r}") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise argparse.ArgumentTypeError(
            f"expected two finite numbers elo0 < elo1 such as 0,10; got {text!r}"
        )
    return elo0, elo1


def _tournament(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    game = _game(parser, args.game)
    agents = _players(parser, "--agents", args.agents, game)
    if len(agents) < 2:
        parser.error(f"argument --agents: a tournament needs two agents or more, got {args.agents}")
    if args.sprt is not None and len(agents) != 2:
        parser.error(f"argument --sprt: a test of two agents, got {len(agents)}")
    if args.sprt is not None and args.plot is not None:
        parser.error("argument --plot: not with --sprt (the ratings plot needs a round robin)")
    games = args.games if args.games is not None else (2000 if args.sprt else 20)
    if games % 2:
        parser.error(f"argument --games: expected an even number (seats alternate), got {games}")
    anchor = args.anchor
    if anchor is not None and anchor not in agents:
        parser.error(f"argument --anchor: {anchor!r} is not one of --agents {list(agents)}")
    _check_backend(parser, args)
    _check_outputs(parser, args)
    options = {
        "seed": args.seed,
        "workers": args.workers,
        "backend": args.backend,
        "address": args.address,
        "progress": _progress(args),
    }
    if args.sprt is not None:
        try:
            test = SPRT(*args.sprt, alpha=args.alpha, beta=args.beta)
        except ValueError as error:
            parser.error(f"argument --sprt: {error}")
        (agent, agent_player), (opponent, opponent_player) = agents.items()

        def play_test(on_game: Callable) -> SPRTResult:
            return sprt_match(
                game, agent_player, opponent_player, test, games, on_game=on_game, **options
            )

        def report_test(result: SPRTResult, seconds: float) -> list:
            print(
                f"{game.name}: {agent} vs {opponent}, seats alternating, seed {args.seed}", file=out
            )
            print(result.summary(), file=out)
            print(result.match.summary().split("\n", 1)[1], file=out)
            print(f"{result.games} games, {seconds:.1f} s", file=out)
            return [(args.json, _json_writer(result.to_dict())), (args.csv, result.match.save_csv)]

        return _run_logged(args, parser, out, games, play_test, report_test)
    total = games * len(agents) * (len(agents) - 1) // 2

    def play(on_game: Callable) -> TournamentResult:
        return tournament(
            game,
            agents,
            games,
            anchor=anchor,
            prior_draws=args.prior_draws,
            on_game=on_game,
            **options,
        )

    def report(result: TournamentResult, seconds: float) -> list:
        print(result.table(), file=out)
        print(f"{total} games, {seconds:.1f} s", file=out)
        return [
            (args.json, result.save_json),
            (args.csv, result.save_csv),
            (args.plot, result.plot),
        ]

    return _run_logged(args, parser, out, total, play, report)


def _plan(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    from mcts_agent.evaluation import planning

    try:
        planning.make_env(args.env).close()
    except ValueError as error:
        parser.error(f"argument --env: {error}")
    try:
        _, extra = parse_spec("mcts:" + args.options if args.options else "mcts")
    except ValueError as error:
        parser.error(f"argument --options: {error}")
    for name in ("iterations", "time_limit", "seed"):
        if name in extra:
            parser.error(f"argument --options: give {name} with its own option")
    extra.setdefault("exploration", DEFAULT_EXPLORATION)
    if args.time_limit is not None:
        extra["time_limit"] = args.time_limit
    iterations = args.iterations or ([None] if args.time_limit is not None else [200])
    settings = [{"iterations": n, **extra} for n in dict.fromkeys(iterations)]
    try:
        planning.check_plannable(args.env, settings[0])
    except (TypeError, ValueError) as error:
        parser.error(
            f"argument --options: {error}" if "option" in str(error) else f"argument --env: {error}"
        )
    _check_backend(parser, args)
    for option, path in (("--json", args.json), ("--jsonl", args.jsonl), ("--plot", args.plot)):
        if path is not None:
            _check_output_file(parser, option, path)
    if args.plot is not None:
        _check_plot_file(parser, args.plot)
    from tqdm.auto import tqdm

    log = GameLog(args.jsonl) if args.jsonl is not None else None
    total = args.episodes * (len(settings) + 1)

    def on_episode(options: dict | None, record: planning.EpisodeRecord) -> None:
        if log is not None:
            label = planning.PlanResult(args.env, options, ()).label
            log.write_line({"env": args.env, "policy": label, **record.to_dict()})
        bar.update(1)

    start = time.perf_counter()
    results = []
    try:
        # One Ray session for every policy's episodes (each plan_episodes would start its own).
        session = ray_session(args.address) if args.backend == "ray" else contextlib.nullcontext()
        with (
            session,
            tqdm(total=total, unit="episode", disable=not _progress(args), desc="episodes") as bar,
        ):
            for options in [None, *settings]:
                results.append(
                    planning.plan_episodes(
                        args.env,
                        options,
                        args.episodes,
                        seed=args.seed,
                        workers=args.workers,
                        backend=args.backend,
                        address=args.address,
                        on_episode=functools.partial(on_episode, options),
                    )
                )
    except KeyboardInterrupt:
        kept = "" if log is None else f"; {log.kept} of {total} episodes kept in {log.path}"
        print(f"mcts-agent: interrupted{kept}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (TypeError, ValueError, OSError, ConnectionError) as error:  # e.g. chance met
        kept = "" if log is None else f"; {log.kept} of {total} episodes kept in {log.path}"
        print(f"mcts-agent: error: {args.env}: {error}{kept}", file=sys.stderr)
        return 1
    finally:
        if log is not None:
            log.close()
    print(planning.table(results), file=out)
    print(f"{time.perf_counter() - start:.1f} s", file=out)
    for path, write in ((args.json, planning.save_json), (args.plot, planning.plot)):
        if path is not None:
            write(results, path)
            print(f"wrote {path}", file=out)
    if log is not None:
        print(f"wrote {log.path} (each episode as it finished)", file=out)
    return 0


def _json_writer(data: dict) -> Callable[[str], None]:
    def write(path: str) -> None:
        with write_atomically(path) as f:
            json.dump(data, f, indent=1)

    return write


# ------------------------------------------------------------ search, play


def _planner(args: argparse.Namespace, model: Any, on_iteration: Any = None) -> MCTS:
    """The planner of ``search`` and ``play``: their budget, solver, reuse and rollout options."""
    iterations = args.iterations
    if iterations is None and args.time_limit is None:
        iterations = args.default_iterations
    return MCTS(
        model,
        iterations,
        exploration=args.exploration,
        rollout_limit=args.rollout_limit,
        seed=args.seed,
        on_iteration=on_iteration,
        **_anytime_options(args),
    )


def _budget(planner: MCTS) -> str:
    """The planner's budget in words, e.g. ``5000 iterations`` or ``0.5 s``."""
    parts = []
    if planner.iterations is not None:
        parts.append(f"{planner.iterations} iterations")
    if planner.time_limit is not None:
        parts.append(f"{planner.time_limit:g} s")
    return " or ".join(parts)


def _search_line(summary: SearchSummary) -> str:
    """What one search did: iterations, seconds, nodes, why it stopped, what it proved."""
    line = (
        f"{summary.iterations} iterations in {summary.elapsed:.3f} s, {summary.nodes} nodes, "
        f"stopped on {summary.stop_reason}"
    )
    if summary.reused_visits:
        line += f", {summary.reused_visits} visits reused"
    if summary.proven_value is not None:
        line += f"; proven value {summary.proven_value:+g}"
    return line


def format_root_statistics(state: int, summary: SearchSummary) -> str:
    """Returns a tic-tac-toe search's root statistics laid out as the board.

    Each empty cell shows the visits and the value (for the player to move) of
    its move; a move never tried shows ``-``; marked cells show their mark.

    Args:
        state: the tic-tac-toe state searched (cells row by row).
        summary: ``planner.summary()`` after the search.

    Returns:
        Three rows of cells separated by ``|``, with rule lines between them.
    """
    from mcts_agent.envs.tic_tac_toe import format_board

    marks = format_board(state)
    stats = dict(
        zip(summary.actions, zip(summary.visit_counts, summary.values, strict=True), strict=True)
    )
    cells = []
    for cell in range(9):
        if cell in stats:
            visits, value = stats[cell]
            cells.append(f"{visits} {value:+.2f}" if visits else "0 -")
        else:
            cells.append(marks[cell])
    width = max(len(c) for c in cells) + 2
    rows = ["|".join(c.center(width) for c in cells[r * 3 : r * 3 + 3]).rstrip() for r in range(3)]
    rule = "+".join(["-" * width] * 3)
    return f"\n{rule}\n".join(rows)


def format_root_table(summary: SearchSummary, label: Callable[[Any], str] = str) -> str:
    """Returns the root's moves as a table: the move played, then the most visited.

    At most :data:`ROOT_TABLE_MOVES` rows (the move played is the first, also
    when the solver chose it over more visited ones).

    Columns: the move (``label(action)``), its visits, share of the visits,
    value for the player to move (``-`` if never tried) and, with the solver,
    its proven value.

    Args:
        summary: ``planner.summary()`` after the search.
        label: ``action -> str``, the move's name.
    """
    total = sum(summary.visit_counts) or 1
    played = summary.actions.index(summary.action)
    order = sorted(
        range(len(summary.actions)), key=lambda i: (i != played, -summary.visit_counts[i])
    )
    proven = any(v is not None for v in summary.proven)
    rows = [["move", "visits", "share", "value"] + (["proven"] if proven else [])]
    for i in order[:ROOT_TABLE_MOVES]:
        n = summary.visit_counts[i]
        row = [label(summary.actions[i]), str(n), f"{n / total:.1%}"]
        row.append(f"{summary.values[i]:+.3f}" if n else "-")
        if proven:
            row.append("-" if summary.proven[i] is None else f"{summary.proven[i]:+g}")
        rows.append(row)
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.ljust(w) if k == 0 else cell.rjust(w)
            for k, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]
    if len(order) > ROOT_TABLE_MOVES:
        lines.append(f"... {len(order) - ROOT_TABLE_MOVES} less visited moves")
    return "\n".join(lines)


def _board(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Board:
    """The game's starting position, with ``--position`` played; exits on an argument error."""
    game = _game(parser, args.game)
    try:
        board = board_for(game)
    except (ValueError, TypeError, ImportError) as error:
        parser.error(f"argument --game: {error}")
    if args.position is not None:
        try:
            board.set_position(args.position)
        except ValueError as error:
            parser.error(f"argument --position: {error}")
    return board


def _check_search_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Checks ``search``'s output files before the search (see :func:`_check_output_file`)."""
    outputs = _outputs(args, ("--dot", "--json", "--plot", "--trace"))
    _check_files(parser, outputs, plots=("--plot", "--trace"))


def _write_text(path: str, text: str) -> None:
    with write_atomically(path) as f:
        f.write(text)


def tree_json(data: dict) -> str:
    """``to_dict``'s dict as JSON text with one node per line (readable and diffable)."""
    head = json.dumps({k: v for k, v in data.items() if k != "nodes"})
    nodes = ",\n".join(json.dumps(node) for node in data["nodes"])
    return head[:-1] + ', "nodes": [\n' + nodes + "\n]}\n"


def _search(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    board = _board(parser, args)
    if not board.legal:
        parser.error(
            f"argument --position: {args.position!r} is a finished game; nothing to search"
        )
    _check_search_outputs(parser, args)
    trace = RootTrace() if args.trace is not None else None
    planner = _planner(args, board.model, on_iteration=trace)
    side = board.seat(board.player())
    move = planner(board.state)
    summary = planner.summary()
    print(board.render(), file=out)
    print(
        f"{side} to move; {_budget(planner)}, c = {args.exploration:.3g}, seed {args.seed}",
        file=out,
    )
    print(f"visits and value for {side} of each move:", file=out)
    if isinstance(board, ModelBoard) and board.layout().shape == (3, 3):
        print(format_root_statistics(board.state, summary), file=out)
    else:
        print(format_root_table(summary, board.label), file=out)
    line = board.line_labels(planner.principal_variation())
    print(f"principal variation: {' '.join(line)}", file=out)
    print(_search_line(summary), file=out)
    print(f"move played: {board.label(move)}", file=out)
    try:
        if args.dot is not None:
            _write_text(args.dot, planner.to_dot())
        if args.json is not None:
            _write_text(args.json, tree_json(planner.to_dict()))
        if args.plot is not None:
            from mcts_agent.plots import plot_root

            figure = plot_root(summary, board.layout(), labels=board.label, player=side)
            save_figure(figure, args.plot)
        if args.trace is not None:
            from mcts_agent.plots import plot_convergence

            trace.finish(planner)
            save_figure(plot_convergence(trace, labels=board.label), args.trace)
    except OSError as error:
        print(f"mcts-agent: error: {error}", file=sys.stderr)
        return 1
    for path in (args.dot, args.json, args.plot, args.trace):
        if path is not None:
            print(f"wrote {path}", file=out)
    return 0


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


def _play(
    args: argparse.Namespace, parser: argparse.ArgumentParser, stdin: TextIO, out: TextIO
) -> int:
    board = _board(parser, args)
    if not board.legal:
        parser.error(f"argument --position: {args.position!r} is a finished game; nothing to play")
    seat = _human_seat(parser, board, args.human)
    human = board.players[seat]
    you, machine = board.seat_names[seat], board.seat_names[1 - seat]
    planner = _planner(args, board.model)
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
                f"{_search_line(summary)})",
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


def _multiplayer(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """``mcts-agent multiplayer``: :func:`~mcts_agent.evaluation.multiplayer.play_multiplayer`."""
    game = make_multiplayer_game(args.game)
    seats = game.seats
    if len(args.agents) != len(seats):
        parser.error(f"--agents: {args.game} has {len(seats)} seats, got {len(args.agents)} agents")
    checked_against = argparse.Namespace(  # what make_player reads of a game
        model=getattr(game, "model", None), solvable=False, evaluators=(), name=args.game
    )
    players = []
    for spec in args.agents:
        try:
            if parse_spec(spec)[0] not in ("random", "mcts"):
                raise ValueError(
                    f"agent spec {spec!r}: a game of n players takes random or mcts agents "
                    "(minimax and perfect play are two-player zero-sum)"
                )
            players.append(make_player(spec, checked_against))
        except (TypeError, ValueError) as error:
            parser.error(f"--agents: {error}")
    games = len(seats) if args.games is None else args.games
    if games < 1:
        parser.error(f"--games must be >= 1, got {games}")
    result = play_multiplayer(game, players, args.agents, games, args.seed)
    print(result.table(), file=out)
    if args.json:
        with write_atomically(args.json) as file:
            json.dump(result.to_dict(), file, indent=2)
    return 0


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None) -> int:
    """Runs the ``mcts-agent`` command line.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        stdin: where ``play`` reads the person's moves (default: ``sys.stdin``).

    Returns:
        The exit status: 0 on success; 1 if ``evaluate`` stopped on a failure
        (a full disk, dead workers), after one line saying how many games were
        kept and where; 130 (:data:`EXIT_INTERRUPTED`) after Ctrl-C, with that
        line and no traceback. Bad arguments exit with status 2 and an argparse
        error naming the valid choices.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    out = sys.stdout
    try:
        if args.command == "evaluate":
            return _evaluate(args, args.subparser, out)
        if args.command == "tournament":
            return _tournament(args, args.subparser, out)
        if args.command == "plan":
            return _plan(args, args.subparser, out)
        if args.command == "search":
            return _search(args, args.subparser, out)
        if args.command == "multiplayer":
            return _multiplayer(args, args.subparser, out)
        return _play(args, args.subparser, stdin if stdin is not None else sys.stdin, out)
    except KeyboardInterrupt:
        print("\nmcts-agent: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
