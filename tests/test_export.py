"""Seeing the search: the principal variation, DOT text, the tree as JSON and back."""

import json
import math

import pydot
import pytest
from scripted_games import ScriptedGame

from mcts_agent import MCTS, MCTSAgent
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel, heuristic_evaluator
from mcts_agent.envs.tic_tac_toe import TicTacToeModel, parse_board
from mcts_agent.export import Repr, SavedNode, from_dict

C = 2 * math.sqrt(2)


def draw_or_trap():
    # Player 1: x draws at once; y leads to Y, where player 2's only move z loses (-1 to 2).
    return ScriptedGame(
        {
            "": (1, {"x": ("X", 0.0, True), "y": ("Y", 0.0, False)}),
            "Y": (2, {"z": ("YZ", -1.0, True)}),
        }
    )


def searched(model, state, iterations, **options):
    planner = MCTS(model, iterations, **{"exploration": C, "seed": 0, **options})
    planner.search(state)
    return planner


def replay(model, state, line):
    """Plays ``line`` from ``state``: every move legal, only the last may end the game."""
    for k, action in enumerate(line):
        assert action in model.actions(state), (k, action)
        state, _, terminated = model.step(state, action)
        if terminated:
            assert k == len(line) - 1
    return state


# --------------------------------------------------------------- golden tree

# Worked by hand, c = 1, no rollouts, 5 iterations (docs/concepts/iteration.md's rules):
# 1 expands x (terminal, G = 0); 2 expands y (G = 0); 3: UCB1 ties (sqrt(ln 2) each), x;
# 4: x 0 + sqrt(ln 3 / 2) = 0.74 < y 0 + sqrt(ln 3) = 1.05: y, expanding z: G at z is
# -1 (W(z) = -1), at y +1; 5: x 0.83 < y 0.5 + 0.83: y, then z (terminal): z W = -2, y W = 2.
GOLDEN = [
    SavedNode(0, None, None, 0, 1, 5, 0.0, 0.0, 0.0, False, False, None, None, 2, (1, 2)),
    SavedNode(1, 0, "x", 1, None, 2, 0.0, 0.0, 0.0, True, False, None, None, 0, ()),
    SavedNode(2, 0, "y", 1, 2, 3, 2.0, 2 / 3, 0.0, False, False, None, None, 1, (3,)),
    SavedNode(3, 2, "z", 2, None, 2, -2.0, -1.0, -1.0, True, False, None, None, 0, ()),
]


def test_a_hand_worked_tree_is_saved_field_by_field():
    planner = searched(draw_or_trap(), "", 5, exploration=1.0, rollout_limit=0)
    assert from_dict(planner.to_dict()) == tuple(GOLDEN)
    assert planner.principal_variation() == ["y", "z"]
    assert planner.principal_variation(max_length=1) == ["y"]
    assert planner.principal_variation(max_length=0) == []


def test_a_hand_worked_tree_in_the_general_loop_saves_its_priors():
    # The general loop (forced by PUCT's twin, max_depth) builds the same tree, with priors 1/2.
    planner = searched(draw_or_trap(), "", 5, exploration=1.0, rollout_limit=0, max_depth=10)
    saved = from_dict(planner.to_dict())
    assert [node.prior for node in saved] == [None, 0.5, 0.5, 1.0]
    assert [node._replace(prior=None) for node in saved] == GOLDEN


def test_the_dot_text_of_a_hand_worked_tree():
    planner = searched(draw_or_trap(), "", 5, exploration=1.0, rollout_limit=0)
    (graph,) = pydot.graph_from_dot_data(planner.to_dot())
    labels = {node.get_name(): node.get("label") for node in graph.get_nodes() if node.get("label")}
    assert labels == {
        "n0": '"root\\nto move: 1\\nN=5"',
        "n1": '"N=2\\nQ=+0.000\\nterminal r=+0"',
        "n2": '"N=3\\nQ=+0.667\\nto move: 2"',
        "n3": '"N=2\\nQ=-1.000\\nterminal r=-1"',
    }
    edges = {(e.get_source(), e.get_destination()): e for e in graph.get_edges()}
    assert set(edges) == {("n0", "n1"), ("n0", "n2"), ("n2", "n3")}
    assert edges["n0", "n1"].get("label") == '"x"'
    # The principal variation y, z is drawn in blue; x is not.
    assert edges["n0", "n2"].get("color") == edges["n2", "n3"].get("color") == "blue"
    assert edges["n0", "n1"].get("color") is None
    assert graph.get_node("n1")[0].get("peripheries") == "2"  # terminal: double border


def test_dot_limits_depth_and_visits_and_shows_solver_values_and_priors():
    planner = searched(draw_or_trap(), "", 100, solve=True, value_bounds=(-1, 1))
    (graph,) = pydot.graph_from_dot_data(planner.to_dot(max_depth=1))
    names = {node.get_name() for node in graph.get_nodes()} - {"node", "edge"}
    assert names == {"n0", "n1", "n2"}  # z (depth 2) left out
    label = graph.get_node("n2")[0].get("label")
    assert "V=+1" in label  # y proven a win for player 1
    assert "P=0.500" in graph.get_edges()[0].get("label")
    (graph,) = pydot.graph_from_dot_data(planner.to_dot(max_depth=None, min_visits=2))
    kept = {n.get_name() for n in graph.get_nodes()} - {"node", "edge"}
    assert kept == {"n0"} | {
        f"n{i}" for i in range(1, len(planner.tree)) if planner.tree.visits[i] >= 2
    }


