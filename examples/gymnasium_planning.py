"""Plans episode after episode in a deterministic Gymnasium env with UCT.

Every step is planned from a clone of the live env through
``mcts_agent.adapters.GymnasiumModel`` (what ``MCTSAgent.act(env)`` does too),
and the env is then stepped with the chosen action. Prints each episode's
return and length and a summary::

    python examples/gymnasium_planning.py --env FrozenLake-v1 --episodes 20 --iterations 200
    python examples/gymnasium_planning.py --env FrozenLake-v1 --env-kwargs map_name=8x8 \
        --episodes 20 --iterations 2000
    python examples/gymnasium_planning.py --env CartPole-v1 --episodes 10
    python examples/gymnasium_planning.py --env mcts_agent/GridMaze-v0 --episodes 20
    python examples/gymnasium_planning.py --env CliffWalking-v1 --iterations 500 \
        --rollout-policy greedy

Every env has preset settings (``PRESETS``: env keyword arguments, iterations,
rollout_limit, gamma, exploration); the flags override them. The exploration
constant c is scaled to the range of the returns (UCB1's sqrt(2) is for
returns in [0, 1]). Episode ``i`` is reset with ``seed + i``. Rollouts are
uniformly random unless ``--rollout-policy greedy`` (one-step lookahead: the
action of highest immediate reward, ties broken at random). ``--help`` lists
every default and the presets; a bad value, an unknown env id or an env the
planner cannot plan in (stochastic, continuous actions) is a usage error
(exit status 2) that says what was expected.
"""

from __future__ import annotations

import argparse
import ast
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import gymnasium as gym

import mcts_agent.envs  # noqa: F401  (registers mcts_agent/GridMaze-v0)
from mcts_agent import MCTS
from mcts_agent.adapters import GymnasiumModel, GymnasiumState
from mcts_agent.cli import int_at_least, number_in
from mcts_agent.search import RolloutPolicy


class Episode(NamedTuple):
    """One episode's outcome: its return, length, last reward and how it ended."""

    total: float
    length: int
    last_reward: float
    terminated: bool
    truncated: bool


class Preset(NamedTuple):
    """Settings of one env: what it is made with and how the agent plans in it.

    Attributes:
        env_kwargs: keyword arguments of ``gymnasium.make``.
        iterations: UCT iterations per step.
        rollout_limit: most steps of one rollout.
        gamma: discount rate.
        exploration: c of UCB1, scaled to the range of the returns.
        success: ``(episode) -> bool`` given an :class:`Episode`: did it
            reach its goal; None if the env has no goal.
        success_label: what a success is, for the summary.
    """

    env_kwargs: dict[str, Any]
    iterations: int
    rollout_limit: int
    gamma: float
    exploration: float
    success: Callable[[Episode], bool] | None
    success_label: str


def _reached_goal(episode: Episode) -> bool:
    return episode.terminated and episode.last_reward > 0


def _ended_by_goal(episode: Episode) -> bool:
    return episode.terminated


PRESETS: dict[str, Preset] = {
    # Returns in [0, 1] (1 at the goal, discounted): UCB1's c = sqrt(2) scaled by 1/2.
    "FrozenLake-v1": Preset(
        {"is_slippery": False}, 200, 100, 0.95, math.sqrt(2) / 2, _reached_goal, "reached the goal"
    ),
    # +1 per step: a 50-step rollout returns at most 50, so c = sqrt(2) * 50.
    "CartPole-v1": Preset(
        {},
        200,
        50,
        1.0,
        math.sqrt(2) * 50,
        lambda episode: episode.length == 500,
        "balanced the pole for 500 steps",
    ),
    # Goal +1, trap -1, -0.002 per step: returns in [-1.4, 1].
    "mcts_agent/GridMaze-v0": Preset(
        {}, 300, 100, 1.0, math.sqrt(2), _reached_goal, "reached the goal"
    ),
    # -1 per step, -100 for the cliff; the goal ends the episode.
    # (CliffWalking-v1 has no time limit of its own.)
    "CliffWalking-v1": Preset(
        {"max_episode_steps": 200},
        2000,
        200,
        1.0,
        100.0,
        _ended_by_goal,
        "reached the goal",
    ),
    # -1 per step, -10 for a wrong pick-up or drop-off, +20 for the delivery.
    "Taxi-v4": Preset(
        {},
        2000,
        200,
        1.0,
        30.0,
        _ended_by_goal,
        "delivered the passenger",
    ),
}
_DEFAULT = Preset({}, 500, 100, 1.0, math.sqrt(2), None, "")


