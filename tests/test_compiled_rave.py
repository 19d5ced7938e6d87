"""The compiled RAVE/GRAVE loop of Go builds the pure loop's trees exactly.

Every case searches twice with the same planner configuration, once with the
pure-Python loop (:func:`mcts_agent.rave.run`, GoModel's Python playout) and
once with the compiled one (``mcts_agent._core.go_rave_search_run``), and
compares every per-node list of the :class:`~mcts_agent.rave.RaveTree` (floats
as exact bits), every AMAF table, the summary, the move and the state of the
planner's generator afterwards.
"""

from __future__ import annotations

import random

import pytest
import test_compiled

from mcts_agent import MCTS, compiled_rave
from mcts_agent.compiled import pure_python
from mcts_agent.envs.go import GoModel, GoState, parse_board
from mcts_agent.rave import RaveTree

pytestmark = test_compiled.pytestmark  # the same skip: without the core, or forced off

FIELDS = (
    "states",
    "players",
    "actions",
    "children",
    "untried",
    "visits",
    "action_indices",
    "priors",
    "scaled_priors",
    "leaf_values",
    "expansion_orders",
    "proven_values",
    "chance_records",
    "amaf_keys",
)
FLOAT_FIELDS = ("rewards", "discounts", "value_sums", "values")


def snapshot(planner: MCTS) -> tuple:
    """Every per-node list (floats as hex), every AMAF table, the summary, the move, the rng."""
    tree = planner.tree
    lists = tuple(list(getattr(tree, name)) for name in FIELDS)
    floats = tuple([x.hex() for x in getattr(tree, name)] for name in FLOAT_FIELDS)
    tables = [
        sorted((key, count, total.hex()) for key, (count, total) in tree.amaf(i).items())
        for i in range(len(tree))
    ]
    summary = planner.summary()._replace(elapsed=0.0)
    return lists, floats, tables, summary, planner.best_action(), planner.rng.getstate()


def both(model: GoModel, state: GoState, iterations: int, seed: int, **options) -> tuple:
    """The compiled planner's snapshot and the pure one's, from the same configuration."""
    compiled_planner = MCTS(model, iterations=iterations, seed=seed, selection="rave", **options)
    compiled_planner.search(state)
    assert type(compiled_planner.tree.amaf_tables) is compiled_rave.AmafTables  # ran in C
    with pure_python():
        pure = MCTS(model, iterations=iterations, seed=seed, selection="rave", **options)
        pure.search(state)
    assert type(pure.tree.amaf_tables) is list
    return snapshot(compiled_planner), snapshot(pure)


def positions(size: int, count: int, seed: int) -> list[GoState]:
    """``count`` positions of random games on a ``size`` board (some with a ko point or a pass)."""
    model = GoModel(size)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = model.initial_state()
        for _ in range(rng.randrange(3 * size * size)):
            actions = model.actions(state)
            if not actions:
                break
            state, _, over = model.step(state, rng.choice(actions))
            if over:
                break
        if model.actions(state):
            found.append(state)
    return found


@pytest.mark.parametrize(
    ("size", "iterations", "options"),
    [
        (9, 150, {}),
        (9, 150, {"grave_ref": 0}),
        (9, 150, {"grave_ref": 7, "rave_bias": 0.01, "exploration": 0.3}),
        (7, 200, {"gamma": 0.9}),
        (5, 300, {"grave_ref": 20}),
        (9, 200, {"rollout_limit": 6}),
        (9, 150, {"rollout_limit": 0}),
        (3, 300, {}),
        (2, 200, {}),
        (13, 60, {}),
        (19, 25, {}),
    ],
)
def test_same_tree_from_the_empty_board(size: int, iterations: int, options: dict) -> None:
    model = GoModel(size)
    for seed in (0, 1):
        compiled_snapshot, pure_snapshot = both(
            model, model.initial_state(), iterations, seed, **options
        )
        assert compiled_snapshot == pure_snapshot


@pytest.mark.parametrize(
    ("size", "iterations", "options"),
    [
        (9, 150, {}),
        (9, 150, {"grave_ref": 0, "exploration": 0.2}),
        (5, 300, {"gamma": 0.9}),
        (9, 150, {"rollout_limit": 6}),
        (19, 25, {}),
    ],
)
def test_same_tree_with_the_capture_heuristic(size: int, iterations: int, options: dict) -> None:
    """GoModel(capture_heuristic=True): the C playout's rule, the pure loop's tree."""
    model = GoModel(size, capture_heuristic=True)
    states = [model.initial_state(), model.initial_state(), *positions(size, 2, size)]
    snapshots = []
    for seed, state in enumerate(states):
        compiled_snapshot, pure_snapshot = both(model, state, iterations, seed % 2, **options)
        assert compiled_snapshot == pure_snapshot
        snapshots.append(compiled_snapshot)
    light = MCTS(GoModel(size), iterations=iterations, seed=0, selection="rave", **options)
    light.search(states[0])
    assert snapshot(light)[:3] != snapshots[0][:3]  # the rule changed the playouts