def test_dot_escapes_quotes_and_backslashes_in_actions():
    game = ScriptedGame({"": (1, {'say "hi"': ("A", 1.0, True), "back\\slash": ("B", 0.0, True)})})
    planner = searched(game, "", 10)
    (graph,) = pydot.graph_from_dot_data(planner.to_dot())
    labels = sorted(e.get("label") for e in graph.get_edges())
    assert labels == ['"back\\\\slash"', '"say \\"hi\\""']


# --------------------------------------------------------------- principal variation


@pytest.mark.parametrize(
    "make_model, state, options",
    [
        (TicTacToeModel, parse_board("X...O...."), {}),
        (TicTacToeModel, parse_board("X...O...."), {"solve": True, "value_bounds": (-1, 1)}),
        (ConnectFourModel, C4_START, {}),
        (
            ConnectFourModel,
            C4_START,
            {"selection": "puct", "evaluator": heuristic_evaluator},
        ),
    ],
    ids=["ttt-uct", "ttt-solver", "c4-uct", "c4-puct"],
)
def test_the_principal_variation_is_legal_and_starts_with_the_move_played(
    make_model, state, options
):
    model = make_model()
    planner = searched(model, state, 3000, **options)
    line = planner.principal_variation()
    assert line[0] == planner.best_action()
    assert len(line) >= 3
    replay(model, state, line)
    # Below the first move, each is the robust child: most visits, then value, then first.
    tree, node = planner.tree, 0
    for k, action in enumerate(line):
        index = tree.actions[node].index(action)
        if k:
            tried = [c for c in tree.children_by_action(node) if c >= 0]
            best = max(tried, key=lambda c: (tree.visits[c], tree.values[c]))
            assert tree.children_by_action(node)[index] == best
        node = tree.children_by_action(node)[index]
    assert not [c for c in tree.children_by_action(node) if c >= 0]  # it ends at a leaf


def test_with_the_solver_the_first_move_is_the_solvers_not_the_most_visited():
    # Found by search: here the solver's proven win is not the root's most visited child.
    model = TicTacToeModel()
    state = parse_board("OXX......")
    planner = searched(model, state, 2000, solve=True, value_bounds=(-1, 1))
    tree = planner.tree
    most_visited = tree.actions[0][tree.robust_child(0)]
    assert planner.best_action() != most_visited
    line = planner.principal_variation()
    assert line[0] == planner.best_action()
    replay(model, state, line)


def test_a_principal_variation_length_must_be_a_count():
    planner = searched(TicTacToeModel(), parse_board("........."), 50)
    with pytest.raises(ValueError, match="max_length must be >= 0"):
        planner.principal_variation(-1)
    with pytest.raises(TypeError, match="max_length"):
        planner.principal_variation(2.5)
    with pytest.raises(RuntimeError, match="no search has run yet"):
        MCTS(TicTacToeModel(), 10).principal_variation()


# --------------------------------------------------------------- JSON round trip


def round_trip(planner, **limits):
    data = planner.to_dict(**limits)
    return from_dict(json.loads(json.dumps(data))), from_dict(data)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"solve": True, "value_bounds": (-1, 1)},
        {"selection": "puct", "root_noise": (0.3, 0.25)},
    ],
    ids=["uct", "solver", "puct-noise"],
)
def test_a_tree_survives_json_exactly(options):
    planner = searched(TicTacToeModel(), parse_board("X...O...."), 2000, **options)
    loaded, direct = round_trip(planner)
    assert loaded == direct
    assert len(loaded) == len(planner.tree)  # min_visits=0, no depth limit: every node
    for saved in loaded:
        node = planner.tree[saved.index]
        assert (saved.visits, saved.value_sum, saved.value) == (
            node.visits,
            node.value_sum,
            node.value,
        )
        assert saved.proven_value == node.proven_value
        assert saved.num_actions == len(node.actions)
        assert [loaded[c].parent for c in saved.children] == [loaded.index(saved)] * len(
            saved.children
        )
    root_priors = [n.prior for n in loaded if n.parent == 0]
    if options:  # the general loop's trees have priors; every root action was tried
        assert len(root_priors) == 9 - 2 and sum(root_priors) == pytest.approx(1.0)
    else:
        assert root_priors == [None] * 7


def test_limits_keep_the_nodes_within_depth_and_visits():
    planner = searched(ConnectFourModel(), C4_START, 2000)
    loaded, _ = round_trip(planner, max_depth=2, min_visits=10)

    def depth(node):
        return 0 if node == 0 else 1 + depth(parent[node])

    parent = {c: p for p, kids in enumerate(planner.tree.children) for c in kids}
    expected = {
        i
        for i in range(len(planner.tree))
        if depth(i) <= 2 and all(planner.tree.visits[n] >= 10 for n in _ancestry(i, parent))
    }
    assert {n.index for n in loaded} == expected
    assert all(n.depth == depth(n.index) for n in loaded)


