"""``mcts-agent search``: one search of a position, and why it plays its move.

Also what ``play`` shares with it: the planner's options, the planner, the position on
its board, and the line that says what one search did.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from mcts_agent.boards import Board, ChessBoard, ModelBoard, board_for, is_chess_model
from mcts_agent.cli.options import (
    CLI_ROLLOUT_ADVICE,
    _add_anytime_options,
    _add_game_option,
    _add_settings_option,
    _anytime_options,
    _check_files,
    _check_planner_options,
    _game,
    _outputs,
    _planner_options,
    int_at_least,
    parse_exploration,
)
from mcts_agent.defaults import (
    CHESS_EXPLORATION,
    GO_EXPLORATION,
    chess_defaults,
    go_defaults,
    warn_random_rollouts,
)
from mcts_agent.envs.go import GoModel
from mcts_agent.evaluation import DEFAULT_EXPLORATION, Game, write_atomically
from mcts_agent.evaluation.results import save_figure
from mcts_agent.search import MCTS, SearchSummary
from mcts_agent.summary import format_summary
from mcts_agent.trace import RootTrace

_OWN_FLAGS = (
    "iterations",
    "time_limit",
    "solve",
    "value_bounds",
    "reuse_tree",
    "exploration",
    "rollout_limit",
    "seed",
    "on_iteration",
)
"""The MCTS options ``search`` and ``play`` set themselves, refused in ``--options``."""

BOARD_GAMES = (
    "tictactoe",
    "connect_four",
    "classic/tictactoe-v3",
    "classic/connect_four-v3",
    "classic/chess-v6",
    "classic/go_v5:board_size=9,komi=7.5",
)
"""The games ``search`` and ``play`` name in their help (they take any PettingZoo AEC id)."""


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
        default=None,
        help="c of UCB1: a number or e.g. 2*sqrt(2) (default: 2*sqrt(2); go: "
        f"{GO_EXPLORATION:g}, with GRAVE as MCTSAgent plays go; chess: "
        f"{CHESS_EXPLORATION:g}, PUCT's c with ChessEvaluator as MCTSAgent plays chess)",
    )
    parser.add_argument(
        "--rollout-limit",
        type=int_at_least(0),
        default=1000,
        help="most moves per rollout; 0 for none (chess is searched with ChessEvaluator, "
        "no rollouts, unless --options names a selection or an evaluator; with "
        "evaluator=None try 10) (default: 1000)",
    )
    parser.add_argument(
        "--seed", type=int_at_least(0), default=0, help="seed of the rollouts (default: 0)"
    )
    _add_settings_option(
        parser,
        "any other MCTS option, e.g. --options evaluator=heuristic,selection=puct (connect "
        "four's evaluator by name) or --options gamma=0.99",
    )


def _add_fen_option(parser: argparse.ArgumentParser) -> None:
    """``--fen``: the chess position to start from (``--position``'s moves played after it)."""
    parser.add_argument(
        "--fen",
        default=None,
        metavar="FEN",
        help="chess only: the position to start from, in Forsyth-Edwards Notation (quoted); "
        "--position's moves are played after it (default: the start)",
    )


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``search`` to the ``mcts-agent`` commands."""
    search = commands.add_parser(
        "search",
        help="search one position and show why it plays its move",
        description="Runs one search and shows each move's visits and value (for the "
        "player to move), laid out on the board for tic-tac-toe, the principal variation "
        "(the line the search expects) and the move played; optionally writes the tree "
        "(--dot, --json) and plots (--plot, --trace). Every output file is checked before "
        "the search and written atomically.",
    )
    _add_game_option(search, ", ".join(BOARD_GAMES))
    search.add_argument(
        "--position",
        "--board",
        dest="position",
        default=None,
        help="tictactoe, connect_four: a board, row by row, X, O or '.' (9 or 42 cells, "
        "e.g. 'XX.OO....'), or the moves from the start ('4 0 8'); PettingZoo games: the "
        "moves from reset(seed=0), by name (chess: UCI or SAN, e2e4 or e4, after --fen if "
        "given) or number (default: the start)",
    )
    _add_fen_option(search)
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


def _planner(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    game: Game,
    model: Any,
    on_iteration: Any = None,
) -> MCTS:
    """The planner of ``search`` and ``play``: their budget, solver, reuse and rollout options.

    And ``--options``' settings (the game's evaluators by name); exits with an argument
    error naming the option the planner refused.
    """
    iterations = args.iterations
    if iterations is None and args.time_limit is None:
        iterations = args.default_iterations
    options = _planner_options(parser, args, game, _OWN_FLAGS)
    # Go and chess are searched as MCTSAgent searches them (GRAVE, mcts_agent.defaults.
    # go_defaults; PUCT with ChessEvaluator, chess_defaults), unless the options ask for
    # another search; --exploration, when given, wins.
    defaults = {}
    if isinstance(model, GoModel):
        defaults = go_defaults({**options, **_anytime_options(args)})
    elif is_chess_model(model):
        defaults = chess_defaults(options)
    exploration = args.exploration
    if exploration is None:
        exploration = defaults.pop("exploration", DEFAULT_EXPLORATION)
    defaults.pop("exploration", None)
    options = {**defaults, **options}
    if is_chess_model(model):
        warn_random_rollouts("chess", options, advice=CLI_ROLLOUT_ADVICE)
    _check_planner_options(parser, options, model)
    try:  # an option the model refuses (e.g. --solve on a hidden-information game)
        return MCTS(
            model,
            iterations,
            exploration=exploration,
            rollout_limit=args.rollout_limit,
            seed=args.seed,
            on_iteration=on_iteration,
            **_anytime_options(args),
            **options,
        )
    except ValueError as error:
        parser.error(str(error))


def _budget(planner: MCTS) -> str:
    """The planner's budget in words, e.g. ``5000 iterations`` or ``0.5 s``."""
    parts = []
    if planner.iterations is not None:
        parts.append(f"{planner.iterations} iterations")
    if planner.time_limit is not None:
        parts.append(f"{planner.time_limit:g} s")
    return " or ".join(parts)


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


