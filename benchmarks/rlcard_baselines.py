"""RLCard's own agents on PettingZoo's Leduc Hold'em: reference payoffs for issue 32.

Prints, in big blinds per hand with a 95% interval (seats swapped, the same
deals in both seatings; ``mcts_agent.evaluation.payoff_per_hand``), RLCard's
CFR agent against random and RLCard's rule agent v1 against CFR, and the time
``leduc-holdem-cfr`` takes to load. The issue's references (RLCard 1.2.0):
+0.654 and -0.33.

Run: ``python benchmarks/rlcard_baselines.py [--hands 2000] [--seed 0]``
(about 2 s a 1,000 hands a pairing on one core). Needs ``pip install -e '.[rlcard]'``.
"""

import argparse
import time

from mcts_agent.evaluation import RandomPlayer, RLCardPlayer, payoff_per_hand
from mcts_agent.evaluation.rlcard_players import RLCardAgent

LEDUC = "classic/leduc_holdem-v4"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands a pairing (even)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    RLCardAgent("leduc-holdem-cfr", 0)
    print(
        f"leduc-holdem-cfr loads in {time.perf_counter() - start:.2f} s (rlcard's import included)"
    )
    cfr, rule = RLCardPlayer("leduc-holdem-cfr"), RLCardPlayer("leduc-holdem-rule-v1")
    pairings = [
        ("CFR vs random", cfr, RandomPlayer(), "+0.654"),
        ("rule-v1 vs CFR", rule, cfr, "-0.33"),
    ]
    for name, player, opponent, reference in pairings:
        start = time.perf_counter()
        result = payoff_per_hand(LEDUC, player, opponent, args.hands, args.seed)
        print(
            f"{name}: {result.mean:+.3f} ± {result.half_width:.3f} big blinds a hand over "
            f"{result.hands} hands (reference {reference}; "
            f"{time.perf_counter() - start:.1f} s)"
        )


if __name__ == "__main__":
    main()
