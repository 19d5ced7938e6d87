"""ISMCTS iterations per second on Leduc: through PettingZoo's env against ``LeducModel``.

The same positions in both: ``--positions`` deals of ``classic/leduc_holdem-v4``
(``reset(seed=i)``, the player to move at the start of the hand). Each is
searched with information-set MCTS (``MCTS(model, iterations)``, UCB1 with
``c = LEDUC_EXPLORATION``, random rollouts, seed ``i``):

* through the generic adapter: ``PettingZooModel(env)``, a
  ``PettingZooHiddenModel`` whose worlds re-deal a copy of the env's RLCard
  game (every world and every step copies the env's attributes);
* on ``LeducModel`` (``LeducModel.state_of(env)``), what ``MCTSAgent`` plans
  Leduc on by default.

Measured: CPU time (``time.process_time``) of the searches, the two kinds
interleaved in each of ``--repeats`` rounds; the medians give iterations per
second, and their ratio. The models are made before timing (the adapter's
start-up clone check is not counted).

Run::

    python benchmarks/bench_hidden_information.py --positions 10 --iterations 300 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

from pettingzoo.classic import leduc_holdem_v4

from mcts_agent.adapters.pettingzoo import PettingZooModel
from mcts_agent.defaults import LEDUC_EXPLORATION
from mcts_agent.envs.leduc import LeducModel
from mcts_agent.search import MCTS


def time_searches(model, states, iterations: int) -> float:
    """Seconds (CPU) to search every state with ``iterations`` ISMCTS iterations."""
    start = time.process_time()
    for seed, state in enumerate(states):
        planner = MCTS(model, iterations, exploration=LEDUC_EXPLORATION, seed=seed)
        assert planner.hidden
        planner.search(state)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    envs = []
    for seed in range(args.positions):
        env = leduc_holdem_v4.env()
        env.reset(seed=seed)
        envs.append(env)
    adapter = PettingZooModel(envs[0])
    leduc = LeducModel()
    kinds = {
        "PettingZoo adapter": (adapter, [adapter.state_of(env) for env in envs]),
        "LeducModel": (leduc, [leduc.state_of(env) for env in envs]),
    }
    times: dict[str, list[float]] = {name: [] for name in kinds}
    for _ in range(args.repeats):
        for name, (model, states) in kinds.items():
            times[name].append(time_searches(model, states, args.iterations))
    total = args.positions * args.iterations
    rates = {name: total / statistics.median(spent) for name, spent in times.items()}
    print(
        f"{args.positions} Leduc positions x {args.iterations} ISMCTS iterations, "
        f"c = {LEDUC_EXPLORATION}; median of {args.repeats} interleaved repeats (CPU time)"
    )
    for name, rate in rates.items():
        print(f"{name:>20}: {rate:10,.0f} iterations/s")
    ratio = rates["LeducModel"] / rates["PettingZoo adapter"]
    print(f"LeducModel is {ratio:.0f} times as fast as the adapter")


if __name__ == "__main__":
    main()
