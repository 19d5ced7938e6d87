"""Anytime and exact (issue 11): time budgets, the node cap, tree reuse and the solver.

Sections (``--sections``, all by default):

* ``time``: ``--searches`` searches with ``time_limit=0.05`` from the empty
  board of tic-tac-toe and of connect four: the overshoot (elapsed minus the
  limit, wall clock) at the median, the 95th percentile and the maximum, and
  how many stopped early (none may). Then the cost of reading the clock:
  iterations per second of time-budget searches against iteration-budget
  searches of the same size, interleaved pairs, median of the ratios.
* ``nodes``: one search of 1,000,000 iterations with ``max_nodes=100_000``:
  the nodes it holds and its memory (tracemalloc, peak during the search)
  against a search of exactly as many iterations without a cap.
* ``reuse``: self-play in tic-tac-toe and connect four with
  ``reuse_tree=True``: the searches after the first that found the position
  in the previous tree, and whether every one that could did; then
  ``--games`` connect four games, reuse against no reuse at the same new
  iterations per move (seats alternating): score with a 95% interval; and the
  time spent finding and re-rooting, as a share of the move's search.
* ``solver``: every tic-tac-toe position with at least two marks solved with
  ``value_bounds=(-1, 1)``: iterations to prove (mean, median, max), all
  values checked against minimax; the empty board; connect four positions
  with a win in at most 5 plies (found with alpha-beta): iterations the
  solver needs against the iterations plain UCT needs before its move is a
  winning one.

Run: ``python benchmarks/bench_anytime.py`` (about 10 minutes on one core);
``--sections time`` for one part.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from machine import describe_machine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from positions import connect_four_wins_within, tic_tac_toe_positions  # noqa: E402

from mcts_agent import MCTS, AlphaBetaMinimax, ExhaustiveMinimax, reuse
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel

C = 2 * math.sqrt(2)
GAMES = {
    "tic-tac-toe": (TicTacToeModel(), EMPTY_BOARD),
    "connect four": (ConnectFourModel(), C4_START),
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def section_time(searches: int) -> None:
    print("## Time limit 0.05 s (wall clock), from the empty board")
    print()
    print(
        "| game | searches | iterations (median) | overshoot median | p95 | max | stopped early |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (model, start) in GAMES.items():
        overshoot, iterations = [], []
        for seed in range(searches):
            planner = MCTS(model, time_limit=0.05, exploration=C, seed=seed)
            begin = time.perf_counter()
            planner.search(start)
            took = time.perf_counter() - begin
            overshoot.append(took - 0.05)
            iterations.append(planner.summary().iterations)
        early = sum(o < 0 for o in overshoot)
        print(
            f"| {name} | {searches} | {statistics.median(iterations):,.0f} | "
            f"{1000 * statistics.median(overshoot):.2f} ms | "
            f"{1000 * percentile(overshoot, 0.95):.2f} ms | {1000 * max(overshoot):.2f} ms | "
            f"{early} |"
        )
    print()
    print("Reading the clock: each time-budget search (0.1 s) against an iteration-budget search")
    print("of the same iterations and seed (the same tree, checked), CPU time, median of 15 pairs")
    print()
    print("| game | iterations (median) | time budget / iteration budget, CPU time per search |")
    print("|---|---:|---:|")
    for name, (model, start) in GAMES.items():
        ratios, counts = [], []
        for seed in range(15):
            timed = MCTS(model, time_limit=0.1, exploration=C, seed=seed)
            cpu = time.process_time()
            timed.search(start)
            timed_cpu = time.process_time() - cpu
            count = timed.summary().iterations
            counted = MCTS(model, count, exploration=C, seed=seed)
            cpu = time.process_time()
            counted.search(start)
            counted_cpu = time.process_time() - cpu
            assert timed.tree.visits == counted.tree.visits
            assert timed.tree.value_sums == counted.tree.value_sums
            ratios.append(timed_cpu / counted_cpu)
            counts.append(count)
        print(f"| {name} | {statistics.median(counts):,.0f} | {statistics.median(ratios):.3f} |")
    print()


def section_nodes() -> None:
    print("## Node cap: connect four, 1,000,000 iterations with max_nodes=100,000")
    print()
    model, start = GAMES["connect four"]
    tracemalloc.start()
    capped = MCTS(model, 1_000_000, max_nodes=100_000, exploration=C, seed=0)
    capped.search(start)
    capped_peak = tracemalloc.get_traced_memory()[1]
    summary = capped.summary()
    del capped
    tracemalloc.reset_peak()
    plain = MCTS(model, summary.iterations, exploration=C, seed=0)
    plain.search(start)
    plain_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"capped: {summary.iterations:,} iterations, {summary.nodes:,} nodes, stop reason "
        f"{summary.stop_reason}, peak {capped_peak / 2**20:.1f} MiB"
    )
    print(
        f"uncapped, same {summary.iterations:,} iterations: {len(plain.tree):,} nodes, peak "
        f"{plain_peak / 2**20:.1f} MiB; capped / uncapped = {capped_peak / plain_peak:.3f}"
    )
    print()


def self_play(model, start, iterations, seed):
    """Both seats played by one reusing planner; (searches, found, could) after the first."""
    planner = MCTS(model, iterations, exploration=C, seed=seed, reuse_tree=True)
    state = start
    found = could = searches = 0
    while model.actions(state):
        if planner._tree is not None:
            searches += 1
            could += reuse.find_node(planner._tree, state, None) is not None
        planner.search(state)
        if searches and planner.summary().reused_visits > 0:
            found += 1
        result = model.step(state, planner.best_action())
        state = result.next_state
        if result.terminated:
            break
    return searches, found, could


def play_match_game(model, start, planners):
    """One game; planners[player] moves for each player (1, 2). Returns player 1's score."""
    state = start
    while model.actions(state):
        mover = model.player(state)
        action = planners[mover](state)
        result = model.step(state, action)
        if result.terminated:
            if result.reward > 0:
                return 1.0 if mover == 1 else 0.0
            if result.reward < 0:
                return 0.0 if mover == 1 else 1.0
            return 0.5
        state = result.next_state
    return 0.5


