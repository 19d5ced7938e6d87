"""Chance nodes (issue 18): MCTS in slippery FrozenLake and in Pig, with the optimum beside it.

Sections (``--sections``, all by default):

* ``frozenlake``: FrozenLake 4x4, ``is_slippery=True``, 100-step limit
  (``gymnasium.make``'s ``TimeLimit``). Success rate of :class:`MCTSAgent`
  (chance nodes; random rollouts, c = sqrt(2), gamma = 1) at each of
  ``--iterations`` per move over ``--episodes`` episodes (episode ``i``:
  ``env.reset(seed=--seed + i)``, agent seeded ``--seed + i``), against a
  planner that keeps one draw per edge (the plain loop on a model whose
  ``step`` is one draw from the env's table, drawn from its own seeded
  generator: what planning without chance nodes does). Beside them, the
  optimal policy's success probability (finite-horizon value iteration on
  ``P``: 0.744 from the start) and the uniformly random policy's (0.014;
  the issue quotes 0.012), both exact. ``--planners cautious onedraw-cautious``
  compares the two with :class:`~mcts_agent.rollout_policies.CautiousRolloutPolicy`
  rollouts; ``--reuse`` gives every planner ``reuse_tree=True``.
* ``expected``: the planner's expected success in FrozenLake (``--map``),
  worked out exactly from its move distribution in every cell (``--reps``
  searches per cell; :func:`run_expected`): far less noise than episodes.
* ``pig``: Pig to 30 (:mod:`mcts_agent.envs.pig`): MCTS (c = 2 * sqrt(2),
  returns in [-1, 1], random rollouts) at ``--pig-iterations`` per move
  against the optimal policy, ``--games`` games, seats alternating (game
  ``i``: dice and planner seeded ``--seed + i``). Beside it, the exact
  scores of the optimal policy (0.5) and of holding at 10 (0.3375) against it.

* ``wide``: the cost of drawing from a model with many outcomes (issue 28):
  :class:`WideDice`, ``--outcomes`` equally likely outcomes per move (100,000
  by default), its tables built once, so the search's own work is what is
  timed: seconds for one search of ``--wide-iterations`` (300), median of
  ``--repeats`` (3). A rollout's draw reads every probability (one pass, no
  full check of the answer; ``docs/guides/chance.md``), so the time grows
  with the outcomes.

* ``speed``: iterations per second of the compiled chance loop
  (``mcts_agent/_chance_loop.c``, issue 30) against the pure-Python general
  loop, side by side in the same run: one search of ``--speed-iterations``
  (10,000) from the start of slippery FrozenLake 4x4 and 8x8, slippery
  CliffWalking (``rollout_limit=100``: its random walks run for hundreds of
  steps) and Pig to 30, defaults otherwise; ``--repeats`` searches per backend,
  interleaved (compiled, pure, compiled, ...; seed ``--seed + repeat``, the
  same trees on both), medians. ``--value-normalization`` turns it on for both.
* ``cautious-speed``: the same with :class:`~mcts_agent.rollout_policies.CautiousRolloutPolicy`
  rollouts (a new policy per search) in slippery FrozenLake 4x4 and 8x8: the
  compiled loop playing the policy in C (``GymnasiumModel.native_chance_for``),
  the compiled loop calling the Python policy at every move (a subclass of it,
  which keeps the Python path) and the pure-Python loop, interleaved repeats,
  medians.

Rates come with Wilson's 95% score interval.

Run: ``python benchmarks/bench_chance.py`` (hours); ``--episodes 100 --games 100
--iterations 100 1000`` for less; ``--workers 2`` plays episodes in parallel processes.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import gymnasium as gym
from bench_guided import wilson
from exact_values import start_value
from machine import describe_machine

from mcts_agent import MCTS, MCTSAgent, StepResult, compiled
from mcts_agent.adapters import GymnasiumModel
from mcts_agent.envs.pig import HoldAtPolicy, OptimalPigPolicy, PigModel, match_probability
from mcts_agent.rollout_policies import CautiousRolloutPolicy

PIG_C = 2 * math.sqrt(2)


# ------------------------------------------------------------------ FrozenLake


MAPS = {"4x4": 100, "8x8": 200}
"""FrozenLake's maps and the step limits the issue plays them with."""


