"""Small stochastic models given as tables, with outcomes or with sample_step."""

from __future__ import annotations

from mcts_agent import StepResult


class ChanceGame:
    """``{state: (player, {action: [(probability, next, reward, terminated), ...]})}``.

    States missing from the table have no legal actions. ``step`` raises: the search
    must never call it on a stochastic model. ``key`` is given when ``key`` is passed.
    """

    def __init__(self, table, key=None):
        self.table = table
        self.calls = {"outcomes": 0, "sample_step": 0}
        if key is not None:
            self.key = key

    def actions(self, state):
        return tuple(self.table[state][1]) if state in self.table else ()

    def player(self, state):
        return self.table[state][0]

    def step(self, state, action):
        raise AssertionError("the search called step on a stochastic model")

    def outcomes(self, state, action):
        self.calls["outcomes"] += 1
        return [(p, StepResult(n, r, t)) for p, n, r, t in self.table[state][1][action]]


class SampledGame(ChanceGame):
    """The same table, drawn with ``sample_step``: the outcome of the first running sum of
    probabilities above ``rng.random()``, as the search draws from ``outcomes``."""

    outcomes = None  # not offered

    def sample_step(self, state, action, rng):
        self.calls["sample_step"] += 1
        u = rng.random()
        running = 0.0
        entries = self.table[state][1][action]
        for p, n, r, t in entries:
            running += p
            if u < running:
                return StepResult(n, r, t)
        return StepResult(*entries[-1][1:])


def check_invariants(tree):
    """Every per-node list has one entry per node; N adds up at decision and chance nodes."""
    fields = ("states", "players", "rewards", "discounts", "actions", "children", "untried")
    fields += ("visits", "value_sums", "values", "action_indices", "priors", "scaled_priors")
    fields += ("leaf_values", "expansion_orders", "proven_values", "chance_records")
    for name in fields:
        assert len(getattr(tree, name)) == len(tree), name
    for index, node in enumerate(tree):
        below = sum(tree.visits[c] for c in node.children if c != -1)
        if index == 0 or node.chance:
            assert node.visits == below, (index, node)
        elif not node.terminated:
            assert node.visits == below + 1, (index, node)
        if node.chance:
            assert node.reward == 0.0 and not node.terminated
            assert all(c != -1 for c in node.children)
            assert all(not tree[c].chance for c in node.children)
        else:
            assert all(tree[c].chance for c in node.children if c != -1)
