"""Connect four: PUCT guided by the built-in heuristic evaluator against plain UCT.

The guided player is ``MCTS(model, iterations, selection="puct",
evaluator=heuristic_evaluator, exploration=2)``: no rollouts, the value of a
new node is :func:`~mcts_agent.envs.connect_four.heuristic_evaluator`'s
(threats and centre control, from the player to move's point of view) and
its priors put the centre, wins and blocks first. The plain player is UCT
with random rollouts, c = 2*sqrt(2). Both get the same iterations per move;
seats alternate. Prints the tally and the CPU time per move of each side::

    python examples/connect_four_puct.py --iterations 1000 --games 20 --seed 0

``benchmarks/bench_guided.py`` plays the same match at equal CPU time per move.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from typing import Any

from mcts_agent import MCTS
from mcts_agent.envs.connect_four import heuristic_evaluator
from mcts_agent.evaluation import MCTSPlayer, make_game, play_match

PUCT_EXPLORATION = 2.0
"""c of PUCT with the heuristic (values in [-1, 1]; 1 to 4 scored alike in a short sweep)."""


@dataclass(frozen=True)
class GuidedPlayer:
    """Makes PUCT planners guided by the heuristic evaluator (a player of the arena)."""

    iterations: int
    label = "puct+heuristic"

    def __call__(self, model: Any, seed: int) -> MCTS:
        """Returns a PUCT planner on ``model`` with the heuristic evaluator."""
        return MCTS(
            model,
            self.iterations,
            exploration=PUCT_EXPLORATION,
            selection="puct",
            evaluator=heuristic_evaluator,
            seed=seed,
        )

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {"kind": "puct+heuristic", "iterations": self.iterations}


def cpu_seconds_per_move(player: Any, model: Any, state: Any, moves: int = 5) -> float:
    """Mean CPU time of ``moves`` searches of ``player``'s planner from ``state``."""
    planner = player(model, 0)
    start = time.process_time()
    for _ in range(moves):
        planner(state)
    return (time.process_time() - start) / moves


def main(argv: list[str] | None = None) -> None:
    """Parses the options, plays the match and prints the tally."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--games", type=int, default=20, help="games in all (seats alternate)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    game = make_game("connect_four")
    guided = GuidedPlayer(args.iterations)
    plain = MCTSPlayer(args.iterations, exploration=2 * math.sqrt(2))
    result = play_match(
        game, guided, plain, games_per_seat=args.games // 2, seed=args.seed, workers=args.workers
    )
    wins, draws, losses = result.tally()
    games = wins + draws + losses
    print(
        f"connect four, {args.iterations} iterations per move, {games} games, seats "
        f"alternating: PUCT + heuristic against plain UCT W/D/L {wins}/{draws}/{losses}, "
        f"score {(wins + draws / 2) / games:.3f}, {result.mean_length:.1f} moves per game"
    )
    model = game.model
    start = game.initial_state
    for name, player in (("PUCT + heuristic", guided), ("plain UCT", plain)):
        seconds = cpu_seconds_per_move(player, model, start)
        print(f"  {name}: {seconds * 1000:.0f} ms CPU per move from the empty board")


if __name__ == "__main__":
    main()