def _parse_kwarg(text: str) -> tuple[str, Any]:
    """``key=value`` with a Python literal value (``True``, ``8``, ``'8x8'``) or a bare string."""
    key, separator, raw = text.partition("=")
    if not separator or not key:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    literal = {"true": "True", "false": "False", "none": "None"}.get(raw.lower(), raw)
    try:
        return key, ast.literal_eval(literal)
    except (ValueError, SyntaxError):
        return key, raw


def greedy_rollout_policy(model: GymnasiumModel) -> RolloutPolicy:
    """A user-supplied rollout policy: one-step lookahead on the immediate reward.

    Args:
        model: the model the planner searches (its ``step`` looks one move ahead).

    Returns:
        ``policy(state, actions, rng) -> action``: an action of highest reward
        from ``state``, ties broken with ``rng``. It costs one ``step`` per
        legal action per rollout move, and it steps around CliffWalking's
        cliff (-100) and GridMaze's traps, which random rollouts fall into.
    """

    def policy(state: GymnasiumState, actions: Sequence[Any], rng: random.Random) -> Any:
        rewards = [model.step(state, action).reward for action in actions]
        best = max(rewards)
        return rng.choice([a for a, r in zip(actions, rewards, strict=True) if r == best])

    return policy


def _presets_text() -> str:
    """The presets, one env a line (and its make keyword arguments), for the help's epilog."""
    lines = ["presets (a flag overrides the value):"]
    for env_id, preset in [*PRESETS.items(), ("any other env", _DEFAULT)]:
        lines.append(
            f"  {env_id:23s} iterations {preset.iterations}, rollout-limit "
            f"{preset.rollout_limit}, gamma {preset.gamma:g}, exploration {preset.exploration:.3g}"
        )
        if preset.env_kwargs:
            lines.append(f"  {'':23s} env kwargs {preset.env_kwargs}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The command line: every option's help gives its default (or the env's preset)."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=_presets_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--env",
        default="FrozenLake-v1",
        help="id of a deterministic Gymnasium env with a Discrete or MultiDiscrete action space "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--env-kwargs",
        nargs="*",
        type=_parse_kwarg,
        default=[],
        metavar="KEY=VALUE",
        help="keyword arguments of gymnasium.make, added to the preset's (e.g. map_name=8x8)",
    )
    parser.add_argument(
        "--episodes",
        type=int_at_least(1),
        default=10,
        help="episodes to play (default: %(default)s)",
    )
    preset = "(default: the env's preset)"
    parser.add_argument(
        "--iterations", type=int_at_least(1), help=f"UCT iterations per step {preset}"
    )
    parser.add_argument(
        "--rollout-limit", type=int_at_least(0), help=f"most steps of one rollout {preset}"
    )
    parser.add_argument("--gamma", type=number_in(0.0, 1.0), help=f"discount rate {preset}")
    parser.add_argument(
        "--exploration",
        type=number_in(0.0),
        help=f"c of UCB1, scaled to the range of the returns {preset}",
    )
    parser.add_argument(
        "--rollout-policy",
        choices=("random", "greedy"),
        default="random",
        help="how rollouts move: uniformly at random, or greedy one-step lookahead "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="episode i is reset with seed + i (default: %(default)s)",
    )
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    return parser


