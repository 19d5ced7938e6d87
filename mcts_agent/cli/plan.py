"""``mcts-agent plan``: MCTS against a random policy in a Gymnasium env.

Episodes are played by :mod:`mcts_agent.evaluation.planning`. ``--env`` takes
Gymnasium's ``module:EnvId`` (the module, which registers the env, imported
first: :mod:`mcts_agent.evaluation.user_modules`), and ``--env-kwargs`` the keyword
arguments of ``gymnasium.make``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import time
from typing import TextIO

from mcts_agent.cli.options import (
    MAX_GAMES,
    _add_backend_options,
    _add_settings_option,
    _add_time_limit,
    _check_backend,
    _check_output_file,
    _check_plot_file,
    _option_settings,
    _progress,
    int_at_least,
    keyword_arguments,
)
from mcts_agent.cli.runs import EXIT_INTERRUPTED
from mcts_agent.evaluation import DEFAULT_EXPLORATION, GameLog, parse_spec, ray_session
from mcts_agent.evaluation.specs import format_options
from mcts_agent.evaluation.user_modules import UserCodeError
from mcts_agent.summary import format_seconds


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Adds ``plan`` to the ``mcts-agent`` commands."""
    plan = commands.add_parser(
        "plan",
        help="plan in a Gymnasium env: MCTS against a random policy",
        description="Plays --episodes episodes of a deterministic Gymnasium env with the MCTS "
        "agent at each --iterations (and --time-limit), and with a random policy (legal moves "
        "only where the env reports info['action_mask']); prints the mean return with a 95% "
        "Student-t interval, the success rate where the env has a goal, the mean length and "
        "the seconds per move. Episode i is seeded from --seed and i.",
    )
    plan.set_defaults(subparser=plan)
    plan.add_argument(
        "--env",
        required=True,
        metavar="ID",
        help="a Gymnasium id with its options, e.g. FrozenLake-v1:is_slippery=False, "
        "CliffWalking-v1, Taxi-v4, mcts_agent/GridMaze-v0; or Gymnasium's MODULE:ID, "
        "e.g. my_envs:MyEnv-v0 (my_envs, imported first, registers MyEnv-v0)",
    )
    plan.add_argument(
        "--env-kwargs",
        action="append",
        type=keyword_arguments,
        default=None,
        metavar="NAME=VALUE,...",
        help="keyword arguments of gymnasium.make, e.g. size=4,is_slippery=False (repeatable; "
        "values are Python literals or words; added to the options in --env)",
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
    _add_time_limit(plan)
    _add_settings_option(
        plan,
        "other MCTSAgent options, e.g. gamma=0.95,exploration=0.7,rollout_limit=100 "
        "(default: none: c = 2*sqrt(2))",
    )
    plan.add_argument("--seed", type=int_at_least(0), default=0, help="master seed (default: 0)")
    _add_backend_options(
        plan,
        "local processes, or a Ray cluster, one task per episode (default: process)",
        "Ray cluster address with --backend ray (default: a new local Ray instance)",
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


def _env(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """``--env`` with ``--env-kwargs`` added as its options: the env spec planning reads.

    Exits with an argument error.
    """
    try:
        env_id, options = parse_spec(args.env, what="env")
    except ValueError as error:
        parser.error(f"argument --env: {error}")
    for kwargs in args.env_kwargs or []:
        for name, value in kwargs.items():
            if name in options:
                parser.error(
                    f"argument --env-kwargs: {name!r} given twice (in --env {args.env!r} or "
                    "--env-kwargs); give it once"
                )
            options[name] = value
    return env_id + format_options(tuple(options.items()))


def _refused_by(args: argparse.Namespace) -> str:
    """The option to name when the env of ``--env`` and ``--env-kwargs`` cannot be made.

    ``--env-kwargs`` if the env of ``--env`` alone can be made (its kwargs refused),
    else ``--env``.
    """
    from mcts_agent.evaluation import planning

    if not args.env_kwargs:
        return "--env"
    try:
        planning.make_env(args.env).close()
    except (ImportError, ValueError, UserCodeError):
        return "--env"
    return "--env-kwargs"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """Runs ``mcts-agent plan`` with its parsed ``args``; returns the exit status."""
    from mcts_agent.evaluation import planning

    env = _env(parser, args)
    try:  # a module:EnvId's module that cannot be imported: an ImportError naming it
        planning.make_env(env).close()
    except UserCodeError as error:  # a bug in the user's code, not a bad --env
        parser.error(str(error))
    except (ImportError, ValueError) as error:
        parser.error(f"argument {_refused_by(args)}: {error}")
    settings = _option_settings(parser, args, ("iterations", "time_limit", "seed"))
    extra = {name: values[0] for name, values in settings.items()}
    extra.setdefault("exploration", DEFAULT_EXPLORATION)
    if args.time_limit is not None:
        extra["time_limit"] = args.time_limit
    iterations = args.iterations or ([None] if args.time_limit is not None else [200])
    settings = [{"iterations": n, **extra} for n in dict.fromkeys(iterations)]
    try:
        planning.check_agent_options(settings[0])
    except (TypeError, ValueError) as error:
        parser.error(f"argument --options: {error}")
    try:
        planning.check_plannable(env, settings[0])
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
            label = planning.PlanResult(env, options, ()).label
            log.write_line({"env": env, "policy": label, **record.to_dict()})
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
                        env,
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
        print(f"mcts-agent: error: {env}: {error}{kept}", file=sys.stderr)
        return 1
    finally:
        if log is not None:
            log.close()
    print(planning.table(results), file=out)
    print(format_seconds(time.perf_counter() - start), file=out)
    for path, write in ((args.json, planning.save_json), (args.plot, planning.plot)):
        if path is not None:
            write(results, path)
            print(f"wrote {path}", file=out)
    if log is not None:
        print(f"wrote {log.path} (each episode as it finished)", file=out)
    return 0
