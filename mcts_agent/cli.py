"""The ``mcts-agent`` command line: evaluate, search, play.

::

    mcts-agent evaluate --game classic/tictactoe-v3 --opponent random perfect
        --iterations 10 100 1000 --games 100 --seed 0 [--json F] [--csv F] [--plot F.png]
    mcts-agent search --game tictactoe --board "XX.OO...." --iterations 5000
    mcts-agent play --game tictactoe --iterations 2000 --human X

``evaluate`` runs :func:`mcts_agent.evaluation.sweep` and prints the agent's
wins / draws / losses per opponent, setting and seat; ``search`` shows the
root's statistics of one search laid out on the board; ``play`` lets a person
play against the planner in the terminal.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from mcts_agent.evaluation import (
    BACKENDS,
    DEFAULT_EXPLORATION,
    GAME_NAMES,
    MinimaxPlayer,
    PerfectPlayer,
    PettingZooGame,
    RandomPlayer,
    check_ray_address,
    make_game,
    sweep,
)
from mcts_agent.search import MCTS, SearchSummary

__all__ = ["OPPONENTS", "build_parser", "format_root_statistics", "main", "parse_exploration"]

OPPONENTS = ("random", "perfect", "minimax")
"""The opponents ``evaluate --opponent`` accepts."""

BOARD_GAMES = ("tictactoe",)
"""The games ``search`` and ``play`` accept."""

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


def int_at_least(minimum: int) -> Callable[[str], int]:
    """Returns an argparse ``type`` that reads an int >= ``minimum``.

    Raises:
        argparse.ArgumentTypeError: (from the returned parser) naming what came.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected an int >= {minimum}, got {text!r}"
            ) from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an int >= {minimum}, got {value}")
        return value

    parse.__name__ = f"int >= {minimum}"
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
        default=iterations,
        help=f"iterations per move (default: {iterations})",
    )
    parser.add_argument(
        "--exploration",
        type=parse_exploration,
        default=DEFAULT_EXPLORATION,
        help="c of UCB1: a number or e.g. 2*sqrt(2) (default: 2*sqrt(2))",
    )
    parser.add_argument(
        "--seed", type=int_at_least(0), default=0, help="seed of the rollouts (default: 0)"
    )


