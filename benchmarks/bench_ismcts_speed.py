"""Simulations per second of information-set MCTS on Leduc: OpenSpiel's C++ against ours.

Issue 32. Three searches, each from the first decision of ``--deals`` random
deals with ``--iterations`` simulations a search (CPU time, median of
``--repeats`` interleaved runs):

* OpenSpiel 2.0.2's C++ ``pyspiel.ISMCTSBot`` on its ``leduc_poker``
  (``RandomRolloutEvaluator(1, seed)``, c = 4, most visits, as the
  exploitability benchmark), ``get_policy`` from each deal;
* ours, ``MCTS(OpenSpielModel(leduc_poker), iterations=N, exploration=4)``
  (``benchmarks/openspiel_games.py``): the same game, each step a ``pyspiel``
  clone and apply;
* ours on ``mcts_agent.envs.leduc.LeducModel``: Leduc Hold'em as PettingZoo's
  ``leduc_holdem_v4`` (RLCard's rules: blinds 1 and 2, not OpenSpiel's antes,
  payoffs in big blinds, so c = 2 for the same exploration in chips), no
  ``pyspiel``: twice, with the compiled ISMCTS loop of Leduc
  (``mcts_agent/_information_set_loop.c``, :mod:`mcts_agent.compiled_information_sets`)
  and with the pure-Python loop (``mcts_agent/information_sets.py``,
  :func:`mcts_agent.compiled.pure_python`): the same graphs.

On OpenSpielModel our loop is the pure-Python one (the compiled loop plays
LeducModel only).

Run::

    python benchmarks/bench_ismcts_speed.py --iterations 1000 --deals 20 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import pyspiel
from openspiel_games import OpenSpielModel

from mcts_agent import MCTS, core_backend
from mcts_agent.compiled import pure_python
from mcts_agent.envs.leduc import LeducModel

C_CHIPS = 4.0
"""Exploration in chips (OpenSpiel's Leduc payoffs); LeducModel's are in big blinds (2 chips)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    game = pyspiel.load_game("leduc_poker")
    openspiel_model = OpenSpielModel(game)
    leduc_model = LeducModel()
    rng = random.Random(0)
    openspiel_roots = [openspiel_model.initial_state(rng) for _ in range(args.deals)]
    leduc_roots = [leduc_model.initial_state(rng) for _ in range(args.deals)]

    def openspiel_bot(seed: int) -> None:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.ISMCTSBot(
            seed,
            evaluator,
            C_CHIPS,
            args.iterations,
            -1,
            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            False,
            False,
        )
        for root in openspiel_roots:
            bot.get_policy(root.state)

    def ours_openspiel(seed: int) -> None:
        planner = MCTS(openspiel_model, iterations=args.iterations, exploration=C_CHIPS, seed=seed)
        for root in openspiel_roots:
            planner.search(root)

    def ours_leduc(seed: int) -> None:
        planner = MCTS(leduc_model, iterations=args.iterations, exploration=C_CHIPS / 2, seed=seed)
        for root in leduc_roots:
            planner.search(root)

    def ours_leduc_pure(seed: int) -> None:
        with pure_python():
            ours_leduc(seed)

    runs = {
        "OpenSpiel C++ ISMCTSBot (leduc_poker)": openspiel_bot,
        "ours, OpenSpielModel (leduc_poker)": ours_openspiel,
        f"ours, LeducModel, {core_backend()} loop": ours_leduc,
        "ours, LeducModel, pure-Python loop": ours_leduc_pure,
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    for repeat in range(args.repeats):
        for name, run in runs.items():
            start = time.process_time()
            run(repeat)
            times[name].append(time.process_time() - start)
    simulations = args.iterations * args.deals
    rates = {name: simulations / statistics.median(t) for name, t in times.items()}
    print(
        f"{args.deals} deals x {args.iterations} simulations, median of {args.repeats} "
        f"interleaved runs (CPU time)"
    )
    reference = rates["OpenSpiel C++ ISMCTSBot (leduc_poker)"]
    for name, rate in rates.items():
        print(f"{name:>38}: {rate:10,.0f} simulations/s  ({rate / reference:.2f}x OpenSpiel's)")
    compiled_rate = rates[f"ours, LeducModel, {core_backend()} loop"]
    pure_rate = rates["ours, LeducModel, pure-Python loop"]
    print(f"LeducModel: the {core_backend()} loop is {compiled_rate / pure_rate:.1f}x the pure one")


if __name__ == "__main__":
    main()