def _board(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[Game, Board]:
    """The game and its position, ``--fen`` set and ``--position`` played; exits on an error."""
    game = _game(parser, args.game)
    try:
        board = board_for(game)
    except (ValueError, TypeError, ImportError) as error:
        parser.error(f"argument --game: {error}")
    if args.fen is not None:
        if not isinstance(board, ChessBoard):
            parser.error(
                f"argument --fen: a FEN is a chess position (classic/chess-v6); {game.name} "
                "starts from --position"
            )
        try:
            board.set_fen(args.fen)
        except ValueError as error:
            parser.error(f"argument --fen: {error}")
    if args.position is not None:
        try:
            board.set_position(args.position)
        except ValueError as error:
            parser.error(f"argument --position: {error}")
    return game, board


def _finished(
    parser: argparse.ArgumentParser, args: argparse.Namespace, board: Board, what: str
) -> None:
    """Exits with an argument error: the starting position is a finished game (and why)."""
    option, value = (
        ("--position", args.position) if args.position is not None else ("--fen", args.fen)
    )
    ending = board.ending()
    why = f" ({ending})" if ending else ""
    parser.error(f"argument {option}: {value!r} is a finished game{why}; nothing to {what}")


def _check_search_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Checks ``search``'s output files before the search (see :func:`_check_files`)."""
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


def run(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """Runs ``mcts-agent search`` with its parsed ``args``; returns the exit status."""
    game, board = _board(parser, args)
    if not board.legal:
        _finished(parser, args, board, "search")
    _check_search_outputs(parser, args)
    trace = RootTrace() if args.trace is not None else None
    planner = _planner(parser, args, game, board.model, on_iteration=trace)
    side = board.seat(board.player())
    move = planner(board.state)
    summary = planner.summary()
    print(board.render(), file=out)
    print(
        f"{side} to move; {_budget(planner)}, c = {planner.exploration:.3g}, seed {args.seed}",
        file=out,
    )
    grid = isinstance(board, ModelBoard) and board.layout().shape == (3, 3)
    text = format_summary(
        summary,
        board.label,
        player=side,
        line=board.line_labels(summary.principal_variation),
        table=format_root_statistics(board.state, summary) if grid else None,
    )
    print(text, file=out)
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