def section_reuse(games: int, iterations: int) -> None:
    print("## Tree reuse")
    print()
    print("| self-play | games | searches after the first | position in the old tree | reused |")
    print("|---|---:|---:|---:|---:|")
    for name, (model, start) in GAMES.items():
        totals = [0, 0, 0]
        for seed in range(10):
            for i, x in enumerate(self_play(model, start, iterations, seed)):
                totals[i] += x
        print(f"| {name} | 10 | {totals[0]} | {totals[2]} | {totals[1]} |")
    print()
    model, start = GAMES["connect four"]
    spent = {"find": 0.0, "search": 0.0}
    original = reuse.subtree_at

    def timed_subtree_at(*args):
        begin = time.perf_counter()
        try:
            return original(*args)
        finally:
            spent["find"] += time.perf_counter() - begin

    reuse.subtree_at = timed_subtree_at
    score = 0.0
    try:
        for game in range(games):
            reusing = MCTS(model, iterations, exploration=C, seed=2 * game, reuse_tree=True)
            fresh = MCTS(model, iterations, exploration=C, seed=2 * game + 1)

            def reusing_move(state, reusing=reusing):
                begin = time.perf_counter()
                action = reusing(state)
                spent["search"] += time.perf_counter() - begin
                return action

            seats = {1: reusing_move, 2: fresh} if game % 2 == 0 else {1: fresh, 2: reusing_move}
            first = play_match_game(model, start, seats)
            score += first if game % 2 == 0 else 1.0 - first
    finally:
        reuse.subtree_at = original
    low, high = wilson(score / games, games)
    print(
        f"connect four, {iterations} new iterations per move, {games} games: reuse scores "
        f"{score / games:.3f} (95% Wilson {low:.3f}-{high:.3f}) against no reuse"
    )
    print(
        f"finding and re-rooting: {1000 * spent['find']:.0f} ms of {1000 * spent['search']:.0f} ms "
        f"of the reusing side's searches ({100 * spent['find'] / spent['search']:.2f}%)"
    )
    print()


