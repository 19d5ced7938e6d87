"""Iterations per second of one MCTS search: ours against the peers, in one process.

Every planner runs one search of N iterations from the empty board, with
uniformly random rollouts, c = 2 sqrt(2) (UCB1 scaled to returns in [-1, 1]),
no solver. Rates are iterations per second of this process's CPU time
(``time.process_time``; every planner here is single-threaded), which a
machine shared with other jobs disturbs much less than wall time; on an idle
machine the two agree. The repeats are interleaved (each repeat runs every planner once,
in a rotated order) so that a busy machine slows them alike; the table gives
the median rate, its ratio to ours on our own model, and the first moves
chosen (tic-tac-toe's centre is cell 4 in every planner's numbering; all must
choose it at 10k iterations; connect four's centre column is 3). Connect four
runs at 10k iterations only, half as many repeats (rounded up), as its
searches are slower.

Planners:

* ``ours``: ``mcts_agent.MCTS`` on :class:`~mcts_agent.envs.tic_tac_toe.TicTacToeModel`
  or :class:`~mcts_agent.envs.connect_four.ConnectFourModel`, on the active core
  (``mcts_agent.core_backend()``, printed first): compiled, with the models' native
  rollouts, when the core is built.
* ``ours, Python rollout``: the same core, with the model's fused rollout in Python
  (the model without ``native_rollout``).
* ``ours, pure Python``: the pure-Python loop (``mcts_agent.compiled.pure_python()``),
  fused Python rollout: the search of issue 6.
* ``ours + PettingZoo``: ``mcts_agent.MCTS`` on
  :class:`~mcts_agent.adapters.pettingzoo.PettingZooModel` of
  ``classic/tictactoe-v3`` / ``classic/connect_four-v3`` (active core), and
  ``ours + PettingZoo, pure Python``.
* ``OpenSpiel C++``: ``pyspiel.MCTSBot`` with ``pyspiel.RandomRolloutEvaluator(1)``.
* ``OpenSpiel Python``: ``open_spiel.python.algorithms.mcts.MCTSBot`` with
  ``RandomRolloutEvaluator(1)``.
* ``mcts (PyPI)``: ``mcts.mcts`` on a list-board tic-tac-toe state written as
  its README asks. Its UCB term is ``c * sqrt(2 ln N / n)``, so c = 2 there.
  Version 1.0.4 backs up one reward (X's) to every node, so O's nodes also
  maximise X's result; its speed is still comparable, its play is not.

Targets (issue 15, same-run ratios at 10k iterations): tic-tac-toe, ours at
least 0.9x OpenSpiel C++, 6x ``mcts`` and 20x OpenSpiel Python, with a Python
rollout at least 0.4x OpenSpiel C++; connect four, ours at least 0.9x OpenSpiel
C++; ours at 100k iterations at least 0.9x its rate at 1k. Needs the ``bench``
extra (``open-spiel``, ``mcts``).

Run: ``python benchmarks/compare_peers.py`` (``--repeats``, ``--max-seconds``).
Exits 1 if a planner does not choose the centre at 10k iterations.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pettingzoo

try:
    import mcts as mcts_pypi
    import pyspiel
    from open_spiel.python.algorithms import mcts as openspiel_mcts
except ImportError as missing:
    sys.exit(f"compare_peers.py needs the bench extra: pip install -e '.[bench]' ({missing})")

from machine import describe_machine

from mcts_agent import MCTS, core_backend
from mcts_agent.adapters.pettingzoo import PettingZooModel
from mcts_agent.compiled import pure_python
from mcts_agent.envs.connect_four import EMPTY_BOARD as CONNECT_FOUR_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel

C = 2 * math.sqrt(2)
OURS = "ours"

Search = Callable[[int, int], Any]
"""``search(iterations, seed) -> action``: one search from the empty board."""


# ------------------------------------------------------------------------ planners


def ours(model: Any, state: Any) -> Search:
    def search(iterations: int, seed: int) -> Any:
        return MCTS(model, iterations, exploration=C, seed=seed)(state)

    return search


def with_python_rollout(model: Any) -> Any:
    """The model's methods and its fused Python rollout, without its native rollout."""
    return SimpleNamespace(
        actions=model.actions, step=model.step, player=model.player, rollout=model.rollout
    )


def on_pure_python(search: Search) -> Search:
    def run(iterations: int, seed: int) -> Any:
        with pure_python():
            return search(iterations, seed)

    return run


