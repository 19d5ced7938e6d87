"""The compiled core builds the pure-Python loop's trees, node for node and bit for bit.

Every case searches twice with the same planner configuration, once with the
pure-Python loop (``MCTS._run``) and once with the compiled one
(``mcts_agent._core``), and compares every per-node field, the root summary,
the move and the state of the planner's generator afterwards.
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy
import json
import math
import os
import random
import subprocess
import sys
from functools import partial
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scripted_games import games, plain_configs
from test_search import Wide

from mcts_agent import MCTS, Evaluation, compiled, core_backend
from mcts_agent.compiled import pure_python
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel, parse_board
from mcts_agent.evaluator import checked_evaluation, uniform_priors
from mcts_agent.selection import SCORE_ALL, expansion_order
from mcts_agent.tree import GuidedTree

CORE = compiled._core
FORCED_PYTHON = os.environ.get(compiled.PURE_PYTHON_VARIABLE) == "1"
if CORE is None and os.environ.get("CI") and not FORCED_PYTHON:
    raise RuntimeError("CI builds the compiled core (a C compiler is there); it is missing")
pytestmark = pytest.mark.skipif(
    CORE is None,
    reason="MCTS_AGENT_PURE_PYTHON=1" if FORCED_PYTHON else "the compiled core is not built",
)

C = 2 * math.sqrt(2)
FIELDS = ("states", "players", "rewards", "discounts", "actions", "children", "untried")
FIELDS += ("visits", "value_sums", "values")


def snapshot(planner):
    """Every per-node field (as lists), the summary without its time, the move, the generator."""
    tree = planner.tree
    fields = tuple(list(getattr(tree, field)) for field in FIELDS)
    summary = planner.summary()._replace(elapsed=0.0)
    return fields, summary, planner.best_action(), planner.rng.getstate()


def searched(model, state, searches=1, **config):
    planner = MCTS(model, **config)
    for _ in range(searches):
        planner.search(state)
    return planner


def assert_same_on_both(model, state, **config):
    """Searches on both backends; asserts the same trees; returns the compiled planner."""
    with pure_python():
        reference = searched(model, state, **config)
        assert reference.tree.visits.__class__ is list
    planner = searched(model, state, **config)
    assert planner.tree.visits.__class__ is CORE.Column
    assert snapshot(planner) == snapshot(reference)
    return planner


class PythonRollout(TicTacToeModel):
    """Tic-tac-toe whose rollout is overridden (the same playout): the native rollout is lost."""

    calls = 0

    def rollout(self, state, rng, limit, gamma):
        PythonRollout.calls += 1
        return super().rollout(state, rng, limit, gamma)


def generic(model):
    """The model through the plain protocol only: the search's generic rollout."""
    return SimpleNamespace(actions=model.actions, step=model.step, player=model.player)


def first_legal(state, actions, rng):
    return actions[-1] if rng.random() < 0.5 else actions[0]


# ------------------------------------------------------------------ whole trees


NATIVE_CASES = [
    pytest.param(model, start, iterations, seed, id=f"{name}-{iterations}-seed{seed}")
    for name, model, start, sizes in (
        ("tictactoe", TicTacToeModel(), EMPTY_BOARD, {1_000: 3, 10_000: 3}),
        ("connect_four", ConnectFourModel(), C4_START, {1_000: 3, 10_000: 1}),
    )
    for iterations, seeds in sizes.items()
    for seed in range(seeds)
]


@pytest.mark.parametrize("gamma", [1.0, 0.9])
@pytest.mark.parametrize("model, start, iterations, seed", NATIVE_CASES)
def test_native_rollouts_build_the_pure_trees(model, start, iterations, seed, gamma):
    assert_same_on_both(model, start, iterations=iterations, exploration=C, gamma=gamma, seed=seed)


@pytest.mark.parametrize(
    "model, start, gamma",
    [(TicTacToeModel(), EMPTY_BOARD, 0.9), (ConnectFourModel(), C4_START, 1.0)],
    ids=["tictactoe", "connect_four"],
)
def test_at_100k_iterations_the_trees_are_the_same(model, start, gamma):
    assert_same_on_both(model, start, iterations=100_000, exploration=C, gamma=gamma, seed=7)


@pytest.mark.parametrize("gamma", [1.0, 0.9])
@pytest.mark.parametrize(
    "model, start, config",
    [
        (PythonRollout(), EMPTY_BOARD, {}),
        (generic(TicTacToeModel()), parse_board("X...O...."), {}),
        (generic(ConnectFourModel()), C4_START, {"iterations": 300}),
        (TicTacToeModel(), EMPTY_BOARD, {"rollout_policy": first_legal}),
        (TicTacToeModel(), EMPTY_BOARD, {"rollout_limit": 0}),
        (TicTacToeModel(), EMPTY_BOARD, {"rollout_limit": 2, "exploration": 0.0}),
    ],
    ids=["python-rollout", "generic", "generic-c4", "policy", "no-rollout", "limit-2-greedy"],
)
def test_python_rollouts_policies_and_limits_build_the_pure_trees(model, start, config, gamma):
    config = {"iterations": 2_000, "exploration": C, "seed": 3, "gamma": gamma, **config}
    assert_same_on_both(model, start, **config)


