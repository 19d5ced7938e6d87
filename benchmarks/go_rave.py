"""RAVE/GRAVE against plain UCT at equal playouts on Go (issue 33's "report the score").

Both sides plan on :class:`~mcts_agent.envs.go.GoModel` (``--size`` 9, komi 7.5) with the
same number of iterations a move (``--iterations``: one light playout each), the same
rollouts and each its own exploration constant: ``selection="rave"`` (GRAVE,
``--grave-ref``, ``--rave-bias``; Ludii's defaults 100 and 1e-5) against ``selection="uct"``.
The match is :func:`mcts_agent.evaluation.play_match` on a
:class:`~mcts_agent.evaluation.ModelGame` (seats alternating, game ``i`` seeded from
``(--seed, i)``), on ``--jobs`` processes. Prints RAVE's score with its 95% Wilson interval
(:func:`~mcts_agent.evaluation.score_interval`; go has no draws), per colour, and the mean
seconds a move of each side, which differ: RAVE on GoModel runs in the compiled core's own
loop (``mcts_agent/_rave_loop.c``), plain UCT in the compiled plain loop with Python steps.

Run: ``python benchmarks/go_rave.py --games 100 --iterations 2000 --jobs 2``
"""

import argparse
import time

from mcts_agent.envs.go import GoModel
from mcts_agent.evaluation import MCTSPlayer, ModelGame, play_match
from mcts_agent.evaluation.ratings import score_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games in all, even (default 20)")
    parser.add_argument("--iterations", type=int, default=2000, help="playouts a move (2000)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--rave-exploration", type=float, default=0.2, help="RAVE's c (0.2)")
    parser.add_argument("--uct-exploration", type=float, default=0.7, help="UCT's c (0.7)")
    parser.add_argument("--grave-ref", type=int, default=100, help="GRAVE's ref (100)")
    parser.add_argument("--rave-bias", type=float, default=1e-5, help="RAVE's bias (1e-5)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error(f"--games is even and >= 2 (half in each seat), got {args.games}")
    model = GoModel(args.size, args.komi)
    name = f"go {args.size}x{args.size}"
    game = ModelGame(model, model.initial_state(), name, ("black", "white"))
    rave = MCTSPlayer(
        args.iterations,
        exploration=args.rave_exploration,
        selection="rave",
        grave_ref=args.grave_ref,
        rave_bias=args.rave_bias,
    )
    uct = MCTSPlayer(args.iterations, exploration=args.uct_exploration)
    start = time.perf_counter()
    result = play_match(
        game, rave, uct, args.games // 2, seed=args.seed, workers=args.jobs, progress=True
    )
    elapsed = time.perf_counter() - start
    tally = result.tally()
    score, low, high = score_interval(tally.wins, tally.draws, tally.losses)
    print(
        f"RAVE (c={args.rave_exploration}, grave_ref={args.grave_ref}, bias={args.rave_bias}) "
        f"vs UCT (c={args.uct_exploration}), {args.iterations} playouts a move, "
        f"{args.size}x{args.size} komi {args.komi}"
    )
    print(result.summary())
    print(f"RAVE's score {score:.3f} [{low:.3f}, {high:.3f}] (95%), {tally.games} games")
    print(f"{elapsed:.0f} s in all, mean {result.mean_length:.0f} moves a game")


if __name__ == "__main__":
    main()
