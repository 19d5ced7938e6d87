"""The compiled core against the pure-Python loop, in one run: speed, the search's share, memory.

Three parts (every pair builds the same tree; the script exits 1 if one does not):

* **Speed** (``--sections speed``): iterations per CPU second of the same searches on
  both backends, interleaved repeats (each repeat runs the pure loop and the core
  back to back, in alternating order), medians and the median of the per-pair
  ratios. Cases: our tic-tac-toe and connect four models (native rollouts on the
  core, the Python rollout on the pure loop), a user's pure-Python tic-tac-toe
  model with no fused rollout (``ListTicTacToe`` below, the search's generic
  rollout), the PettingZoo adapter on ``classic/tictactoe-v3`` and
  ``classic/connect_four-v3``, and the Gymnasium adapter on CartPole-v1 and
  FrozenLake-v1 (not slippery).
* **The search's own share** (``share``): for the user's model, the CPU time of
  the model's own calls is measured by replaying, alone, every call one search
  made (recorded once: both backends make the same calls); the search's share is
  ``1 - model time / search time`` on each backend.
* **Memory** (``memory``): bytes per node of a search's tree beside its states,
  by tracemalloc (which sees the core's node records: they are allocated with
  ``PyMem_Realloc``) and, for the core, its own count (``Store.nbytes``).
  Tic-tac-toe's states, actions and players come from the model's tables, so
  nothing of them is allocated by the search; connect four's states (tuples of
  two ints, made by ``step``) are subtracted, each object counted once.

* **Wide nodes** (``wide``): microseconds per expansion of a root of k actions (10k to
  80k), each ending the game, on both backends: flat in k (a node's children are linked in
  O(1) each, issue 28 item 10; before, 16 to 141 us from 10k to 80k).

Run: ``python benchmarks/bench_compiled.py`` (``--repeats``, ``--sections``).
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import time
import tracemalloc
from typing import Any

import gymnasium as gym
import pettingzoo
from machine import describe_machine

from mcts_agent import MCTS, StepResult, core_backend
from mcts_agent.adapters import GymnasiumModel
from mcts_agent.adapters.pettingzoo import PettingZooModel
from mcts_agent.compiled import pure_python
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel

C = 2 * math.sqrt(2)
SECTIONS = ("speed", "share", "memory", "wide")
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class ListTicTacToe:
    """Tic-tac-toe as a user might write it: a tuple of 9 cells (0, 1, 2), no tables."""

    def actions(self, state: tuple) -> tuple:
        if self._winner(state) or 0 not in state:
            return ()
        return tuple(i for i, cell in enumerate(state) if cell == 0)

    def player(self, state: tuple) -> int:
        return 1 if state.count(1) == state.count(2) else 2

    def step(self, state: tuple, action: int) -> StepResult:
        board = list(state)
        board[action] = self.player(state)
        board = tuple(board)
        won = self._winner(board) != 0
        return StepResult(board, 1.0 if won else 0.0, won or 0 not in board)

    @staticmethod
    def _winner(board: tuple) -> int:
        for a, b, c in LINES:
            if board[a] and board[a] == board[b] == board[c]:
                return board[a]
        return 0


def pettingzoo_case(name: str) -> tuple[Any, Any]:
    env = pettingzoo.make("aec", name)
    env.reset(seed=0)
    model = PettingZooModel(env)
    return model, model.state_of(env)


def gymnasium_case(env_id: str, **kwargs: Any) -> tuple[Any, Any]:
    env = gym.make(env_id, **kwargs)
    env.reset(seed=0)
    model = GymnasiumModel(env)
    return model, model.state_of(env)


def cases() -> list[tuple[str, Any, Any, dict]]:
    """(label, model, state, MCTS options) of the speed section."""
    return [
        ("tic-tac-toe, our model", TicTacToeModel(), EMPTY_BOARD, {"iterations": 10_000}),
        ("connect four, our model", ConnectFourModel(), C4_START, {"iterations": 10_000}),
        ("tic-tac-toe, a user's model", ListTicTacToe(), (0,) * 9, {"iterations": 5_000}),
        (
            "PettingZoo tictactoe-v3",
            *pettingzoo_case("classic/tictactoe-v3"),
            {"iterations": 2_000},
        ),
        (
            "PettingZoo connect_four-v3",
            *pettingzoo_case("classic/connect_four-v3"),
            {"iterations": 300},
        ),
        (
            "Gymnasium CartPole-v1",
            *gymnasium_case("CartPole-v1"),
            {"iterations": 200, "rollout_limit": 50},
        ),
        (
            "Gymnasium FrozenLake-v1",
            *gymnasium_case("FrozenLake-v1", is_slippery=False),
            {"iterations": 500, "rollout_limit": 100},
        ),
    ]


def timed_search(model: Any, state: Any, options: dict, seed: int) -> tuple[float, tuple]:
    """CPU seconds of one search, and its tree's N, W and children (to compare)."""
    planner = MCTS(model, exploration=C, seed=seed, **options)
    gc.collect()
    start = time.process_time()
    planner.search(state)
    seconds = time.process_time() - start
    tree = planner.tree
    return seconds, (list(tree.visits), list(tree.value_sums), list(tree.children))


