"""Parallel search (issue 14): root parallelism's speed and strength, leaf batching's.

Sections (``--sections``, all by default; everything in this one run, side by side):

* ``rate``: connect four, native model, from the empty board, ``--iterations``
  (20,000) per worker: iterations per wall second of ``workers=1`` (in this
  process), ``workers=2`` and ``4`` (``backend="process"``) and Ray
  (``backend="ray"``, ``--ray-workers``, on a local instance started here with
  as many CPUs as the most workers asked). Every planner searches once first
  (starting its workers; not timed), then ``--repeats`` rounds time one search
  of each, the order rotating from one round to the next; the table gives the
  median rate and the median of the rounds' ratios to one worker.
* ``strength``: 2 workers against 1, ``--move-time`` (0.5) wall seconds per
  move (``time_limit``, each worker's), ``--games`` connect four games, seats
  alternating; score (wins + draws / 2) with Wilson's 95% interval, and the
  iterations per move of each side.
* ``doubling``: what any use of a second core could gain at most, for
  comparison with ``strength``: one tree of 2 x ``--doubling-iterations``
  per move against one tree of ``--doubling-iterations`` (49,000 by default:
  one pure-Python worker's iterations in 0.5 s), and 2 workers of
  ``--doubling-iterations`` each against 1 (root parallelism at equal
  iterations per worker, free of timing noise); ``--games`` games each.
  Iteration budgets give the same trees on either core, so this runs on the
  compiled one whatever ``strength`` measured.
* ``batch``: PUCT with a numpy MLP evaluator (the board as 2 x 49 bits from the
  mover's view, 2 hidden layers of 256 ReLU units, a tanh value head and 7 prior
  logits, random weights from ``--seed``), ``--batch-iterations`` per search
  from the empty board: evaluated leaves per wall second with
  ``leaf_batch=16`` (one ``evaluator.batch`` call per round) against
  ``leaf_batch=1`` (one call per leaf), and ``leaf_batch=16`` with the
  round's selection and backup in Python (``compiled.pure_python()``),
  interleaved repeats as above; the MLP in float32 and in float64
  (``--mlp-dtypes``); then the MLP alone on a search's states.
* ``batch-strength``: the cost of batching at equal iterations: PUCT + that MLP
  with ``leaf_batch=16`` against ``leaf_batch=1``, ``--batch-game-iterations``
  per move, ``--batch-games`` games.

numpy's BLAS is held to one thread (``OPENBLAS_NUM_THREADS`` and the like, set
before numpy is imported, unless already set), as a search uses one core.

Run: ``python benchmarks/bench_parallel.py`` (the issue's figures: 200 games
at 0.5 s per move take about an hour, the doubling section's 2 x 200 games
about two more); quick look: ``python benchmarks/bench_parallel.py
--iterations 5000 --repeats 3 --games 4 --doubling-iterations 5000
--batch-games 4``.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from bench_guided import play, wilson  # noqa: E402
from machine import describe_machine  # noqa: E402

from mcts_agent import MCTS, Evaluation, core_backend  # noqa: E402
from mcts_agent.compiled import pure_python  # noqa: E402
from mcts_agent.envs.connect_four import (  # noqa: E402
    COLUMNS,
    EMPTY_BOARD,
    ROWS,
    ConnectFourModel,
)

UCT_C = 2 * math.sqrt(2)  # UCB1's sqrt(2) scaled to returns in [-1, 1]
PUCT_C = 2.0
# The bit of each column's top cell: connect_four's columns of ROWS cells and a spare bit.
_TOPS = np.arange(COLUMNS) * (ROWS + 1) + ROWS - 1
SECTIONS = ("rate", "strength", "doubling", "batch", "batch-strength")


def load() -> str:
    """The load averages (1, 5, 15 minutes) and the CPUs, as ``uptime`` reports them."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def interleaved(searches: dict, repeats: int) -> dict[str, list[float]]:
    """Rates of ``searches`` (name -> ``() -> (count, seconds)``), ``repeats`` rotating rounds."""
    names = list(searches)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for repeat in range(repeats):
        order = names[repeat % len(names) :] + names[: repeat % len(names)]
        for name in order:
            count, seconds = searches[name]()
            rates[name].append(count / seconds)
    return rates


