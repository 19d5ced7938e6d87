"""Speed of the native Leduc Hold'em model against stepping PettingZoo's env, in one run.

The same hands in both: ``--hands`` deals of ``classic/leduc_holdem_v4``
(``reset(seed=i)``), each played to the end with the same random legal actions
(folds seldom, so most hands reach the showdown). Measured (CPU time, median of
``--repeats`` interleaved runs), in steps per second:

* ``LeducModel``: ``actions`` then ``step`` from ``state_of(env)``;
* the env as a planner would step it: each step clones the raw env (the
  attribute copy of ``PettingZooModel``, ``clone="attributes"``) and steps the
  clone, reading the legal actions;
* ``KuhnModel`` likewise on random Kuhn hands (no env to compare with).

Run::

    python benchmarks/bench_card_models.py --hands 300 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from pettingzoo.classic import leduc_holdem_v4

from mcts_agent.adapters.pettingzoo.cloning import copy_attributes
from mcts_agent.envs.kuhn import KuhnModel
from mcts_agent.envs.leduc import FOLD, LeducModel


def leduc_hands(count: int) -> list[tuple[object, object, list[int]]]:
    """``count`` (raw env after reset, model state, actions to the end) triples."""
    model = LeducModel()
    rng = random.Random(0)
    hands = []
    for seed in range(count):
        env = leduc_holdem_v4.raw_env()
        env.reset(seed=seed)
        state = start = model.state_of(env)
        actions = []
        while model.actions(state):
            legal = model.actions(state)
            unfolded = [a for a in legal if a != FOLD]
            action = rng.choice(unfolded if rng.random() < 0.85 else legal)
            actions.append(action)
            state = model.step(state, action).next_state
        hands.append((env, start, actions))
    return hands


def check_env_steps(hands) -> None:
    """Raises AssertionError unless the cloned envs end every hand with the model's payoffs."""
    model = LeducModel()
    for env, state, actions in hands:
        position = env
        for action in actions:
            position = copy_attributes(position)
            position.step(action)
            state = model.step(state, action).next_state
        assert (position.rewards["player_0"], position.rewards["player_1"]) == model.payoffs(state)


def time_model(model, hands) -> float:
    """Seconds (CPU) to step every hand with ``model`` (``actions`` then ``step``)."""
    actions_, step = model.actions, model.step
    start = time.process_time()
    for _, state, actions in hands:
        for action in actions:
            actions_(state)
            state = step(state, action).next_state
    return time.process_time() - start


def time_env(hands) -> float:
    """Seconds (CPU) to step every hand by cloning the raw env and stepping the clone."""
    start = time.process_time()
    for env, _, actions in hands:
        position = env
        for action in actions:
            position = copy_attributes(position)
            list(position.next_legal_moves)
            position.step(action)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    hands = leduc_hands(args.hands)
    steps = sum(len(actions) for _, _, actions in hands)
    check_env_steps(hands)
    kuhn = KuhnModel()
    rng = random.Random(1)
    kuhn_hands = []
    for _ in range(args.hands * 20):
        state = start = kuhn.initial_state(rng)
        actions = []
        while kuhn.actions(state):
            actions.append(rng.choice(kuhn.actions(state)))
            state = kuhn.step(state, actions[-1]).next_state
        kuhn_hands.append((None, start, actions))
    kuhn_steps = sum(len(actions) for _, _, actions in kuhn_hands)
    times = {"LeducModel": [], "PettingZoo clone + step": [], "KuhnModel": []}
    for _ in range(args.repeats):
        times["LeducModel"].append(time_model(LeducModel(), hands))
        times["PettingZoo clone + step"].append(time_env(hands))
        times["KuhnModel"].append(time_model(kuhn, kuhn_hands))
    rates = {
        "LeducModel": steps / statistics.median(times["LeducModel"]),
        "PettingZoo clone + step": steps / statistics.median(times["PettingZoo clone + step"]),
        "KuhnModel": kuhn_steps / statistics.median(times["KuhnModel"]),
    }
    print(f"{args.hands} Leduc hands, {steps} steps; {len(kuhn_hands)} Kuhn hands")
    for name, rate in rates.items():
        print(f"{name:>24}: {rate:12,.0f} steps/s")
    ratio = rates["LeducModel"] / rates["PettingZoo clone + step"]
    print(f"LeducModel / PettingZoo: {ratio:.0f}x")


if __name__ == "__main__":
    main()