def section_solver(positions: int) -> None:
    print("## Solver, value_bounds=(-1, 1)")
    print()
    model = TicTacToeModel()
    oracle = ExhaustiveMinimax(model)
    needed, wrong, unproven = [], 0, 0
    for i, state in enumerate(tic_tac_toe_positions(min_marks=2)):
        planner = MCTS(model, 20_000, exploration=C, seed=i, solve=True, value_bounds=(-1, 1))
        planner.search(state)
        summary = planner.summary()
        if summary.stop_reason != "solved":
            unproven += 1
            continue
        needed.append(summary.iterations)
        wrong += summary.proven_value != oracle.value(state) or (
            summary.action not in oracle.best_actions(state)
        )
    print(
        f"tic-tac-toe, {len(needed) + unproven} positions with >= 2 marks: {unproven} unproven "
        f"in 20,000 iterations, {wrong} wrong; iterations to prove: mean "
        f"{statistics.mean(needed):.1f}, median {statistics.median(needed):.0f}, max {max(needed)}"
    )
    for budget in (100_000, 1_000_000):
        planner = MCTS(model, budget, exploration=C, seed=0, solve=True, value_bounds=(-1, 1))
        planner.search(EMPTY_BOARD)
        s = planner.summary()
        proven = sum(p is not None for p in s.proven)
        print(
            f"tic-tac-toe, empty board, {budget:,} iterations: stop reason {s.stop_reason}, "
            f"{s.nodes:,} nodes, {proven} of 9 first moves proven ({s.proven})"
        )
    print()
    c4 = ConnectFourModel()
    oracle = AlphaBetaMinimax(c4, depth=5)
    print(
        "| connect four win in <= 5 plies | solver: proven after | plain UCT: winning move from |"
    )
    print("|---|---:|---:|")
    solver_its, uct_its = [], []
    for i, state in enumerate(connect_four_wins_within(5, positions, seed=11)):
        values = oracle.action_values(state)
        planner = MCTS(c4, 200_000, exploration=C, seed=i, solve=True, value_bounds=(-1, 1))
        planner.search(state)
        summary = planner.summary()
        ok = summary.stop_reason == "solved" and values[summary.action] == 1.0
        # Plain UCT: the smallest budget (doubling) from which its move is a winning one at
        # this budget and the next two doublings.
        budget, found = 16, None
        while budget <= 2**17 and found is None:
            moves = []
            for k in range(3):
                uct = MCTS(c4, budget * 2**k, exploration=C, seed=i)
                moves.append(values[uct(state)] == 1.0)
            if all(moves):
                found = budget
            budget *= 2
        solver_its.append(summary.iterations)
        uct_its.append(found if found is not None else math.inf)
        print(
            f"| position {i} {'(proven, winning move)' if ok else '(NOT proven)'} | "
            f"{summary.iterations:,} | {found if found is not None else '> 131,072'} |"
        )
    finite = [u for u in uct_its if u != math.inf]
    print()
    print(
        f"solver: median {statistics.median(solver_its):,.0f} iterations to prove; plain UCT: "
        f"median {statistics.median(uct_its):,.0f} before it plays a winning move steadily "
        f"({len(finite)} of {len(uct_its)} within 131,072)"
    )
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sections",
        nargs="+",
        default=["time", "nodes", "reuse", "solver"],
        choices=["time", "nodes", "reuse", "solver"],
    )
    parser.add_argument("--searches", type=int, default=100)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--positions", type=int, default=20)
    args = parser.parse_args(argv)
    print(describe_machine())
    print()
    if "time" in args.sections:
        section_time(args.searches)
    if "nodes" in args.sections:
        section_nodes()
    if "reuse" in args.sections:
        section_reuse(args.games, args.iterations)
    if "solver" in args.sections:
        section_solver(args.positions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
