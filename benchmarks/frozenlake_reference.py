"""An independent reference of chance-node UCT on slippery FrozenLake 4x4 (issue 18's cross-check).

Written from ``docs/concepts/iteration.md`` and ``docs/guides/chance.md`` alone, without
``mcts_agent``'s code, straight on the env's table ``P``: UCB1 with c = sqrt(2)
at decision nodes, ties to the first action; the first untried action is
expanded (a chance node and one drawn outcome); every later pass through a
chance node draws an outcome (one ``random()`` against the cumulative
probabilities, in ``P``'s order) and goes on to that outcome's node, keyed by
(cell, steps taken), a new outcome being the iteration's expansion; uniformly
random rollouts (``randrange(4)``) to the end or the 100-step limit; backup
``G = r + G`` at decision nodes, ``G`` unchanged at chance nodes; the move
played is the most visited (ties: higher value, then first). ``onedraw`` is
the plain loop whose edges keep the outcome drawn at their expansion.

Episode ``i``: ``env.reset(seed=--start + i)``, the planner's generator
``random.Random(--start + i)``, a new tree every move. Its success rates are
what an implementation of the spec reaches, to set
``bench_chance.py``'s (whose random numbers are drawn in another order) beside.

Run: ``python benchmarks/frozenlake_reference.py --planner chance
--iterations 1000 --episodes 500 --workers 2``.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor

import gymnasium as gym
from bench_guided import wilson

STEP_LIMIT = 100
ACTIONS = 4
C = math.sqrt(2.0)

Outcome = tuple[int, float, bool]
"""(next cell, reward, terminated)."""


def tables(transitions: dict) -> dict[int, list[tuple[tuple[float, ...], tuple[Outcome, ...]]]]:
    """Per cell and action: the cumulative probabilities of the outcomes, and the outcomes."""
    result = {}
    for cell, by_action in transitions.items():
        result[cell] = []
        for action in range(ACTIONS):
            running, cumulative, outcomes = 0.0, [], []
            for p, next_cell, reward, terminated in by_action[action]:
                if p > 0.0:
                    running += p
                    cumulative.append(running)
                    outcomes.append((next_cell, float(reward), bool(terminated)))
            cumulative[-1] = math.inf  # the last outcome takes what rounding leaves
            result[cell].append((tuple(cumulative), tuple(outcomes)))
    return result


def draw(table: dict, cell: int, action: int, rng: random.Random) -> Outcome:
    """One outcome of ``action`` in ``cell``, by its probability."""
    cumulative, outcomes = table[cell][action]
    u = rng.random()
    for bound, outcome in zip(cumulative, outcomes, strict=True):
        if u < bound:
            return outcome
    raise AssertionError("unreachable: the last bound is inf")


def rollout(table: dict, cell: int, steps: int, rng: random.Random) -> float:
    """The return of uniformly random moves from ``cell`` after ``steps`` steps (gamma 1)."""
    total = 0.0
    while steps < STEP_LIMIT:
        cell, reward, terminated = draw(table, cell, rng.randrange(ACTIONS), rng)
        steps += 1
        total += reward
        if terminated:
            break
    return total


class Decision:
    """A decision node: its cell, steps taken, the reward of the move into it, N, W, children."""

    __slots__ = ("cell", "steps", "reward", "terminal", "visits", "value_sum", "children")

    def __init__(self, cell: int, steps: int, reward: float, terminated: bool) -> None:
        self.cell, self.steps, self.reward = cell, steps, reward
        self.terminal = terminated or steps >= STEP_LIMIT
        self.visits, self.value_sum = 0, 0.0
        self.children: list = []  # per action tried, in order: Chance, or Decision (onedraw)


class Chance:
    """A chance node: its action, N, W, and its outcome nodes by key (cell, steps)."""

    __slots__ = ("action", "visits", "value_sum", "outcomes")

    def __init__(self, action: int) -> None:
        self.action, self.visits, self.value_sum = action, 0, 0.0
        self.outcomes: dict[tuple[int, int], Decision] = {}


def ucb1(node: Decision):
    """The child of highest ``Q + c * sqrt(ln N / n)``, the first on ties."""
    log_n = math.log(node.visits)
    best, best_score = None, -math.inf
    for child in node.children:
        score = child.value_sum / child.visits + C * math.sqrt(log_n / child.visits)
        if score > best_score:
            best, best_score = child, score
    return best


def most_visited(root: Decision) -> int:
    """The robust child's action: most visits, then higher value, then first."""
    best, best_key = 0, None
    for action, child in enumerate(root.children):
        key = (child.visits, child.value_sum / child.visits)
        if best_key is None or key > best_key:
            best, best_key = action, key
    return best


