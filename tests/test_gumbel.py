"""Gumbel root search (``selection="gumbel"``, ``mcts_agent.gumbel``; SPEC "Gumbel root search").

The schedules are mctx's own test expectations (``seq_halving_test.py``); the
hand-worked searches recompute each step from the SPEC's formulas, with the
Gumbel draws taken from a ``random.Random`` of the planner's seed as the module
documents (``-log E``, ``E = expovariate(1)``, one per root action in order).
"""

from __future__ import annotations

import math
import random

import pytest
from scripted_games import OneMoveGame

from mcts_agent import MCTS
from mcts_agent.envs.connect_four import ConnectFourModel, heuristic_evaluator, parse_board
from mcts_agent.envs.tic_tac_toe import TicTacToeModel
from mcts_agent.evaluator import Evaluation
from mcts_agent.gumbel import considered_visits
from mcts_agent.tree import ROOT


@pytest.mark.parametrize(
    ("m", "n", "expected"),
    [
        (8, 24, [0] * 8 + [1] * 4 + [2] * 4 + [3, 3, 4, 4, 5, 5, 6, 6]),
        (
            8,
            47,
            [0] * 8
            + [1] * 4
            + [2] * 4
            + [3] * 4
            + [k for k in range(4, 17) for _ in (0, 1)]
            + [17],
        ),
        (8, 2, [0, 0]),
        (8, 13, [0] * 8 + [1] * 4 + [2]),
        (7, 24, [0] * 7 + [1, 1, 1, 2, 2, 2] + [3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8]),
        (0, 16, list(range(16))),
        (1, 16, list(range(16))),
    ],
)
def test_the_schedule_is_mctx_sequential_halving(m, n, expected):
    assert considered_visits(m, n) == tuple(expected)


BANDIT = OneMoveGame(rewards=(0.2, 1.0, 0.6), priors=(0.5, 0.3, 0.2), root_value=0.1)
"""One move of three, each ending the game with its reward; priors from the evaluator."""


def gumbel_draws(seed, count):
    rng = random.Random(seed)
    return [-math.log(rng.expovariate(1.0)) for _ in range(count)]


def sigma(counts, qs, priors, raw, c_visit=50.0, c_scale=0.1):
    """The SPEC's σ(q̂) of one node, written out (mctx's completed-by-mixed-value transform)."""
    visited = [i for i, n in enumerate(counts) if n]
    total = sum(counts)
    mass = sum(priors[i] for i in visited)
    weighted = sum(priors[i] * qs[i] for i in visited) / mass if visited else 0.0
    mixed = (raw + total * weighted) / (total + 1)
    completed = [qs[i] if counts[i] else mixed for i in range(len(counts))]
    lo, hi = min(completed), max(completed)
    q_hat = [(q - lo) / max(hi - lo, 1e-8) for q in completed]
    return [(c_visit + max(counts)) * c_scale * q for q in q_hat]


@pytest.mark.parametrize("seed", range(12))
def test_a_bandit_by_hand(seed):
    model = BANDIT
    planner = MCTS(
        model,
        iterations=4,
        selection="gumbel",
        considered_actions=2,
        evaluator=model.evaluator,
        seed=seed,
    )
    planner.search("root")
    g = gumbel_draws(seed, 3)
    logits = [math.log(p) for p in BANDIT.priors]
    top = max(logits)
    # Gumbel-Top-2 by g + logits; the schedule (2, 4) is 0, 0, 1, 1: two visits each.
    chosen = sorted(range(3), key=lambda a: -(g[a] + logits[a]))[:2]
    counts = [2 if a in chosen else 0 for a in range(3)]
    summary = planner.summary()
    assert summary.visit_counts == tuple(counts)
    assert summary.values == tuple(BANDIT.rewards[a] if a in chosen else math.nan for a in range(3))
    s = sigma(counts, BANDIT.rewards, BANDIT.priors, BANDIT.root_value)
    scores = [g[a] + logits[a] - top + s[a] if a in chosen else -math.inf for a in range(3)]
    assert planner.best_action() == max(range(3), key=lambda a: (scores[a], -a))
    exps = [math.exp(x + y) for x, y in zip(logits, s, strict=True)]
    expected_policy = [e / sum(exps) for e in exps]
    assert planner.improved_policy() == pytest.approx(expected_policy, rel=1e-12)
    assert sum(planner.improved_policy()) == pytest.approx(1.0)


