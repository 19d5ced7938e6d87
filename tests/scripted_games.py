"""Small hand-written and random game models, a reference UCT and reference rollouts."""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass, field
from functools import partial

import pytest
from hypothesis import strategies as st

from mcts_agent import StepResult


class FinishedGameQueried(AssertionError):
    """The search asked a model about a game that is already over."""


@dataclass
class ScriptedGame:
    """A model given as a table: ``{state: (player, {action: (next, reward, terminated)})}``.

    States missing from the table have no legal actions. The model raises if it is asked
    anything about a state reached by a terminating move, or asked to step/player a state
    without actions, and counts every call.
    """

    table: dict
    finished: set = field(default_factory=set)
    calls: dict = field(default_factory=lambda: {"actions": 0, "step": 0, "player": 0})

    def __post_init__(self):
        for _, moves in self.table.values():
            for nxt, _, terminated in moves.values():
                if terminated:
                    self.finished.add(nxt)

    def _check(self, state, method):
        self.calls[method] += 1
        if state in self.finished:
            raise FinishedGameQueried(f"{method}({state!r}) called on a finished game")

    def actions(self, state):
        self._check(state, "actions")
        return tuple(self.table[state][1]) if state in self.table else ()

    def player(self, state):
        self._check(state, "player")
        if not self.actions(state):
            raise FinishedGameQueried(f"player({state!r}) called on a state without actions")
        return self.table[state][0]

    def step(self, state, action):
        self._check(state, "step")
        if not self.actions(state):
            raise FinishedGameQueried(f"step({state!r}) called on a state without actions")
        return StepResult(*self.table[state][1][action])


class OneMoveGame:
    """One move of several, each ending the game with its reward; the evaluator's root value
    and priors are given (a bandit with priors, for searches worked by hand)."""

    def __init__(self, rewards, priors, root_value):
        self.rewards, self.priors, self.root_value = tuple(rewards), tuple(priors), root_value

    def actions(self, state):
        return tuple(range(len(self.rewards))) if state == "root" else ()

    def player(self, state):
        return 0

    def step(self, state, action):
        return f"end{action}", self.rewards[action], True

    def evaluator(self, state, actions):
        from mcts_agent.evaluator import Evaluation

        return Evaluation(self.root_value, self.priors)


def random_game(seed: int, depth: int, max_branching: int, num_players: int) -> ScriptedGame:
    """A random game tree: random players, rewards in [-1, 1], random early endings."""
    rng = random.Random(seed)
    table = {}
    frontier = [("", 0)]
    while frontier:
        state, level = frontier.pop()
        player = rng.randint(1, num_players) if num_players > 1 else 0
        moves = {}
        for i in range(rng.randint(1, max_branching)):
            nxt = f"{state}{i}"
            terminated = level + 1 >= depth or rng.random() < 0.2
            reward = round(rng.uniform(-1, 1), 3) if rng.random() < 0.6 else 0.0
            moves[f"m{i}"] = (nxt, reward, terminated)
            if not terminated:
                if rng.random() < 0.1:
                    continue  # a state with no legal actions that did not say terminated
                frontier.append((nxt, level + 1))
        table[state] = (player, moves)
    return ScriptedGame(table)


class ReferenceUCT:
    """The specification's UCT written plainly (object per node, backward returns)."""

    class Node:
        def __init__(self, state, player, reward, terminated, actions):
            self.state, self.player, self.reward = state, player, reward
            self.terminated, self.actions = terminated, actions
            self.children = [None] * len(actions)
            self.visits, self.value_sum = 0, 0.0

        @property
        def value(self):
            return self.value_sum / self.visits if self.visits else 0.0

    def __init__(self, model, iterations, exploration, gamma, rollout_limit, seed):
        self.model, self.iterations, self.c = model, iterations, exploration
        self.gamma, self.rollout_limit = gamma, rollout_limit
        self.rng = random.Random(seed)

    def make_node(self, state, reward, terminated):
        actions = () if terminated else tuple(self.model.actions(state))
        player = self.model.player(state) if actions else None
        return self.Node(state, player, reward, terminated or not actions, actions)

    def search(self, state):
        root = self.make_node(state, 0.0, False)
        for _ in range(self.iterations):
            node, path = root, []
            while not node.terminated and None not in node.children:
                log_n = math.log(node.visits)
                scores = [ch.value + self.c * math.sqrt(log_n / ch.visits) for ch in node.children]
                parent, node = node, node.children[scores.index(max(scores))]
                path.append((parent, node))
            if not node.terminated:
                i = node.children.index(None)
                nxt, reward, terminated = self.model.step(node.state, node.actions[i])
                child = self.make_node(nxt, reward, terminated)
                node.children[i] = child
                path.append((node, child))
                node = child
            g = 0.0 if node.terminated else self.rollout(node.state, node.actions, node.player)
            reference_backup(root, path, g, self.gamma)
        return root

    def rollout(self, state, actions, player):
        return reference_rollout(self.model, state, self.rng, self.rollout_limit, self.gamma)