@settings(max_examples=60, deadline=None)
@given(
    game=games,
    config=plain_configs,
)
def test_random_games_of_one_to_three_players_build_the_pure_trees(game, config):
    assert_same_on_both(game, "", **config)


def test_searches_in_chunks_with_reuse_and_a_callback_build_the_pure_trees():
    # reuse_tree: the second search continues a subtree copied into lists (reuse.reroot),
    # which the compiled loop takes over; a callback runs the loop one iteration at a time.
    model = TicTacToeModel()
    for config in (
        {"reuse_tree": True},
        {"on_iteration": lambda planner, i: None},
        {"max_nodes": 700},
    ):
        config = {"iterations": 1_500, "exploration": C, "seed": 5, "gamma": 0.9, **config}
        with pure_python():
            reference = MCTS(model, **config)
        planner = MCTS(model, **config)
        for state in (EMPTY_BOARD, parse_board("X...O...."), parse_board("XX..O...O")):
            with pure_python():
                reference.search(state)
            planner.search(state)
            assert snapshot(planner) == snapshot(reference)
            assert planner.summary().reused_visits == reference.summary().reused_visits


def test_a_chunked_compiled_search_is_one_search():
    model = ConnectFourModel()
    whole = searched(model, C4_START, iterations=3_000, exploration=C, seed=11, gamma=0.9)
    chunked = MCTS(model, 1, exploration=C, seed=11, gamma=0.9)
    chunked.search(C4_START)  # one iteration, then 2,999 more in uneven chunks
    loop = compiled.plain_loop(chunked)
    for n in (1, 2, 996, 2_000):
        loop(chunked.tree, n)
    assert [list(getattr(chunked.tree, f)) for f in FIELDS] == [
        list(getattr(whole.tree, f)) for f in FIELDS
    ]
    assert chunked.rng.getstate() == whole.rng.getstate()


# ------------------------------------------------------------------ leaf batching


class HashedPriors:
    """An evaluator with a batch form: priors and a value drawn from the state's hash.

    ``ties``: priors from {1, 2} (many equal: the expansion order's ties);
    ``close``: two priors a relative 1e-13 apart (PUCT scores every action there);
    ``value=False``: no value (the leaf is rolled out).
    """

    def __init__(self, ties=False, close=False, value=True):
        self.ties, self.close, self.value = ties, close, value

    def __call__(self, state, actions):
        rng = random.Random(repr(state))
        if self.ties:
            priors = [float(rng.randint(1, 2)) for _ in actions]
        else:
            priors = [rng.random() + 0.01 for _ in actions]
        if self.close and len(priors) > 1:
            priors[1] = priors[0] * (1 + 1e-13)
        return Evaluation(rng.uniform(-1, 1) if self.value else None, priors)

    def batch(self, states, actions_list):
        return [self(s, a) for s, a in zip(states, actions_list, strict=True)]


GUIDED_FIELDS = GuidedTree.__slots__  # every field the general loop adds, a new one included


def guided_snapshot(planner):
    """``snapshot`` plus the general loop's own per-node fields."""
    fields = tuple(list(getattr(planner.tree, field)) for field in GUIDED_FIELDS)
    return snapshot(planner), fields


LEAF_BATCH_CASES = [
    pytest.param(model, start, config, id=name)
    for model, start, game in (
        (ConnectFourModel(), C4_START, "c4"),
        (TicTacToeModel(), EMPTY_BOARD, "ttt"),
    )
    for name, config in (
        (f"{game}-uniform-rollouts", {"evaluator": HashedPriors(value=False), "leaf_batch": 16}),
        (f"{game}-priors-vl1", {"evaluator": HashedPriors(), "leaf_batch": 16}),
        (f"{game}-ties-vl0.5", {"evaluator": HashedPriors(ties=True), "virtual_loss": 0.5}),
        (f"{game}-close", {"evaluator": HashedPriors(close=True), "leaf_batch": 4}),
        (f"{game}-c0", {"evaluator": HashedPriors(), "exploration": 0.0}),
        (f"{game}-no-vl", {"evaluator": HashedPriors(), "virtual_loss": 0.0}),
        (f"{game}-depth2-q0.5", {"max_depth": 2, "unvisited_value": 0.5, "gamma": 0.9}),
        (f"{game}-reuse", {"evaluator": HashedPriors(), "reuse_tree": True}),
        (f"{game}-batch200", {"evaluator": HashedPriors(), "leaf_batch": 200}),  # a big overlay
        (f"{game}-close-batch200", {"evaluator": HashedPriors(close=True), "leaf_batch": 200}),
    )
]


