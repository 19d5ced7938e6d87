"""MCTS iterations per second on Gymnasium envs with and without the native rollouts, in one run.

For each deterministic env the compiled core has a rollout of
(``mcts_agent/_gym_rollouts.c``): Taxi-v4, FrozenLake-v1 (4x4, not slippery),
CliffWalking-v1, CartPole-v1, MountainCar-v0 and Acrobot-v1, the compiled
plain loop searches from the env's reset position with the native rollout
(``GymnasiumModel.native_rollout``) and with the Python fused rollout (a
subclass whose ``native_rollout`` returns None); the two are run in turn,
``--repeats`` times (interleaved), and the medians are printed with their
ratio. The trees are the same either way (tests/test_gym_native_rollouts.py).
Then the iterations that one search with ``time_limit=0.1`` (``MCTSAgent``'s
default) runs, the same way.

Then the continuous envs, Pendulum-v1, MountainCarContinuous-v0 and our
point robot, mcts_agent/PointRobot-v0 (sampled ``Box`` actions, planned by
the general loop with progressive widening, which calls
``GymnasiumModel.rollout``): one rollout of 200 moves (the robot's episode
ends at 100 steps, the rollouts with it, or at a crash or the goal) through
``model.rollout`` (native: the capsule through the core's ``call_native``)
against the Python rollout (``NativeRollouts.python_rollout``), from the
reset position, the same seeds, interleaved; and the iterations of a
``time_limit=0.1`` search with and without the native rollout.

Usage::

    python benchmarks/bench_gym_native_rollouts.py [--repeats 5] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import gymnasium as gym

import mcts_agent.envs  # noqa: F401 (registers mcts_agent/PointRobot-v0)
from mcts_agent import MCTS, core_backend
from mcts_agent.adapters import GymnasiumModel

CONTINUOUS = ["Pendulum-v1", "MountainCarContinuous-v0", "mcts_agent/PointRobot-v0"]
ROLLOUTS = 20  # rollouts of 200 moves per timing

CASES = [  # env id, arguments, iterations per search (at --scale 1)
    ("Taxi-v4", {}, 1000),
    ("FrozenLake-v1", {"is_slippery": False}, 5000),
    ("CliffWalking-v1", {}, 300),
    ("CartPole-v1", {}, 3000),
    ("MountainCar-v0", {}, 100),
    ("Acrobot-v1", {}, 15),
]


class PythonRollouts(GymnasiumModel):
    """The same model, without the native rollout: the core calls the Python fused rollout."""

    def native_rollout(self) -> None:
        """None: no capsule (the compiled loop then calls ``rollout``)."""
        return None


def iterations_per_second(model: GymnasiumModel, env: gym.Env, iterations: int) -> float:
    """One search of ``iterations`` from the env's position (seed 0, value normalisation on)."""
    planner = MCTS(model, iterations=iterations, seed=0, value_normalization=True)
    state = model.state_of(env)
    start = time.perf_counter()
    planner.search(state)
    return iterations / (time.perf_counter() - start)


def iterations_in(model: GymnasiumModel, env: gym.Env, seconds: float) -> float:
    """The iterations of one search with ``time_limit=seconds`` from the env's position."""
    planner = MCTS(model, time_limit=seconds, seed=0, value_normalization=True)
    planner.search(model.state_of(env))
    return planner.summary().iterations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="times the iterations")
    parser.add_argument("--continuous-only", action="store_true", help="the continuous envs only")
    args = parser.parse_args()
    if core_backend() != "compiled":
        raise SystemExit("the compiled core is off (MCTS_AGENT_PURE_PYTHON=1 or not built)")
    if args.continuous_only:
        continuous(args.repeats)
        return
    print(f"compiled plain loop; medians of {args.repeats} interleaved searches\n")
    header = (
        f"{'env':16s} {'iterations':>10s} {'it/s native':>12s} {'it/s Python':>12s} {'ratio':>7s}"
    )
    print(header)
    print("-" * len(header))
    models = {}
    for env_id, kwargs, iterations in CASES:
        iterations = max(1, round(iterations * args.scale))
        env = gym.make(env_id, **kwargs)
        env.reset(seed=0)
        native, python = GymnasiumModel(env), PythonRollouts(env)
        if native.native_rollout() is None:
            raise SystemExit(f"{env_id}: no native rollout ({native.native_rollout_refusal})")
        models[env_id] = env, native, python
        speeds: dict[str, list[float]] = {"native": [], "python": []}
        for _ in range(args.repeats):
            speeds["native"].append(iterations_per_second(native, env, iterations))
            speeds["python"].append(iterations_per_second(python, env, iterations))
        fast, slow = (statistics.median(speeds[k]) for k in ("native", "python"))
        print(f"{env_id:16s} {iterations:10d} {fast:12.0f} {slow:12.0f} {fast / slow:6.1f}x")
    print(f"\niterations of a search with time_limit=0.1 (medians of {args.repeats})\n")
    header = f"{'env':16s} {'native':>10s} {'Python':>10s} {'ratio':>7s}"
    print(header)
    print("-" * len(header))
    for env_id, (env, native, python) in models.items():
        counts: dict[str, list[float]] = {"native": [], "python": []}
        for _ in range(args.repeats):
            counts["native"].append(iterations_in(native, env, 0.1))
            counts["python"].append(iterations_in(python, env, 0.1))
        fast, slow = (statistics.median(counts[k]) for k in ("native", "python"))
        print(f"{env_id:16s} {fast:10.0f} {slow:10.0f} {fast / slow:6.1f}x")

    continuous(args.repeats)


def rollouts_per_second(rollout, state, seed: int) -> float:
    """:data:`ROLLOUTS` rollouts of 200 moves (gamma 0.99) from ``state``, seeds from ``seed``."""
    start = time.perf_counter()
    for k in range(ROLLOUTS):
        rollout(state, random.Random(seed + k), 200, 0.99)
    return ROLLOUTS / (time.perf_counter() - start)


def continuous(repeats: int) -> None:
    """The continuous envs: rollouts per second and iterations in 0.1 s, native and Python."""
    print(f"\ncontinuous envs, 200-move rollouts (medians of {repeats} interleaved)\n")
    header = (
        f"{'env':26s} {'rollouts/s native':>17s} {'Python':>8s} {'ratio':>7s}"
        f" {'it in 0.1 s native':>19s} {'Python':>7s} {'ratio':>7s}"
    )
    print(header)
    print("-" * len(header))
    for env_id in CONTINUOUS:
        env = gym.make(env_id)
        env.reset(seed=0)
        native, python = GymnasiumModel(env), PythonRollouts(env)
        if native.native_rollout() is None:
            raise SystemExit(f"{env_id}: no native rollout ({native.native_rollout_refusal})")
        state = native.state_of(env)
        rates: dict[str, list[float]] = {"native": [], "python": []}
        counts: dict[str, list[float]] = {"native": [], "python": []}
        for r in range(repeats):
            rates["native"].append(rollouts_per_second(native.rollout, state, 100 * r))
            rates["python"].append(
                rollouts_per_second(native._native_rollouts.python_rollout, state, 100 * r)
            )
            counts["native"].append(iterations_in(native, env, 0.1))
            counts["python"].append(iterations_in(python, env, 0.1))
        fast, slow = (statistics.median(rates[k]) for k in ("native", "python"))
        many, few = (statistics.median(counts[k]) for k in ("native", "python"))
        print(
            f"{env_id:26s} {fast:17.0f} {slow:8.0f} {fast / slow:6.0f}x"
            f" {many:19.0f} {few:7.0f} {many / few:6.1f}x"
        )


if __name__ == "__main__":
    main()
