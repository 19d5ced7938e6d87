"""The compiled ISMCTS loop of Leduc builds the pure loop's information-set graphs exactly.

Every case searches twice with the same planner configuration, once with the
pure-Python loop (:func:`mcts_agent.information_sets.run`) and once with the
compiled one (``mcts_agent._core.leduc_search_run``), and compares every
field of the :class:`~mcts_agent.information_sets.InformationSetTree` (the
dicts as ordered items, the values as exact bits), the summary, the move and
the state of the planner's generator afterwards.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
import test_compiled

from mcts_agent import MCTS, compiled_information_sets
from mcts_agent.compiled import pure_python
from mcts_agent.envs.leduc import CALL, RAISE, LeducModel, LeducState

pytestmark = test_compiled.pytestmark  # the same skip: without the core, or forced off

MODEL = LeducModel()
DEALS = [d for d in itertools.product(range(3), repeat=3) if max(Counter(d).values()) <= 2]


def _positions() -> list[LeducState]:
    """Every betting position where a player is to move, of both openers, each with a deal."""
    rng = random.Random(32)
    states = []
    for first in (0, 1):
        stack = [()]
        while stack:
            history = stack.pop()
            h0, h1, public = rng.choice(DEALS)
            state = LeducState((h0, h1), public, first, history)
            actions = MODEL.actions(state)
            if actions:
                states.append(state)
            stack.extend(history + (a,) for a in actions)
    return states


POSITIONS = _positions()


def exact(values: dict) -> list:
    """A dict of floats as ordered items, each float's exact bits (hex)."""
    return [(a, w.hex()) for a, w in values.items()]


def snapshot(planner: MCTS) -> tuple:
    """Every field of the graph (insertion orders kept), the summary, the move, the generator."""
    tree = planner.tree
    return (
        len(tree),
        tree.keys,
        list(tree.index.items()),
        tree.players,
        tree.visits,
        tree.actions,
        [list(d.items()) for d in tree.edge_visits],
        [exact(d) for d in tree.edge_values],
        [list(d.items()) for d in tree.availability],
        [list(d.items()) for d in tree.children],
        tree.priors,
        planner.summary()._replace(elapsed=0.0),
        planner.best_action(),
        planner.rng.getstate(),
    )


def searched(state: LeducState, *, pure: bool = False, **config) -> MCTS:
    """A planner of ``config`` that searched ``state`` (with the pure loop if ``pure``)."""
    if pure:
        with pure_python():
            planner = MCTS(MODEL, **config)
            planner.search(state)
        return planner
    planner = MCTS(MODEL, **config)
    assert compiled_information_sets.search(planner, _fresh_tree(planner, state)) is not None
    planner.search(state)
    return planner


def _fresh_tree(planner: MCTS, state: LeducState):
    from mcts_agent.information_sets import InformationSetTree

    player = MODEL.player(state)
    return InformationSetTree(state, player, (player, MODEL.information_set(state, player)))


def assert_same(state: LeducState, **config) -> None:
    assert snapshot(searched(state, **config)) == snapshot(searched(state, pure=True, **config))


def test_every_betting_position_builds_the_pure_graph():
    # both openers, both rounds, the public card seen and not, either player to move
    assert {MODEL.player(s) for s in POSITIONS} == {0, 1}
    assert {len(s.history) for s in POSITIONS} >= set(range(7))
    for k, state in enumerate(POSITIONS):
        assert_same(state, iterations=40 + k % 7, exploration=2.0, seed=k)