@pytest.mark.parametrize("model, start, config", LEAF_BATCH_CASES)
def test_leaf_batchings_compiled_selection_and_backup_build_the_pure_trees(model, start, config):
    # A PUCT round's selection with virtual loss (_core.select_leaves) and its backup
    # (_core.backup_leaves) against mcts_agent.leaf_batching's Python steps.
    config = {
        "iterations": 2_000,
        "exploration": 2.0,
        "selection": "puct",
        "leaf_batch": 8,
        "seed": 4,
        **config,
    }
    with pure_python():
        reference = MCTS(model, **config)
    planner = MCTS(model, **config)
    states = [start, *model.step(start, model.actions(start)[0])[:1]]
    for state in states:  # with reuse_tree the second search continues the first's subtree
        with pure_python():
            reference.search(state)
        planner.search(state)
        assert guided_snapshot(planner) == guided_snapshot(reference)


@settings(max_examples=40, deadline=None)
@given(
    game=games,
    config=plain_configs,
    leaf_batch=st.integers(2, 5),
    loss=st.sampled_from([0.0, 1.0, 2.5]),
)
def test_leaf_batching_on_random_games_builds_the_pure_trees(game, config, leaf_batch, loss):
    config = {**config, "selection": "puct", "leaf_batch": leaf_batch, "virtual_loss": loss}
    config["evaluator"] = HashedPriors(value=False)
    with pure_python():
        reference = searched(game, "", **config)
    planner = searched(game, "", **config)
    assert guided_snapshot(planner) == guided_snapshot(reference)


def test_a_failure_inside_a_compiled_round_is_the_pure_ones():
    class FailsLate(ConnectFourModel):
        steps = 0

        def step(self, state, action):
            FailsLate.steps += 1
            if FailsLate.steps == 300:
                raise KeyError("the 300th step")
            return super().step(state, action)

    outcomes = []
    for backend in (pure_python, contextlib.nullcontext):
        FailsLate.steps = 0
        planner = MCTS(
            FailsLate(), 1_000, selection="puct", evaluator=HashedPriors(), leaf_batch=16, seed=1
        )
        with backend(), pytest.raises(KeyError, match="the 300th step") as raised:
            planner.search(C4_START)
        outcomes.append((str(raised.value), planner.rng.getstate(), FailsLate.steps))
    assert outcomes[0] == outcomes[1]


# ------------------------------------------------------------------ leaf batching's C steps


def c4_positions(games=60, seed=3):
    """Connect four states of random games, the last of each game over, with their moves."""
    model, rng = ConnectFourModel(), random.Random(seed)
    positions = []
    for _ in range(games):
        state = C4_START
        while True:
            actions = model.actions(state)
            positions.append((state, actions))
            if not actions:
                break
            state = model.step(state, rng.choice(actions)).next_state
    return positions


def test_connect_fours_native_step_returns_what_its_python_methods_return():
    model = ConnectFourModel()
    native = partial(CORE.call_native_step, model.native_step())
    positions = c4_positions()
    assert sum(not actions for _, actions in positions) == 60
    expanded = 0
    for state, actions in positions:
        for action in range(-1, 8):
            got = native(state, action)
            if action not in actions:  # over, a full column, not a column: Python's to raise
                assert got is None
                with pytest.raises(ValueError, match="is not legal"):
                    model.step(state, action)
                continue
            next_state, reward, terminated = model.step(state, action)
            child_actions = () if terminated else model.actions(next_state)
            player = model.player(next_state) if child_actions else None
            assert got == (next_state, reward, terminated, child_actions, player)
            assert [type(x) for x in got[0]] == [int, int]
            expanded += 1
    assert expanded > 1000


@pytest.mark.parametrize(
    "state",
    [
        (0b101, 1 << 7),  # a gap in column 0: a drop there adds two bits (the Python step's sum)
        (0b1011, 0b100 << 7),
        (0b111, 0),  # X has three more pieces than O
        ((1 << 42) - 1 & 0b0111111 * sum(1 << 14 * c for c in range(4)), 0),  # columns full
    ],
)
def test_connect_fours_native_step_agrees_on_states_play_cannot_reach(state):
    model = ConnectFourModel()
    for action in range(7):
        got = CORE.call_native_step(model.native_step(), state, action)
        try:
            next_state, reward, terminated = model.step(state, action)
        except ValueError:
            assert got is None
            continue
        child_actions = () if terminated else model.actions(next_state)
        player = model.player(next_state) if child_actions else None
        assert got == (next_state, reward, terminated, child_actions, player)


@pytest.mark.parametrize(
    "state, action",
    [
        ([0, 0], 3),  # a list: the Python methods take it
        ((0, 0), True),  # a bool is not a column
        ((0, 0), 3.0),
        ((1, 1), 3),  # the bitboards overlap
        ((1 << 6, 0), 3),  # a piece on a spare bit
        ((1 << 70, 0), 3),
        ((-1, 0), 3),
        (("x", 0), 3),
        ((0, 0, 0), 3),
        ((0, 0), 1 << 80),
    ],
)
def test_connect_fours_native_step_leaves_what_it_does_not_know_to_the_python_methods(
    state, action
):
    assert CORE.call_native_step(ConnectFourModel().native_step(), state, action) is None


