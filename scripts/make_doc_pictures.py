"""Draws the documentation site's pictures; run by hand, the PNGs are committed.

    python scripts/make_doc_pictures.py

Needs matplotlib (the ``plot`` extra), pydot (the ``dev`` extra) and Graphviz's
``dot`` program (``apt-get install graphviz``, ``brew install graphviz``).
Every search is seeded, so the pictures are the same at every run. Writes:

* ``docs/images/worked-example-tree.png``: the tree of the worked example
  (``docs/worked-example.md``), from ``MCTS.to_dot``;
* ``docs/images/tictactoe-tree.png``: a tic-tac-toe search's tree, two plies
  deep, from ``MCTS.to_dot``;
* ``docs/connect_four_root.png`` and ``docs/images/connect-four-convergence.png``:
  ``mcts-agent search``'s ``--plot`` and ``--trace`` on a connect four position.
"""

from __future__ import annotations

import math
import pathlib

import pydot

from mcts_agent import MCTS, StepResult
from mcts_agent.cli import main as mcts_agent_command
from mcts_agent.envs.tic_tac_toe import TicTacToeModel, parse_board

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
IMAGES = DOCS / "images"


class Toll:
    """The worked example's model: a pays 7 then a toll of 2.5; b pays 3.5, c 4.0."""

    EDGES = {
        "root": {"a": ("A", 7.0, False), "b": ("B", 3.5, True), "c": ("C", 4.0, True)},
        "A": {"toll": ("A, toll paid", -2.5, True)},
    }

    def actions(self, state):
        """The actions of ``state``: none once the game is over."""
        return tuple(self.EDGES.get(state, ()))

    def step(self, state, action):
        """The edge's next state, reward and end flag."""
        return StepResult(*self.EDGES[state][action])

    def player(self, state):
        """One player."""
        return 0


def write_png(dot_text: str, path: pathlib.Path) -> None:
    """Renders Graphviz text to a PNG at 110 dots per inch."""
    (graph,) = pydot.graph_from_dot_data(dot_text)
    graph.set("dpi", "110")
    graph.write_png(str(path))
    print(f"wrote {path.relative_to(DOCS.parent)}")


def main() -> None:
    """Draws every picture."""
    IMAGES.mkdir(exist_ok=True)
    worked = MCTS(Toll(), iterations=7, exploration=1.5, rollout_limit=0, seed=0)
    worked.search("root")
    write_png(worked.to_dot(), IMAGES / "worked-example-tree.png")

    tictactoe = MCTS(TicTacToeModel(), 2000, exploration=2 * math.sqrt(2), seed=0)
    tictactoe.search(parse_board("X...O...."))
    write_png(tictactoe.to_dot(max_depth=2, min_visits=60), IMAGES / "tictactoe-tree.png")

    position = ["--game", "connect_four", "--position", "3 3 2", "--iterations", "5000"]
    plot = str(DOCS / "connect_four_root.png")
    trace = str(IMAGES / "connect-four-convergence.png")
    mcts_agent_command(["search", *position, "--plot", plot, "--trace", trace])


if __name__ == "__main__":
    main()
