"""``mcts-agent evaluate``: MCTS against opponents (:func:`mcts_agent.evaluation.sweep`)."""

from __future__ import annotations

import argparse
import itertools
import math
from collections.abc import Callable
from typing import TextIO

from mcts_agent.cli.options import (
    MAX_GAMES,
    _add_anytime_options,
    _add_game_option,
    _add_run_options,
    _add_settings_option,
    _anytime_options,
    _check_backend,
    _check_outputs,
    _game,
    _named_evaluators,
    _option_settings,
    _players,
    _progress,
    int_at_least,
    parse_exploration,
)
from mcts_agent.cli.runs import _result_files, _run_logged
from mcts_agent.evaluation import (
    MCTSPlayer,
    ModelGame,
    SweepResult,
    default_exploration,
    sweep,
)
from mcts_agent.summary import format_seconds


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``evaluate`` to the ``mcts-agent`` commands."""
    evaluate = commands.add_parser(
        "evaluate",
        help="play MCTS against opponents: a wins/draws/losses table",
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
        "mcts:iterations=50..., or one of RLCard's agents in PettingZoo's card games: "
        "rlcard:leduc-holdem-cfr, rlcard:leduc-holdem-rule-v1 for classic/leduc_holdem-v4, "
        "rlcard:limit-holdem-rule-v1 for classic/texas_holdem-v4; card games add MCTS's "
        "payoff per hand with its 95%% interval; or a GTP engine in classic/go_v5, "
        "'gtp:gnugo --mode gtp --level 1', quoted); perfect only for tic-tac-toe; minimax "
        "alone searches --minimax-depth plies, on two-player zero-sum games (default: "
        "random perfect for tic-tac-toe, random minimax otherwise, random alone for a game "
        "not known to be zero-sum, such as your own)",
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
        default=None,
        help="c values of UCB1, e.g. sqrt(2) 2*sqrt(2) (default: MCTSAgent's for the game: "
        "chess 1.2, go 0, Leduc 2; otherwise 2*sqrt(2))",
    )
    _add_settings_option(
        evaluate,
        "any other MCTS option; several values sweep it, one match each, e.g. "
        "--options gamma=0.9,1.0,selection=uct,puct or --options evaluator=None,heuristic",
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


def default_opponents(
    solvable: bool, zero_sum: bool = True, hidden_information: bool = False
) -> list[str]:
    """Returns ``evaluate``'s default opponents: perfect play where the game is solvable.

    Args:
        solvable: whether the game is small enough for perfect play (``game.solvable``).
        zero_sum: whether its players plan it as two-player zero-sum, as minimax
            needs (False: a user's PettingZoo game, planned with every agent's reward).
        hidden_information: whether it hides cards or moves (minimax would see them).

    Returns:
        ``["random", "perfect"]`` (tic-tac-toe), ``["random", "minimax"]`` (connect
        four) or ``["random"]`` (a game not planned as zero-sum, or one with
        hidden information: Leduc's RLCard opponents are named with ``--opponent``).
    """
    if not zero_sum or hidden_information:
        return ["random"]
    return ["random", "perfect" if solvable else "minimax"]


def run(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """Runs ``mcts-agent evaluate`` with its parsed ``args``; returns the exit status."""
    game = _game(parser, args.game)
    opponent_specs = [
        f"minimax:depth={args.minimax_depth}" if spec == "minimax" else spec
        for spec in args.opponent
        or default_opponents(game.solvable, game.zero_sum, game.hidden_information)
    ]
    # Each value once, in the order given: a repeated value would repeat its matches' rows.
    opponents = list(_players(parser, "--opponent", opponent_specs, game).values())
    _check_backend(parser, args)
    _check_outputs(parser, args, game)
    iterations = list(dict.fromkeys(args.iterations))
    explorations = list(dict.fromkeys(args.exploration or [default_exploration(game)]))
    seeds = list(dict.fromkeys(args.seed))
    swept = _option_settings(
        parser, args, ("iterations", "exploration", "rollout_limit", "seed"), sweep=True
    )
    if "evaluator" in swept:  # the game's evaluators by name, as in agent specs
        swept["evaluator"] = _named_evaluators(parser, game, swept["evaluator"])
    for name, value in _anytime_options(args).items():  # one value each: in the title
        if name in swept:
            parser.error(f"argument --options: {name} is set by its own flag too")
        swept[name] = [value]
    if isinstance(game, ModelGame):
        model = game.model
    elif game.hidden_information:  # planned by ISMCTS: its refusals (solve, reuse...) apply
        from mcts_agent.envs.leduc import LeducModel

        model = LeducModel()  # a hidden-information model: the options are checked as for one
    else:
        model = None  # an MCTSAgent in the env loop
    for values in itertools.product(*swept.values()):
        try:  # each combination checked before any game
            MCTSPlayer(1, **dict(zip(swept, values, strict=True))).check(model)
        except (TypeError, ValueError) as error:
            parser.error(f"argument --options: {error}")
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
        print(
            f"{total} games, {moves / total:.2f} moves per game, {format_seconds(seconds)}",
            file=out,
        )
        return _result_files(args, result)

    return _run_logged(args, parser, out, total, play, report)