def test_a_search_from_a_state_the_native_step_does_not_take_builds_the_pure_tree():
    # A list state: the root's children are made by the Python expansion, the rest in C.
    config = {"iterations": 600, "selection": "puct", "leaf_batch": 8, "seed": 2}
    config["evaluator"] = HashedPriors()
    with pure_python():
        reference = searched(ConnectFourModel(), [0, 0], **config)
    planner = searched(ConnectFourModel(), [0, 0], **config)
    assert guided_snapshot(planner) == guided_snapshot(reference)


def test_a_model_that_replaces_a_method_of_the_native_step_loses_it():
    guided = GuidedTree(C4_START, 1, (0,), (1.0,), None)
    assert compiled.native_expansion(ConnectFourModel(), guided) is not None
    for name in ("step", "actions", "player"):
        method = getattr(ConnectFourModel, name)
        own = type("Own", (ConnectFourModel,), {name: lambda self, *a, m=method: m(self, *a)})
        assert compiled.native_expansion(own(), guided) is None
        model = ConnectFourModel()
        setattr(model, name, partial(method, model))  # an instance attribute
        assert compiled.native_expansion(model, guided) is None
    assert compiled.native_expansion(TicTacToeModel(), guided) is None  # no native step

    class OwnTree(GuidedTree):
        __slots__ = ()

        def append_node(self, *fields):
            return super().append_node(*fields)

    own = OwnTree(C4_START, 1, (0,), (1.0,), None)
    assert compiled.native_expansion(ConnectFourModel(), own) is None


def test_a_subclass_that_overrides_step_builds_the_pure_tree_through_python():
    class Counting(ConnectFourModel):
        steps = 0

        def step(self, state, action):
            Counting.steps += 1
            return super().step(state, action)

    config = {"iterations": 400, "selection": "puct", "leaf_batch": 8, "seed": 5}
    config["evaluator"] = HashedPriors()
    with pure_python():
        reference = searched(Counting(), C4_START, **config)
    python_steps, Counting.steps = Counting.steps, 0
    planner = searched(Counting(), C4_START, **config)
    assert Counting.steps == python_steps > 300
    assert guided_snapshot(planner) == guided_snapshot(reference)


def test_a_method_replaced_on_the_class_loses_its_native_capsule(monkeypatch):
    model = ConnectFourModel()
    assert model.native_step() is not None and model.native_rollout() is not None
    original = ConnectFourModel.step

    def halved(self, state, action):  # the same game, half rewards: a patch the C cannot know
        next_state, reward, terminated = original(self, state, action)
        return next_state, reward / 2, terminated

    monkeypatch.setattr(ConnectFourModel, "step", halved)
    assert model.native_step() is None and model.native_rollout() is not None
    config = {"iterations": 300, "selection": "puct", "leaf_batch": 8, "seed": 0}
    config.update(evaluator=HashedPriors(), rollout_limit=0)
    start = (0b111 | 0b111 << 7 * 6, 0b111 << 7 | 0b111 << 14)  # X wins in column 0
    with pure_python():
        reference = searched(ConnectFourModel(), start, **config)
    planner = searched(ConnectFourModel(), start, **config)
    assert 0.5 in planner.tree.rewards
    assert guided_snapshot(planner) == guided_snapshot(reference)
    monkeypatch.setattr(TicTacToeModel, "rollout", lambda self, *args: 0.0)
    assert TicTacToeModel().native_rollout() is None


class Float32Rollouts(TicTacToeModel):
    """Tic-tac-toe whose rollout returns numpy float32 (the native rollout is lost)."""

    def rollout(self, state, rng, limit, gamma):
        return np.float32(super().rollout(state, rng, limit, gamma))


def test_leaf_batchings_rollout_returns_are_floats_on_both_backends():
    config = {"iterations": 400, "selection": "puct", "leaf_batch": 4, "seed": 3, "gamma": 0.9}
    config["evaluator"] = HashedPriors(value=False)
    with pure_python():
        reference = searched(Float32Rollouts(), EMPTY_BOARD, **config)
    planner = searched(Float32Rollouts(), EMPTY_BOARD, **config)
    assert {type(w) for w in reference.tree.value_sums} == {float}
    assert guided_snapshot(planner) == guided_snapshot(reference)


