"""Planning speed through GymnasiumModel: snapshot/restore versus deepcopy, in one run.

Prints, for CartPole-v1, FrozenLake-v1 (4x4 and 8x8, not slippery) and
Taxi-v4:

* the cost of one clone-and-step (``model.step`` from a state) and of the raw
  copies (``copy.deepcopy`` of the ``gym.make`` env and of ``env.unwrapped``);
* MCTS iterations per second with each clone method (the same seed, so the
  same tree where both methods step the same way);
* the speed-up of the snapshot over deepcopy; the target is >= 5x on CartPole.

Usage::

    python benchmarks/bench_gymnasium_adapter.py [--iterations 300] [--repeats 3]
"""

from __future__ import annotations

import argparse
import copy

import gymnasium as gym
from timing import best_time

from mcts_agent import MCTS
from mcts_agent.adapters import GymnasiumModel

CASES = [
    ("CartPole-v1", {}, 50),
    ("FrozenLake-v1", {"is_slippery": False}, 100),
    ("FrozenLake-v1", {"is_slippery": False, "map_name": "8x8"}, 100),
    ("Taxi-v4", {}, 50),
]
TARGET_CARTPOLE = 5.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"MCTS iterations per search: {args.iterations}; best of {args.repeats} runs\n")
    header = (
        f"{'env':28s} {'deepcopy make':>13s} {'deepcopy inner':>14s} {'step snap':>10s} "
        f"{'step deep':>10s} {'it/s snap':>10s} {'it/s deep':>10s} {'speed-up':>8s}"
    )
    print(header)
    print("-" * len(header))
    speedups = {}
    for env_id, kwargs, rollout_limit in CASES:
        env = gym.make(env_id, **kwargs)
        env.reset(seed=0)
        label = env_id + (" 8x8" if kwargs.get("map_name") == "8x8" else "")
        copy_make = best_time(lambda env=env: copy.deepcopy(env), args.repeats, 20)
        copy_inner = best_time(lambda env=env: copy.deepcopy(env.unwrapped), args.repeats, 20)
        row = {}
        for clone in (None, "deepcopy"):
            model = GymnasiumModel(env, clone=clone)
            state = model.state_of(env)
            action = state.actions[0]
            step = best_time(lambda m=model, s=state, a=action: m.step(s, a), args.repeats, 200)
            planner = MCTS(model, args.iterations, rollout_limit=rollout_limit, seed=0)
            search = best_time(lambda p=planner, s=state: p.search(s), args.repeats)
            row[clone] = (step, args.iterations / search)
        speedup = row[None][1] / row["deepcopy"][1]
        speedups[label] = speedup
        print(
            f"{label:28s} {copy_make * 1e6:10.1f} us {copy_inner * 1e6:11.1f} us "
            f"{row[None][0] * 1e6:7.1f} us {row['deepcopy'][0] * 1e6:7.1f} us "
            f"{row[None][1]:10.0f} {row['deepcopy'][1]:10.0f} {speedup:7.1f}x"
        )
    cartpole = speedups["CartPole-v1"]
    verdict = "meets" if cartpole >= TARGET_CARTPOLE else "MISSES"
    print(
        f"\nCartPole: snapshot/restore plans {cartpole:.1f}x as many iterations per second as "
        f"deepcopy ({verdict} the target of {TARGET_CARTPOLE:.0f}x)"
    )


if __name__ == "__main__":
    main()
