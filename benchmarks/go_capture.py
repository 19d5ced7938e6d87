"""GRAVE with GoModel's capture heuristic against GRAVE without, at equal playouts (issue 33).

Both sides search with ``selection="rave"`` (GRAVE: ``--grave-ref``, ``--rave-bias``) and
``--exploration``, the same ``--iterations`` a move (one playout each); one plans on
``GoModel(size, komi, capture_heuristic=True)``, the other on ``GoModel(size, komi)``: the
same rules, only the playout policy differs (``docs/guides/go.md``, "The capture
heuristic"). The match is :func:`mcts_agent.evaluation.play_match` on a
:class:`~mcts_agent.evaluation.ModelGame` (seats alternating, game ``i`` seeded from
``(--seed, i)``), on ``--jobs`` processes. Prints the heuristic's score with its 95% Wilson
interval (:func:`~mcts_agent.evaluation.ratings.score_interval`; Go has no draws).

Run: ``python benchmarks/go_capture.py --games 20 --iterations 2000 --jobs 1``
"""

import argparse
import time
from typing import Any

from mcts_agent.envs.go import GoModel
from mcts_agent.evaluation import MCTSPlayer, ModelGame, play_match
from mcts_agent.evaluation.ratings import score_interval


class OnModel:
    """A player whose planners search ``model`` instead of the game's (the same rules).

    Args:
        player: a ``player(model, seed) -> policy``, e.g. an ``MCTSPlayer``.
        model: the model its planners search.
    """

    def __init__(self, player: MCTSPlayer, model: GoModel) -> None:
        self.player = player
        self.model = model
        self.label = f"{player.label} on {model!r}"

    def __call__(self, model: Any, seed: int) -> Any:
        """Returns ``player``'s planner on this player's model, seeded with ``seed``."""
        return self.player(self.model, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games in all, even (default 20)")
    parser.add_argument("--iterations", type=int, default=2000, help="playouts a move (2000)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--exploration", type=float, default=0.0, help="c of both (0.0)")
    parser.add_argument("--grave-ref", type=int, default=100, help="GRAVE's ref (100)")
    parser.add_argument("--rave-bias", type=float, default=1e-5, help="RAVE's bias (1e-5)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error(f"--games is even and >= 2 (half in each seat), got {args.games}")
    model = GoModel(args.size, args.komi)
    game = ModelGame(
        model, model.initial_state(), f"go {args.size}x{args.size}", ("black", "white")
    )
    grave = MCTSPlayer(
        args.iterations,
        exploration=args.exploration,
        selection="rave",
        grave_ref=args.grave_ref,
        rave_bias=args.rave_bias,
    )
    heuristic = OnModel(grave, GoModel(args.size, args.komi, capture_heuristic=True))
    start = time.perf_counter()
    result = play_match(
        game, heuristic, grave, args.games // 2, seed=args.seed, workers=args.jobs, progress=True
    )
    elapsed = time.perf_counter() - start
    tally = result.tally()
    score, low, high = score_interval(tally.wins, tally.draws, tally.losses)
    print(
        f"GRAVE (c={args.exploration}, grave_ref={args.grave_ref}, bias={args.rave_bias}) with "
        f"the capture heuristic vs without, {args.iterations} playouts a move, "
        f"{args.size}x{args.size} komi {args.komi}"
    )
    print(result.summary())
    print(f"the heuristic's score {score:.3f} [{low:.3f}, {high:.3f}] (95%), {tally.games} games")
    print(f"{elapsed:.0f} s in all, mean {result.mean_length:.0f} moves a game")


if __name__ == "__main__":
    main()
