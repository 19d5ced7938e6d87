"""The ``mcts-agent`` commands' shared options: argument types, argument groups, checks.

Argument types that exit with an argparse error naming what came; the groups of options
several commands take (``--game``, the anytime budget, the run's backend and files); and the
checks made before any game: the game, the agents, the backend and every output file.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

from mcts_agent.evaluation import (
    AGENT_KINDS,
    BACKENDS,
    GAME_NAMES,
    Game,
    PettingZooGame,
    Player,
    check_ray_address,
    make_game,
    make_player,
)

OPPONENTS = AGENT_KINDS
"""The kinds of agent ``--opponent`` and ``--agents`` accept (specs such as ``minimax:depth=2``)."""

MAX_GAMES = 100_000
"""The most games per seat and match ``evaluate --games`` accepts (every game is held in memory)."""

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


def _add_game_option(parser: argparse.ArgumentParser, names: str | None = None) -> None:
    """``--game``, tic-tac-toe by default; ``names``: the games its help names first.

    Without ``names``: :data:`~mcts_agent.evaluation.GAME_NAMES` or any PettingZoo id
    with its options (``evaluate``, ``tournament``).
    """
    help = (
        f"{names}, or another PettingZoo AEC id, options after a colon as for evaluate"
        if names is not None
        else f"{', '.join(GAME_NAMES)}, or any PettingZoo AEC env id with its options, "
        "e.g. classic/chess-v6 or classic/go-v5:board_size=9"
    )
    parser.add_argument(
        "--game", default="tictactoe", metavar="GAME", help=f"{help} (default: tictactoe)"
    )


def _add_backend_options(
    parser: argparse.ArgumentParser, backend_help: str, address_help: str
) -> None:
    """``--workers``, ``--backend`` and ``--address``: where the games (or episodes) run."""
    parser.add_argument(
        "--workers", type=int_at_least(1), default=None, help="local processes (default: cores)"
    )
    parser.add_argument("--backend", choices=BACKENDS, default="process", help=backend_help)
    parser.add_argument("--address", default=None, help=address_help)


def _add_run_options(parser: argparse.ArgumentParser, plot_help: str) -> None:
    """The options of every command that plays games: backends, output files, progress."""
    _add_backend_options(
        parser,
        "local processes, or a Ray cluster (pip install 'mcts-agent[ray]') (default: process)",
        "Ray cluster address with --backend ray: host:port, ray://host:port or auto "
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


def _progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()