def _ancestry(node, parent):
    while node != 0:
        yield node
        node = parent[node]


def test_players_and_actions_that_json_cannot_hold_come_back_comparable():
    class Move:
        def __repr__(self):
            return "Move()"

    move = Move()
    game = ScriptedGame({"": ("me", {(1, "a"): ("A", 1.0, True), move: ("B", 0.0, True)})})
    planner = searched(game, "", 10)
    loaded, direct = round_trip(planner)
    assert loaded == direct
    assert [n.action for n in loaded] == [None, (1, "a"), Repr("Move()")]
    assert loaded[0].player == "me"


def test_pettingzoo_trees_round_trip():
    import pettingzoo

    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    env.reset(seed=0)
    agent = MCTSAgent(iterations=200, exploration=C, seed=0, native_models=False)
    agent.act(env)
    loaded, direct = round_trip(agent.last_planner)
    assert loaded == direct
    assert loaded[0].player == "player_1"
    assert len(loaded) == len(agent.last_planner.tree)


def nested_list(depth):
    """``[[...[]...]]``, ``depth`` lists deep (built without recursion)."""
    value = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(format="other"), "format"),
        (lambda d: d.update(version=99), "version 1, got version 99"),
        (lambda d: d.update(nodes=[]), "non-empty list"),
        (lambda d: d["nodes"][1].pop("visits"), "node 1: expected a dict with the keys"),
        (lambda d: d["nodes"][1].update(visits="3"), "node 1: visits must be of type int"),
        (lambda d: d["nodes"][1].update(terminal=1), "node 1: terminal must be of type bool"),
        (lambda d: d["nodes"][1].update(parent=5), "node 1: parent must be"),
        (lambda d: d["nodes"][0].update(children=[0]), "node 0: children must be later"),
        (lambda d: d["nodes"][1].update(action={"x": 1}), "expected an action or player"),
        # Issue 28, item 12: inconsistent trees and values that Python takes for ints.
        (lambda d: d.update(version=True), "version 1, got version True"),
        (lambda d: d["nodes"][0].update(children=[True]), r"children must be later .*\[True\]"),
        (
            lambda d: d["nodes"][0].update(children=[1, 1, 2]),
            "node 0: children list node 1, which node 0 lists already",
        ),
        (
            lambda d: d["nodes"][0].update(children=[1, 2, 3]),
            "node 0: children list node 3, whose parent is 2; expected 0",
        ),
        (lambda d: d["nodes"][2].update(children=[]), "node 3: its parent, node 2, does not list"),
        (
            lambda d: d["nodes"][1].update(action=nested_list(5000)),
            r"node 1: action: .*at most 100 lists deep",
        ),
    ],
)
def test_a_malformed_saved_tree_is_refused_naming_the_field(change, message):
    planner = searched(draw_or_trap(), "", 5)
    data = json.loads(json.dumps(planner.to_dict()))
    change(data)
    with pytest.raises(ValueError, match=message):
        from_dict(data)


def test_bad_export_limits_are_refused():
    planner = searched(draw_or_trap(), "", 5)
    with pytest.raises(ValueError, match="max_depth must be >= 0"):
        planner.to_dot(max_depth=-1)
    with pytest.raises(TypeError, match="min_visits"):
        planner.to_dict(min_visits=None)


def test_long_actions_wrap_in_dot_labels():
    short, long = "a move named at length", "word " * 30
    game = ScriptedGame({"": (1, {short: ("A", 1.0, True), long: ("B", 0.0, True)})})
    planner = searched(game, "", 10)
    (graph,) = pydot.graph_from_dot_data(planner.to_dot())
    labels = sorted(e.get("label").strip('"').split("\\n") for e in graph.get_edges())
    assert labels == [
        [short],
        ["word word word word word", "word word word word word", "word word word word ..."],
    ]


def test_chance_nodes_are_saved_drawn_as_ellipses_and_end_the_principal_variation():
    # Runs once chance nodes (issue 18, mcts_agent.envs.pig) are on the branch.
    pig = pytest.importorskip("mcts_agent.envs.pig")
    model = pig.PigModel(goal=10)
    planner = searched(model, model.initial_state(), 500)
    saved, direct = round_trip(planner)
    assert saved == direct
    chance = [n for n in saved if n.chance]
    assert chance and all(
        n.prior is None for n in saved if n.parent in {saved.index(c) for c in chance}
    )
    line = planner.principal_variation()
    assert len(line) == 1 and saved[saved[0].children[0]].chance  # the move, then the draw
    (graph,) = pydot.graph_from_dot_data(planner.to_dot(max_depth=2))
    shapes = {n.get_name(): n.get("shape") for n in graph.get_nodes()}
    assert {shapes[f"n{n.index}"] for n in chance if n.depth <= 2} == {"ellipse"}