def print_rates(rates: dict[str, list[float]], unit: str) -> None:
    """The median rate of each, and the median of the per-round ratios to the first."""
    names = list(rates)
    base = rates[names[0]]
    print(f"  {'':<22} {unit + ' per second':>24} {'ratio to ' + names[0]:>22}")
    for name in names:
        ratio = statistics.median(r / b for r, b in zip(rates[name], base, strict=True))
        spread = f"({min(rates[name]):,.0f}-{max(rates[name]):,.0f})"
        print(f"  {name:<22} {statistics.median(rates[name]):>10,.0f} {spread:>13} {ratio:>21.2f}x")


def timed_search(planner: MCTS, state) -> tuple[int, float]:
    start = time.perf_counter()
    planner.search(state)
    return planner.summary().iterations, time.perf_counter() - start


def rate_section(iterations: int, repeats: int, ray_workers: list[int], seed: int) -> None:
    model = ConnectFourModel()
    planners = {"1 worker": MCTS(model, iterations, exploration=UCT_C, seed=seed)}
    for workers in (2, 4):
        planners[f"{workers} workers (process)"] = MCTS(
            model, iterations, exploration=UCT_C, seed=seed, workers=workers
        )
    if ray_workers:
        import ray

        ray.init(num_cpus=max(ray_workers), include_dashboard=False, log_to_driver=False)
        for workers in ray_workers:
            planners[f"{workers} workers (Ray)"] = MCTS(
                model, iterations, exploration=UCT_C, seed=seed, workers=workers, backend="ray"
            )
    for planner in planners.values():  # starts the workers (processes, actors)
        planner.search(EMPTY_BOARD)
    print(f"rate: connect four, {iterations:,} iterations per worker, {repeats} rounds; {load()}")
    rates = interleaved(
        {
            name: (lambda p=planner: timed_search(p, EMPTY_BOARD))
            for name, planner in planners.items()
        },
        repeats,
    )
    print_rates(rates, "iterations")
    print(f"  ({load()} after)")
    for planner in planners.values():
        planner.close()


class TimedPlayer:
    """A planner as a player, counting its iterations per move."""

    def __init__(self, planner: MCTS) -> None:
        self.planner = planner
        self.iterations: list[int] = []
        self.seconds: list[float] = []

    def __call__(self, state):
        start = time.perf_counter()
        action = self.planner(state)
        self.seconds.append(time.perf_counter() - start)
        self.iterations.append(self.planner.summary().iterations)
        return action


def opening(seed: int, plies: int):
    """The position after ``plies`` random moves from the empty board (``Random(seed)``)."""
    model = ConnectFourModel()
    draws = random.Random(seed)
    state = EMPTY_BOARD
    for _ in range(plies):
        state = model.step(state, draws.choice(model.actions(state))).next_state
    return state


