"""The ``mcts-agent`` commands' shared options: argument types, argument groups, checks.

Argument types that exit with an argparse error naming what came; the groups of options
several commands take (``--game``, the anytime budget, ``--options``, the run's backend and
files); and the checks made before any game: the game, the agents, the backend and every
output file.

Every command that plans takes the MCTS options it has no flag for as ``--options
NAME=VALUE,...`` (repeatable; :func:`mcts_agent.evaluation.parse_settings`), or ``--option``,
the same option spelled singular (issue 34: ``--option evaluator=heuristic``).
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
    parse_settings,
    parse_spec,
)
from mcts_agent.evaluation.specs import format_options
from mcts_agent.evaluation.user_modules import UserCodeError

OPPONENTS = AGENT_KINDS
"""The kinds of agent ``--opponent`` and ``--agents`` accept (specs such as ``minimax:depth=2``)."""

CLI_ROLLOUT_ADVICE = (
    "Leave out --option selection=... and --option evaluator=... for the chess defaults "
    "(PUCT with the chess evaluator), or give --option evaluator=heuristic"
)
"""What the CLI advises when chess is searched with random rollouts (its own options)."""

MAX_GAMES = 100_000
"""The most games per seat and match ``evaluate --games`` accepts (every game is held in memory)."""

_KEYWORD = re.compile(r"^\s*[A-Za-z_]\w*\s*=")

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


def _add_time_limit(parser: argparse.ArgumentParser) -> None:
    """``--time-limit``: seconds per move, with or in place of ``--iterations``."""
    parser.add_argument(
        "--time-limit",
        type=number_in(1e-9),
        metavar="SECONDS",
        help="seconds per move; with --iterations, whichever comes first",
    )


def _add_anytime_options(parser: argparse.ArgumentParser, reuse_note: str) -> None:
    """``--time-limit``, ``--solve`` and ``--reuse-tree``: MCTS's budget, solver and reuse."""
    _add_time_limit(parser)
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