def make_model(
    parser: argparse.ArgumentParser, env_id: str, env_kwargs: dict[str, Any], seed: int
) -> tuple[gym.Env, GymnasiumModel]:
    """Makes and resets the env and its model; a usage error (exit 2) if either cannot be made.

    Args:
        parser: the command line's parser, for its ``error``.
        env_id: the id given to ``gymnasium.make``.
        env_kwargs: its keyword arguments.
        seed: the seed of the first reset.

    Returns:
        ``(env, model)``: the reset env and its :class:`GymnasiumModel`.
    """
    try:
        env = gym.make(env_id, **env_kwargs)
    except (gym.error.Error, ImportError) as error:  # unknown id, module or dependency
        parser.error(
            f"argument --env: cannot make {env_id!r} ({error}); expected a registered "
            f"Gymnasium env id, e.g. one of {', '.join(PRESETS)}"
        )
    except Exception as error:  # the env's constructor rejected the keyword arguments
        parser.error(
            f"argument --env-kwargs: gymnasium.make({env_id!r}, **{env_kwargs}) failed "
            f"({type(error).__name__}: {error})"
        )
    env.reset(seed=seed)
    try:
        model = GymnasiumModel(env)  # checks its clone of env once; reused for every episode
    except (TypeError, ValueError) as error:
        env.close()
        parser.error(f"argument --env: cannot plan in {env_id} {env_kwargs}: {error}")
    return env, model


def run_episode(env: gym.Env, model: GymnasiumModel, planner: MCTS, seed: int) -> Episode:
    """Plays one episode from ``env.reset(seed=seed)``, planning every action."""
    env.reset(seed=seed)
    total, length = 0.0, 0
    while True:
        action = model.to_env_action(planner(model.state_of(env)))
        _, reward, terminated, truncated, _ = env.step(action)
        total += float(reward)
        length += 1
        if terminated or truncated:
            return Episode(total, length, float(reward), terminated, truncated)


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Runs the example; returns the summary (episodes, mean return and length, successes)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    preset = PRESETS.get(args.env, _DEFAULT)
    env_kwargs = {**preset.env_kwargs, **dict(args.env_kwargs)}
    settings = {
        "iterations": preset.iterations if args.iterations is None else args.iterations,
        "rollout_limit": preset.rollout_limit if args.rollout_limit is None else args.rollout_limit,
        "gamma": preset.gamma if args.gamma is None else args.gamma,
        "exploration": preset.exploration if args.exploration is None else args.exploration,
    }
    env, model = make_model(parser, args.env, env_kwargs, args.seed)
    print(
        f"{args.env} {env_kwargs}: {args.episodes} episodes, seeds {args.seed}.., {settings}, "
        f"{args.rollout_policy} rollouts"
    )
    policy = greedy_rollout_policy(model) if args.rollout_policy == "greedy" else None
    planner = MCTS(model, seed=args.seed, rollout_policy=policy, **settings)
    returns, lengths, successes = [], [], 0
    for episode in range(args.episodes):
        start = time.perf_counter()
        outcome = run_episode(env, model, planner, args.seed + episode)
        success = preset.success is not None and preset.success(outcome)
        successes += success
        returns.append(outcome.total)
        lengths.append(outcome.length)
        if not args.quiet:
            end = "terminated" if outcome.terminated else "truncated"
            mark = " (success)" if success else ""
            print(
                f"episode {episode:3d}: return {outcome.total:8.2f}  length {outcome.length:4d}  "
                f"{end}{mark}  {time.perf_counter() - start:6.1f} s"
            )
    summary = {
        "episodes": args.episodes,
        "mean_return": statistics.fmean(returns),
        "mean_length": statistics.fmean(lengths),
        "successes": successes,
    }
    print(
        f"summary: mean return {summary['mean_return']:.3f}, mean length "
        f"{summary['mean_length']:.1f}, min/max length {min(lengths)}/{max(lengths)}"
        + (
            f", {preset.success_label} in {successes} of {args.episodes} episodes"
            if preset.success is not None
            else ""
        )
    )
    env.close()
    return summary


if __name__ == "__main__":
    main()
