"""Leaf batching with virtual loss (``docs/guides/parallel.md``, "Leaf batching")."""

from __future__ import annotations

import math

import pytest
from scripted_games import ScriptedGame

from mcts_agent import MCTS, Evaluation, general_loop, leaf_batching
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel, heuristic_evaluator
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.tree import ROOT, TERMINAL

C = 2 * math.sqrt(2)


class Recorder:
    """An evaluator with a batch form that records every batch it is given."""

    def __init__(self, values=None):
        self.values = values or {}
        self.batches = []
        self.calls = []

    def __call__(self, state, actions):
        self.calls.append(state)
        return Evaluation(self.values.get(state, 0.0), None)

    def batch(self, states, actions_list):
        self.batches.append(list(states))
        return [Evaluation(self.values.get(s, 0.0), None) for s in states]


# Two moves for player 1 (A, B), then two for player 2 below each, which end the game.
GAME = {
    "root": (1, {"a": ("A", 0.0, False), "b": ("B", 0.0, False)}),
    "A": (2, {"x": ("Ax", 0.0, True), "y": ("Ay", 0.0, True)}),
    "B": (2, {"x": ("Bx", 0.0, True), "y": ("By", 0.0, True)}),
}


def hand_made_tree(virtual_loss):
    """A at N = 1, Q = +1 (its value -1 for player 2), B at N = 1, Q = 0; root N = 2."""
    evaluator = Recorder({"A": -1.0, "B": 0.0})
    planner = MCTS(
        ScriptedGame(GAME),
        2,
        exploration=1.0,
        evaluator=evaluator,
        leaf_batch=2,
        virtual_loss=virtual_loss,
        seed=0,
    )
    tree = general_loop.new_tree(planner, "root", ("a", "b"))
    general_loop.run(planner, tree, 2)
    a, b = tree[ROOT].children
    assert (tree.visits[a], tree.values[a], tree.visits[b], tree.values[b]) == (1, 1.0, 1, 0.0)
    evaluator.calls.clear()
    return planner, tree, evaluator


def test_the_first_leafs_virtual_loss_steers_the_second_to_the_other_branch():
    # First: UCB1 at the root, A: 1 + sqrt(ln 2 / 1), B: 0 + sqrt(ln 2 / 1): A, whose first
    # action is expanded (Ax). Its virtual loss makes A's N 2, W 0 (Q 0) and the root's N 3:
    # A then scores 0 + sqrt(ln 3 / 2) = 0.74 and B 0 + sqrt(ln 3 / 1) = 1.05: B, then Bx.
    planner, tree, evaluator = hand_made_tree(virtual_loss=1.0)
    leaf_batching.run(planner, tree, 2)
    assert evaluator.batches == []  # Ax and Bx end the game: nothing to evaluate
    made = [tree.states[n] for n in range(3, len(tree))]
    assert made == ["Ax", "Bx"]
    # Without it the second selection sees A as before (Q = 1) and expands Ay.
    planner, tree, evaluator = hand_made_tree(virtual_loss=0.0)
    leaf_batching.run(planner, tree, 2)
    assert [tree.states[n] for n in range(3, len(tree))] == ["Ax", "Ay"]


def test_virtual_losses_are_removed_exactly_before_the_backup():
    planner, tree, _ = hand_made_tree(virtual_loss=1.0)
    leaf_batching.run(planner, tree, 2)
    a, b = tree[ROOT].children
    ax, bx = 3, 4
    # Each leaf ends the game with reward 0: G = 0 backed up once through each path.
    assert (tree.visits[ROOT], tree.visits[a], tree.visits[b]) == (4, 2, 2)
    assert (tree.value_sums[a], tree.value_sums[b]) == (1.0, 0.0)
    assert (tree.visits[ax], tree.value_sums[ax], tree.visits[bx]) == (1, 0.0, 1)


def test_a_leaf_reached_twice_in_a_round_is_evaluated_once():
    # One forced move to X (player 2 to move there, one move that ends the game).
    game = {"root": (1, {"go": ("X", 0.0, False)}), "X": (2, {"end": ("Z", 1.0, True)})}
    evaluator = Recorder({"X": 0.5})
    planner = MCTS(ScriptedGame(game), 2, evaluator=evaluator, leaf_batch=2, seed=0)
    planner.search("root")
    assert evaluator.batches == [["X"]]  # the second iteration stopped at X, made this round
    x = planner.tree[planner.tree[ROOT].children[0]]
    assert (x.visits, x.value_sum) == (2, -1.0)  # G = 0.5 for player 2, twice, -0.5 each


def test_the_batched_evaluator_gets_each_new_leaf_once_in_batches_of_at_most_k():
    evaluator = Recorder()
    planner = MCTS(
        TicTacToeModel(),
        300,
        exploration=C,
        selection="puct",
        evaluator=evaluator,
        leaf_batch=8,
        seed=2,
    )
    planner.search(EMPTY_BOARD)
    tree = planner.tree
    evaluated = [s for batch in evaluator.batches for s in batch]
    non_terminal = [tree.states[n] for n in range(1, len(tree)) if tree.untried[n] != TERMINAL]
    assert sorted(evaluated) == sorted(non_terminal)  # each node once
    assert max(len(batch) for batch in evaluator.batches) <= 8
    assert evaluator.calls == [EMPTY_BOARD]  # the root, with the plain call
    assert len(evaluator.batches) == math.ceil(300 / 8)