def reference_backup(root, path, g, gamma):
    """The specification's backup of G along ``path`` ((parent, child) pairs), leaf first."""
    for parent, child in reversed(path):
        same = child.player == parent.player
        g = child.reward + gamma * g if same else child.reward - gamma * g
        child.visits += 1
        child.value_sum += g
    root.visits += 1


def reference_rollout(model, state, rng, limit, gamma):
    """The specification's rollout, step by step: uniform moves, the return worked out backwards."""
    rewards, players = [], [model.player(state)]
    actions = tuple(model.actions(state))
    while actions and len(rewards) < limit:
        state, reward, terminated = model.step(state, actions[int(rng.random() * len(actions))])
        rewards.append(reward)
        if terminated:
            break
        actions = tuple(model.actions(state))
        if actions:
            players.append(model.player(state))
    g = 0.0
    for t in reversed(range(len(rewards))):
        same = t + 1 < len(players) and players[t + 1] == players[t]
        g = rewards[t] + gamma * g if same else rewards[t] - gamma * g
    return g


def exact_rollout_distribution(model, state, gamma):
    """{return (rounded to 9 places): probability} of a uniformly random playout, enumerated."""
    dist = {}
    stack = [(state, 1.0, 1.0)]
    while stack:
        state, prob, coef = stack.pop()
        actions = model.actions(state)
        for action in actions:
            nxt, reward, done = model.step(state, action)
            p = prob / len(actions)
            if done:
                key = round(coef * reward, 9)
                dist[key] = dist.get(key, 0.0) + p
            else:
                stack.append((nxt, p, -gamma * coef))
    return dist


def _nested(node, children):
    """(player, reward, terminated, actions, N, W, children) with untried children as None."""
    return (
        node.player,
        node.reward,
        node.terminated,
        node.actions,
        node.visits,
        node.value_sum,
        children,
    )


def nested_reference(node):
    """A reference tree as nested tuples (see ``_nested``)."""
    children = tuple(nested_reference(ch) if ch is not None else None for ch in node.children)
    return _nested(node, children)


def nested(tree, index=0):
    """The same nested structure for an ``mcts_agent.Tree``."""
    node = tree[index]
    return _nested(node, tuple(nested(tree, ch) if ch != -1 else None for ch in node.children))


def assert_same_tree(a, b, path="root"):
    """Asserts two nested trees are equal, value sums to 1e-9 (summation order differs)."""
    assert a[:5] == b[:5], f"{path}: {a[:5]} != {b[:5]}"
    assert math.isclose(a[5], b[5], rel_tol=1e-9, abs_tol=1e-9), f"{path}: W {a[5]} != {b[5]}"
    assert len(a[6]) == len(b[6])
    for i, (x, y) in enumerate(zip(a[6], b[6], strict=True)):
        assert (x is None) == (y is None), f"{path}/{i}: tried in one tree only"
        if x is not None:
            assert_same_tree(x, y, f"{path}/{i}")


def child_of(planner, action, index=0):
    """The node reached from node ``index`` of the planner's tree by ``action``."""
    node = planner.tree[index]
    return planner.tree[node.children[node.actions.index(action)]]


# Hypothesis strategy: small random games (random_game) of 1 to 3 players.
games = st.builds(
    random_game,
    seed=st.integers(0, 10_000),
    depth=st.integers(1, 5),
    max_branching=st.integers(1, 4),
    num_players=st.integers(1, 3),
)

# Hypothesis strategy: the plain loop's options (budget, c, gamma, rollout limit, seed).
plain_configs = st.fixed_dictionaries(
    {
        "iterations": st.integers(1, 100),
        "exploration": st.floats(0.0, 4.0),
        "gamma": st.floats(0.0, 1.0),
        "rollout_limit": st.integers(0, 6),
        "seed": st.integers(0, 2**32),
    }
)


def rollout_params(model, game):
    """pytest params of ``model``'s fused rollout in Python and its native one (if built)."""
    native = model.native_rollout()
    return [
        pytest.param(model.rollout, id="python"),
        pytest.param(
            native and NativeRollouts(native),
            id="native",
            marks=pytest.mark.skipif(native is None, reason=f"no native {game} rollout"),
        ),
    ]


class NativeRollouts:
    """A native rollout capsule (``docs/guides/compiled-core.md``) as ``rollout(state, rng,
    limit, gamma)``, drawn ``block`` rollouts at a time in C (the generator's state is read
    and written once per block, not once per rollout).

    The returns are those of calling the rollout once at a time while the same ``(state, rng,
    limit, gamma)`` come in a row and nothing else draws from ``rng`` (a new one starts a new
    block: the rest of the last block is dropped, already drawn).
    """

    def __init__(self, capsule, block=1000):
        from mcts_agent import compiled

        self.call_native = partial(compiled._core.call_native, capsule)
        self.block = block
        self.key = None
        self.buffer = deque()

    def __call__(self, state, rng, limit, gamma):
        key = (state, rng, limit, gamma)  # holds rng: its id is not reused meanwhile
        if key != self.key or not self.buffer:
            self.key = key
            self.buffer = deque(self.call_native(state, rng, limit, gamma, self.block))
        return self.buffer.popleft()