def backup(path: list, root: Decision, g: float) -> None:
    """Leaf first: decision nodes ``G = r + G``, chance nodes ``G`` unchanged; N += 1, W += G."""
    for node in reversed(path):
        if node is root:
            node.visits += 1
            continue
        if type(node) is Decision:
            g = node.reward + g
        node.visits += 1
        node.value_sum += g


def plan(
    table: dict, cell: int, steps: int, iterations: int, rng: random.Random, chance: bool
) -> int:
    """One search from (cell, steps); returns the action played."""
    root = Decision(cell, steps, 0.0, False)
    for _ in range(iterations):
        node, path = root, [root]
        while True:
            if node.terminal:
                g = 0.0
                break
            if len(node.children) < ACTIONS:  # expand the first untried action
                action = len(node.children)
                child = Decision(*_drawn(table, node, action, rng))
                if chance:
                    edge = Chance(action)
                    edge.outcomes[child.cell, child.steps] = child
                    node.children.append(edge)
                    path.append(edge)
                else:
                    node.children.append(child)
                path.append(child)
                g = 0.0 if child.terminal else rollout(table, child.cell, child.steps, rng)
                break
            picked = ucb1(node)
            if not chance:
                node = picked
                path.append(node)
                continue
            path.append(picked)
            drawn = Decision(*_drawn(table, node, picked.action, rng))
            child = picked.outcomes.get((drawn.cell, drawn.steps))
            if child is None:  # an outcome not seen before: this iteration's expansion
                child = drawn
                picked.outcomes[child.cell, child.steps] = child
                path.append(child)
                g = 0.0 if child.terminal else rollout(table, child.cell, child.steps, rng)
                break
            path.append(child)
            node = child
        backup(path, root, g)
    return most_visited(root)


def _drawn(table: dict, node: Decision, action: int, rng: random.Random) -> tuple:
    """The arguments of the Decision that one draw of ``action`` from ``node`` reaches."""
    next_cell, reward, terminated = draw(table, node.cell, action, rng)
    return next_cell, node.steps + 1, reward, terminated


_TABLE: dict | None = None


def episode(job: tuple[int, str, int]) -> bool:
    """Plays episode ``seed`` with the planner; returns whether it reached the goal."""
    global _TABLE
    seed, planner, iterations = job
    env = gym.make("FrozenLake-v1", is_slippery=True, map_name="4x4", max_episode_steps=STEP_LIMIT)
    if _TABLE is None:
        _TABLE = tables(env.unwrapped.P)
    cell, _ = env.reset(seed=seed)
    rng = random.Random(seed)
    steps = 0
    while True:
        action = plan(_TABLE, cell, steps, iterations, rng, planner == "chance")
        cell, reward, terminated, truncated, _ = env.step(action)
        steps += 1
        if terminated or truncated:
            return reward > 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--planner", choices=["chance", "onedraw"], default="chance")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--start", type=int, default=0, help="the first episode's seed")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    jobs = [(args.start + i, args.planner, args.iterations) for i in range(args.episodes)]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        successes = list(pool.map(episode, jobs, chunksize=4))
    rate = sum(successes) / len(successes)
    low, high = wilson(rate, len(successes))
    print(
        f"reference {args.planner}, {args.iterations} iterations, {len(successes)} episodes "
        f"(seeds {args.start}-{args.start + len(successes) - 1}): success {rate:.3f} "
        f"[{low:.3f}, {high:.3f}]; {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
