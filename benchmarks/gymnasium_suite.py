"""The defaults on Gymnasium (issues 30 and 31): ``MCTSAgent(time_limit=T)`` on twelve envs.

Plays :class:`~mcts_agent.agent.MCTSAgent` with nothing set but ``time_limit``
(``--time-limit``, 0.1 s a step by default) on every env of :data:`SUITE`, and
prints per env:

* the mean return with its 95% Student-t interval
  (:meth:`~mcts_agent.evaluation.planning.PlanResult.mean_return`);
* the success rate where there is a goal: FrozenLake reached the goal,
  CliffWalking returned the optimal -13, MountainCar (both) reached the flag
  (terminated, not truncated), Taxi delivered, the point robot reached its
  goal (each case's ``success``);
* the agent's wall-clock seconds per step (mean over all steps);
* the uniformly random policy's mean return over the same episodes (same
  env seeds; legal moves only where the env reports ``info["action_mask"]``,
  as Taxi does);
* the optimum where it is known: finite-horizon value iteration on the
  toy-text envs' ``P`` with the episode's ``TimeLimit`` as the horizon
  (:mod:`exact_values`), CartPole's 500 (its limit, which trained agents reach);
* the trained agents of RL Baselines3 Zoo, from its ``benchmark.md``
  (:data:`RL_ZOO`), with the environment steps they were trained on;
* the issue's target, and whether this run meets it.

Episodes come from :func:`~mcts_agent.evaluation.planning.plan_episodes`
(the episode loop of ``mcts-agent plan``): episode ``i``'s env reset seed
and agent seed are drawn from ``numpy.random.SeedSequence(--seed,
spawn_key=(i,))``, so the results depend on ``--seed`` and ``i`` only, not
on ``--processes``, and the random policy plays the same env seeds. With
``--processes`` > 1 the episodes run in that many processes (each episode
makes its own env); on a 2-core machine 2 processes are still one core each,
so the agent's ``time_limit`` (wall clock) buys about the same iterations.

The last four envs have continuous (``Box``) actions, planned with progressive
widening (issue 31). LunarLander needs Box2D (``pip install -e ".[box2d]"``); without it the suite
says so and skips that env. An env the agent refuses or fails on is reported
with its error, its target fails, and the exit status is 1.

Run (from the repository's root or ``benchmarks/``): ``python
benchmarks/gymnasium_suite.py`` (hours: 1,000 steps of 0.1 s an episode in
LunarLander); ``--episodes 2`` for a quick look; ``--envs CartPole-v1
Taxi-v4`` for some; ``--markdown`` prints the table for ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import gymnasium as gym
from exact_values import start_value
from machine import describe_machine
from tqdm.auto import tqdm

from mcts_agent.evaluation.planning import EpisodeRecord, PlanResult, make_env, plan_episodes

RL_ZOO_SOURCE = (
    "DLR-RM/rl-baselines3-zoo, benchmark.md, commit 22e3ff2450fd92033f7f032915e1f64894a09584"
)
"""Where :data:`RL_ZOO` comes from (``python -m rl_zoo3.benchmark``: each trained agent's
deterministic policy run for about 150,000 evaluation steps; one training run each)."""


@dataclass(frozen=True)
class ZooAgent:
    """One row of RL Baselines3 Zoo's benchmark table.

    Attributes:
        algo: the algorithm (``ppo``, ``dqn``...).
        env_id: the env the table names (LunarLander-v2 where Gymnasium 1.x has v3).
        mean_reward, std_reward: the trained agent's mean return and its standard deviation.
        n_timesteps: the environment steps it was trained on, as the table writes them.
    """

    algo: str
    env_id: str
    mean_reward: float
    std_reward: float
    n_timesteps: str


RL_ZOO: dict[str, tuple[ZooAgent, ...]] = {
    "CartPole-v1": tuple(
        ZooAgent(algo, "CartPole-v1", 500.0, 0.0, steps)
        for algo, steps in [
            ("a2c", "500k"),
            ("ars", "50k"),
            ("dqn", "50k"),
            ("ppo", "100k"),
            ("qrdqn", "50k"),
            ("trpo", "100k"),
        ]
    ),
    "Acrobot-v1": (
        ZooAgent("a2c", "Acrobot-v1", -83.353, 17.213, "500k"),
        ZooAgent("ars", "Acrobot-v1", -82.884, 23.825, "500k"),
        ZooAgent("dqn", "Acrobot-v1", -76.639, 11.752, "100k"),
        ZooAgent("ppo", "Acrobot-v1", -73.506, 18.201, "1M"),
        ZooAgent("qrdqn", "Acrobot-v1", -69.135, 9.967, "100k"),
        ZooAgent("trpo", "Acrobot-v1", -83.114, 18.648, "100k"),
    ),
    "MountainCar-v0": (
        ZooAgent("a2c", "MountainCar-v0", -111.263, 24.087, "1M"),
        ZooAgent("ars", "MountainCar-v0", -122.000, 33.456, "500k"),
        ZooAgent("dqn", "MountainCar-v0", -100.849, 9.925, "120k"),
        ZooAgent("ppo", "MountainCar-v0", -110.423, 19.473, "1M"),
        ZooAgent("qrdqn", "MountainCar-v0", -106.042, 15.536, "120k"),
        ZooAgent("trpo", "MountainCar-v0", -107.278, 13.231, "100k"),
    ),
    "LunarLander-v3": (
        ZooAgent("a2c", "LunarLander-v2", 155.751, 80.419, "200k"),
        ZooAgent("dqn", "LunarLander-v2", 154.382, 79.241, "100k"),
        ZooAgent("ppo", "LunarLander-v2", 242.119, 31.823, "1M"),
        ZooAgent("qrdqn", "LunarLander-v2", 70.236, 225.491, "100k"),
        ZooAgent("trpo", "LunarLander-v2", 133.166, 112.173, "200k"),
    ),
    "Pendulum-v1": (
        ZooAgent("a2c", "Pendulum-v1", -162.965, 103.210, "1M"),
        ZooAgent("ars", "Pendulum-v1", -212.540, 160.444, "2M"),
        ZooAgent("ddpg", "Pendulum-v1", -152.099, 94.282, "20k"),
        ZooAgent("ppo", "Pendulum-v1", -172.225, 104.159, "100k"),
        ZooAgent("sac", "Pendulum-v1", -156.995, 88.714, "20k"),
        ZooAgent("td3", "Pendulum-v1", -151.855, 90.227, "20k"),
        ZooAgent("tqc", "Pendulum-v1", -151.340, 87.893, "20k"),
        ZooAgent("trpo", "Pendulum-v1", -174.631, 127.577, "100k"),
    ),
    "MountainCarContinuous-v0": (
        ZooAgent("a2c", "MountainCarContinuous-v0", 91.166, 0.255, "100k"),
        ZooAgent("ars", "MountainCarContinuous-v0", 96.672, 0.784, "500k"),
        ZooAgent("ddpg", "MountainCarContinuous-v0", 93.512, 0.048, "300k"),
        ZooAgent("ppo", "MountainCarContinuous-v0", 88.343, 2.572, "20k"),
        ZooAgent("sac", "MountainCarContinuous-v0", 94.679, 1.134, "50k"),
        ZooAgent("td3", "MountainCarContinuous-v0", 93.483, 0.075, "300k"),
        ZooAgent("tqc", "MountainCarContinuous-v0", 63.641, 45.259, "50k"),
        ZooAgent("trpo", "MountainCarContinuous-v0", 92.489, 0.355, "50k"),
    ),
    "LunarLanderContinuous-v3": (
        ZooAgent("a2c", "LunarLanderContinuous-v2", 84.225, 145.906, "5M"),
        ZooAgent("ars", "LunarLanderContinuous-v2", 167.959, 147.071, "2M"),
        ZooAgent("ddpg", "LunarLanderContinuous-v2", 230.217, 92.372, "300k"),
        ZooAgent("ppo", "LunarLanderContinuous-v2", 270.863, 32.072, "1M"),
        ZooAgent("sac", "LunarLanderContinuous-v2", 260.390, 65.467, "500k"),
        ZooAgent("td3", "LunarLanderContinuous-v2", 207.451, 67.562, "300k"),
        ZooAgent("tqc", "LunarLanderContinuous-v2", 277.956, 25.466, "500k"),
        ZooAgent("trpo", "LunarLanderContinuous-v2", 262.387, 21.428, "200k"),
    ),
}
"""RL Baselines3 Zoo's trained agents (:data:`RL_ZOO_SOURCE`) on the suite's envs, by the
suite's name. The table has no Taxi, FrozenLake or CliffWalking rows."""

