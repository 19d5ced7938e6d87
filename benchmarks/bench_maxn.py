"""Every player's reward (issue 12): max^n MCTS against brute force, and the cost of vectors.

Sections (``--sections``, all by default):

* ``equilibrium``: ``--trees`` random general-sum game trees (3 players moving
  in turn 1, 2, 3, 1...; depth at most 4; 2 or 3 moves per node; a move before
  depth 4 ends the game with probability 0.2; the move that ends the game pays
  each player an independent uniform reward in [0, 1], other moves pay
  nothing; tree ``i`` drawn from seed ``--seed + i``). For each, the max^n
  equilibrium computed by brute force (:func:`mcts_agent.maxn.maxn_moves`)
  and the move of MCTS (random rollouts, c = ``--exploration``, default 1.0,
  planner seeded ``--seed + i``) at each of ``--iterations``, and of the
  MCTS-Solver (``solve=True``, which proves max^n values; at most
  ``--solver-iterations``). Ties: payoffs are continuous,
  so exact ties have probability 0; near ties are what make a tree hard. A
  move counts as right if its max^n value to the root player is within
  ``--epsilon`` (default 0.01, 1% of the payoff range) of the equilibrium
  move's (root moves that close are tied: either is an equilibrium move up to
  epsilon); the exact count (the brute-force argmax itself) is printed too.
* ``speed``: iterations per second (CPU time, the median of ``--repeats``
  interleaved repeats) of searches from the empty 4 x 4 board of three in a
  row (:mod:`mcts_agent.envs.three_in_a_row`, ``--speed-iterations`` each,
  random rollouts): the scalar search of the two-player game (the plain
  loop, the mover's reward), the same two-player game reported with every
  player's reward (vector returns: the same trees, so this is the pure cost
  of vectors), and the three-player game (vector returns), with the median
  ratio of each to the scalar search, paired within each repeat.

UCT's max^n values converge slowly where the equilibrium line of a root move
is deep and its first samples poor: the move then gets few visits (tens in
100k iterations) and its subtree never learns (10-15% of the trees, whatever
c in 0.25..5 and 2k..100k iterations); the solver, which proves the values,
is exact. Measured: README, "Every player's reward".

Run: ``python benchmarks/bench_maxn.py`` (several minutes); ``--trees 50`` for less.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bench_guided import wilson
from machine import describe_machine

from mcts_agent import MCTS, StepResult
from mcts_agent.envs.three_in_a_row import ThreeInARowModel
from mcts_agent.maxn import maxn_moves

PLAYERS = (1, 2, 3)


class RandomTree:
    """A random general-sum game tree as a model (see the module docstring); states are paths."""

    reward_players = PLAYERS

    def __init__(self, seed: int, depth: int = 4) -> None:
        rng = random.Random(seed)
        self.table: dict[str, dict[int, StepResult]] = {}
        frontier = [("", 0)]
        while frontier:
            state, level = frontier.pop()
            moves = {}
            for i in range(rng.randint(2, 3)):
                child = f"{state}{i}"
                ends = level + 1 >= depth or rng.random() < 0.2
                reward = {p: rng.random() for p in PLAYERS} if ends else {}
                moves[i] = StepResult(child, reward, ends)
                if not ends:
                    frontier.append((child, level + 1))
            self.table[state] = moves

    def actions(self, state: str) -> tuple[int, ...]:
        moves = self.table.get(state)
        return tuple(moves) if moves else ()

    def player(self, state: str) -> int:
        return PLAYERS[len(state) % 3]

    def step(self, state: str, action: int) -> StepResult:
        return self.table[state][action]


def root_values(model: RandomTree) -> dict[int, float]:
    """{root move: its max^n value to the root player}, by brute force."""
    values = {}
    for action in model.actions(""):
        child, reward, ends = model.step("", action)
        rest = (0.0, 0.0, 0.0) if ends else maxn_moves(model, child)[0]
        values[action] = reward.get(1, 0.0) + rest[0]
    return values


def equilibrium(args: argparse.Namespace) -> None:
    print(
        f"Equilibrium: {args.trees} random general-sum trees (3 players, depth <= 4), "
        f"c = {args.exploration}, right = within {args.epsilon} of the max^n move's value"
    )
    right = dict.fromkeys(args.iterations, 0)
    exact = dict.fromkeys(args.iterations, 0)
    solver_right = solved = 0
    solver_iterations = []
    gaps = []
    for i in range(args.trees):
        model = RandomTree(args.seed + i)
        values = root_values(model)
        best = maxn_moves(model, "")[1][0]
        ordered = sorted(values.values(), reverse=True)
        gaps.append(ordered[0] - ordered[1])
        for iterations in args.iterations:
            planner = MCTS(model, iterations, exploration=args.exploration, seed=args.seed + i)
            move = planner("")
            right[iterations] += values[move] >= values[best] - args.epsilon
            exact[iterations] += move == best
        planner = MCTS(
            model, args.solver_iterations, exploration=args.exploration, solve=True, seed=i
        )
        move = planner("")
        summary = planner.summary()
        solved += summary.stop_reason == "solved"
        solver_iterations.append(summary.iterations)
        solver_right += move == best
    print(
        f"  root gap between the best two moves' values: median {statistics.median(gaps):.3f}, "
        f"{sum(g < args.epsilon for g in gaps)} trees under epsilon"
    )
    n = args.trees
    for iterations in args.iterations:
        low, high = wilson(right[iterations] / n, n)
        print(
            f"  {iterations:>6} iterations: right {right[iterations]}/{n} "
            f"({right[iterations] / n:.1%}, 95% CI {low:.1%}-{high:.1%}); exact max^n move "
            f"{exact[iterations]}/{n} ({exact[iterations] / n:.1%})"
        )
    low, high = wilson(solver_right / n, n)
    print(
        f"  MCTS-Solver (solve=True, at most {args.solver_iterations} iterations): exact max^n "
        f"move {solver_right}/{n} ({solver_right / n:.1%}, 95% CI {low:.1%}-{high:.1%}); root "
        f"proven in {solved}/{n}, median {statistics.median(solver_iterations):.0f} iterations"
    )


def speed(args: argparse.Namespace) -> None:
    cases = {
        "2 players, scalar (plain loop)": ThreeInARowModel(2, every_reward=False),
        "2 players, every player's reward": ThreeInARowModel(2),
        "3 players, every player's reward": ThreeInARowModel(3),
    }
    n = args.speed_iterations
    times: dict[str, list[float]] = {name: [] for name in cases}
    for repeat in range(args.repeats):
        order = list(cases) if repeat % 2 == 0 else list(reversed(cases))
        for name in order:
            model = cases[name]
            planner = MCTS(model, n, seed=repeat)
            start = time.process_time()
            planner.search(model.initial_state)
            times[name].append(time.process_time() - start)
    print(
        f"Speed: three in a row 4 x 4 from the empty board, {n} iterations, random rollouts, "
        f"median of {args.repeats} interleaved repeats (CPU time)"
    )
    base = next(iter(cases))
    for name in cases:
        rate = n / statistics.median(times[name])
        ratios = [b / t for t, b in zip(times[name], times[base], strict=True)]
        print(f"  {name:<34} {rate:>8.0f} it/s   speed vs scalar: {statistics.median(ratios):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", nargs="+", default=["equilibrium", "speed"])
    parser.add_argument("--trees", type=int, default=200)
    parser.add_argument("--iterations", type=int, nargs="+", default=[2000, 10000, 50000])
    parser.add_argument("--solver-iterations", type=int, default=20000)
    parser.add_argument("--exploration", type=float, default=1.0)
    parser.add_argument("--epsilon", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--speed-iterations", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(describe_machine())
    if "equilibrium" in args.sections:
        equilibrium(args)
    if "speed" in args.sections:
        speed(args)


if __name__ == "__main__":
    main()
