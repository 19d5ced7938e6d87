"""What one iteration's parts cost alone, against what the whole iteration costs in a search.

For one search from the empty tic-tac-toe board (random rollouts, c = 2 sqrt(2))
at each size, this script

1. runs the search and measures its cost per iteration (CPU time, best and
   median of ``--repeats``);
2. counts, from the finished tree, what an iteration did on average: selection
   steps (and the children they scored), nodes backed up, expansions and
   rollouts (an iteration that reaches a terminal node already in the tree has
   neither; one that expands into a terminal node has no rollout);
3. times each part alone, in a tight loop, on inputs taken from that tree: a
   selection step at its fully expanded nodes (drawn as often as the search
   went through them), the backup along its paths, an expansion of its edges
   (the model's ``step``, ``actions`` and ``player``, the ten appends and the
   parent's update), a rollout from its states, and the loop's own control
   statements;
4. prints the parts weighted by the counts, their sum, and the measured cost per
   iteration. Their quotient says how much slower the same statements run
   inside the search, interleaved, on a tree that grows out of the caches,
   than alone.

The parts copy the statements of ``MCTS._run`` (its checks' slow paths, never taken
here, replaced by a raise); keep them in step with it.

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

from machine import describe_machine
from timing import best_time

from mcts_agent import MCTS
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.tree import ROOT, TERMINAL, UNVISITED, Tree

C = 2 * math.sqrt(2)
SAMPLES = 2000
PARTS = ("selection steps", "nodes backed up", "expansions", "rollouts", "iterations")


def per_call_ns(function: Callable[[], object]) -> float:
    """Best-of-5 CPU nanoseconds per call of ``function`` (3 calls per run)."""
    return best_time(function, repeats=5, number=3, clock=time.process_time) * 1e9


def selection_passes(tree: Tree) -> dict[int, int]:
    """{node: selection steps taken from it} for the fully expanded nodes.

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
        "selection steps": sum(passes.values()) / iterations,
        "children scored": sum(n * len(tree.children[node]) for node, n in passes.items())
        / iterations,
        "nodes backed up": sum(tree.visits[1:]) / iterations,
        "expansions": (len(tree) - 1) / iterations,
        "rollouts": rollouts / iterations,
        "iterations": 1.0,
    }