CLIFF_OPTIMUM = -13.0
"""CliffWalking's best return: 13 steps of -1 along the cliff's edge."""


def goal_reached(record: EpisodeRecord) -> bool:
    """FrozenLake, Taxi, MountainCar: the episode ended at the goal (the adapter's GOALS)."""
    return bool(record.success)


def optimal_cliff_walk(record: EpisodeRecord) -> bool:
    """CliffWalking: the episode returned the optimal -13 (reaching the goal is not enough)."""
    return record.total_return == CLIFF_OPTIMUM


@dataclass(frozen=True)
class Case:
    """One env of the suite.

    Attributes:
        name: the name ``--envs`` takes.
        spec: the env as :func:`~mcts_agent.evaluation.planning.make_env` takes it.
        episodes: the episodes the issue's target is stated over.
        target: the issue's target, in words.
        meets_target: whether a :class:`PlanResult` meets it.
        success: the success rule of one episode, or None where there is no goal.
        horizon: the ``TimeLimit``'s steps, for value iteration on ``P``
            (toy-text envs); None elsewhere.
        optimum: the optimum in words where it is known without ``P``, else None.
        needs: a module the env needs that may be missing (``Box2D``), or None.
    """

    name: str
    spec: str
    episodes: int
    target: str
    meets_target: Callable[[PlanResult], bool]
    success: Callable[[EpisodeRecord], bool] | None = None
    horizon: int | None = None
    optimum: str | None = None
    needs: str | None = None


