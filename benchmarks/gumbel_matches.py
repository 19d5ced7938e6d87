"""Gumbel search against PUCT at small budgets: connect four, the same evaluator for both.

Both players search ``ConnectFourModel`` with ``heuristic_evaluator``; Gumbel
(``selection="gumbel"``, ``considered_actions`` 16, ``c_visit`` 50, ``c_scale`` 0.1)
against PUCT (``exploration`` 1.0), at each budget of ``--iterations``, seats
alternating, every pair of games opened by ``--opening-plies`` random moves (PUCT with an
evaluator is deterministic: without them a seat would replay one game). It prints each
budget's wins, draws and losses of Gumbel and its score with a 95% Wilson interval.

Run::

    python benchmarks/gumbel_matches.py --iterations 8 16 32 64 --games 100
"""

from __future__ import annotations

import argparse

from mcts_agent.envs.connect_four import heuristic_evaluator
from mcts_agent.evaluation import MCTSPlayer, make_game, play_match
from mcts_agent.evaluation.ratings import score_interval


def main() -> None:
    """Plays the matches and prints one line a budget."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, nargs="+", default=[8, 16, 32, 64])
    parser.add_argument("--games", type=int, default=100, help="games a budget, even")
    parser.add_argument("--opening-plies", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = make_game("connect_four")
    print("iterations  Gumbel W  D  L  score [95%]")
    for n in args.iterations:
        gumbel = MCTSPlayer(n, evaluator=heuristic_evaluator, selection="gumbel")
        puct = MCTSPlayer(n, evaluator=heuristic_evaluator, selection="puct", exploration=1.0)
        result = play_match(
            game,
            gumbel,
            puct,
            games_per_seat=args.games // 2,
            seed=args.seed,
            workers=1,
            opening_plies=args.opening_plies,
        )
        tally = result.tally()
        score, low, high = score_interval(tally.wins, tally.draws, tally.losses)
        print(
            f"{n:10d}  {tally.wins:8d} {tally.draws:2d} {tally.losses:2d}  "
            f"{score:.2f} [{low:.2f}, {high:.2f}]"
        )


if __name__ == "__main__":
    main()