def test_a_plain_evaluator_is_called_once_per_leaf():
    calls = []

    def evaluator(state, actions):
        calls.append(state)
        return Evaluation(0.0, None)

    planner = MCTS(TicTacToeModel(), 200, evaluator=evaluator, leaf_batch=4, seed=0)
    planner.search(EMPTY_BOARD)
    tree = planner.tree
    assert len(calls) == 1 + sum(1 for n in range(1, len(tree)) if tree.untried[n] != TERMINAL)


@pytest.mark.parametrize("selection", ["uct", "puct"])
def test_rounds_of_one_build_the_general_loops_tree(selection):
    # The module's pieces (selection, expansion, evaluation, backup) are the general loop's
    # rules: in rounds of one iteration it builds that loop's tree, node for node.
    options = dict(exploration=C, selection=selection, evaluator=heuristic_evaluator, seed=3)
    reference = MCTS(ConnectFourModel(), 300, **options)
    reference.search(C4_START)
    batched = MCTS(ConnectFourModel(), 300, leaf_batch=2, virtual_loss=0.0, **options)
    batched.leaf_batch = 1  # leaf_batching.run with rounds of one
    tree = general_loop.new_tree(batched, C4_START, ConnectFourModel().actions(C4_START))
    leaf_batching.run(batched, tree, 300)
    assert list(tree) == list(reference.tree)


def test_a_batched_search_is_reproducible_and_keeps_the_trees_invariants():
    def search():
        planner = MCTS(
            ConnectFourModel(), 400, exploration=C, evaluator=heuristic_evaluator, leaf_batch=16
        )
        planner.rng.seed(5)
        planner.search(C4_START)
        return planner

    one, two = search(), search()
    assert list(one.tree) == list(two.tree)
    tree = one.tree
    assert tree.visits[ROOT] == 400 == sum(tree.visits[c] for c in tree.children[ROOT])
    # Every iteration ends at one node: a node's N is its children's plus the iterations that
    # ended there (its expansion, and those of its round that stopped at it, made and waiting).
    ended = 0
    for node in range(1, len(tree)):
        here = tree.visits[node] - sum(tree.visits[c] for c in tree.children[node])
        assert here >= 1 and isinstance(tree.visits[node], int)
        ended += here
    assert ended == 400


def test_batches_of_16_still_find_a_connect_four_win():
    from mcts_agent.envs.connect_four import parse_board

    # X to move wins at column 3 (three in the bottom row).
    board = parse_board(
        ".......\n.......\n.......\n.......\n....O..\nXXX.OO.",
    )
    planner = MCTS(
        ConnectFourModel(),
        2000,
        exploration=2.0,
        selection="puct",
        evaluator=heuristic_evaluator,
        leaf_batch=16,
        seed=0,
    )
    assert planner(board) == 3


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"leaf_batch": 0}, ValueError, "leaf_batch"),
        ({"leaf_batch": 2.0}, TypeError, "leaf_batch"),
        ({"virtual_loss": -1.0}, ValueError, "virtual_loss"),
        ({"leaf_batch": 2, "solve": True}, ValueError, "solve=True"),
        ({"leaf_batch": 2, "on_iteration": lambda p, i: None}, ValueError, "round of one"),
    ],
)
def test_bad_leaf_batching_options_are_rejected(kwargs, error, message):
    with pytest.raises(error, match=message):
        MCTS(TicTacToeModel(), 10, **kwargs)


def test_a_batch_of_the_wrong_length_is_a_value_error():
    class Short(Recorder):
        def batch(self, states, actions_list):
            return [Evaluation(0.0, None)]

    planner = MCTS(TicTacToeModel(), 20, evaluator=Short(), leaf_batch=4, seed=0)
    with pytest.raises(ValueError, match="returned 1 evaluations for 4 states"):
        planner.search(EMPTY_BOARD)


def test_uct_without_virtual_loss_takes_a_round_s_new_leaf_first():
    # With virtual_loss=0 a child added in a round has N = 0 until the round's backup; UCB1
    # would divide by it. It is taken first (an arm never pulled), a collision the round
    # backs up twice, and the tree keeps the invariants.
    model = TicTacToeModel()
    planner = MCTS(model, 400, leaf_batch=4, virtual_loss=0.0, seed=0)
    planner.search(EMPTY_BOARD)
    tree = planner.tree
    assert tree.visits[ROOT] == 400
    assert sum(tree.visits[child] for child in tree.children[ROOT]) == 400
    for node in range(1, len(tree)):
        if tree.children[node]:
            assert tree.visits[node] >= sum(tree.visits[child] for child in tree.children[node])


def test_uct_without_virtual_loss_when_a_round_is_wider_than_the_root():
    # Two root actions, rounds of four: the third selection of the first round finds the root
    # fully expanded with N(root) = 0 (no backup yet); its first child of the round is taken.
    model = ScriptedGame(GAME)
    planner = MCTS(model, 40, leaf_batch=4, virtual_loss=0.0, seed=0)
    planner.search("root")
    assert planner.tree.visits[ROOT] == 40