def speed(repeats: int) -> bool:
    print("\n## Speed: compiled core / pure Python (CPU time, interleaved pairs)\n")
    print(
        "| case | iterations | pure Python (it/s) | compiled (it/s) | speed-up (median of pairs) |"
    )
    print("|---|---:|---:|---:|---:|")
    same = True
    for label, model, state, options in cases():
        seconds: dict[str, list[float]] = {"python": [], "compiled": []}
        for repeat in range(repeats):
            trees = {}
            for backend in ("python", "compiled") if repeat % 2 else ("compiled", "python"):
                if backend == "python":
                    with pure_python():
                        took, trees[backend] = timed_search(model, state, options, repeat)
                else:
                    took, trees[backend] = timed_search(model, state, options, repeat)
                seconds[backend].append(took)
            same &= trees["python"] == trees["compiled"]
        ratio = statistics.median(
            p / c for p, c in zip(seconds["python"], seconds["compiled"], strict=True)
        )
        n = options["iterations"]
        rates = {b: n / statistics.median(s) for b, s in seconds.items()}
        print(
            f"| {label} | {n:,} | {rates['python']:,.0f} | {rates['compiled']:,.0f} "
            f"| {ratio:.2f}x |"
        )
    print(f"\nSame tree in every pair: {same}")
    return same