def part_costs(tree: Tree, model: TicTacToeModel, rng: random.Random) -> dict[str, float]:
    """Nanoseconds per unit of each part, timed alone on inputs from ``tree``."""
    values, visits, children, untried = tree.values, tree.visits, tree.children, tree.untried
    log, sqrt, nan, isfinite, c = math.log, math.sqrt, math.nan, math.isfinite, C
    path: list[int] = []
    path_append = path.append

    passes = selection_passes(tree)
    nodes = rng.choices(list(passes), weights=list(passes.values()), k=SAMPLES)

    def select_all() -> None:  # MCTS._run's selection step, once from each sampled node
        path.clear()
        for start in nodes:
            node = start
            if not untried[node]:
                log_n = log(visits[node])
                best_score = nan
                best_child = UNVISITED
                for child in children[node]:
                    score = values[child] + c * sqrt(log_n / visits[child])
                    if not score <= best_score:
                        best_score = score
                        best_child = child
                node = best_child
                path_append(node)

    parent = {child: node for node in range(len(tree)) for child in children[node]}
    paths = []
    for _ in range(SAMPLES // 4):
        node, nodes_on_path = rng.randrange(1, len(tree)), []
        while node != ROOT:
            nodes_on_path.append(node)
            node = parent[node]
        paths.append(nodes_on_path[::-1])
    rewards, discounts = tree.rewards, tree.discounts
    stats = ([*visits], [*tree.value_sums], [*values])  # copies: the tree stays as it was

    def back_up_all() -> None:  # MCTS._run's backup, along each sampled path
        node_visits, value_sums, node_values = stats
        for nodes_on_path in paths:
            g = 0.5
            for node in reversed(nodes_on_path):
                g = rewards[node] + discounts[node] * g
                n = node_visits[node] + 1
                node_visits[node] = n
                w = value_sums[node] + g
                value_sums[node] = w
                node_values[node] = w / n
            if not isfinite(g):
                raise AssertionError(g)

    edges = [(n, i) for n in range(len(tree)) for i in range(len(children[n]))]
    edges = [rng.choice(edges) for _ in range(SAMPLES)]
    states, players, node_actions = tree.states, tree.players, tree.actions
    step, model_actions, model_player = model.step, model.actions, model.player
    gamma, minus_gamma = 1.0, -1.0

    children_before = [children[node][:i] for node, i in edges]

    def expand_all() -> None:  # MCTS._run's expansion of each sampled edge, into fresh lists
        new = [[] for _ in range(10)]
        new_children = children_before.copy()
        new_untried = [0] * len(edges)
        for k, (node, _) in enumerate(edges):
            left = 1
            kids = new_children[k]
            next_state, reward, terminated = step(states[node], node_actions[node][len(kids)])
            if reward.__class__ is not float:
                raise AssertionError(reward)
            if terminated is not False and terminated is not True:
                raise AssertionError(terminated)
            child_actions: tuple = ()
            child_player = None
            if not terminated:
                child_actions = model_actions(next_state)
                if child_actions.__class__ is not tuple:
                    raise AssertionError(child_actions)
                if child_actions:
                    child_player = model_player(next_state)
                    if child_player.__class__ is not int:
                        raise AssertionError(child_player)
            child = len(new[0])
            new[0].append(next_state)
            new[1].append(child_player)
            new[2].append(reward)
            new[3].append(gamma if child_player == players[node] else minus_gamma)
            new[4].append(child_actions)
            new[5].append(())
            new[6].append(len(child_actions) or TERMINAL)
            new[7].append(0)
            new[8].append(0.0)
            new[9].append(0.0)
            new_children[k] = kids + (child,)
            new_untried[k] = left - 1
            path_append(child)

    starts = [tree.states[n] for n in range(1, len(tree)) if tree.untried[n] != TERMINAL]
    starts = [rng.choice(starts) for _ in range(SAMPLES)]
    rollout = model.rollout

    def roll_out_all() -> None:
        for state in starts:
            rollout(state, rng, 1000, 1.0)

    visit_counts = [*visits]
    leaf = next(n for n in range(len(tree)) if untried[n])  # where a selection stops

    def loop_control() -> None:  # the statements of an iteration outside the four parts
        for _ in range(SAMPLES):
            node = ROOT
            path.clear()
            while not untried[leaf]:  # the selection's last, failing test
                pass
            left = untried[node]
            if left > 0:
                pass
            if untried[node] == TERMINAL:
                pass
            elif rollout is not None:
                pass
            for _node in reversed(path):  # the backup's loop, over a path cleared above
                pass
            visit_counts[ROOT] += 1

    selection_ns = per_call_ns(select_all)
    backup_ns = per_call_ns(back_up_all)
    backed_up = sum(len(p) for p in paths)
    rollout_ns = per_call_ns(roll_out_all)
    return {
        "selection steps": selection_ns / SAMPLES,
        "nodes backed up": backup_ns / backed_up,
        "expansions": per_call_ns(expand_all) / SAMPLES,
        "rollouts": rollout_ns / SAMPLES,
        "iterations": per_call_ns(loop_control) / SAMPLES,
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
        "| iterations | selection steps (children scored) | nodes backed up | expansions "
        "| rollouts | loop control | parts alone (ns/iteration) "
        "| whole search (ns/iteration, best; median) | search / parts |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
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
        parts = sum(counts[name] * costs[name] for name in PARTS)
        best = min(times)
        cells = [f"{counts[name]:.2f} x {costs[name]:.0f}" for name in PARTS]
        cells[0] += f" ({counts['children scored']:.1f})"
        print(
            f"| {iterations:,} | {' | '.join(cells)} | {parts:,.0f} "
            f"| {best:,.0f}; {statistics.median(times):,.0f} | {best / parts:.2f} |"
        )
    print()
    print("Each cell: per-iteration count x nanoseconds per unit, the unit timed alone.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
