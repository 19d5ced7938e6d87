"""Speed and memory of one search, against a plain object-per-node UCT in the same run.

Measures, for one search from the empty tic-tac-toe board (random rollouts,
c = 2 sqrt(2)):

* iterations per CPU second (``time.process_time``) at 1k, 10k and 100k
  iterations (median of repeats, the two planners interleaved), for ``mcts_agent.MCTS`` and for
  :class:`PlainUCT` below, a straightforward UCT with one Python object per node
  (``__slots__``) written from ``docs/concepts/iteration.md``; both call the model's fused rollout
  with the same generator, so both build the same tree (checked: every node's N and W);
* the mean path length (nodes below the root that an iteration selects,
  expands and backs up) and the cost per node on the path: as the tree fills
  tic-tac-toe's game tree the paths double in length (selection scores about
  twice as many children per iteration), so the rate per iteration falls
  while the cost per node on the path does not grow;
* bytes per node retained by the finished tree (``tracemalloc``), with the
  states included and without them (allocations made by the model's code,
  i.e. the states, left out). Tic-tac-toe's states are the model's
  pre-tabulated ints, so its two columns agree; connect four's states are new
  tuples of two ints.

Run: ``python benchmarks/bench_search.py`` (``--repeats 3`` for a quicker run).
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
import tracemalloc
from collections.abc import Hashable
from typing import Any

from machine import describe_machine

from mcts_agent import MCTS
from mcts_agent.envs.connect_four import EMPTY_BOARD as CONNECT_FOUR_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.tree import ROOT

C = 2 * math.sqrt(2)


class PlainNode:
    """One node of :class:`PlainUCT`: an object holding its fields and children."""

    __slots__ = (
        "state",
        "player",
        "reward",
        "discount",
        "terminal",
        "actions",
        "children",
        "visits",
        "value_sum",
    )

    def __init__(
        self, state: Any, player: Hashable, reward: float, discount: float, actions: tuple
    ) -> None:
        self.state = state
        self.player = player
        self.reward = reward
        self.discount = discount  # +gamma if the mover moves again here, else -gamma
        self.terminal = not actions
        self.actions = actions
        self.children: list[PlainNode] = []
        self.visits = 0
        self.value_sum = 0.0


class PlainUCT:
    """A plain UCT as in ``docs/concepts/iteration.md``, one object per node: the baseline.

    Args:
        model: a model with ``actions``, ``step``, ``player`` and ``rollout``.
        iterations: iterations per search.
        exploration: c of UCB1.
        gamma: discount rate.
        rollout_limit: most moves in one rollout.
        seed: seed of the rollouts' generator.
    """

    def __init__(
        self,
        model: Any,
        iterations: int,
        *,
        exploration: float = math.sqrt(2),
        gamma: float = 1.0,
        rollout_limit: int = 1000,
        seed: int | None = None,
    ) -> None:
        self.model = model
        self.iterations = iterations
        self.exploration = exploration
        self.gamma = gamma
        self.rollout_limit = rollout_limit
        self.rng = random.Random(seed)
        self.root: PlainNode | None = None

    def search(self, state: Any) -> PlainNode:
        """Runs the iterations from ``state``; returns the root."""
        model, c, gamma = self.model, self.exploration, self.gamma
        root = PlainNode(state, model.player(state), 0.0, 0.0, tuple(model.actions(state)))
        for _ in range(self.iterations):
            node, path = root, []
            while not node.terminal and len(node.children) == len(node.actions):
                log_n = math.log(node.visits)
                node = max(  # max keeps the first of equal keys: ties to the first child
                    node.children,
                    key=lambda ch, log_n=log_n: (
                        ch.value_sum / ch.visits + c * math.sqrt(log_n / ch.visits)
                    ),
                )
                path.append(node)
            if not node.terminal:
                action = node.actions[len(node.children)]
                next_state, reward, terminated = model.step(node.state, action)
                actions = () if terminated else tuple(model.actions(next_state))
                player = model.player(next_state) if actions else None
                discount = gamma if player == node.player else -gamma
                child = PlainNode(next_state, player, float(reward), discount, actions)
                node.children.append(child)
                node = child
                path.append(node)
            g = 0.0
            if not node.terminal and self.rollout_limit > 0:
                g = model.rollout(node.state, self.rng, self.rollout_limit, gamma)
            for node in reversed(path):
                g = node.reward + node.discount * g
                node.visits += 1
                node.value_sum += g
            root.visits += 1
        self.root = root
        return root


def timed_search(planner: Any, state: Any) -> float:
    """Returns the CPU seconds one search takes (garbage collected before).

    CPU time of this process (``time.process_time``) rather than wall time: a
    machine shared with other jobs disturbs it much less; on an idle machine
    the two agree.
    """
    gc.collect()
    start = time.process_time()
    planner.search(state)
    return time.process_time() - start


def tree_ours(planner: MCTS) -> list[tuple[int, int, float]]:
    """The whole tree in preorder, children in the model's order: (depth, N, W) per node."""
    tree = planner.tree
    nodes, stack = [], [(ROOT, 0)]
    while stack:
        node, depth = stack.pop()
        nodes.append((depth, tree.visits[node], tree.value_sums[node]))
        stack.extend((child, depth + 1) for child in reversed(tree.children[node]))
    return nodes