def frozen_lake(seed: int, map_name: str = "4x4") -> gym.Env:
    env = gym.make(
        "FrozenLake-v1", is_slippery=True, map_name=map_name, max_episode_steps=MAPS[map_name]
    )
    env.reset(seed=seed)
    return env


def exact_success(policy: str, map_name: str = "4x4") -> float:
    """Success probability from the start within the step limit: optimal or uniform random."""
    return start_value(frozen_lake(0, map_name), MAPS[map_name], policy)


class OneDraw:
    """The table's model with one draw per call of ``step`` from its own generator.

    The plain loop steps each edge once, so its tree keeps that draw for ever:
    planning as if the first dice thrown were the only ones.
    """

    def __init__(self, model: GymnasiumModel, seed: int) -> None:
        self.model = model
        self.rng = random.Random(seed)

    def actions(self, state):
        return self.model.actions(state)

    def player(self, state):
        return 0

    def step(self, state, action) -> StepResult:
        u = self.rng.random()
        running = 0.0
        outcomes = self.model.outcomes(state, action)
        for p, result in outcomes:
            running += p
            if u < running:
                return result
        return outcomes[-1][1]


PLANNERS = {
    "chance": "MCTSAgent (chance nodes)",
    "onedraw": "one draw per edge",
    "cautious": "chance + cautious rollouts",
    "onedraw-cautious": "one draw + cautious rollouts",
}
"""The planners of the FrozenLake section (``--planners``)."""


def table_planner(kind: str, model: GymnasiumModel, seed: int, **options) -> MCTS:
    """The ``MCTS`` of planner ``kind`` on ``model``: chance nodes, or one draw per edge
    (``onedraw...``); random rollouts, or cautious ones (``...cautious``)."""
    if kind.endswith("cautious"):
        options["rollout_policy"] = CautiousRolloutPolicy(model)
    planned = OneDraw(model, seed) if kind.startswith("onedraw") else model
    return MCTS(planned, seed=seed, **options)


def frozen_lake_episode(job: tuple) -> tuple[bool, int, float]:
    """Plays one episode; returns (success, steps, CPU seconds)."""
    planner_kind, iterations, seed, map_name, exploration, gamma, reuse = job
    env = frozen_lake(seed, map_name)
    start = time.process_time()
    options = {
        "iterations": iterations,
        "seed": seed,
        "exploration": exploration,
        "gamma": gamma,
        "reuse_tree": reuse,
    }
    if planner_kind == "chance":
        agent = MCTSAgent(**options)
        act = agent.act
    else:
        model = GymnasiumModel(env)
        planner = table_planner(planner_kind, model, **options)

        def act(env):
            return model.to_env_action(planner(model.state_of(env)))

    steps = 0
    while True:
        _, reward, terminated, truncated, _ = env.step(act(env))
        steps += 1
        if terminated or truncated:
            return reward > 0, steps, time.process_time() - start


def run_frozen_lake(args: argparse.Namespace, pool: ProcessPoolExecutor | None) -> None:
    map_name = args.map
    print(
        f"FrozenLake {map_name} slippery, {MAPS[map_name]}-step limit: optimal "
        f"{exact_success('optimal', map_name):.3f}, uniformly random "
        f"{exact_success('random', map_name):.3f} (exact); c = {args.exploration:.4g}, "
        f"gamma = {args.gamma:g}, reuse_tree={args.reuse}"
    )
    print(
        f"{'planner':<28}{'iterations':>11}{'episodes':>9}{'success':>9}  95% interval"
        f"{'steps':>8}{'CPU s/ep':>10}"
    )
    for iterations in args.iterations:
        for kind in args.planners:
            jobs = [
                (
                    kind,
                    iterations,
                    args.seed + i,
                    map_name,
                    args.exploration,
                    args.gamma,
                    args.reuse,
                )
                for i in range(args.episodes)
            ]
            results = list(
                pool.map(frozen_lake_episode, jobs) if pool else map(frozen_lake_episode, jobs)
            )
            rate = sum(r[0] for r in results) / len(results)
            low, high = wilson(rate, len(results))
            steps = sum(r[1] for r in results) / len(results)
            cpu = sum(r[2] for r in results) / len(results)
            print(
                f"{PLANNERS[kind]:<28}{iterations:>11}{len(results):>9}{rate:>9.3f}  "
                f"[{low:.3f}, {high:.3f}]{steps:>8.1f}{cpu:>10.2f}",
                flush=True,
            )


