"""Guided search (issue 10): strength and cost of PUCT with evaluators, against plain UCT.

Sections (``--sections``, all by default; everything in this one process):

* ``c4-time``: connect four, PUCT + :func:`~mcts_agent.envs.connect_four.heuristic_evaluator`
  against plain UCT (random rollouts), the same CPU time per move
  (``--move-time``, 0.2 s). ``MCTS``'s ``time_limit`` counts wall time, so each player
  sets its iterations for a move from its own measured rate (iterations per
  CPU second over its previous moves of the match, starting from a short
  calibration), and the table reports the CPU time each side actually took
  per move. Seats alternate; game ``i`` seeds both planners from ``--seed + i``.
* ``c4-iterations``: the same match with the same iterations per move for both.
* ``cost``: the search's own cost per iteration, PUCT with a trivial
  evaluator (value 0, uniform priors) against plain UCT, both without
  rollouts, from the empty tic-tac-toe board at 5000 iterations (each adds a
  node, except PUCT's iterations that end at a terminal node: 5001 nodes
  against 4747): medians of interleaved repeats, the ratio
  being the median of the repeats' ratios (the order of the planners
  rotating from one repeat to the next).
* ``tictactoe``: PUCT with uniform priors and random rollouts against the
  perfect player, ``--ttt-games`` per seat at 5000 iterations.
* ``chess``: ``examples/pettingzoo_chess.py``'s player (PUCT, material
  evaluator, max_depth) against a random player: outcomes, game lengths and
  CPU time per move; a game still on after ``--chess-max-plies`` (300) is
  stopped and counted as a draw.

Scores are wins + draws / 2 over games; the 95% interval is Wilson's score
interval on that score (draws count half).

Run: ``python benchmarks/bench_guided.py --games 200`` (about an hour at 0.2 s
per move); ``--sections c4-iterations cost`` for a part.
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import time
from pathlib import Path

from machine import describe_machine

from mcts_agent import MCTS, Evaluation
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel, heuristic_evaluator
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD as TTT_START
from mcts_agent.envs.tic_tac_toe import TicTacToeModel
from mcts_agent.policies import PerfectPolicy

UCT_C = 2 * math.sqrt(2)  # UCB1's sqrt(2) scaled to returns in [-1, 1]
PUCT_C = 2.0  # c of PUCT with the heuristic (values in [-1, 1])
TTT_PUCT_C = 4 * math.sqrt(2)  # c of PUCT with uniform priors over up to 9 moves


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% score interval for a proportion ``score`` out of ``n``."""
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


class TimedPlanner:
    """A planner whose iterations per move follow its own measured rate to hit a CPU time."""

    def __init__(self, planner: MCTS, move_time: float | None) -> None:
        self.planner = planner
        self.move_time = move_time
        self.rate: float | None = None  # iterations per CPU second, measured
        self.times: list[float] = []
        self.iterations: list[int] = []

    def calibrate(self, state) -> None:
        """Measures the rate on ``state`` (a short search)."""
        self.planner.iterations = 200
        start = time.process_time()
        self.planner.search(state)
        self.rate = 200 / max(time.process_time() - start, 1e-6)

    def __call__(self, state):
        if self.move_time is not None:
            self.planner.iterations = max(10, int(self.rate * self.move_time))
        start = time.process_time()
        action = self.planner(state)
        spent = time.process_time() - start
        self.times.append(spent)
        self.iterations.append(self.planner.iterations)
        if self.move_time is not None:
            total_it = sum(self.iterations[-20:])
            total_t = sum(self.times[-20:])
            self.rate = total_it / max(total_t, 1e-6)
        return action


def play(model, players: dict, state) -> int:
    """Plays ``players[player](state)`` to the end; returns the winner (0 for a draw)."""
    while True:
        mover = model.player(state)
        state, reward, terminated = model.step(state, players[mover](state))
        if terminated or not model.actions(state):
            return mover if reward > 0 else (0 if reward == 0 else 3 - mover)


def connect_four_match(
    games: int, seed: int, move_time: float | None, iterations: int, minutes: float
) -> None:
    """PUCT + heuristic against plain UCT; prints the score with a 95% interval.

    Stops starting games after ``minutes`` (and says how many were played).
    """
    model = ConnectFourModel()
    tally = {"win": 0, "draw": 0, "loss": 0}
    guided = TimedPlanner(
        MCTS(
            model, iterations, exploration=PUCT_C, selection="puct", evaluator=heuristic_evaluator
        ),
        move_time,
    )
    plain = TimedPlanner(MCTS(model, iterations, exploration=UCT_C), move_time)
    if move_time is not None:
        guided.calibrate(C4_START)
        plain.calibrate(C4_START)
    budget = f"{move_time} s CPU per move" if move_time else f"{iterations} iterations per move"
    start = time.perf_counter()
    played = 0
    for i in range(games):
        if time.perf_counter() - start > 60 * minutes:
            break
        guided.planner.rng.seed(seed + i)
        plain.planner.rng.seed(seed + 10_000 + i)
        guided_player = 1 + i % 2
        players = {guided_player: guided, 3 - guided_player: plain}
        winner = play(model, players, C4_START)
        key = "draw" if winner == 0 else "win" if winner == guided_player else "loss"
        tally[key] += 1
        played = i + 1
        if played % 20 == 0 or played == games:
            _report(budget, played, games, tally, guided, plain, time.perf_counter() - start)
    if played % 20 and played != games:
        _report(budget, played, games, tally, guided, plain, time.perf_counter() - start)


