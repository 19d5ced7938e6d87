"""What one iteration's parts cost alone, against what the whole iteration costs in a search.

For one search from the empty tic-tac-toe board (random rollouts, c = 2 sqrt(2))
at each size, this script

1. runs the search and measures its rate (iterations per CPU second, best of
   ``--repeats``);
2. counts, from the finished tree, what an iteration did on average: children
   scored in selection, selection steps, nodes backed up, expansions and
   rollouts (terminal nodes are revisited without either);
3. times each part alone, with warm caches, on inputs taken from that tree:
   scoring the children of its fully expanded nodes (the search's own loop,
   same tables), backing up its paths, expanding (``step``, ``actions``,
   ``player`` and the ten appends) and rolling out from its states;
4. prints the sum of the parts weighted by the counts next to the measured cost
   per iteration. Their quotient is how much slower the parts run inside the
   search than alone (cache misses on a large tree, branches the processor
   cannot predict), which no change to the Python code removes.

The parts here copy the statements of ``MCTS._run``; keep them in step with it.

Run: ``python benchmarks/bench_iteration_parts.py`` (``--repeats``, ``--sizes``).
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import time
from collections.abc import Callable
from itertools import repeat
from operator import mul, truediv

from machine import describe_machine

from mcts_agent import MCTS
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.tree import ROOT, TERMINAL, Tree

C = 2 * math.sqrt(2)
SAMPLES = 2000


def per_call_ns(function: Callable[[], object], calls: int, repeats: int = 5) -> float:
    """Best-of-``repeats`` CPU nanoseconds per call of ``function`` (``calls`` per repeat)."""
    best = math.inf
    for _ in range(repeats):
        start = time.process_time_ns()
        for _ in range(calls):
            function()
        best = min(best, (time.process_time_ns() - start) / calls)
    return best


def selection_passes(tree: Tree) -> dict[int, int]:
    """{node: times a selection step scored its children} for the fully expanded nodes.

    A fully expanded node with k children and N visits was selected through
    ``N - k - 1`` times (``N - k`` for the root, which no iteration added).
    """
    passes = {}
    for node in range(len(tree)):
        if tree.untried[node] == 0:
            count = tree.visits[node] - len(tree.children[node]) - (0 if node == ROOT else 1)
            if count > 0:
                passes[node] = count
    return passes


def iteration_counts(tree: Tree, iterations: int) -> dict[str, float]:
    """Per-iteration means of the work the search did, read off the finished tree."""
    passes = selection_passes(tree)
    rollouts = sum(1 for node in range(1, len(tree)) if tree.untried[node] != TERMINAL)
    return {
        "children scored": sum(n * len(tree.children[node]) for node, n in passes.items())
        / iterations,
        "nodes backed up": sum(tree.visits[1:]) / iterations,
        "expansions": (len(tree) - 1) / iterations,
        "rollouts": rollouts / iterations,
    }


def part_costs(tree: Tree, model: TicTacToeModel, rng: random.Random) -> dict[str, float]:
    """Nanoseconds per unit of each part, timed alone on inputs from ``tree``."""
    values, visits, children = tree.values, tree.visits, tree.children
    counts = range(1, visits[ROOT] + 1)
    scales = [0.0, *map(mul, repeat(C), map(math.sqrt, map(math.log, counts)))]
    inverse_roots = [math.inf, *map(truediv, repeat(1.0), map(math.sqrt, counts))]
    minus_inf = -math.inf

    passes = selection_passes(tree)  # sample the nodes as often as the search scored them
    nodes = rng.choices(list(passes), weights=list(passes.values()), k=SAMPLES)
    path: list[int] = []
    path_append = path.append

    def score_all() -> None:  # MCTS._run's selection step, for SAMPLES nodes
        path.clear()
        for node in nodes:
            scale = scales[visits[node]]
            best_score = minus_inf
            best_child = -1
            for child in children[node]:
                score = values[child] + scale * inverse_roots[visits[child]]
                if score > best_score:
                    best_score = score
                    best_child = child
            path_append(best_child)

    scored = sum(len(children[n]) for n in nodes)
    selection_ns = per_call_ns(score_all, 3)

    parent = {child: node for node in range(len(tree)) for child in children[node]}
    paths = []
    for _ in range(SAMPLES // 4):
        node, path = rng.randrange(1, len(tree)), []
        while node != ROOT:
            path.append(node)
            node = parent[node]
        paths.append(path[::-1])
    rewards, discounts = tree.rewards, tree.discounts
    stats = ([*visits], [*tree.value_sums], [*values])  # copies: the tree stays as it was

    def back_up_all() -> None:  # MCTS._run's backup, for SAMPLES // 4 paths
        visit_counts, value_sums, node_values = stats
        for path in paths:
            g = 0.5
            for node in reversed(path):
                g = rewards[node] + discounts[node] * g
                n = visit_counts[node] + 1
                visit_counts[node] = n
                w = value_sums[node] + g
                value_sums[node] = w
                node_values[node] = w / n

    backed_up = sum(len(p) for p in paths)
    backup_ns = per_call_ns(back_up_all, 3)

    edges = [
        (tree.states[n], tree.actions[n][i])
        for n in range(len(tree))
        for i in range(len(children[n]))
    ]
    edges = [rng.choice(edges) for _ in range(SAMPLES)]
    step, model_actions, model_player = model.step, model.actions, model.player

    def expand_all() -> None:  # MCTS._run's expansion, for SAMPLES edges, into fresh lists
        lists = [[] for _ in range(10)]
        states, players, node_rewards, node_discounts, node_actions = lists[:5]
        node_children, untried, node_visits, value_sums, node_values = lists[5:]
        for state, action in edges:
            next_state, reward, terminated = step(state, action)
            child_actions: tuple = ()
            child_player = None
            if not terminated:
                child_actions = tuple(model_actions(next_state))
                if child_actions:
                    child_player = model_player(next_state)
            states.append(next_state)
            players.append(child_player)
            node_rewards.append(float(reward))
            node_discounts.append(1.0 if child_player == 1 else -1.0)
            node_actions.append(child_actions)
            node_children.append(())
            untried.append(len(child_actions) or TERMINAL)
            node_visits.append(0)
            value_sums.append(0.0)
            node_values.append(0.0)

    expansion_ns = per_call_ns(expand_all, 3)

    starts = [tree.states[n] for n in range(1, len(tree)) if tree.untried[n] != TERMINAL]
    starts = [rng.choice(starts) for _ in range(SAMPLES)]
    rollout = model.rollout

    def roll_out_all() -> None:
        for state in starts:
            rollout(state, rng, 1000, 1.0)

    rollout_ns = per_call_ns(roll_out_all, 3)
    return {
        "children scored": selection_ns / scored,  # with each step's own work spread over
        "nodes backed up": backup_ns / backed_up,
        "expansions": expansion_ns / len(edges),
        "rollouts": rollout_ns / len(starts),
    }


def main(argv: list[str] | None = None) -> int:
    """Prints, per size, the parts' counts and costs and the measured cost per iteration."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="searches per size")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    args = parser.parse_args(argv)
    model = TicTacToeModel()
    print(describe_machine())
    print()
    print(
        "| iterations | children scored | nodes backed up | expansions | rollouts "
        "| parts alone (ns/iteration) | in the search (ns/iteration) | search / parts |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for iterations in args.sizes:
        times = []
        for seed in range(args.repeats):
            planner = MCTS(model, iterations, exploration=C, seed=seed)
            gc.collect()
            start = time.process_time_ns()
            planner.search(EMPTY_BOARD)
            times.append((time.process_time_ns() - start) / iterations)
        counts = iteration_counts(planner.tree, iterations)
        costs = part_costs(planner.tree, model, random.Random(0))
        parts = sum(counts[name] * costs[name] for name in counts)
        measured = min(times)
        print(
            f"| {iterations:,} | {counts['children scored']:.1f} x {costs['children scored']:.0f} "
            f"| {counts['nodes backed up']:.2f} x {costs['nodes backed up']:.0f} "
            f"| {counts['expansions']:.2f} x {costs['expansions']:.0f} "
            f"| {counts['rollouts']:.2f} x {costs['rollouts']:.0f} "
            f"| {parts:,.0f} | {measured:,.0f} (median {statistics.median(times):,.0f}) "
            f"| {measured / parts:.2f} |"
        )
    print()
    print("Each cell: per-iteration count x nanoseconds per unit, the unit timed alone.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