def success_rate(case: Case, result: PlanResult) -> float | None:
    """The share of ``result``'s episodes that succeeded by ``case``'s rule (None: no goal)."""
    if case.success is None:
        return None
    return sum(case.success(r) for r in result.records) / len(result.records)


def mean_return(result: PlanResult) -> float:
    """The mean return of ``result``'s episodes."""
    return result.mean_return()[0]


def _returns(result: PlanResult) -> list[float]:
    return [r.total_return for r in result.records]


TAXI = "Taxi-v4" if "Taxi-v4" in gym.registry else "Taxi-v3"
"""Taxi's id: v4 where Gymnasium registers it, else v3 (older Gymnasium)."""


def goal_in_most(result: PlanResult) -> bool:
    """FrozenLake's target: the goal reached in at least 60% of the episodes."""
    return sum(goal_reached(r) for r in result.records) >= 0.6 * len(result.records)


FROZEN_LAKES = (("4x4", 100, 500), ("8x8", 200, 200))
"""Slippery FrozenLake's maps: (map, step limit, the target's episodes)."""


def frozen_lake(map_name: str, steps: int, episodes: int) -> Case:
    """The case of slippery FrozenLake on ``map_name`` with a ``steps``-step limit."""
    return Case(
        f"FrozenLake-v1-{map_name}",
        f"FrozenLake-v1:is_slippery=True,map_name='{map_name}',max_episode_steps={steps}",
        episodes,
        f"success >= 0.60 over {episodes}",
        goal_in_most,
        success=goal_reached,
        horizon=steps,
    )