def test_same_tree_from_positions_of_random_games() -> None:
    """Captures, ko points, a pass just played, games that end inside the tree."""
    for size, seed in ((5, 1), (9, 2), (4, 3)):
        model = GoModel(size, komi=0.5 if size < 9 else 7.5)
        for k, state in enumerate(positions(size, 4, seed)):
            compiled_snapshot, pure_snapshot = both(model, state, 100, k)
            assert compiled_snapshot == pure_snapshot


def test_same_tree_after_a_pass_where_the_game_can_end() -> None:
    """White to move after black's pass: passing ends the game, a node with a reward."""
    model = GoModel(5, komi=0.5)
    board = parse_board(
        """
        . X O . .
        X X O . .
        . X O O .
        X X X O .
        . X O O .
        """
    )
    state = GoState(board, 2, -1, 1)
    compiled_snapshot, pure_snapshot = both(model, state, 300, 3)
    assert compiled_snapshot == pure_snapshot
    tree_rewards = compiled_snapshot[1][0]
    assert any(float.fromhex(r) != 0.0 for r in tree_rewards)  # a game ended in the tree


def test_a_timed_search_in_chunks_builds_a_tree_of_the_pure_loop() -> None:
    """Chunks of iterations continue one search; the tree is the pure loop's at that count."""
    model = GoModel(7)
    planner = MCTS(model, time_limit=0.01, seed=4, selection="rave")
    planner.search(model.initial_state())
    done = planner.summary().iterations
    assert done > 1 and len(planner.tree) == done + 1
    with pure_python():
        pure = MCTS(model, iterations=done, seed=4, selection="rave")
        pure.search(model.initial_state())
    assert snapshot(planner)[:3] == snapshot(pure)[:3]


def test_max_nodes_stops_the_compiled_search_as_the_pure_one() -> None:
    model = GoModel(9)
    snapshots = []
    for pure in (False, True):
        planner = MCTS(model, iterations=10_000, max_nodes=120, seed=5, selection="rave")
        if pure:
            with pure_python():
                planner.search(model.initial_state())
        else:
            planner.search(model.initial_state())
        snapshots.append(snapshot(planner)[:3])
        assert len(planner.tree) <= 120
    assert snapshots[0] == snapshots[1]


def test_the_pure_loop_runs_where_the_compiled_one_does_not_apply() -> None:
    model = GoModel(5)
    trees = []
    seen = []

    def callback(planner: MCTS, done: int) -> None:
        seen.append(len(planner.tree))

    class Subclass(GoModel):
        pass

    def first_legal(state: GoState, actions: tuple, rng: random.Random) -> int:
        return actions[0]

    for planner in (
        MCTS(model, iterations=30, seed=1, selection="rave", on_iteration=callback),
        MCTS(Subclass(5), iterations=30, seed=1, selection="rave"),
        MCTS(model, iterations=30, seed=1, selection="rave", rollout_policy=first_legal),
    ):
        planner.search(model.initial_state())
        trees.append(type(planner.tree.amaf_tables))
    assert trees == [list, list, list]
    assert seen == list(range(2, 32))  # the callback read the tree growing, iteration by iteration


def test_amaf_tables_are_read_on_demand_as_the_pure_loop_keeps_them() -> None:
    model = GoModel(5)
    planner = MCTS(model, iterations=200, seed=2, selection="rave")
    planner.search(model.initial_state())
    tables = planner.tree.amaf_tables
    assert len(tables) == len(planner.tree) == 201
    root = tables[0]
    assert root == tables[-201] and tables[0:2] == [tables[0], tables[1]]
    count, total = root[(1, planner.best_action())]
    assert isinstance(count, int) and 0 < count <= 200 and -count <= total <= count
    root[(1, 0)] = [10**6, 0.0]  # a copy: the search's table is unchanged
    assert tables[0][(1, 0)] != [10**6, 0.0]
    with pytest.raises(IndexError, match="out of range for a tree of 201 nodes"):
        tables[201]


def test_a_fresh_tree_only() -> None:
    """search() refuses a tree that has grown: the C side writes a tree holding its root only."""
    model = GoModel(5)
    planner = MCTS(model, iterations=10, seed=0, selection="rave")
    state = model.initial_state()
    tree = RaveTree(state, 1, model.actions(state))
    assert compiled_rave.search(planner, tree) is not None
    tree.amaf_tables.append({})
    tree.states.append(state)  # two nodes: not fresh
    assert compiled_rave.search(planner, tree) is None