def ours_through_pettingzoo(env_name: str) -> Search:
    env = pettingzoo.make("aec", env_name)
    env.reset(seed=0)
    model = PettingZooModel(env)
    state = model.state_of(env)
    return ours(model, state)


def openspiel_cpp(game_name: str) -> Search:
    game = pyspiel.load_game(game_name)

    def search(iterations: int, seed: int) -> Any:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, C, iterations, 10_000, False, seed, False)
        return bot.step(game.new_initial_state())

    return search


def openspiel_python(game_name: str) -> Search:
    game = pyspiel.load_game(game_name)

    def search(iterations: int, seed: int) -> Any:
        random_state = np.random.RandomState(seed)
        evaluator = openspiel_mcts.RandomRolloutEvaluator(1, random_state)
        bot = openspiel_mcts.MCTSBot(
            game, C, iterations, evaluator, solve=False, random_state=random_state
        )
        return bot.step(game.new_initial_state())

    return search


_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class ListBoardState:
    """Tic-tac-toe for the ``mcts`` package: a list of 9 cells, 1 for X, -1 for O."""

    def __init__(self, board: list[int], player: int) -> None:
        self.board = board
        self.player = player

    def getPossibleActions(self) -> list[int]:  # noqa: N802 (the package's names)
        return [i for i, cell in enumerate(self.board) if cell == 0]

    def takeAction(self, action: int) -> ListBoardState:  # noqa: N802
        board = self.board.copy()
        board[action] = self.player
        return ListBoardState(board, -self.player)

    def winner(self) -> int:
        board = self.board
        for a, b, c in _LINES:
            if board[a] != 0 and board[a] == board[b] == board[c]:
                return board[a]
        return 0

    def isTerminal(self) -> bool:  # noqa: N802
        return self.winner() != 0 or 0 not in self.board

    def getReward(self) -> int:  # noqa: N802
        return self.winner()  # X's result: the package backs one reward up to every node


def mcts_package() -> Search:
    def search(iterations: int, seed: int) -> Any:
        random.seed(seed)  # the package draws from the global generator
        planner = mcts_pypi.mcts(iterationLimit=iterations, explorationConstant=C / math.sqrt(2))
        return planner.search(ListBoardState([0] * 9, 1))

    return search


# ------------------------------------------------------------------------ measuring


def measure(
    planners: dict[str, Search],
    sizes: tuple[int, ...],
    repeats: int,
    max_seconds: float,
    seed: int,
) -> dict[tuple[str, int], tuple[list[float], list[Any]]]:
    """Runs every (planner, size) ``repeats`` times, interleaved; returns rates and moves.

    A planner is left out of a size when one search there would take longer than
    ``max_seconds`` at its rate at the previous size.
    """
    results: dict[tuple[str, int], tuple[list[float], list[Any]]] = {}
    names = list(planners)
    for repeat in range(repeats):
        order = names[repeat % len(names) :] + names[: repeat % len(names)]
        for iterations in sizes:
            for name in order:
                previous = [n for n in sizes if n < iterations and (name, n) in results]
                if previous:
                    rate = statistics.median(results[(name, previous[-1])][0])
                    if iterations / rate > max_seconds:
                        continue
                gc.collect()
                start = time.process_time()
                action = planners[name](iterations, seed + repeat)
                seconds = time.process_time() - start
                rates, moves = results.setdefault((name, iterations), ([], []))
                rates.append(iterations / seconds)
                moves.append(action)
    return results