def test_a_batch_answer_is_read_once_by_iteration_on_both_backends():
    class Answers(collections.abc.Sequence):  # indexing disagrees with iteration
        def __init__(self, items):
            self.items = items

        def __len__(self):
            return len(self.items)

        def __getitem__(self, i):
            return Evaluation(0.9, None)

        def __iter__(self):
            return iter(self.items)

    class Batch(HashedPriors):
        def batch(self, states, actions_list):
            return Answers(super().batch(states, actions_list))

    config = {"iterations": 300, "selection": "puct", "leaf_batch": 8, "seed": 1}
    config["evaluator"] = Batch()
    with pure_python():
        reference = searched(ConnectFourModel(), C4_START, **config)
    planner = searched(ConnectFourModel(), C4_START, **config)
    assert 0.9 not in planner.tree.leaf_values
    assert guided_snapshot(planner) == guided_snapshot(reference)


def test_the_compiled_backup_refuses_nodes_outside_the_tree():
    lists = [[0.0, 0.0] for _ in range(5)]
    with pytest.raises(IndexError, match="node 7 is not in the tree"):
        CORE.backup_leaves([[1, 7]], [0.0], {}, *lists, None)
    with pytest.raises(ValueError, match="saved maps nodes"):
        CORE.backup_leaves([], [], {9: (0, 0.0, 0.0)}, *lists, None)
    with pytest.raises(TypeError, match="each path is a list"):
        CORE.backup_leaves([(1,)], [0.0], {}, *lists, None)
    with pytest.raises(TypeError, match=r"value_range must be None or a list of two floats"):
        CORE.backup_leaves([], [], {}, *lists, (0.0, 1.0))


PRIORS = st.lists(
    st.sampled_from([0.0, 0.1, 0.2, 0.2 * (1 + 1e-13), 0.25, 1 / 3, 0.5, 1.0, 5e-324]),
    min_size=1,
    max_size=9,
)


@settings(max_examples=300, deadline=None)
@given(weights=PRIORS, c=st.sampled_from([0.0, 0.5, 2.0]))
def test_the_c_expansion_order_is_pythons(weights, c):
    total = math.fsum(weights) or 1.0
    priors = tuple(w / total for w in weights)
    got = CORE.expansion_order(priors, c, SCORE_ALL)
    expected = expansion_order(priors, c)
    assert got is SCORE_ALL if expected is SCORE_ALL else got == expected
    assert type(got) is type(expected)


def test_the_c_expansion_order_leaves_other_priors_to_python():
    assert CORE.expansion_order([0.5, 0.5], 1.0, SCORE_ALL) is None  # a list, not a tuple
    assert CORE.expansion_order((1, 0), 1.0, SCORE_ALL) is None  # ints
    assert CORE.expansion_order((), 1.0, SCORE_ALL) is None
    assert CORE.expansion_order((1 / 65,) * 65, 1.0, SCORE_ALL) is None


VALUES = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-3, 3),
    st.booleans(),
    st.just("0.5"),
)
WEIGHTS = st.one_of(
    st.floats(0.0, 10.0),
    st.sampled_from([-0.0, -1e-300, math.inf, math.nan, 1e308, 5e-324, 0.0]),
    st.integers(0, 3),
)


@st.composite
def answers(draw):
    count = draw(st.integers(1, 4))
    actions = tuple(range(count))
    length = count if draw(st.booleans()) else draw(st.integers(0, 5))
    priors = draw(
        st.one_of(
            st.none(),
            st.lists(WEIGHTS, min_size=length, max_size=length),
            st.lists(WEIGHTS, min_size=length, max_size=length).map(tuple),
            st.just("ab"),
            st.just(3),
        )
    )
    shape = draw(st.sampled_from(["evaluation", "tuple", "list", "triple", "none"]))
    value = draw(VALUES)
    answer = {
        "evaluation": Evaluation(value, priors),
        "tuple": (value, priors),
        "list": [value, priors],
        "triple": (value, priors, None),
        "none": None,
    }[shape]
    return answer, ("state", count), actions


def outcome(check, *args):
    try:
        return "ok", check(*args)
    except Exception as error:  # the same error, type and message, is the point
        return type(error).__name__, str(error)


@settings(max_examples=500, deadline=None)
@given(batch=st.lists(answers(), min_size=1, max_size=4))
def test_the_c_evaluation_checks_are_pythons(batch):
    answers_, states, actions_list = (list(column) for column in zip(*batch, strict=True))
    python = [outcome(checked_evaluation, *case) for case in batch]
    expected = next((o for o in python if o[0] != "ok"), ("ok", [o[1] for o in python]))
    got = outcome(compiled.evaluations_checker(), answers_, states, actions_list)
    assert got == expected
    if got[0] == "ok":
        for (value, priors), (_, (want_value, want_priors)) in zip(got[1], python, strict=True):
            assert type(value) is type(want_value) and type(priors) is tuple
            assert [math.copysign(1, p) for p in priors] == [
                math.copysign(1, p) for p in want_priors
            ]


def test_the_c_evaluation_checks_share_the_uniform_priors():
    checked = compiled.evaluations_checker()(
        [Evaluation(0.5, None), (None, None)], ["a", "b"], [(0, 1, 2), (0, 1, 2)]
    )
    assert checked == [(0.5, uniform_priors(3)), (None, uniform_priors(3))]
    assert checked[0][1] is uniform_priors(3)


