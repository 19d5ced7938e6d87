"""``mcts-agent train``: a policy-value network trained by self-play (:mod:`mcts_agent.learning`).

::

    mcts-agent train --game connect_four --minutes 30 --out net.pt [--plot curve.png]
    mcts-agent train --game tictactoe --generations 10 --seed 0 --out net.pt

Each generation plays self-play games, trains the network, evaluates it
against the previous generation's network and against plain UCT at the same
iterations, rewrites ``--out`` and prints one line. The file is then an
evaluator of every command: ``--option evaluator=net.pt``, agent specs
``mcts:evaluator=net.pt`` (:func:`mcts_agent.learning.load_evaluator`).
Needs PyTorch (``pip install 'mcts_agent[learn]'``).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any, TextIO

from mcts_agent.cli.options import (
    _check_files,
    _game,
    _progress,
    int_at_least,
    number_in,
    parse_exploration,
)
from mcts_agent.summary import format_seconds

TRAIN_GAMES = ("tictactoe", "connect_four", "classic/tictactoe-v3", "classic/connect_four-v3")
"""The games ``train`` names in its help (any PettingZoo game planned through the adapter too)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``train`` to the ``mcts-agent`` commands."""
    train = commands.add_parser(
        "train",
        help="train an evaluator network by self-play (PyTorch)",
        description="Trains a policy-value network by self-play with the search (AlphaZero: "
        "PUCT with Dirichlet root noise, the visit distribution and the game's outcome as "
        "targets). Each generation plays --games self-play games, takes --steps Adam steps "
        "on the replay buffer, plays the new network against the previous one and against "
        "plain UCT (--eval-games in each seat, same iterations), writes --out and prints a "
        "line. Use the file as --option evaluator=FILE (with --option selection=puct) in "
        "every command, or mcts:evaluator=FILE,selection=puct in agent specs. Needs "
        "PyTorch: pip install 'mcts_agent[learn]'.",
    )
    train.set_defaults(subparser=train)
    train.add_argument(
        "--game",
        default="tictactoe",
        metavar="GAME",
        help=f"{', '.join(TRAIN_GAMES)}, or a PettingZoo game planned through the adapter "
        "(its observation is the network's input) (default: tictactoe)",
    )
    train.add_argument(
        "--out", required=True, metavar="FILE", help="the checkpoint, rewritten each generation"
    )
    train.add_argument(
        "--minutes",
        type=number_in(0.0),
        default=None,
        help="time budget: no generation starts that would end after it",
    )
    train.add_argument(
        "--generations",
        type=int_at_least(1),
        default=None,
        help="generations to train (with --seed: the same weights on every run)",
    )
    train.add_argument("--seed", type=int_at_least(0), default=0, help="seed (default: 0)")
    train.add_argument(
        "--iterations",
        type=int_at_least(1),
        default=50,
        help="search iterations per self-play move (default: 50)",
    )
    train.add_argument(
        "--games",
        type=int_at_least(1),
        default=20,
        help="self-play games per generation (default: 20)",
    )
    train.add_argument(
        "--steps",
        type=int_at_least(0),
        default=100,
        help="Adam steps per generation (default: 100)",
    )
    train.add_argument(
        "--batch-size", type=int_at_least(1), default=64, help="examples per step (default: 64)"
    )
    train.add_argument(
        "--learning-rate",
        type=number_in(1e-12),
        default=1e-3,
        help="Adam's learning rate (default: 0.001)",
    )
    train.add_argument(
        "--eval-games",
        type=int_at_least(0),
        default=10,
        help="games in each seat of each evaluation match, 0 for none (default: 10)",
    )
    train.add_argument(
        "--eval-iterations",
        type=int_at_least(1),
        default=None,
        help="iterations of the evaluation searches (default: --iterations)",
    )
    train.add_argument(
        "--exploration",
        type=parse_exploration,
        default=1.5,
        help="PUCT's c in self-play and the network's evaluation searches (default: 1.5)",
    )
    train.add_argument(
        "--selection",
        choices=("puct", "gumbel"),
        default="puct",
        help="the self-play search: puct (visit distribution as target) or gumbel (its "
        "improved policy as target) (default: puct)",
    )
    train.add_argument(
        "--network",
        choices=("mlp", "conv"),
        default=None,
        help="the network's trunk (default: conv for boards of 16 cells or more, else mlp)",
    )
    train.add_argument(
        "--plot", metavar="FILE", help="draw the learning curve (scores and losses) to FILE"
    )
    train.add_argument(
        "--no-progress", action="store_true", help="no progress bar (shown on a terminal)"
    )


def _tally(tally: Any) -> str:
    return f"W {tally[0]} D {tally[1]} L {tally[2]}"


def generation_line(record: Any, iterations: int) -> str:
    """Returns the line ``train`` prints for a generation (a ``GenerationRecord``)."""
    line = (
        f"generation {record.generation}: {record.games} games, {record.positions} positions "
        f"(buffer {record.buffer}); loss policy {record.policy_loss:.3f}, value "
        f"{record.value_loss:.3f}"
    )
    if record.score_vs_uct is not None:
        line += (
            f"; score vs previous {record.score_vs_previous:.2f} "
            f"({_tally(record.tally_vs_previous)}), vs UCT({iterations}) "
            f"{record.score_vs_uct:.2f} ({_tally(record.tally_vs_uct)})"
        )
    return f"{line}; {format_seconds(record.seconds)}"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """Runs ``mcts-agent train`` with its parsed ``args``; returns the exit status."""
    if args.minutes is None and args.generations is None:
        parser.error("give --minutes or --generations (or both): when the training stops")
    if args.minutes is not None and args.minutes <= 0:
        parser.error(f"argument --minutes: expected a number > 0, got {args.minutes:g}")
    try:
        from mcts_agent.learning import training
        from mcts_agent.learning.encoding import encoding_for_game
        from mcts_agent.learning.network import NetworkConfig, default_network_config
    except ImportError as error:
        parser.error(f"train needs PyTorch: {error}")
    game = _game(parser, args.game)
    try:
        encoding = encoding_for_game(game)
    except (TypeError, ValueError) as error:
        parser.error(f"argument --game: {error}")
    outputs = [("--out", args.out, repr(args.out))]
    if args.plot is not None:
        outputs.append(("--plot", args.plot, repr(args.plot)))
    _check_files(parser, outputs)
    network = None
    if args.network is not None:
        default = default_network_config(encoding.shape)
        network = NetworkConfig(kind=args.network, hidden=default.hidden)
        if args.network == "conv" and len(encoding.shape) != 3:
            parser.error(
                f"argument --network: conv reads boards [C, H, W]; {game.name}'s input has "
                f"the shape {encoding.shape}"
            )
    self_play = replace(
        training.default_self_play(encoding, args.iterations),
        exploration=args.exploration,
        selection=args.selection,
    )
    config = training.TrainingConfig(
        generations=args.generations,
        minutes=args.minutes,
        games_per_generation=args.games,
        self_play=self_play,
        network=network,
        steps_per_generation=args.steps,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        evaluation_games=args.eval_games,
        evaluation_iterations=args.eval_iterations,
        seed=args.seed,
    )
    iterations = args.eval_iterations or args.iterations
    budget = f"{args.generations} generations" if args.generations else f"{args.minutes:g} minutes"
    if args.generations and args.minutes:
        budget += f" or {args.minutes:g} minutes"
    print(
        f"training on {game.name} ({encoding.name} encoding, input {encoding.shape}, "
        f"{encoding.num_actions} actions) for {budget}: {args.games} self-play games of "
        f"{args.iterations} iterations a move per generation, seed {args.seed}",
        file=out,
    )
    history: list = []
    from tqdm.auto import tqdm

    def report(record: Any) -> None:
        history.append(record)
        tqdm.write(generation_line(record, iterations), file=out)

    try:
        result = training.train(
            game, config, out=args.out, progress=_progress(args), on_generation=report
        )
    except KeyboardInterrupt:
        if history:
            _write_plot(args, history, game.name)
            kept = f"{args.out} holds generation {history[-1].generation}"
        else:
            kept = "no generation had finished"
        print(f"interrupted: {kept}", file=out)
        raise
    last = result.history[-1]
    print(
        f"trained {len(result.history)} generations in {format_seconds(last.elapsed)}; "
        f"wrote {args.out}" + (f" and {args.plot}" if args.plot else ""),
        file=out,
    )
    _write_plot(args, result.history, game.name)
    print(
        f"use it: mcts-agent evaluate --game {game.name} --option "
        f"evaluator={args.out},selection={args.selection}",
        file=out,
    )
    return 0


def _write_plot(args: argparse.Namespace, history: list, name: str) -> None:
    if args.plot is None:
        return
    from mcts_agent.learning.curves import save_learning_curve

    save_learning_curve(history, args.plot, title=f"self-play training on {name}")