def cell_moves(job: tuple) -> list[int]:
    """The moves of ``reps`` searches (seeds 0..reps-1) from one cell, all steps left."""
    planner_kind, iterations, cell, reps, map_name, exploration, gamma = job
    env = frozen_lake(0, map_name)
    env.unwrapped.s = cell
    model = GymnasiumModel(env)
    state = model.state_of(env)
    moves = []
    for seed in range(reps):
        planner = table_planner(
            planner_kind,
            model,
            iterations=iterations,
            seed=seed,
            exploration=exploration,
            gamma=gamma,
        )
        moves.append(model.to_env_action(planner(state)))
    return moves


def run_expected(args: argparse.Namespace, pool: ProcessPoolExecutor | None) -> None:
    """The planner's expected success: its move distribution per cell, evaluated on ``P``.

    From every cell that is neither a hole nor the goal, with the whole step
    limit left, ``--reps`` searches give the planner's move distribution
    there; value iteration of that stationary policy on ``P`` over the step
    limit gives its success probability from the start. An estimate of the
    planner that ignores that its moves depend on the steps left, with far
    less noise than played episodes.
    """
    map_name = args.map
    env = frozen_lake(0, map_name).unwrapped
    table, cells = env.P, env.desc.flatten()
    print(
        f"FrozenLake {map_name} slippery: expected success of the planner's move distribution "
        f"({args.reps} searches per cell), c = {args.exploration:.4g}, gamma = {args.gamma:g}"
    )
    for iterations in args.iterations:
        for kind in args.planners:
            playable = [s for s in range(len(cells)) if cells[s] not in (b"H", b"G")]
            jobs = [
                (kind, iterations, s, args.reps, map_name, args.exploration, args.gamma)
                for s in playable
            ]
            moves = list(pool.map(cell_moves, jobs) if pool else map(cell_moves, jobs))
            policy = {s: [0.25] * 4 for s in range(len(cells))}
            for s, chosen in zip(playable, moves, strict=True):
                policy[s] = [chosen.count(a) / len(chosen) for a in range(4)]
            value = [0.0] * len(cells)
            for _ in range(MAPS[map_name]):
                value = [
                    sum(
                        policy[s][a]
                        * sum(
                            p * (r + (0.0 if done else value[n])) for p, n, r, done in table[s][a]
                        )
                        for a in range(4)
                    )
                    for s in range(len(cells))
                ]
            print(f"{PLANNERS[kind]:<28}{iterations:>11} iterations: {value[0]:.3f}", flush=True)


# ------------------------------------------------------------------ Pig


def pig_game(job: tuple[int, int, int]) -> tuple[float, float]:
    """One game of Pig to 30; MCTS is player 1 in even games. Returns (MCTS won, CPU s)."""
    iterations, seed, index = job
    model = PigModel(30)
    planner = MCTS(model, iterations=iterations, exploration=PIG_C, seed=seed)
    optimal = OptimalPigPolicy(30)
    dice = random.Random(seed)
    mcts_player = 1 if index % 2 == 0 else 2
    state = model.initial_state()
    start = time.process_time()
    while True:
        action = planner(state) if state.player == mcts_player else optimal(state)
        outcomes = model.outcomes(state, action)
        state, _, over = dice.choices([r for _, r in outcomes], [p for p, _ in outcomes])[0]
        if over:  # the player to move in the final state lost
            return float(state.player != mcts_player), time.process_time() - start