class Recorder:
    """Wraps a model and records every call (method, arguments) the search makes."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls: list[tuple[str, tuple]] = []

    def actions(self, state: Any) -> Any:
        self.calls.append(("actions", (state,)))
        return self.model.actions(state)

    def player(self, state: Any) -> Any:
        self.calls.append(("player", (state,)))
        return self.model.player(state)

    def step(self, state: Any, action: Any) -> Any:
        self.calls.append(("step", (state, action)))
        return self.model.step(state, action)


def share(repeats: int) -> None:
    print("\n## The search's own share of a search's time (a user's model, no fused rollout)\n")
    model, state, iterations = ListTicTacToe(), (0,) * 9, 5_000
    recorder = Recorder(model)
    MCTS(recorder, iterations, exploration=C, seed=0).search(state)
    calls = [(getattr(model, name), args) for name, args in recorder.calls]
    replay, by_backend = [], {"python": [], "compiled": []}
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        for method, args in calls:
            method(*args)
        replay.append(time.process_time() - start)
        for backend in by_backend:
            if backend == "python":
                with pure_python():
                    took, _ = timed_search(model, state, {"iterations": iterations}, 0)
            else:
                took, _ = timed_search(model, state, {"iterations": iterations}, 0)
            by_backend[backend].append(took)
    model_time = statistics.median(replay)
    print(f"{iterations:,} iterations, {len(calls):,} model calls (the same on both backends)\n")
    print("| backend | search (s) | the model's calls (s) | the search's own share |")
    print("|---|---:|---:|---:|")
    for backend, seconds in by_backend.items():
        total = statistics.median(seconds)
        print(f"| {backend} | {total:.3f} | {model_time:.3f} | {1 - model_time / total:.0%} |")


def deep_size(objects: list[Any]) -> int:
    """Bytes of ``objects`` and the ints and tuples inside them, each object counted once."""
    seen: set[int] = set()
    total = 0
    stack = list(objects)
    while stack:
        item = stack.pop()
        if id(item) in seen or (isinstance(item, int) and -5 <= item <= 256):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, tuple):
            stack.extend(item)
    return total


def memory() -> None:
    print("\n## Memory per node beside the states (tracemalloc; the core's own count)\n")
    print("| case | backend | nodes | bytes per node (tracemalloc) | node records (core) |")
    print("|---|---|---:|---:|---:|")
    for label, model, state, iterations in (
        ("tic-tac-toe", TicTacToeModel(), EMPTY_BOARD, 100_000),
        ("connect four", ConnectFourModel(), C4_START, 100_000),
    ):
        for backend in ("python", "compiled"):
            planner = MCTS(model, iterations, exploration=C, seed=0)
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            if backend == "python":
                with pure_python():
                    planner.search(state)
            else:
                planner.search(state)
            gc.collect()
            grown = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.stop()
            tree = planner.tree
            nodes = len(tree)
            states = 0 if isinstance(model, TicTacToeModel) else deep_size(list(tree.states[1:]))
            store = getattr(tree.visits, "store", None)
            own = f"{store.nbytes / nodes:.0f}" if store is not None else "-"
            print(
                f"| {label}, {iterations:,} iterations | {backend} | {nodes:,} "
                f"| {(grown - states) / nodes:.0f} | {own} |"
            )


class Wide:
    """A root of ``width`` actions, each ending the game: every iteration expands the root."""

    def __init__(self, width: int) -> None:
        self.root_actions = tuple(range(width))
        self.width = width

    def actions(self, state: Any) -> tuple:
        return self.root_actions if state == "root" else ()

    def player(self, state: Any) -> int:
        return 0

    def step(self, state: Any, action: int) -> tuple[int, float, bool]:
        return action, action / self.width, True


def wide() -> bool:
    """Per-expansion time of a wide node (issue 28, item 10): flat in k once linking is O(1)."""
    print("\n## Expanding a node of k actions: microseconds per expansion (CPU time)\n")
    print("| k actions | python | compiled | same tree |")
    print("|---:|---:|---:|:---:|")
    same = True
    for width in (10_000, 20_000, 40_000, 80_000):
        times, trees = [], []
        for backend in ("python", "compiled"):
            planner = MCTS(Wide(width), width, seed=0)
            start = time.process_time()
            if backend == "python":
                with pure_python():
                    planner.search("root")
            else:
                planner.search("root")
            times.append((time.process_time() - start) / width * 1e6)
            trees.append((list(planner.tree.children), list(planner.tree.value_sums)))
        same = same and trees[0] == trees[1]
        print(f"| {width:,} | {times[0]:.2f} | {times[1]:.2f} | {trees[0] == trees[1]} |")
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--sections",
        nargs="+",
        default=list(SECTIONS),
        choices=SECTIONS,
    )
    args = parser.parse_args(argv)
    print(describe_machine(("mcts-agent", "pettingzoo", "gymnasium")))
    print(f"Core: {core_backend()}")
    if core_backend() != "compiled":
        print("The compiled core is not built: nothing to compare.")
        return 1
    same = True
    if "speed" in args.sections:
        same = speed(args.repeats)
    if "share" in args.sections:
        share(args.repeats)
    if "memory" in args.sections:
        memory()
    if "wide" in args.sections:
        same = wide() and same
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