def test_the_bandit_seeds_cover_both_outcomes():
    """The seeds above include a search that never tries the best arm, and one that plays it."""
    logits = [math.log(p) for p in BANDIT.priors]
    dropped = kept = 0
    for seed in range(12):
        g = gumbel_draws(seed, 3)
        top2 = sorted(range(3), key=lambda a: -(g[a] + logits[a]))[:2]
        dropped += 1 not in top2
        kept += 1 in top2
    assert dropped and kept


class Chain:
    """A forced first move, then a node of four moves ending the game (rewards below)."""

    REWARDS = (0.0, 0.9, 0.5, 0.8)
    PRIORS = (0.4, 0.1, 0.3, 0.2)
    VALUE = 0.3  # the evaluator's value of the inner node, from its mover's view

    def actions(self, state):
        return {"root": ("go",), "inner": (0, 1, 2, 3)}.get(state, ())

    def player(self, state):
        return 0 if state == "root" else 1

    def step(self, state, action):
        if state == "root":
            return "inner", 0.0, False
        return f"end{action}", self.REWARDS[action], True

    def evaluator(self, state, actions):
        if state == "root":
            return Evaluation(0.0, None)
        return Evaluation(self.VALUE, self.PRIORS)


def test_the_interior_rule_by_hand():
    """Below the root: argmax π'(a) - N(a) / (1 + Σ N), π' = softmax(logits + σ(q̂))."""
    model = Chain()
    iterations = 30
    planner = MCTS(model, iterations=iterations, selection="gumbel", evaluator=model.evaluator)
    planner.search("root")
    # The reference: the inner node gets iterations - 1 visits (the first makes it).
    counts = [0, 0, 0, 0]
    logits = [math.log(p) for p in Chain.PRIORS]
    for _ in range(iterations - 1):
        s = sigma(counts, Chain.REWARDS, Chain.PRIORS, Chain.VALUE)
        exps = [math.exp(x + y) for x, y in zip(logits, s, strict=True)]
        policy = [e / sum(exps) for e in exps]
        scores = [p - n / (1 + sum(counts)) for p, n in zip(policy, counts, strict=True)]
        counts[max(range(4), key=lambda a: (scores[a], -a))] += 1
    tree = planner.tree
    (inner,) = tree.children[ROOT]
    got = [0, 0, 0, 0]
    for child in tree.children[inner]:
        got[tree.action_indices[child]] = tree.visits[child]
    assert got == counts
    # Worked by hand: action 0 (largest prior) first; then every unvisited action completes to
    # the mixed value (0.3 + 1 * 0.0) / 2 = 0.15, q̂ = 1 against 0's 0, and σ = 5.1 sends the
    # next visit to the largest prior among them (2, Q 0.5); from then on 2 holds q̂ = 1 and σ
    # grows with its visits, so the best arm (1, prior 0.1) is never tried.
    assert counts == [1, 0, 28, 0]
    # The first iteration made the inner node and took its value; the others ended the game.
    # The inner node's mover is the other player, so the root's Q is minus those returns.
    returns = Chain.VALUE + sum(n * r for n, r in zip(counts, Chain.REWARDS, strict=True))
    assert tree.values[inner] == pytest.approx(-returns / iterations, abs=1e-12)


