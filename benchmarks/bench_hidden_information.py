"""ISMCTS iterations per second through PettingZoo's Leduc and Texas against ``LeducModel``.

The same positions for every kind: ``--positions`` deals of each game
(``reset(seed=i)``, the player to move at the start of the hand). Each is
searched with information-set MCTS (``MCTS(model, iterations)``, UCB1 with
``c = LEDUC_EXPLORATION``, random rollouts, seed ``i``):

* Leduc through the generic adapter: ``PettingZooModel(env)`` of
  ``classic/leduc_holdem-v4``, a ``PettingZooHiddenModel`` whose worlds
  re-deal a copy of the env's RLCard game (every world and every step copies
  the env's attributes; the copies hold a stand-in for RLCard's generator and
  share its cards: ``hidden_information``);
* Texas hold'em (limit, two players) through the same adapter,
  ``classic/texas_holdem-v4``;
* Leduc on ``LeducModel`` (``LeducModel.state_of(env)``), what ``MCTSAgent``
  plans Leduc on by default.

Measured: CPU time (``time.process_time``) of the searches, the kinds
interleaved in each of ``--repeats`` rounds; the medians give iterations per
second, and their ratios to ``LeducModel``. The models are made before timing
(the adapter's start-up clone check is not counted).

Run::

    python benchmarks/bench_hidden_information.py --positions 10 --iterations 300 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

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


def dealt(game, positions: int) -> list:
    """``positions`` envs of ``game``, each reset with its index as seed."""
    envs = []
    for seed in range(positions):
        env = game.env()
        env.reset(seed=seed)
        envs.append(env)
    return envs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    leduc_envs = dealt(leduc_holdem_v4, args.positions)
    texas_envs = dealt(texas_holdem_v4, args.positions)
    leduc_adapter = PettingZooModel(leduc_envs[0])
    texas_adapter = PettingZooModel(texas_envs[0])
    leduc = LeducModel()
    kinds = {
        "Leduc, adapter": (leduc_adapter, [leduc_adapter.state_of(env) for env in leduc_envs]),
        "Texas, adapter": (texas_adapter, [texas_adapter.state_of(env) for env in texas_envs]),
        "Leduc, LeducModel": (leduc, [leduc.state_of(env) for env in leduc_envs]),
    }
    times: dict[str, list[float]] = {name: [] for name in kinds}
    for _ in range(args.repeats):
        for name, (model, states) in kinds.items():
            times[name].append(time_searches(model, states, args.iterations))
    total = args.positions * args.iterations
    rates = {name: total / statistics.median(spent) for name, spent in times.items()}
    print(
        f"{args.positions} positions a game x {args.iterations} ISMCTS iterations, "
        f"c = {LEDUC_EXPLORATION}; median of {args.repeats} interleaved repeats (CPU time)"
    )
    native = rates["Leduc, LeducModel"]
    for name, rate in rates.items():
        print(f"{name:>20}: {rate:10,.0f} iterations/s (LeducModel / this: {native / rate:.0f})")


if __name__ == "__main__":
    main()