def tree_plain(root: PlainNode) -> list[tuple[int, int, float]]:
    """The same preorder list for a :class:`PlainUCT` tree."""
    nodes, stack = [], [(root, 0)]
    while stack:
        node, depth = stack.pop()
        nodes.append((depth, node.visits, node.value_sum))
        stack.extend((child, depth + 1) for child in reversed(node.children))
    return nodes


def path_nodes(planner: MCTS) -> int:
    """Sum over iterations of the nodes below the root on the path (= sum of N below root)."""
    return sum(planner.tree.visits[1:])


def bytes_per_node(make_planner: Any, state: Any, model_file: str) -> tuple[int, float, float]:
    """Returns (nodes, bytes per node, bytes per node leaving out the model's allocations)."""
    planner = make_planner()
    gc.collect()
    tracemalloc.start()
    planner.search(state)
    gc.collect()
    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()
    if isinstance(planner, MCTS):
        nodes = len(planner.tree)
    else:
        nodes, stack = 0, [planner.root]
        while stack:
            node = stack.pop()
            nodes += 1
            stack.extend(node.children)
    total = sum(stat.size for stat in snapshot.statistics("filename"))
    model_bytes = sum(
        stat.size
        for stat in snapshot.statistics("filename")
        if os.path.basename(stat.traceback[0].filename) == model_file
    )
    return nodes, total / nodes, (total - model_bytes) / nodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="searches per size and planner")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    model = TicTacToeModel()
    sizes = (1_000, 10_000, 100_000)
    print(describe_machine())
    print()

    rates: dict[tuple[str, int], list[float]] = {}
    per_path_node: dict[int, list[float]] = {}
    path_length: dict[int, list[float]] = {}
    same_tree = True
    for repeat in range(args.repeats):
        for iterations in sizes:
            seed = args.seed + repeat
            ours = MCTS(model, iterations, exploration=C, seed=seed)
            plain = PlainUCT(model, iterations, exploration=C, seed=seed)
            for name, planner in (
                (("ours", ours), ("plain", plain))
                if repeat % 2
                else (
                    ("plain", plain),
                    ("ours", ours),
                )
            ):
                seconds = timed_search(planner, EMPTY_BOARD)
                rates.setdefault((name, iterations), []).append(iterations / seconds)
                if name == "ours":
                    per_path_node.setdefault(iterations, []).append(
                        seconds / path_nodes(ours) * 1e9
                    )
                    path_length.setdefault(iterations, []).append(path_nodes(ours) / iterations)
            same_tree &= tree_ours(ours) == tree_plain(plain.root)

    print("Tic-tac-toe, one search from the empty board, c = 2 sqrt(2), random rollouts;")
    print(f"median of {args.repeats} searches each, interleaved.")
    print()
    print(
        "| iterations | ours (it/s, CPU time) | plain object-per-node UCT (it/s, CPU time) "
        "| ours / plain | mean path length | ours: ns per node on the path |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for iterations in sizes:
        ours = statistics.median(rates[("ours", iterations)])
        plain = statistics.median(rates[("plain", iterations)])
        ns = statistics.median(per_path_node[iterations])
        length = statistics.median(path_length[iterations])
        print(
            f"| {iterations:,} | {ours:,.0f} | {plain:,.0f} | {ours / plain:.2f}x "
            f"| {length:.2f} | {ns:.0f} |"
        )
    first = statistics.median(rates[("ours", sizes[0])])
    last = statistics.median(rates[("ours", sizes[-1])])
    print()
    print(f"Same tree (every node's N and W) in both planners at every size and seed: {same_tree}")
    print(
        f"Ours at {sizes[-1]:,} iterations runs at {last / first:.0%} of its rate at {sizes[0]:,}."
    )
    print()

    print("Memory retained by the finished tree (tracemalloc), bytes per node:")
    print()
    print("| model | iterations | planner | nodes | with states | without states |")
    print("|---|---:|---|---:|---:|---:|")
    cases = (
        ("tic-tac-toe", TicTacToeModel(), EMPTY_BOARD, 100_000, "tic_tac_toe.py"),
        ("connect four", ConnectFourModel(), CONNECT_FOUR_START, 20_000, "connect_four.py"),
    )
    for label, case_model, state, iterations, model_file in cases:
        for name, factory in (
            ("ours", lambda m=case_model, n=iterations: MCTS(m, n, exploration=C, seed=0)),
            ("plain", lambda m=case_model, n=iterations: PlainUCT(m, n, exploration=C, seed=0)),
        ):
            nodes, with_states, without = bytes_per_node(factory, state, model_file)
            print(
                f"| {label} | {iterations:,} | {name} | {nodes:,} | {with_states:.0f} "
                f"| {without:.0f} |"
            )
    print()
    print("Tic-tac-toe's states are the model's pre-tabulated ints, shared and not allocated by")
    print("the search, so both columns agree; connect four's are new (x, o) tuples of two ints.")
    return 0 if same_tree else 1


if __name__ == "__main__":
    sys.exit(main())