# ------------------------------------------------------------------ failures


def test_failures_are_the_pure_loops_and_keep_the_generator_where_it_stopped():
    class FailsLate(TicTacToeModel):
        steps = 0

        def step(self, state, action):
            FailsLate.steps += 1
            if FailsLate.steps == 500:
                raise KeyError("the 500th step")
            return super().step(state, action)

    errors, generators = [], []
    for backend in (pure_python, contextlib.nullcontext):
        FailsLate.steps = 0
        planner = MCTS(FailsLate(), 1_000, exploration=C, seed=2)
        with backend(), pytest.raises(KeyError, match="the 500th step") as raised:
            planner.search(EMPTY_BOARD)
        errors.append(str(raised.value))
        generators.append(planner.rng.getstate())
        with pytest.raises(RuntimeError, match="no search has run yet"):
            planner.tree  # noqa: B018 (the failed search kept no tree)
    assert errors[0] == errors[1]
    assert generators[0] == generators[1]  # advanced by the same native rollouts' draws


# ------------------------------------------------------------------ the generator


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_the_cores_generator_continues_random_random_exactly(seed):
    rng, reference = random.Random(seed), random.Random(seed)
    reference.random()
    rng.random()
    draws = CORE.random(rng, 1_500)  # past one regeneration of the 624 words
    assert draws == [reference.random() for _ in range(1_500)]
    assert rng.getstate() == reference.getstate()
    assert rng.random() == reference.random()


@pytest.mark.parametrize(
    "model, states",
    [
        (TicTacToeModel(), [EMPTY_BOARD, parse_board("XX.OO...."), parse_board("X...O....")]),
        (ConnectFourModel(), [C4_START, (1 << 21, 1 << 22), (0b111, 0b111 << 7)]),
    ],
    ids=["tictactoe", "connect_four"],
)
@pytest.mark.parametrize("limit, gamma", [(1000, 1.0), (1000, 0.9), (3, 0.9)])
def test_native_rollouts_return_what_the_python_rollouts_return_draw_for_draw(
    model, states, limit, gamma
):
    native = partial(CORE.call_native, model.native_rollout())
    for state in states:
        rng, reference = random.Random(4), random.Random(4)
        returns = [native(state, rng, limit, gamma) for _ in range(300)]
        assert returns == [model.rollout(state, reference, limit, gamma) for _ in range(300)]
        assert rng.getstate() == reference.getstate()
        in_a_row = CORE.call_native(model.native_rollout(), state, rng, limit, gamma, 300)
        assert in_a_row == [model.rollout(state, reference, limit, gamma) for _ in range(300)]
        assert rng.getstate() == reference.getstate()


# ------------------------------------------------------------------ the protocol, the views


def test_a_subclass_that_overrides_rollout_loses_the_native_rollout():
    PythonRollout.calls = 0
    planner = searched(PythonRollout(), EMPTY_BOARD, iterations=200, seed=0)
    assert PythonRollout.calls > 150  # every iteration not ending at a terminal node
    assert compiled._native(planner, planner.model.rollout) is None
    plain = MCTS(TicTacToeModel(), 1, seed=0)
    assert compiled._native(plain, plain.model.rollout) is not None
    assert compiled._native(plain, None) is None
    plain.rng = copy.copy(plain.rng)
    assert compiled._native(plain, plain.model.rollout) is not None

    class OwnGenerator(random.Random):
        pass

    plain.rng = OwnGenerator(0)  # its random() may differ: the Python rollout runs
    assert compiled._native(plain, plain.model.rollout) is None


def test_a_planner_whose_run_is_overridden_runs_its_own_loop():
    class Counting(MCTS):
        chunks = 0

        def _run(self, tree, iterations):
            Counting.chunks += 1
            super()._run(tree, iterations)

    planner = Counting(TicTacToeModel(), 300, exploration=C, seed=0)
    planner.search(EMPTY_BOARD)
    assert Counting.chunks == 1 and planner.tree.visits.__class__ is list
    assert snapshot(planner) == snapshot(
        searched(TicTacToeModel(), EMPTY_BOARD, iterations=300, exploration=C, seed=0)
    )


