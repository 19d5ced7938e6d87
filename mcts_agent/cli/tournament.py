"""``mcts-agent tournament``: a round robin with Elo ratings, or with ``--sprt`` a GSPRT match."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import TextIO

from mcts_agent.cli.options import (
    MAX_GAMES,
    _add_game_option,
    _add_run_options,
    _add_settings_option,
    _check_backend,
    _check_outputs,
    _game,
    _option_settings,
    _players,
    _progress,
    _with_settings,
    int_at_least,
    number_in,
)
from mcts_agent.cli.runs import _result_files, _run_logged
from mcts_agent.evaluation import (
    SPRT,
    SPRTResult,
    TournamentResult,
    sprt_match,
    tournament,
    write_atomically,
)
from mcts_agent.summary import format_seconds


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``tournament`` to the ``mcts-agent`` commands."""
    tournament_parser = commands.add_parser(
        "tournament",
        help="play a round robin of agents and rate them (Elo)",
        description="Plays every pair of --agents --games games, seats alternating, and "
        "prints each pair's wins / draws / losses (of the first agent) with a 95% interval "
        "of its score, and the agents' Elo ratings: a Bradley-Terry maximum-likelihood fit "
        "(draws half a point, --prior-draws virtual draws per pair) anchored on --anchor, "
        "with 95% profile-likelihood intervals. With --sprt and two agents, plays until the "
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
        "exploration=2.83,selection=puct,... (every MCTS option by name), "
        "'gtp:gnugo --mode gtp --level 1' (a GTP engine, in classic/go_v5)",
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
    _add_settings_option(
        tournament_parser,
        "MCTS options every mcts agent takes, e.g. --options evaluator=heuristic,time_limit=0.1 "
        "(added to their specs, which must not set them too)",
    )
    _add_run_options(tournament_parser, "draw the ratings with their intervals (PNG...)")


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


def _json_writer(data: dict) -> Callable[[str], None]:
    def write(path: str) -> None:
        with write_atomically(path) as f:
            json.dump(data, f, indent=1)

    return write


def run(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """Runs ``mcts-agent tournament`` with its parsed ``args``; returns the exit status."""
    game = _game(parser, args.game)
    specs = _with_settings(parser, args.agents, _option_settings(parser, args))
    agents = _players(parser, "--agents", specs, game)
    if len(agents) < 2:
        parser.error(f"argument --agents: a tournament needs two agents or more, got {args.agents}")
    if args.sprt is not None and len(agents) != 2:
        parser.error(f"argument --sprt: a test of two agents, got {len(agents)}")
    if args.sprt is not None and args.plot is not None:
        parser.error("argument --plot: not with --sprt (the ratings plot needs a round robin)")
    games = args.games if args.games is not None else (2000 if args.sprt else 20)
    if games % 2:
        parser.error(f"argument --games: expected an even number (seats alternate), got {games}")
    anchor = dict(zip(args.agents, specs, strict=True)).get(args.anchor, args.anchor)
    if anchor is not None and anchor not in agents:
        parser.error(f"argument --anchor: {anchor!r} is not one of --agents {list(agents)}")
    _check_backend(parser, args)
    _check_outputs(parser, args, game)
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
            print(f"{result.games} games, {format_seconds(seconds)}", file=out)
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
        print(f"{total} games, {format_seconds(seconds)}", file=out)
        return _result_files(args, result)

    return _run_logged(args, parser, out, total, play, report)