def build_parser() -> argparse.ArgumentParser:
    """Returns the ``mcts-agent`` argument parser (subcommands evaluate, search, play)."""
    parser = argparse.ArgumentParser(
        prog="mcts-agent", description="UCT Monte Carlo Tree Search: evaluate, search, play."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    evaluate = commands.add_parser(
        "evaluate",
        help="play MCTS against opponents and print a wins/draws/losses table",
        description="Plays MCTS at each iteration count (and exploration constant and seed) "
        "against each opponent, --games games in each seat, and prints the wins / draws / "
        "losses of MCTS. A value given twice counts once.",
    )
    evaluate.set_defaults(subparser=evaluate)
    evaluate.add_argument(
        "--game",
        choices=GAME_NAMES,
        default="tictactoe",
        help="our models or PettingZoo envs (default: tictactoe)",
    )
    evaluate.add_argument(
        "--opponent",
        nargs="+",
        choices=OPPONENTS,
        default=["random", "perfect"],
        help="opponents (default: random perfect); perfect only for tic-tac-toe",
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
        type=int_at_least(1),
        default=100,
        help="games as each seat (X and O) in each match (default: 100)",
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
    evaluate.add_argument(
        "--workers", type=int_at_least(1), default=None, help="local processes (default: cores)"
    )
    evaluate.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help="local processes, or a Ray cluster (pip install 'mcts-agent[ray]') (default: process)",
    )
    evaluate.add_argument(
        "--address",
        default=None,
        help="Ray cluster address with --backend ray: host:port, ray://host:port or auto "
        "(default: a new local Ray instance)",
    )
    evaluate.add_argument("--json", metavar="FILE", help="write every game to FILE as JSON")
    evaluate.add_argument("--csv", metavar="FILE", help="write the table's rows to FILE as CSV")
    evaluate.add_argument(
        "--plot", metavar="FILE", help="draw win and loss rates against iterations (PNG...)"
    )
    evaluate.add_argument(
        "--no-progress", action="store_true", help="no progress bar (shown on a terminal)"
    )

    search = commands.add_parser(
        "search",
        help="search one position and show the root's statistics on the board",
        description="Runs one search and shows each move's visits and value (for the "
        "player to move) laid out on the board, and the move played.",
    )
    search.add_argument(
        "--game", choices=BOARD_GAMES, default="tictactoe", help="the game (default: tictactoe)"
    )
    search.add_argument(
        "--board",
        default=".........",
        help="9 cells row by row, X, O or '.', e.g. 'XX.OO....' (default: empty)",
    )
    _add_search_options(search, iterations=5000)
    search.set_defaults(subparser=search)

    play = commands.add_parser(
        "play",
        help="play against MCTS in the terminal",
        description="Plays one game against MCTS in the terminal: enter a cell number 0-8 "
        "(row by row) for your move, or q to quit; after each of its moves MCTS says how many "
        "visits the move got and its value.",
    )
    play.add_argument(
        "--game", choices=BOARD_GAMES, default="tictactoe", help="the game (default: tictactoe)"
    )
    play.add_argument(
        "--human",
        choices=("X", "O"),
        default="X",
        help="your side; X moves first (default: X)",
    )
    _add_search_options(play, iterations=2000)
    play.set_defaults(subparser=play)
    return parser


# --------------------------------------------------------------- evaluate


def _opponent(name: str, depth: int):
    if name == "random":
        return RandomPlayer()
    if name == "perfect":
        return PerfectPlayer()
    return MinimaxPlayer(depth=depth)


def _check_output_file(parser: argparse.ArgumentParser, option: str, path: str) -> None:
    """Exits with an argument error unless ``path`` can be written as a new or existing file."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        parser.error(f"argument {option}: {path!r} is a directory; give a file name")
    if not os.path.isdir(directory):
        parser.error(f"argument {option}: the directory {directory!r} of {path!r} does not exist")
    if not os.access(directory, os.W_OK):
        parser.error(f"argument {option}: the directory {directory!r} is not writable")


def _check_plot_file(parser: argparse.ArgumentParser, path: str) -> None:
    """Exits with an argument error unless matplotlib can draw to ``path`` (by its extension)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        parser.error("argument --plot: needs matplotlib (pip install 'mcts-agent[plot]')")
    formats = Figure().canvas.get_supported_filetypes()
    extension = os.path.splitext(path)[1].lower().removeprefix(".")
    if extension not in formats:
        parser.error(
            f"argument --plot: matplotlib cannot write {path!r}; end the file name in one of "
            f"{', '.join('.' + name for name in sorted(formats))}"
        )
    _check_output_file(parser, "--plot", path)


def _evaluate(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    game = make_game(args.game)
    if isinstance(game, PettingZooGame):
        try:  # here, before any worker starts
            game.make_env().close()
        except ImportError as error:
            parser.error(f"argument --game: {error}")
    if "perfect" in args.opponent and not game.solvable:
        parser.error(
            f"argument --opponent: 'perfect' needs a game small enough to solve outright; "
            f"{args.game} is not (choose from 'random', 'minimax')"
        )
    if args.address is not None and args.backend != "ray":
        parser.error("argument --address: only with --backend ray")
    try:
        check_ray_address(args.address)
    except ConnectionError as error:
        parser.error(f"argument --address: {error}")
    for option, path in (("--json", args.json), ("--csv", args.csv)):
        if path:
            _check_output_file(parser, option, path)
    if args.plot:
        _check_plot_file(parser, args.plot)
    # Each value once, in the order given: a repeated value would repeat its matches' rows.
    opponents = [_opponent(name, args.minimax_depth) for name in dict.fromkeys(args.opponent)]
    start = time.perf_counter()
    result = sweep(
        game,
        opponents,
        list(dict.fromkeys(args.iterations)),
        explorations=list(dict.fromkeys(args.exploration)),
        seeds=list(dict.fromkeys(args.seed)),
        games_per_seat=args.games,
        rollout_limit=args.rollout_limit,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        progress=not args.no_progress and sys.stderr.isatty(),
    )
    seconds = time.perf_counter() - start
    print(result.table(), file=out)
    games = sum(len(m.records) for m in result.matches)
    moves = sum(m.mean_length * len(m.records) for m in result.matches)
    print(f"{games} games, {moves / games:.2f} moves per game, {seconds:.1f} s", file=out)
    if args.json:
        result.save_json(args.json)
        print(f"wrote {args.json}", file=out)
    if args.csv:
        result.save_csv(args.csv)
        print(f"wrote {args.csv}", file=out)
    if args.plot:
        result.plot(args.plot)
        print(f"wrote {args.plot}", file=out)
    return 0


# ------------------------------------------------------------ search, play


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


def _search(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    from mcts_agent.envs.tic_tac_toe import TicTacToeModel, parse_board, render_board

    try:
        state = parse_board(args.board)
    except ValueError as error:
        parser.error(f"argument --board: {error}")
    model = TicTacToeModel()
    if not model.actions(state):
        parser.error(f"argument --board: {args.board!r} is a finished game; nothing to search")
    side = "X" if model.player(state) == 1 else "O"
    planner = MCTS(model, args.iterations, exploration=args.exploration, seed=args.seed)
    move = planner(state)
    print(render_board(state), file=out)
    print(
        f"{side} to move; {args.iterations} iterations, c = {args.exploration:.3g}, "
        f"seed {args.seed}",
        file=out,
    )
    print(f"visits and value for {side} of each move:", file=out)
    print(format_root_statistics(state, planner.summary()), file=out)
    print(f"move played: {move}", file=out)
    return 0


def _numbered_board(state: int) -> str:
    from mcts_agent.envs.tic_tac_toe import format_board

    marks = format_board(state)
    cells = [str(i) if mark == "." else mark for i, mark in enumerate(marks)]
    return "\n---+---+---\n".join(" " + " | ".join(cells[r * 3 : r * 3 + 3]) for r in range(3))


def _play(args: argparse.Namespace, stdin: TextIO, out: TextIO) -> int:
    from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel

    model = TicTacToeModel()
    human = 1 if args.human == "X" else 2
    planner = MCTS(model, args.iterations, exploration=args.exploration, seed=args.seed)
    machine = "O" if human == 1 else "X"
    print(
        f"You play {args.human}, MCTS plays {machine} ({args.iterations} iterations per move). "
        "Enter a cell number 0-8 (row by row), or q to quit.",
        file=out,
    )
    state = EMPTY_BOARD
    winner = None
    while model.actions(state):
        legal = model.actions(state)
        mover = model.player(state)
        if mover == human:
            print(_numbered_board(state), file=out)
            while True:
                print("your move: ", end="", file=out, flush=True)
                line = stdin.readline()
                if not line or line.strip().lower() in ("q", "quit"):
                    print("\ngame abandoned", file=out)
                    return 0
                text = line.strip()
                if text.isdigit() and int(text) in legal:
                    action = int(text)
                    break
                print(f"{text!r} is not a free cell; choose one of {list(legal)}", file=out)
        else:
            action = planner(state)
            summary = planner.summary()
            index = summary.actions.index(action)
            print(
                f"MCTS plays {action} ({summary.visit_counts[index]} of {args.iterations} "
                f"visits, value {summary.values[index]:+.2f})",
                file=out,
            )
        state, reward, _ = model.step(state, action)
        if reward > 0:
            winner = mover
    print(_numbered_board(state), file=out)
    if winner is None:
        print("draw", file=out)
    else:
        print("you win" if winner == human else f"MCTS ({machine}) wins", file=out)
    return 0


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None) -> int:
    """Runs the ``mcts-agent`` command line.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        stdin: where ``play`` reads the person's moves (default: ``sys.stdin``).

    Returns:
        The exit status (0 on success). Bad arguments exit with status 2 and an
        argparse error naming the valid choices.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    out = sys.stdout
    if args.command == "evaluate":
        return _evaluate(args, args.subparser, out)
    if args.command == "search":
        return _search(args, args.subparser, out)
    return _play(args, stdin if stdin is not None else sys.stdin, out)


if __name__ == "__main__":
    sys.exit(main())