def test_the_tree_reads_the_node_records_through_views():
    planner = searched(TicTacToeModel(), EMPTY_BOARD, iterations=500, exploration=C, seed=1)
    tree = planner.tree
    with pure_python():
        reference = searched(TicTacToeModel(), EMPTY_BOARD, iterations=500, exploration=C, seed=1)
    for field in ("visits", "values", "children", "untried", "rewards"):
        view, lists = getattr(tree, field), getattr(reference.tree, field)
        assert view == lists and lists == view and not view != lists
        assert len(view) == len(lists) and view[-1] == lists[-1] and view[3:9] == lists[3:9]
        assert copy.deepcopy(view) == lists and copy.deepcopy(view).__class__ is list
        with pytest.raises(IndexError):
            view[len(lists)]
    assert tree.states is tree.visits.store.states  # the object fields are the Tree's lists
    assert list(tree) == list(reference.tree)  # every Node
    assert len(tree) * CORE.NODE_BYTES <= tree.visits.store.nbytes  # at most 1/8 spare room
    assert tree.visits.store.nbytes <= (len(tree) * 9 // 8 + 64) * CORE.NODE_BYTES
    assert CORE.NODE_BYTES <= 56


# ------------------------------------------------------------------ the backend


def test_the_backend_is_reported_and_can_be_forced_to_python():
    assert core_backend() == "compiled"
    with pure_python():
        assert core_backend() == "python"
    script = "import mcts_agent; print(mcts_agent.core_backend())"
    environment = {**os.environ, compiled.PURE_PYTHON_VARIABLE: "1"}
    forced = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True, check=True
    )
    assert forced.stdout.strip() == "python"
    version = subprocess.run(
        [sys.executable, "-m", "mcts_agent.cli", "--version"],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout.strip().endswith("(core: python)")


# ------------------------------------------------------------------ numpy rewards (issue 28, 6)


class NumpyRewards:
    """Tic-tac-toe through the plain protocol (the generic rollout), its rewards numpy scalars."""

    def __init__(self, kind):
        self.model, self.kind = TicTacToeModel(), kind
        self.actions, self.player = self.model.actions, self.model.player

    def step(self, state, action):
        next_state, reward, terminated = self.model.step(state, action)
        return next_state, self.kind(reward), terminated


class NumpyReturns(TicTacToeModel):
    """Tic-tac-toe whose fused rollout returns a numpy scalar (the native rollout is lost)."""

    def __init__(self, kind):
        self.kind = kind

    def rollout(self, state, rng, limit, gamma):
        return self.kind(super().rollout(state, rng, limit, gamma))


@pytest.mark.parametrize("kind", [np.float32, np.float64, np.int64, np.int8])
@pytest.mark.parametrize("rollout", ["generic", "policy", "fused"])
def test_numpy_rewards_and_returns_build_the_pure_trees_of_floats(kind, rollout):
    config = {"iterations": 300, "exploration": C, "seed": 5, "gamma": 0.9}
    if rollout == "policy":
        config["rollout_policy"] = first_legal
    model = NumpyReturns(kind) if rollout == "fused" else NumpyRewards(kind)
    planner = assert_same_on_both(model, EMPTY_BOARD, **config)
    tree = planner.tree
    with pure_python():
        reference = searched(model, EMPTY_BOARD, **config).tree
    for field in ("rewards", "value_sums", "values"):  # floats, not numpy's (float64 included)
        assert {type(x) for x in getattr(reference, field)} == {float}
    assert json.loads(json.dumps(planner.to_dict()))["nodes"][0]["visits"] == 300
    assert sum(tree.visits[c] for c in tree.children[0]) == 300


def test_numpy_evaluations_build_the_pure_leaf_batched_trees_of_floats():
    def evaluator(state, actions):
        return Evaluation(np.float32(0.25), np.ones(len(actions), dtype=np.float32))

    config = {"iterations": 200, "selection": "puct", "leaf_batch": 4, "seed": 3}
    config["evaluator"] = evaluator
    with pure_python():
        reference = searched(NumpyRewards(np.float32), EMPTY_BOARD, **config)
    planner = searched(NumpyRewards(np.float32), EMPTY_BOARD, **config)
    assert guided_snapshot(planner) == guided_snapshot(reference)
    for field in ("value_sums", "values", "leaf_values"):
        assert {type(x) for x in getattr(reference.tree, field)} <= {float, type(None)}
    json.dumps(reference.to_dict())


# ------------------------------------------------------------------ a tree changed (issue 28, 2)


class Meddler:
    """Tic-tac-toe (plain protocol) whose calls change ``planner.tree`` once it has 3 nodes."""

    def __init__(self, change):
        self.model, self.where, self.change, self.planner = TicTacToeModel(), None, change, None
        self.player = self.model.player
        self.spared = None  # the previous search's tree (planner.tree before a search grows one)

    def meddle(self, where):
        tree = None if self.planner is None else self.planner._tree
        if where == self.where and tree is not None and tree is not self.spared:
            if len(tree) >= 3:
                field, how = self.change
                values = getattr(tree, field)
                if how == "clear":
                    values.clear()
                elif how == "shrink":
                    del values[1:]
                elif how == "grow":
                    values.append(values[0])
                else:  # items of another type
                    values[:] = [list(v) if isinstance(v, tuple) else v for v in values]

    def actions(self, state):
        self.meddle("actions")
        return self.model.actions(state)

    def step(self, state, action):
        self.meddle("step")
        return self.model.step(state, action)


CHANGES = [("actions", "clear"), ("states", "shrink"), ("players", "clear")]
CHANGES += [("actions", "retype"), ("states", "grow")]


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: "-".join(c))
@pytest.mark.parametrize("where", ["on_iteration", "step", "actions", "policy", "rollout"])
def test_a_tree_changed_by_python_during_a_search_raises_and_the_previous_tree_stays(where, change):
    model = Meddler(change)
    if where == "rollout":
        model.rollout = lambda state, rng, limit, gamma: model.meddle("rollout") or 0.0
    config = {"on_iteration": lambda planner, done: model.meddle("on_iteration")}
    if where == "policy":
        config["rollout_policy"] = lambda state, actions, rng: model.meddle("policy") or actions[0]
    planner = MCTS(model, 40, seed=1, **config)
    model.planner = planner
    previous = planner.search(parse_board("XX.OO...."))
    kept = snapshot(planner)
    model.where, model.spared = where, planner.tree  # from now on, the search's tree is changed
    changed = rf"tree was changed during the search.*tree\.{change[0]}"
    with pytest.raises(RuntimeError, match=changed):
        planner.search(EMPTY_BOARD)
    assert planner.tree[0] == previous  # the previous tree, as it was after its search
    assert snapshot(planner)[0] == kept[0]