def _settings(text: str) -> dict[str, list[Any]]:
    """``--options``' type: :func:`~mcts_agent.evaluation.parse_settings` as an argparse error."""
    try:
        return parse_settings(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def keyword_arguments(text: str) -> dict[str, Any]:
    """``--env-kwargs``' type: ``name=value,...``, one value each, read as ``--options``' values.

    Values are Python literals or words (:func:`~mcts_agent.evaluation.parse_settings`):
    ``size=4,is_slippery=False,render_mode=ansi,map_name='8x8',shape=(3, 4)`` gives
    ``{"size": 4, "is_slippery": False, "render_mode": "ansi", "map_name": "8x8",
    "shape": (3, 4)}`` (a word is a Python name; other text is quoted).

    Raises:
        argparse.ArgumentTypeError: saying that ``name=value`` was expected, if an item
            is not ``name=value`` (a Python name), a value is malformed, a name comes
            twice or has several values.
    """
    example = "such as size=4,is_slippery=False"
    if not _KEYWORD.match(text):
        raise argparse.ArgumentTypeError(f"expected name=value,... {example}; got {text!r}")
    try:
        settings = parse_settings(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(
            f"expected name=value,... {example}; got {text!r} ({error})"
        ) from None
    for name, values in settings.items():
        if len(values) > 1:
            raise argparse.ArgumentTypeError(
                f"expected name=value,... {example}, one value each (a tuple in brackets); "
                f"got {name}={','.join(map(repr, values))} in {text!r}"
            )
    return {name: values[0] for name, values in settings.items()}


def _add_settings_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--options NAME=VALUE,...`` (repeatable), also spelled ``--option``: the same list."""
    parser.add_argument(
        "--options",
        "--option",
        dest="options",
        action="append",
        type=_settings,
        default=None,
        metavar="NAME=VALUE,...",
        help=f"{help} (repeatable; --option is the same; values are Python literals or words)",
    )


def _option_settings(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    own_flags: Sequence[str] = (),
    sweep: bool = False,
) -> dict[str, list[Any]]:
    """Every ``--options`` setting, ``{name: [value, ...]}``; exits with an argument error.

    Args:
        parser: the command's parser (its ``error`` exits with status 2).
        args: the parsed arguments.
        own_flags: the options the command sets with flags of their own (``"iterations"``
            for ``--iterations``...), refused here.
        sweep: whether an option may take several values (``evaluate``); else one each.

    Returns:
        The settings in the order given, each value once.
    """
    settings: dict[str, list[Any]] = {}
    for given in args.options or []:
        for name, values in given.items():
            if name in settings:
                parser.error(f"argument --options: {name!r} given twice")
            if name in own_flags:
                parser.error(
                    f"argument --options: give {name} with its own option "
                    f"--{name.replace('_', '-')}"
                )
            if len(values) > 1 and not sweep:
                parser.error(
                    f"argument --options: {name} takes one value here (evaluate sweeps "
                    f"several), got {', '.join(map(repr, values))}"
                )
            settings[name] = list({repr(v): v for v in values}.values())
    return settings


def _named_evaluators(parser: argparse.ArgumentParser, game: Game, values: list[Any]) -> list[Any]:
    """``--options evaluator=``'s values with the evaluators they name.

    A name of the game's own evaluators, or a checkpoint of ``mcts-agent train`` (a path
    ending in ``.pt``: :func:`mcts_agent.evaluation.specs.game_evaluator`, which loads it).
    """
    from mcts_agent.evaluation.specs import game_evaluator

    named = []
    for value in values:
        if isinstance(value, str):
            try:
                value = game_evaluator(game, value)
            except (ValueError, FileNotFoundError, ImportError) as error:
                parser.error(f"argument --options: {error}")
        named.append(value)
    return named


def _planner_options(
    parser: argparse.ArgumentParser, args: argparse.Namespace, game: Game, own_flags: Sequence[str]
) -> dict[str, Any]:
    """``--options``' settings, one value each, the game's evaluators named there replaced.

    For the commands that make one planner (``search``, ``play``, ``uci``); exits with an
    argument error as :func:`_option_settings` and :func:`_named_evaluators` do.
    """
    settings = _option_settings(parser, args, own_flags)
    if "evaluator" in settings:
        settings["evaluator"] = _named_evaluators(parser, game, settings["evaluator"])
    return {name: values[0] for name, values in settings.items()}


def _check_planner_options(
    parser: argparse.ArgumentParser, options: dict[str, Any], model: Any
) -> None:
    """Exits with an argument error if MCTS refuses ``options`` on ``model``.

    With evaluate's and the agent specs' messages (``unknown MCTS option 'gama'; valid:
    ...``): the check is :meth:`~mcts_agent.evaluation.MCTSPlayer.check`'s.
    """
    from mcts_agent.evaluation import MCTSPlayer

    try:
        MCTSPlayer(1, **options).check(model)
    except (TypeError, ValueError) as error:
        parser.error(f"argument --options: {error}")


def _with_settings(
    parser: argparse.ArgumentParser, specs: Sequence[str], settings: dict[str, list[Any]]
) -> list[str]:
    """``specs`` with ``--options``' settings added to every ``mcts`` spec (one value each)."""
    if not settings:
        return list(specs)
    merged = []
    for spec in specs:
        try:
            kind, options = parse_spec(spec)
        except ValueError as error:
            parser.error(f"argument --agents: {error}")
        if kind == "mcts":
            both = sorted(set(options) & set(settings))
            if both:
                parser.error(
                    f"argument --options: agent spec {spec!r} sets {', '.join(both)} too; "
                    "give it in one place"
                )
            added = tuple((name, values[0]) for name, values in settings.items())
            spec = "mcts" + format_options((*options.items(), *added))
        merged.append(spec)
    if merged == list(specs):
        parser.error("argument --options: no mcts agent to give them to")
    return merged


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
    help += (
        "; or MODULE:FACTORY[:NAME=VALUE,...], a function of your module that returns a "
        "PettingZoo AEC env, called with the options (e.g. my_games:env:size=4)"
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
    _add_pgn_option(parser, "each game as it finishes")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (shown on a terminal)"
    )


def _add_pgn_option(parser: argparse.ArgumentParser, which: str) -> None:
    """``--pgn FILE``: chess games written as PGN (``which``: when, in the help)."""
    parser.add_argument(
        "--pgn",
        metavar="FILE",
        help=f"chess (classic/chess-v6) only: write {which} to FILE as PGN, moves in SAN, "
        "White and Black the players' labels",
    )


def _check_pgn(parser: argparse.ArgumentParser, game: Game) -> None:
    """Exits with an argument error if ``--pgn`` is given for a game that is not chess."""
    from mcts_agent.boards import is_chess_model

    if not (isinstance(game, PettingZooGame) and is_chess_model(game.model)):
        parser.error(
            f"argument --pgn: PGN records chess games (classic/chess-v6); {game.name} is not "
            "chess (its games are in --jsonl and --json)"
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


def _check_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace, game: Game) -> None:
    """Checks every output file, that no two are the same file, and ``--pgn``'s game."""
    if args.pgn is not None:
        _check_pgn(parser, game)
    outputs = _outputs(args, ("--json", "--csv", "--plot", "--jsonl", "--pgn"))
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
    """The game ``--game`` names, checked (and its env made) before any worker starts.

    :func:`make_game`'s (a ``module:attr`` spec is a user's factory of PettingZoo
    AEC envs: :class:`~mcts_agent.evaluation.FactoryGame`).
    """
    try:
        game = make_game(name)
        if isinstance(game, PettingZooGame):
            game.make_env().close()
    except UserCodeError as error:  # a bug in the user's code, not a bad --game
        parser.error(str(error))
    except (ImportError, TypeError, ValueError) as error:
        parser.error(f"argument --game: {error}")
    return game


def _players(
    parser: argparse.ArgumentParser, option: str, specs: Sequence[str], game: Game
) -> dict[str, Player]:
    """``{spec: player}`` for each spec once, in order, each checked against ``game``.

    By :func:`make_player`, which refuses minimax on a game not planned as
    two-player zero-sum (:func:`~mcts_agent.evaluation.require_zero_sum`).
    """
    players = {}
    for spec in dict.fromkeys(specs):
        try:
            players[spec] = make_player(spec, game)
        # FileNotFoundError: a GTP engine, or a checkpoint (mcts:evaluator=net.pt), not found
        except (TypeError, ValueError, FileNotFoundError) as error:
            parser.error(f"argument {option}: {error}")
    return players


def _progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()