CONFIGS = [
    {"exploration": c, "gamma": gamma, "rollout_limit": limit}
    for c, gamma, limit in itertools.product((0.0, 0.7, 2.0, 9.5), (1.0, 0.9, 0.0), (0, 1, 1000))
]


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_exploration_discount_and_rollout_limit_build_the_pure_graph(config):
    for seed, state in enumerate(POSITIONS[:: len(POSITIONS) // 5]):
        assert_same(state, iterations=300, seed=seed, **config)


@pytest.mark.parametrize("iterations", [1, 2, 3, 5_000])
def test_budgets_build_the_pure_graph(iterations):
    for seed in (0, 1, 2):
        state = LeducState((0, 2), 1, seed % 2, ())
        assert_same(state, iterations=iterations, seed=seed, exploration=1.5)


def test_a_node_cap_builds_the_pure_graph():
    # the compiled search's size is read between chunks, as the tree's is
    state = LeducState((1, 1), 2, 0, ())
    planner = searched(state, iterations=10_000, max_nodes=20, seed=3)
    assert len(planner.tree) == 20 and planner.summary().stop_reason == "max_nodes"
    assert snapshot(planner) == snapshot(
        searched(state, pure=True, iterations=10_000, max_nodes=20, seed=3)
    )


def test_a_timed_search_builds_the_pure_graph_of_its_iterations():
    # chunks of about a millisecond each, their sizes from the rate measured
    state = LeducState((2, 0), 0, 1, (CALL,))
    planner = searched(state, time_limit=0.01, seed=9, exploration=2.0)
    done = planner.summary().iterations
    assert done > 100
    reference = searched(state, pure=True, iterations=done, seed=9, exploration=2.0)
    assert snapshot(planner)[:-3] == snapshot(reference)[:-3]
    assert planner.best_action() == reference.best_action()
    assert planner.rng.getstate() == reference.rng.getstate()


def test_chunks_of_the_compiled_loop_are_one_search():
    state = LeducState((0, 1), 0, 0, ())
    whole = searched(state, iterations=3_000, seed=4, exploration=2.0, gamma=0.95)
    chunked = MCTS(MODEL, 1, exploration=2.0, gamma=0.95, seed=4)
    tree = _fresh_tree(chunked, state)
    fast = compiled_information_sets.search(chunked, tree)
    for n in (1, 2, 997, 2_000):
        fast.loop(n)
    assert len(fast) == len(whole.tree)
    fast.write()
    for field in ("keys", "visits", "actions", "edge_visits", "availability", "children"):
        assert getattr(tree, field) == getattr(whole.tree, field)
    assert [exact(d) for d in tree.edge_values] == [exact(d) for d in whole.tree.edge_values]
    assert chunked.rng.getstate() == whole.rng.getstate()


def test_the_generator_continues_from_any_state():
    # a generator that drew before (its Mersenne Twister mid-block) and drawn after the search
    state = LeducState((2, 2), 1, 0, (RAISE, CALL, RAISE))
    planners = []
    for pure in (False, True):
        planner = MCTS(MODEL, iterations=777, seed=12)
        for _ in range(1_000):
            planner.rng.random()
        if pure:
            with pure_python():
                planner.search(state)
        else:
            planner.search(state)
        planners.append((snapshot(planner), planner.rng.random(), planner.rng.getrandbits(7)))
    assert planners[0] == planners[1]


class Rewritten(LeducModel):
    """A subclass: the compiled loop plays LeducModel itself only."""


class StrictRandom(random.Random):
    """A subclass of the generator: the compiled loop continues random.Random only."""


def _with_attribute():
    model = LeducModel()
    model.tag = "mine"
    return model


FALLBACKS = {
    "puct": ({"selection": "puct"}, MODEL),
    "value_normalization": ({"value_normalization": True}, MODEL),
    "max_depth": ({"max_depth": 2}, MODEL),
    "evaluator": ({"evaluator": lambda state, actions: (0.25, None)}, MODEL),
    "rollout_policy": ({"rollout_policy": lambda state, actions, rng: actions[-1]}, MODEL),
    "on_iteration": ({"on_iteration": lambda planner, done: None}, MODEL),
    "subclass": ({}, Rewritten()),
    "instance attribute": ({}, _with_attribute()),
}


@pytest.mark.parametrize("case", FALLBACKS, ids=str)
def test_options_off_the_fast_path_run_the_pure_loop(case):
    config, model = FALLBACKS[case]
    state = LeducState((1, 0), 2, 1, (RAISE,))
    planner = MCTS(model, iterations=200, seed=6, **config)
    assert compiled_information_sets.search(planner, _fresh_tree(planner, state)) is None
    planner.search(state)
    with pure_python():
        reference = MCTS(model, iterations=200, seed=6, **config)
        reference.search(state)
    assert snapshot(planner) == snapshot(reference)
    assert planner.tree.visits[0] == 200


def test_a_generator_subclass_or_an_odd_root_runs_the_pure_loop():
    planner = MCTS(MODEL, iterations=50, seed=1)
    planner.rng = StrictRandom(1)
    state = LeducState((1, 0), 2, 1, ())
    assert compiled_information_sets.search(planner, _fresh_tree(planner, state)) is None
    planner = MCTS(MODEL, iterations=50, seed=1)
    odd = LeducState((True, 0), 2, 1, ())  # a bool for a card
    assert compiled_information_sets.search(planner, _fresh_tree(planner, odd)) is None
    planner.search(odd)  # the pure loop
    assert planner.tree.visits[0] == 50


def test_a_root_that_is_not_a_deal_raises_the_pure_loops_error():
    state = LeducState((0, 0), 0, 0, ())  # three jacks
    messages = []
    for pure in (False, True):
        planner = MCTS(MODEL, iterations=10, seed=0)
        with pytest.raises(ValueError, match="not a Leduc deal") as error:
            if pure:
                with pure_python():
                    planner.search(state)
            else:
                planner.search(state)
        messages.append(str(error.value))
    assert messages[0] == messages[1]