# ------------------------------------------------------------------ wide nodes (issue 28, 10)


def test_wide_nodes_build_the_same_trees_on_both_backends():
    # Partly expanded across chunks (a callback after each iteration), then in one chunk:
    # the core links a child after the node's last one, the pure loop appends to a list.
    trees = []
    for backend in (pure_python, lambda: contextlib.nullcontext()):
        with backend():
            stepwise = MCTS(Wide(500), 300, seed=0, on_iteration=lambda planner, done: None)
            stepwise.search("root")
            whole = MCTS(Wide(5_000), 7_000, seed=0)
            whole.search("root")
        trees.append([list(getattr(t.tree, f)) for t in (stepwise, whole) for f in FIELDS])
    assert trees[0] == trees[1]
    assert trees[0][5][0] == tuple(range(1, 301))  # stepwise: the root's 300 children so far


class Sneaky(float):
    """A value whose ``float()`` empties the list the batch evaluator was given."""

    def __new__(cls, states):
        value = super().__new__(cls, 0.5)
        value.states = states
        return value

    def __float__(self):
        self.states.clear()
        return 0.5


class Meddling:
    """A batch evaluator whose answers' values change its argument when they are read."""

    def __call__(self, state, actions):  # the root's
        return Evaluation(0.0, None)

    def batch(self, states, actions_list):
        return [Evaluation(Sneaky(states), None) for _ in states]


def test_an_evaluation_that_changes_the_batch_while_it_is_checked_raises():
    planner = MCTS(ConnectFourModel(), 64, selection="puct", leaf_batch=4, evaluator=Meddling())
    with pytest.raises(RuntimeError, match="states or actions_list .* were changed"):
        planner.search(C4_START)
    with pytest.raises(RuntimeError, match="no search has run yet"):
        planner.tree  # noqa: B018 (the failed search kept no tree)


@pytest.mark.parametrize("field", ["untried", "visits", "priors", "expansion_orders"])
def test_a_round_whose_expansion_changes_the_tree_raises(field):
    # select_leaves' expansions call the model (Python); its lists are checked after each.
    planner = MCTS(ConnectFourModel(), 1, selection="puct", leaf_batch=2, seed=0)
    planner.search(C4_START)
    tree = planner.tree
    lists = [tree.untried, tree.children, tree.visits, tree.value_sums, tree.values]
    lists += [tree.scaled_priors, tree.priors, tree.action_indices, tree.expansion_orders]

    def expand(node, i):
        getattr(tree, field).clear()
        return 0

    with pytest.raises(RuntimeError, match=rf"tree\.{field} has 0 entries"):
        CORE.select_leaves(
            4,
            len(tree),
            100,
            1.0,
            expand,
            lambda node: (0, -1),
            C,
            0.0,
            SCORE_ALL,
            *lists,
            None,
            None,
        )


def test_the_core_reads_the_trees_numbers_without_running_python_code():
    # A __float__ or __index__ could change the lists while the core reads them unchecked.
    class Clearing:
        def __init__(self, lists):
            self.lists = lists

        def __float__(self):
            for values in self.lists:
                values.clear()
            return 0.0

        __index__ = __float__

    lists = [["s"], [1], [(0,)], [0.0], [0.0], [()], [1], [0], [0.0], [0.0]]
    for at in (3, 6, 7, 9):
        changed = [list(values) for values in lists]
        changed[at][0] = Clearing(changed)
        with pytest.raises(TypeError, match="a Tree's"):
            CORE.Store(*changed)
    lists = [[0.0, 1.0], [0.5, -1.0], [0, 0], [0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(TypeError, match="numeric fields hold floats and ints"):
        CORE.backup_leaves([[1]], [Clearing(lists)], {}, *lists, None)