def match(first: MCTS, second: MCTS, games: int, label: str, plies: int, seed: int) -> None:
    """``first`` against ``second``, seats alternating; prints the score of ``first``.

    Game pair ``j`` (games ``2j`` and ``2j + 1``, one in each seat) starts from
    ``opening(seed + j, plies)``: the planners alone may be deterministic
    (PUCT with an evaluator and no rollouts plays one game per seat).
    """
    model = ConnectFourModel()
    players = (TimedPlayer(first), TimedPlayer(second))
    tally = {"win": 0, "draw": 0, "loss": 0}
    start = time.perf_counter()
    for i in range(games):
        seat = 1 + i % 2  # the first player's seat
        state = opening(seed + i // 2, plies)  # a few plies: connect four is still on
        winner = play(model, {seat: players[0], 3 - seat: players[1]}, state)
        tally["draw" if winner == 0 else "win" if winner == seat else "loss"] += 1
    score = (tally["win"] + tally["draw"] / 2) / games
    low, high = wilson(score, games)
    each = [statistics.mean(p.iterations) for p in players]
    wall = [statistics.mean(p.seconds) for p in players]
    print(
        f"  {label}: {tally['win']} wins, {tally['draw']} draws, {tally['loss']} losses of "
        f"{games}: score {score:.3f} (95% {low:.3f}-{high:.3f}); per move: iterations "
        f"{each[0]:,.0f} against {each[1]:,.0f} (all workers), wall seconds {wall[0]:.3f} "
        f"against {wall[1]:.3f}; {time.perf_counter() - start:.0f} s"
    )


def strength_section(games: int, move_time: float, plies: int, seed: int) -> None:
    model = ConnectFourModel()
    print(
        f"strength: 2 workers against 1, {move_time} s per move, {games} games; "
        f"core {core_backend()}; {load()}"
    )
    with MCTS(model, time_limit=move_time, exploration=UCT_C, seed=seed, workers=2) as two:
        one = MCTS(model, time_limit=move_time, exploration=UCT_C, seed=seed + 1)
        match(two, one, games, "2 workers", plies, seed)
    print(f"  ({load()} after)")


def doubling_section(games: int, iterations: int, plies: int, seed: int) -> None:
    model = ConnectFourModel()
    print(
        f"doubling: {2 * iterations:,} iterations per move against {iterations:,}, and 2 "
        f"workers of {iterations:,} against 1, {games} games each; core {core_backend()}; {load()}"
    )
    double = MCTS(model, 2 * iterations, exploration=UCT_C, seed=seed)
    single = MCTS(model, iterations, exploration=UCT_C, seed=seed + 1)
    match(double, single, games, f"one tree of {2 * iterations:,}", plies, seed)
    with MCTS(model, iterations, exploration=UCT_C, seed=seed, workers=2) as two:
        match(two, single, games, f"2 workers of {iterations:,}", plies, seed)
    print(f"  ({load()} after)")


class MLPEvaluator:
    """A random-weight MLP on the connect four board: 98 inputs, 256, 256, value and 7 logits.

    The input is the mover's pieces then the opponent's, 49 bits each (the
    bitboards of :mod:`mcts_agent.envs.connect_four`, spare bits included),
    computed in ``dtype`` (float32, as networks are usually run, or float64),
    ReLU hidden units, the value the tanh of its output. The priors are the
    softmax of the legal actions' logits (the legal columns read off the
    boards' top row, in one array operation, as a network's input pipeline
    would), handed over unnormalised. ``batch`` runs one forward pass for all
    the states; ``__call__`` is a batch of one.
    Counts the states it evaluates.
    """

    def __init__(self, seed: int, hidden: int = 256, dtype: str = "float32") -> None:
        rng = np.random.default_rng(seed)
        sizes = (98, hidden, hidden, 8)
        self.dtype = np.dtype(dtype)
        self.weights = [
            (rng.standard_normal((m, n)) / math.sqrt(m)).astype(self.dtype)
            for m, n in zip(sizes, sizes[1:], strict=False)
        ]
        self.biases = [np.zeros(n, dtype=self.dtype) for n in sizes[1:]]
        self.evaluated = 0
        self.seconds = 0.0  # wall seconds inside batch

    def batch(self, states, actions_list) -> list[Evaluation]:
        start = time.perf_counter()
        count = len(states)
        self.evaluated += count
        boards = np.array(
            [(o, x) if x.bit_count() > o.bit_count() else (x, o) for x, o in states],
            dtype=np.uint64,
        )  # the mover's pieces first (X moves when both have as many)
        planes = boards.view(np.uint8).reshape(count, 2, 8)  # each bitboard's 8 bytes
        bits = np.unpackbits(planes, axis=2, bitorder="little")[:, :, :49]  # (count, 2, 49)
        h = bits.reshape(count, 98).astype(self.dtype)
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            h = h @ w
            h += b
            np.maximum(h, 0.0, out=h)  # ReLU
        out = h @ self.weights[-1] + self.biases[-1]
        logits = out[:, 1:]
        logits[(bits[:, 0, _TOPS] | bits[:, 1, _TOPS]).astype(bool)] = -np.inf  # full columns
        # The softmax's weights; the search divides them by their sum
        # (docs/guides/guided-search.md).
        weights = np.exp(logits - logits.max(axis=1, keepdims=True)).tolist()
        values = np.tanh(out[:, 0]).tolist()
        evaluations = [
            Evaluation(value, [row[a] for a in actions])
            for value, row, actions in zip(values, weights, actions_list, strict=True)
        ]
        self.seconds += time.perf_counter() - start
        return evaluations

    def __call__(self, state, actions) -> Evaluation:
        return self.batch([state], [actions])[0]


def batch_planner(iterations: int, leaf_batch: int, seed: int, evaluator: MLPEvaluator) -> MCTS:
    return MCTS(
        ConnectFourModel(),
        iterations,
        exploration=PUCT_C,
        selection="puct",
        evaluator=evaluator,
        leaf_batch=leaf_batch,
        seed=seed,
    )


def batch_section(iterations: int, repeats: int, seed: int, dtypes: list[str]) -> None:
    for dtype in dtypes:
        print(
            f"batch: PUCT + MLP (98-256-256-8, {dtype}), {iterations:,} iterations per search, "
            f"{repeats} rounds; core {core_backend()}; {load()}"
        )
        searches = {}
        evaluators = {}
        for name, k, backend in (
            ("leaf_batch=1", 1, contextlib.nullcontext),
            ("leaf_batch=16", 16, contextlib.nullcontext),
            ("leaf_batch=16, Python steps", 16, pure_python),  # no compiled selection, backup
        ):
            evaluator = evaluators[name] = MLPEvaluator(seed, dtype=dtype)
            planner = batch_planner(iterations, k, seed, evaluator)

            def search(planner=planner, evaluator=evaluator, backend=backend) -> tuple[int, float]:
                before = evaluator.evaluated
                start = time.perf_counter()
                with backend():
                    planner.search(EMPTY_BOARD)
                return evaluator.evaluated - before, time.perf_counter() - start

            searches[name] = search
        print_rates(interleaved(searches, repeats), "evaluated leaves")
        # Inside those searches, the evaluator's own rate (its leaves per second spent in it).
        print("  the evaluator's own rate inside those searches (all rounds):")
        inside = {name: e.evaluated / e.seconds for name, e in evaluators.items()}
        for name, rate in inside.items():
            ratio = rate / inside["leaf_batch=1"]
            print(f"  {name:<28} {rate:>10,.0f} leaves per second {ratio:>16.2f}x")
        # The evaluator alone, on the states of a search's tree (Amdahl: what batching can gain).
        probe = batch_planner(400, 1, seed, MLPEvaluator(seed, dtype=dtype))
        probe.search(EMPTY_BOARD)
        tree = probe.tree
        nodes = [n for n in range(len(tree)) if tree.actions[n]]
        alone = {}
        for k in (1, 16):
            evaluator = MLPEvaluator(seed, dtype=dtype)
            chunks = [nodes[i : i + k] for i in range(0, len(nodes) - k + 1, k)]

            def run(chunks=chunks, evaluator=evaluator, tree=tree) -> tuple[int, float]:
                start = time.perf_counter()
                for chunk in chunks:
                    evaluator.batch(
                        [tree.states[n] for n in chunk], [tree.actions[n] for n in chunk]
                    )
                return sum(map(len, chunks)), time.perf_counter() - start

            alone[f"MLP alone, batches of {k}"] = run
        print_rates(interleaved(alone, repeats), "states")
    print(f"  ({load()} after)")


def batch_strength_section(games: int, iterations: int, plies: int, seed: int) -> None:
    print(
        f"batch-strength: PUCT + MLP, leaf_batch=16 against 1, {iterations} iterations per "
        f"move, {games} games; {load()}"
    )
    evaluator = MLPEvaluator(seed)
    batched = batch_planner(iterations, 16, seed, evaluator)
    single = batch_planner(iterations, 1, seed + 1, evaluator)
    match(batched, single, games, "leaf_batch=16", plies, seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--iterations", type=int, default=20_000, help="per worker (rate)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds")
    parser.add_argument(
        "--ray-workers", type=int, nargs="*", default=[2], help="Ray runs (none: no Ray)"
    )
    parser.add_argument("--games", type=int, default=200, help="strength games")
    parser.add_argument("--move-time", type=float, default=0.5, help="seconds per move")
    parser.add_argument(
        "--doubling-iterations", type=int, default=49_000, help="per move (doubling)"
    )
    parser.add_argument("--batch-iterations", type=int, default=3000)
    parser.add_argument(
        "--mlp-dtypes",
        nargs="+",
        choices=["float32", "float64"],
        default=["float32", "float64"],
        help="the MLP's float types (batch section)",
    )
    parser.add_argument("--batch-games", type=int, default=200)
    parser.add_argument("--batch-game-iterations", type=int, default=400)
    parser.add_argument(
        "--opening-plies", type=int, default=2, help="random moves before each game pair"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(describe_machine(("mcts-agent", "numpy", "ray")))
    if "rate" in args.sections:
        rate_section(args.iterations, args.repeats, args.ray_workers, args.seed)
    if "strength" in args.sections:
        strength_section(args.games, args.move_time, args.opening_plies, args.seed)
    if "doubling" in args.sections:
        doubling_section(args.games, args.doubling_iterations, args.opening_plies, args.seed)
    if "batch" in args.sections:
        batch_section(args.batch_iterations, args.repeats, args.seed, args.mlp_dtypes)
    if "batch-strength" in args.sections:
        batch_strength_section(
            args.batch_games, args.batch_game_iterations, args.opening_plies, args.seed
        )


if __name__ == "__main__":
    main()