WIN_AT_3 = "." * 28 + "OO....." + "XXX...O"  # X to move: the row completes at column 3
BLOCK_AT_3 = "." * 28 + "O......" + "XXX.OO."  # O to move: X's row completes at column 3
WIN_UP_5 = "." * 21 + ".....X." + ".....XO" + "O.X.OXO"  # X to move: column 5


@pytest.mark.parametrize(("board", "move"), [(WIN_AT_3, 3), (BLOCK_AT_3, 3), (WIN_UP_5, 5)])
@pytest.mark.parametrize("seed", range(3))
def test_connect_four_with_the_heuristic_evaluator_takes_the_win_and_blocks(board, move, seed):
    state = parse_board(board)
    planner = MCTS(
        ConnectFourModel(),
        iterations=64,
        selection="gumbel",
        evaluator=heuristic_evaluator,
        seed=seed,
    )
    planner.search(state)
    assert planner.best_action() == move


def test_invariants_on_tic_tac_toe():
    model = TicTacToeModel()
    for seed in range(5):
        for m in (1, 2, 3, 9):
            planner = MCTS(
                model, iterations=50, selection="gumbel", considered_actions=m, seed=seed
            )
            planner.search(0)
            summary = planner.summary()
            assert sum(summary.visit_counts) == 50
            assert sum(1 for n in summary.visit_counts if n) <= m
            # The move played is one of the most visited.
            played = summary.actions.index(planner.best_action())
            assert summary.visit_counts[played] == max(summary.visit_counts)
            assert math.fsum(planner.improved_policy()) == pytest.approx(1.0)


def test_a_seed_gives_the_same_tree_and_others_differ():
    def search(seed):
        planner = MCTS(TicTacToeModel(), iterations=60, selection="gumbel", seed=seed)
        planner.search(0)
        return planner.summary().visit_counts, planner.best_action()

    assert search(5) == search(5)
    assert len({search(seed) for seed in range(8)}) > 1


def test_time_limit_may_end_a_search_early():
    ticks = iter(range(10_000))
    planner = MCTS(
        TicTacToeModel(),
        iterations=100,
        time_limit=5.0,
        selection="gumbel",
        clock=lambda: float(next(ticks)),
        seed=0,
    )
    planner.search(0)
    assert planner.summary().stop_reason == "time_limit"
    assert planner.best_action() in range(9)


def test_settings_are_checked():
    model = TicTacToeModel()
    for options, message in [
        ({"considered_actions": 4}, "considered_actions=4 tune selection='gumbel'"),
        ({"c_visit": 10.0, "selection": "puct"}, "c_visit=10.0 tune"),
        ({"selection": "gumbel", "considered_actions": 0}, "considered_actions must be >= 1"),
        ({"selection": "gumbel", "c_scale": 0.0}, "c_scale must be > 0"),
        ({"selection": "gumbel", "c_visit": -1.0}, "c_visit"),
        ({"selection": "gumbel", "root_noise": (0.3, 0.25)}, "root_noise"),
        ({"selection": "gumbel", "solve": True}, "solve=True"),
        ({"selection": "gumbel", "reuse_tree": True}, "reuse_tree=True"),
        ({"selection": "gumbel", "value_normalization": True}, "value_normalization"),
        ({"selection": "gumbel", "leaf_batch": 4}, "leaf_batch=4"),
    ]:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            MCTS(model, iterations=10, **options)
    with pytest.raises(ValueError, match="needs iterations"):
        MCTS(model, time_limit=1.0, selection="gumbel")
    planner = MCTS(model, iterations=10, selection="gumbel")
    with pytest.raises(ValueError, match="needs iterations"):
        planner.search(0, time_limit=1.0)
    puct = MCTS(model, iterations=10, selection="puct")
    puct.search(0)
    with pytest.raises(ValueError, match="visit_distribution"):
        puct.improved_policy()
    with pytest.raises(RuntimeError):
        MCTS(model, iterations=10, selection="gumbel").improved_policy()
