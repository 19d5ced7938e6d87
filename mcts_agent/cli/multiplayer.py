"""``mcts-agent multiplayer``: a game of n players or a cooperative one, seats rotated.

Games are played by :mod:`mcts_agent.evaluation.multiplayer`.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from mcts_agent.cli.options import _add_settings_option, _option_settings, _with_settings
from mcts_agent.evaluation import make_player, parse_spec, write_atomically
from mcts_agent.evaluation.multiplayer import (
    MULTIPLAYER_GAMES,
    make_multiplayer_game,
    play_multiplayer,
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``multiplayer`` to the ``mcts-agent`` commands."""
    multiplayer = commands.add_parser(
        "multiplayer",
        help="n players or a cooperative game: every player's results",
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
    _add_settings_option(
        multiplayer,
        "MCTS options every mcts agent takes, e.g. --options time_limit=0.1,gamma=0.99 "
        "(added to their specs, which must not set them too)",
    )
    multiplayer.add_argument("--json", metavar="FILE", help="write the games and results as JSON")
    multiplayer.set_defaults(subparser=multiplayer)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """``mcts-agent multiplayer``: :func:`~mcts_agent.evaluation.multiplayer.play_multiplayer`."""
    game = make_multiplayer_game(args.game)
    seats = game.seats
    if len(args.agents) != len(seats):
        parser.error(f"--agents: {args.game} has {len(seats)} seats, got {len(args.agents)} agents")
    specs = _with_settings(parser, args.agents, _option_settings(parser, args))
    checked_against = argparse.Namespace(  # what make_player reads of a game
        model=getattr(game, "model", None), solvable=False, evaluators=(), name=args.game
    )
    players = []
    for spec in specs:
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
    result = play_multiplayer(game, players, specs, games, args.seed)
    print(result.table(), file=out)
    if args.json:
        with write_atomically(args.json) as file:
            json.dump(result.to_dict(), file, indent=2)
    return 0