def _report(budget, played, games, tally, guided, plain, seconds) -> None:
    score = (tally["win"] + tally["draw"] / 2) / played
    low, high = wilson(score, played)
    print(
        f"connect four, {budget}, {played} games (of {games} asked), seats alternating: "
        f"PUCT + heuristic W/D/L {tally['win']}/{tally['draw']}/{tally['loss']}, score "
        f"{score:.3f} (95% interval {low:.3f}-{high:.3f}); {seconds:.0f} s"
    )
    for name, player in (("PUCT + heuristic", guided), ("plain UCT", plain)):
        print(
            f"  {name}: {statistics.mean(player.times):.3f} s CPU per move (median "
            f"{statistics.median(player.times):.3f}), {statistics.mean(player.iterations):.0f} "
            "iterations per move on average"
        )
    sys.stdout.flush()


def search_cost(iterations: int, repeats: int) -> None:
    """PUCT with a trivial evaluator against plain UCT, without rollouts: us per iteration."""
    model = TicTacToeModel()

    def trivial(state, actions):
        return Evaluation(0.0, None)

    planners = {
        "plain UCT (rollout_limit=0)": lambda: MCTS(
            model, iterations, exploration=UCT_C, rollout_limit=0, seed=0
        ),
        "PUCT, trivial evaluator": lambda: MCTS(
            model, iterations, exploration=UCT_C, selection="puct", evaluator=trivial, seed=0
        ),
        "UCT through the general loop (rollout_limit=0)": lambda: _forced_general(
            MCTS(model, iterations, exploration=UCT_C, rollout_limit=0, seed=0)
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in planners}
    sizes = {}
    names = list(planners)
    for repeat in range(repeats):
        for name in names[repeat % 3 :] + names[: repeat % 3]:  # the order rotates
            planner = planners[name]()
            gc.collect()
            start = time.process_time()
            planner.search(TTT_START)
            times[name].append(time.process_time() - start)
            sizes[name] = len(planner.tree)
    base = times["plain UCT (rollout_limit=0)"]
    print(
        f"search cost, tic-tac-toe from the empty board, {iterations} iterations, "
        f"median of {repeats} interleaved repeats (CPU time); ratio: median over the repeats "
        "of time / plain UCT's time in the same repeat:"
    )
    for name, values in times.items():
        ratio = statistics.median(t / b for t, b in zip(values, base, strict=True))
        print(
            f"  {name:48s} {1e6 * statistics.median(values) / iterations:6.2f} us/iteration, "
            f"{sizes[name]} nodes, {ratio:.2f}x plain"
        )


def _forced_general(planner: MCTS) -> MCTS:
    planner._general = True  # the general loop with every option off (same tree)
    return planner


def tictactoe_against_perfect(games: int, seed: int) -> None:
    """PUCT, uniform priors, random rollouts, 5000 iterations, against the perfect player."""
    model = TicTacToeModel()
    perfect = PerfectPolicy(model, seed=seed)
    start = time.perf_counter()
    rows = []
    for seat in (1, 2):
        tally = {"win": 0, "draw": 0, "loss": 0}
        for i in range(games):
            planner = MCTS(
                model, 5000, exploration=TTT_PUCT_C, selection="puct", seed=seed + 1000 * seat + i
            )
            winner = play(model, {seat: planner, 3 - seat: perfect}, TTT_START)
            tally["draw" if winner == 0 else "win" if winner == seat else "loss"] += 1
        rows.append(f"as {'XO'[seat - 1]}: W/D/L {tally['win']}/{tally['draw']}/{tally['loss']}")
    print(
        f"tic-tac-toe, PUCT (c = 4*sqrt(2), uniform priors, random rollouts), 5000 iterations, "
        f"{games} games per seat against the perfect player: {'; '.join(rows)} "
        f"({time.perf_counter() - start:.0f} s)"
    )


def chess_against_random(games: int, seed: int, max_plies: int) -> None:
    """examples/pettingzoo_chess.py's settings against a random player (games cut at max_plies)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    import pettingzoo_chess

    pettingzoo_chess.main(
        ["--games", str(games), "--seed", str(seed), "--max-plies", str(max_plies)]
    )


def main(argv: list[str] | None = None) -> None:
    """Parses the options and runs the chosen sections."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sections",
        nargs="+",
        default=["cost", "tictactoe", "c4-iterations", "c4-time", "chess"],
        choices=["cost", "tictactoe", "c4-iterations", "c4-time", "chess"],
    )
    parser.add_argument("--games", type=int, default=200, help="connect four games per match")
    parser.add_argument("--move-time", type=float, default=0.2, help="CPU s per move (c4-time)")
    parser.add_argument("--iterations", type=int, default=1000, help="per move (c4-iterations)")
    parser.add_argument("--ttt-games", type=int, default=100, help="tic-tac-toe games per seat")
    parser.add_argument("--chess-games", type=int, default=10)
    parser.add_argument("--chess-max-plies", type=int, default=300)
    parser.add_argument("--cost-iterations", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--minutes", type=float, default=math.inf, help="stop starting connect four games after"
    )
    args = parser.parse_args(argv)
    print(describe_machine(), flush=True)
    for section in args.sections:
        if section == "cost":
            search_cost(args.cost_iterations, args.repeats)
        elif section == "tictactoe":
            tictactoe_against_perfect(args.ttt_games, args.seed)
        elif section == "c4-iterations":
            connect_four_match(args.games, args.seed, None, args.iterations, args.minutes)
        elif section == "c4-time":
            connect_four_match(args.games, args.seed, args.move_time, 200, args.minutes)
        else:
            chess_against_random(args.chess_games, args.seed, args.chess_max_plies)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
