"""Two searches of Go against each other at equal playouts (issue 33: RAVE against UCT).

Each side is a spec ``SELECTION[:name=value,...]``: ``SELECTION`` is ``rave`` (GRAVE) or
``uct``, the options are ``MCTS``'s (``exploration``, ``grave_ref``, ``rave_bias``...) or
``capture_heuristic=True``, which makes that side plan on ``GoModel(size, komi,
capture_heuristic=True)`` (the same rules, another playout policy: ``docs/guides/go.md``).
Both search ``--iterations`` a move (one playout each) on ``GoModel`` (``--size`` 9, komi 7.5).
The match is :func:`mcts_agent.evaluation.play_match` on a
:class:`~mcts_agent.evaluation.ModelGame` (seats alternating, game ``i`` seeded from
``(--seed, i)``) on ``--jobs`` processes. Prints the first side's score with its 95% Wilson
interval (:func:`~mcts_agent.evaluation.score_interval`; go has no draws), per colour. On
``GoModel`` GRAVE runs in the compiled core's own loop (``mcts_agent/_rave_loop.c``), UCT in
the compiled plain loop with Python steps: their times a move differ.

Run (the figures of ``docs/guides/go.md``)::

    python benchmarks/go_rave.py --games 40 --iterations 1000 \
        --first rave:exploration=0.2 --second uct:exploration=0.7
    python benchmarks/go_rave.py --games 60 --iterations 2000 \
        --first rave:exploration=0.0,capture_heuristic=True --second rave:exploration=0.0
"""

import argparse
import time
from typing import Any

from mcts_agent.envs.go import GoModel
from mcts_agent.evaluation import MCTSPlayer, ModelGame, parse_spec, play_match
from mcts_agent.evaluation.ratings import score_interval

SELECTIONS = ("rave", "uct")


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


def make_side(spec: str, iterations: int, size: int, komi: float) -> Any:
    """The player of ``spec`` (``rave:exploration=0.2``, ``uct``, ...) at ``iterations``.

    Raises:
        ValueError: if the selection is not ``rave`` or ``uct``, or an option is refused.
    """
    selection, options = parse_spec(spec)
    if selection not in SELECTIONS:
        raise ValueError(f"a side is rave[:options] or uct[:options], got {spec!r}")
    capture = options.pop("capture_heuristic", False)
    player = MCTSPlayer(iterations, selection=selection, **options)
    if capture:
        return OnModel(player, GoModel(size, komi, capture_heuristic=True))
    return player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games in all, even (default 20)")
    parser.add_argument("--iterations", type=int, default=2000, help="playouts a move (2000)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--first", default="rave:exploration=0.2", help="the side scored")
    parser.add_argument("--second", default="uct:exploration=0.7", help="its opponent")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error(f"--games is even and >= 2 (half in each seat), got {args.games}")
    model = GoModel(args.size, args.komi)
    name = f"go {args.size}x{args.size}"
    game = ModelGame(model, model.initial_state(), name, ("black", "white"))
    first = make_side(args.first, args.iterations, args.size, args.komi)
    second = make_side(args.second, args.iterations, args.size, args.komi)
    start = time.perf_counter()
    result = play_match(
        game, first, second, args.games // 2, seed=args.seed, workers=args.jobs, progress=True
    )
    elapsed = time.perf_counter() - start
    tally = result.tally()
    score, low, high = score_interval(tally.wins, tally.draws, tally.losses)
    print(
        f"{args.first} vs {args.second}, {args.iterations} playouts a move, "
        f"{args.size}x{args.size} komi {args.komi}"
    )
    print(result.summary())
    print(f"the first's score {score:.3f} [{low:.3f}, {high:.3f}] (95%), {tally.games} games")
    print(f"{elapsed:.0f} s in all, mean {result.mean_length:.0f} moves a game")


if __name__ == "__main__":
    main()