def run_pig(args: argparse.Namespace, pool: ProcessPoolExecutor | None) -> None:
    optimal = OptimalPigPolicy(30)
    _, hold = match_probability(HoldAtPolicy(10).decide, optimal.decide, 30)
    first, alternating = match_probability(optimal.decide, optimal.decide, 30)
    print(
        f"Pig to 30 against the optimal policy (exact): optimal {alternating:.4f} "
        f"(first player wins {first:.4f}), hold at 10 {hold:.4f}"
    )
    print(
        f"{'player':<14}{'iterations':>11}{'games':>7}{'score':>8}  95% interval{'CPU s/game':>12}"
    )
    for iterations in args.pig_iterations:
        jobs = [(iterations, args.seed + i, i) for i in range(args.games)]
        results = list(pool.map(pig_game, jobs) if pool else map(pig_game, jobs))
        score = sum(r[0] for r in results) / len(results)
        low, high = wilson(score, len(results))
        cpu = sum(r[1] for r in results) / len(results)
        print(
            f"{'MCTS':<14}{iterations:>11}{len(results):>7}{score:>8.3f}  "
            f"[{low:.3f}, {high:.3f}]{cpu:>12.2f}",
            flush=True,
        )


# ------------------------------------------------------------------ many outcomes


class WideDice:
    """One player, two actions, ``n`` equally likely outcomes per move, ``depth`` moves.

    Outcome k of move t leads to ``(t + 1, k)`` and pays ``(k % 7) / 7 * (a + 1) / 2``
    for action a; the tables are built once per (t, action), so ``outcomes``
    costs nothing but a dict lookup.
    """

    def __init__(self, n: int, depth: int = 4) -> None:
        self.n, self.depth = n, depth
        self._tables: dict[tuple[int, int], list] = {}
        for t in range(depth):
            for action in (0, 1):
                self.outcomes((t, 0), action)

    def actions(self, state):
        return () if state[0] >= self.depth else (0, 1)

    def player(self, state):
        return 0

    def outcomes(self, state, action):
        t = state[0]
        table = self._tables.get((t, action))
        if table is None:
            p, done = 1.0 / self.n, t + 1 >= self.depth
            table = self._tables[(t, action)] = [
                (p, StepResult((t + 1, k), (k % 7) / 7.0 * (action + 1) / 2, done))
                for k in range(self.n)
            ]
        return table