SUITE: tuple[Case, ...] = (
    Case(
        "CliffWalking-v1",
        "CliffWalking-v1:max_episode_steps=200",
        10,
        "-13 in 10/10",
        lambda result: all(optimal_cliff_walk(r) for r in result.records),
        success=optimal_cliff_walk,
        horizon=200,
    ),
    Case(
        TAXI,
        TAXI,
        50,
        "mean >= 7.0 over 50",
        lambda result: mean_return(result) >= 7.0,
        success=goal_reached,
        horizon=200,
    ),
    Case(
        "CartPole-v1",
        "CartPole-v1",
        10,
        "500 in 10/10",
        lambda result: all(g == 500.0 for g in _returns(result)),
        optimum="500 (the limit)",
    ),
    Case(
        "Acrobot-v1",
        "Acrobot-v1",
        10,
        "mean >= -100 over 10",
        lambda result: mean_return(result) >= -100.0,
    ),
    Case(
        "MountainCar-v0",
        "MountainCar-v0",
        10,
        "flag in 10/10, mean >= -150",
        lambda result: (
            all(goal_reached(r) for r in result.records) and mean_return(result) >= -150.0
        ),
        success=goal_reached,
    ),
    *(frozen_lake(map_name, steps, episodes) for map_name, steps, episodes in FROZEN_LAKES),
    Case(
        "LunarLander-v3",
        "LunarLander-v3",
        10,
        "mean >= 200 over 10",
        lambda result: mean_return(result) >= 200.0,
        needs="Box2D",
    ),
    # Continuous actions (Box action spaces), planned with progressive widening.
    Case(
        "Pendulum-v1",
        "Pendulum-v1",
        10,
        "mean >= -200 over 10",
        lambda result: mean_return(result) >= -200.0,
    ),
    Case(
        "MountainCarContinuous-v0",
        "MountainCarContinuous-v0",
        10,
        "flag in 10/10, mean >= 90",
        lambda result: (
            all(goal_reached(r) for r in result.records) and mean_return(result) >= 90.0
        ),
        success=goal_reached,
    ),
    Case(
        "LunarLanderContinuous-v3",
        "LunarLanderContinuous-v3",
        10,
        "mean >= 200 over 10",
        lambda result: mean_return(result) >= 200.0,
        needs="Box2D",
    ),
    Case(
        "PointRobot-v0",
        "mcts_agent/PointRobot-v0",
        10,
        "goal in 10/10",
        lambda result: all(goal_reached(r) for r in result.records),
        success=goal_reached,
    ),
)
"""The suite's envs and the issue's targets. CliffWalking-v1 has no ``TimeLimit`` of its
own: the suite gives it 200 steps (the optimum, 13 steps, is far inside)."""

CASES = {case.name: case for case in SUITE}


def optimum(case: Case) -> str:
    """The optimum in words: value iteration on ``P`` for toy-text envs, else ``case.optimum``."""
    if case.horizon is None:
        return case.optimum or "unknown"
    env = make_env(case.spec)
    try:
        value = start_value(env, case.horizon)
    finally:
        env.close()
    return f"{value:.3f}" if case.name.startswith("FrozenLake") else f"{value:.2f}"


def rl_zoo(case: Case) -> str:
    """The best RL Zoo agent on ``case``'s env, and how many agents the table has there."""
    agents = RL_ZOO.get(case.name)
    if not agents:
        return "not in the table"
    best = max(agents, key=lambda a: a.mean_reward)
    lowest = min(a.mean_reward for a in agents)
    steps = ", ".join(a.n_timesteps for a in agents)
    version = "" if best.env_id == case.name else f" ({best.env_id})"
    spread = (
        f"all {len(agents)} agents"
        if lowest == best.mean_reward
        else f"{len(agents)} agents {lowest:g} to {best.mean_reward:g}"
    )
    return (
        f"{best.algo} {best.mean_reward:g} ± {best.std_reward:g}{version}, "
        f"{spread}, trained {steps} steps"
    )


@dataclass(frozen=True)
class Row:
    """One env's figures (None: skipped or failed, with ``note`` saying why)."""

    case: Case
    episodes: int
    agent: PlanResult | None
    random: PlanResult | None
    optimum: str
    note: str = ""


def play(case: Case, episodes: int, options: dict | None, args: argparse.Namespace) -> PlanResult:
    """Plays ``episodes`` of ``case`` with ``MCTSAgent(**options)`` or random moves (None)."""
    label = "random" if options is None else f"MCTSAgent(time_limit={args.time_limit})"
    with tqdm(total=episodes, unit="episode", desc=f"{case.name} {label}", leave=False) as bar:
        return plan_episodes(
            case.spec,
            options,
            episodes,
            seed=args.seed,
            workers=args.processes,
            on_episode=lambda record: bar.update(),
        )