def report(
    game: str, results: dict[tuple[str, int], tuple[list[float], list[Any]]], sizes: tuple
) -> tuple[dict[tuple[str, int], float], bool]:
    """Prints the table of one game; returns the median rates and whether all chose the centre.

    The centre is checked for tic-tac-toe at 10,000 iterations only.
    """
    print(f"\n{game}: one search from the empty board, random rollouts, c = 2 sqrt(2)\n")
    print(
        "| iterations | planner | iterations per CPU second (median) | ratio to ours | repeats "
        "| first moves |"
    )
    print("|---:|---|---:|---:|---:|---|")
    medians: dict[tuple[str, int], float] = {}
    all_centre = True
    for iterations in sizes:
        ours_rate = statistics.median(results[(OURS, iterations)][0])
        for (name, n), (rates, moves) in results.items():
            if n != iterations:
                continue
            rate = statistics.median(rates)
            medians[(name, n)] = rate
            counts: dict[Any, int] = {}
            for move in moves:
                counts[move] = counts.get(move, 0) + 1
            chosen = ", ".join(f"{move} x{k}" for move, k in sorted(counts.items()))
            if game == "tic-tac-toe" and iterations == 10_000 and set(counts) != {4}:
                all_centre = False
            print(
                f"| {iterations:,} | {name} | {rate:,.0f} | {rate / ours_rate:.3g} "
                f"| {len(rates)} | {chosen} |"
            )
    return medians, all_centre


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="searches per planner and size")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=30.0,
        help="leave a planner out of a size where one search would take longer",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(describe_machine(("mcts-agent", "open_spiel", "mcts", "pettingzoo", "numpy")))

    print(f"Core: {core_backend()}")

    tic_tac_toe = {
        OURS: ours(TicTacToeModel(), EMPTY_BOARD),
        "ours, Python rollout": ours(with_python_rollout(TicTacToeModel()), EMPTY_BOARD),
        "ours, pure Python": on_pure_python(ours(TicTacToeModel(), EMPTY_BOARD)),
        "ours + PettingZoo": ours_through_pettingzoo("classic/tictactoe-v3"),
        "ours + PettingZoo, pure Python": on_pure_python(
            ours_through_pettingzoo("classic/tictactoe-v3")
        ),
        "OpenSpiel C++": openspiel_cpp("tic_tac_toe"),
        "OpenSpiel Python": openspiel_python("tic_tac_toe"),
        "mcts (PyPI)": mcts_package(),
    }
    sizes = (1_000, 10_000, 100_000)
    results = measure(tic_tac_toe, sizes, args.repeats, args.max_seconds, args.seed)
    medians, centre_ok = report("tic-tac-toe", results, sizes)

    connect_four = {
        OURS: ours(ConnectFourModel(), CONNECT_FOUR_START),
        "ours, Python rollout": ours(with_python_rollout(ConnectFourModel()), CONNECT_FOUR_START),
        "ours, pure Python": on_pure_python(ours(ConnectFourModel(), CONNECT_FOUR_START)),
        "ours + PettingZoo": ours_through_pettingzoo("classic/connect_four-v3"),
        "ours + PettingZoo, pure Python": on_pure_python(
            ours_through_pettingzoo("classic/connect_four-v3")
        ),
        "OpenSpiel C++": openspiel_cpp("connect_four"),
        "OpenSpiel Python": openspiel_python("connect_four"),
    }
    c4_repeats = max(1, (args.repeats + 1) // 2)
    c4_results = measure(connect_four, (10_000,), c4_repeats, args.max_seconds, args.seed)
    c4_medians, _ = report("connect four", c4_results, (10_000,))

    print("\nTargets at 10,000 iterations (rate / peer's rate, same run):\n")
    targets = (
        (medians, OURS, "mcts (PyPI)", 6.0),
        (medians, OURS, "OpenSpiel Python", 20.0),
        (medians, OURS, "OpenSpiel C++", 0.9),
        (medians, "ours, Python rollout", "OpenSpiel C++", 0.4),
        (c4_medians, OURS, "OpenSpiel C++", 0.9),
        (medians, OURS, "ours, pure Python", None),
        (medians, "ours + PettingZoo", "ours + PettingZoo, pure Python", None),
        (c4_medians, OURS, "ours, pure Python", None),
        (c4_medians, "ours + PettingZoo", "ours + PettingZoo, pure Python", None),
    )
    for table, name, peer, target in targets:
        game = "tic-tac-toe" if table is medians else "connect four"
        ratio = table[(name, 10_000)] / table[(peer, 10_000)]
        verdict = "" if target is None else f" (target >= {target}): "
        verdict += "" if target is None else "met" if ratio >= target else "NOT met"
        print(f"- {game}, {name} / {peer}: {ratio:.2f}{verdict}")
    print("\nRate at 100,000 iterations / rate at 1,000 (target for ours: >= 0.9):\n")
    for name in tic_tac_toe:
        if (name, 100_000) in medians:
            flat = medians[(name, 100_000)] / medians[(name, 1_000)]
            print(f"- {name}: {flat:.2f}")
    load = os.getloadavg()
    print(f"\nLoad average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if not centre_ok:
        print("A planner did not choose the centre of tic-tac-toe at 10,000 iterations.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