def run_wide(args: argparse.Namespace) -> None:
    model = WideDice(args.outcomes)
    times = []
    for _ in range(args.repeats):
        planner = MCTS(model, args.wide_iterations, seed=args.seed)
        start = time.perf_counter()
        planner.search((0, 0))
        times.append(time.perf_counter() - start)
    seconds = sorted(times)[len(times) // 2]
    print(
        f"\nmany outcomes: {args.outcomes} per move, {args.wide_iterations} iterations: "
        f"{seconds:.2f} s a search (median of {args.repeats}), "
        f"{args.wide_iterations / seconds:.1f} it/s; {len(planner.tree)} nodes",
        flush=True,
    )


def speed_cases() -> list[tuple[str, object, object, dict]]:
    """(name, model, state, options) of the speed section."""
    cases = []
    for name, env_id, kwargs, options in (
        ("FrozenLake 4x4", "FrozenLake-v1", {"is_slippery": True}, {}),
        ("FrozenLake 8x8", "FrozenLake-v1", {"is_slippery": True, "map_name": "8x8"}, {}),
        ("CliffWalking", "CliffWalking-v1", {"is_slippery": True}, {"rollout_limit": 100}),
    ):
        env = gym.make(env_id, **kwargs)
        env.reset(seed=0)
        model = GymnasiumModel(env)
        cases.append((name, model, model.state_of(env), options))
    pig = PigModel()
    cases.append(("Pig to 30", pig, pig.initial_state(), {"exploration": PIG_C}))
    return cases


def run_speed(args: argparse.Namespace) -> None:
    """Compiled and pure chance loops, interleaved repeats, median iterations per second."""
    print(
        f"\nspeed: one search of {args.speed_iterations} iterations, {args.repeats} repeats "
        f"per backend, interleaved, medians (value_normalization={args.value_normalization})"
    )
    print(f"{'case':<16}{'compiled it/s':>15}{'pure it/s':>12}{'speed-up':>10}  nodes")
    for name, model, state, options in speed_cases():
        rates: dict[bool, list[float]] = {False: [], True: []}
        nodes = set()
        for repeat in range(args.repeats):
            for pure in (False, True):
                planner = MCTS(
                    model,
                    args.speed_iterations,
                    seed=args.seed + repeat,
                    value_normalization=args.value_normalization,
                    **options,
                )
                with compiled.pure_python() if pure else contextlib.nullcontext():
                    start = time.perf_counter()
                    planner.search(state)
                    rates[pure].append(args.speed_iterations / (time.perf_counter() - start))
                nodes.add(len(planner.tree))
        fast, slow = (statistics.median(rates[pure]) for pure in (False, True))
        print(
            f"{name:<16}{fast:>15,.0f}{slow:>12,.0f}{fast / slow:>9.1f}x  "
            f"{'/'.join(str(n) for n in sorted(nodes))}",
            flush=True,
        )


class PythonCautious(CautiousRolloutPolicy):
    """The cautious policy, called in Python at every rollout move (not its exact class)."""


CAUTIOUS_BACKENDS = {
    "compiled, native policy": (CautiousRolloutPolicy, False),
    "compiled, Python policy": (PythonCautious, False),
    "pure Python": (CautiousRolloutPolicy, True),
}


def run_cautious_speed(args: argparse.Namespace) -> None:
    """Cautious rollouts: native, Python policy in the compiled loop, pure; interleaved, medians."""
    print(
        f"\ncautious-speed: one search of {args.speed_iterations} iterations with "
        f"CautiousRolloutPolicy rollouts, {args.repeats} repeats per backend, interleaved, "
        f"medians, iterations per second (value_normalization={args.value_normalization})"
    )
    print(f"{'case':<16}" + "".join(f"{label:>26}" for label in CAUTIOUS_BACKENDS) + "  speed-up")
    for name, model, state, options in speed_cases()[:2]:
        rates: dict[str, list[float]] = {label: [] for label in CAUTIOUS_BACKENDS}
        for repeat in range(args.repeats):
            for label, (policy_class, pure) in CAUTIOUS_BACKENDS.items():
                planner = MCTS(
                    model,
                    args.speed_iterations,
                    seed=args.seed + repeat,
                    value_normalization=args.value_normalization,
                    rollout_policy=policy_class(model),
                    **options,
                )
                with compiled.pure_python() if pure else contextlib.nullcontext():
                    start = time.perf_counter()
                    planner.search(state)
                    rates[label].append(args.speed_iterations / (time.perf_counter() - start))
        medians = [statistics.median(rates[label]) for label in CAUTIOUS_BACKENDS]
        print(
            f"{name:<16}"
            + "".join(f"{rate:>26,.0f}" for rate in medians)
            + f"  {medians[0] / medians[2]:.1f}x pure, "
            + f"{medians[0] / medians[1]:.1f}x Python policy",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sections",
        nargs="+",
        default=["frozenlake", "pig"],
        choices=["frozenlake", "expected", "pig", "wide", "speed", "cautious-speed"],
    )
    parser.add_argument("--speed-iterations", type=int, default=10_000, help="(speed sections)")
    parser.add_argument("--value-normalization", action="store_true", help="(speed sections)")
    parser.add_argument("--outcomes", type=int, default=100_000, help="outcomes a move (wide)")
    parser.add_argument("--wide-iterations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3, help="searches timed (wide, speed)")
    parser.add_argument("--reps", type=int, default=100, help="searches per cell (expected)")
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--map", choices=sorted(MAPS), default="4x4")
    parser.add_argument(
        "--planners", nargs="+", choices=list(PLANNERS), default=["chance", "onedraw"]
    )
    parser.add_argument("--exploration", type=float, default=math.sqrt(2))
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument(
        "--reuse", action="store_true", help="reuse_tree=True for the FrozenLake episodes"
    )
    parser.add_argument("--iterations", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--pig-iterations", type=int, nargs="+", default=[1000, 3000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    print(describe_machine())
    print(" ".join(["python", *sys.argv]))
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    try:
        if "frozenlake" in args.sections:
            run_frozen_lake(args, pool)
        if "expected" in args.sections:
            run_expected(args, pool)
        if "pig" in args.sections:
            run_pig(args, pool)
        if "wide" in args.sections:
            run_wide(args)
        if "speed" in args.sections:
            run_speed(args)
        if "cautious-speed" in args.sections:
            run_cautious_speed(args)
    finally:
        if pool:
            pool.shutdown()


if __name__ == "__main__":
    main()