def run_case(case: Case, args: argparse.Namespace) -> Row:
    """Plays ``case`` with the agent and the random policy; an error becomes the row's note."""
    episodes = args.episodes or case.episodes
    if case.needs is not None and importlib.util.find_spec(case.needs) is None:
        note = f"skipped: {case.needs} is not installed (pip install -e '.[box2d]')"
        return Row(case, episodes, None, None, "", note)
    best = optimum(case)
    random_result = play(case, episodes, None, args)
    try:
        agent_result = play(case, episodes, {"time_limit": args.time_limit}, args)
    except Exception as error:  # reported in the table and the exit status, not hidden
        note = f"error: {type(error).__name__}: {error}"
        return Row(case, episodes, None, random_result, best, note)
    return Row(case, episodes, agent_result, random_result, best)


def interval_text(result: PlanResult) -> str:
    """``mean [low, high]`` of the returns, to 4 significant figures."""
    mean, low, high = result.mean_return()
    return f"{mean:.4g} [{low:.4g}, {high:.4g}]"


def cells(row: Row) -> list[str]:
    """The row's columns: env, episodes, defaults, success, s/step, random, optimum, RL Zoo,
    target, pass."""
    case = row.case
    random = "-" if row.random is None else f"{mean_return(row.random):.4g}"
    if row.agent is None:
        defaults = success = seconds = "-"
        verdict = "skipped" if row.note.startswith("skipped") else "FAIL (error)"
    else:
        defaults = interval_text(row.agent)
        rate = success_rate(case, row.agent)
        success = "-" if rate is None else f"{rate:.3f}"
        seconds = f"{row.agent.seconds_per_move:.3f}"
        verdict = "pass" if case.meets_target(row.agent) else "FAIL"
        if row.episodes != case.episodes:
            verdict += f" (on {row.episodes}, not {case.episodes}, episodes)"
    return [
        case.name,
        str(row.episodes),
        defaults,
        success,
        seconds,
        random,
        row.optimum or "-",
        rl_zoo(case),
        case.target,
        verdict,
    ]


HEADER = [
    "env",
    "episodes",
    "defaults: mean [95% t interval]",
    "success",
    "s/step",
    "random",
    "optimum",
    "RL Zoo (trained)",
    "target",
    "meets target",
]


def table(rows: Sequence[Row], markdown: bool) -> str:
    """The rows as aligned text columns, or as a Markdown table."""
    lines = [HEADER] + [cells(row) for row in rows]
    if markdown:
        out = ["| " + " | ".join(line) + " |" for line in lines]
        out.insert(1, "|" + "---|" * len(HEADER))
        return "\n".join(out)
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines
    )


def main(argv: list[str] | None = None) -> int:
    """Runs the suite; returns 1 if the agent failed on an env, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument(
        "--episodes", type=int, default=None, help="episodes per env (default: the target's)"
    )
    parser.add_argument("--time-limit", type=float, default=0.1, help="seconds per step")
    parser.add_argument("--processes", type=int, default=1, help="episodes in parallel")
    parser.add_argument("--seed", type=int, default=0, help="the master seed")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    if args.episodes is not None and args.episodes < 1:
        parser.error(f"--episodes must be >= 1, got {args.episodes}")
    if args.processes < 1:
        parser.error(f"--processes must be >= 1, got {args.processes}")
    if not args.time_limit > 0:
        parser.error(f"--time-limit must be > 0 seconds, got {args.time_limit}")
    print(describe_machine(("mcts-agent", "gymnasium", "box2d")))
    print(
        f"MCTSAgent(time_limit={args.time_limit}, seed=...), nothing else set; seed {args.seed}, "
        f"{args.processes} process(es); gymnasium {gym.__version__}"
    )
    start = time.perf_counter()
    rows = []
    for name in args.envs:
        row = run_case(CASES[name], args)
        done = row.note or "defaults {}, success {}, {} s/step, random {}".format(*cells(row)[2:6])
        tqdm.write(f"{name}: {done}", file=sys.stderr)
        rows.append(row)
    print(table(rows, args.markdown))
    print(
        "success: FrozenLake, Taxi and the point robot reached the goal, CliffWalking returned "
        "-13, MountainCar (both) reached the flag. optimum: value iteration on P, the "
        "TimeLimit as the horizon."
    )
    print(f"RL Zoo: {RL_ZOO_SOURCE}.")
    print(f"{time.perf_counter() - start:.0f} s")
    return 1 if any(row.note.startswith("error") for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
