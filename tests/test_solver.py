"""MCTS-Solver (docs/guides/anytime-and-solver.md): hand-worked proofs, the final move, oracles."""

import math

import pytest
from positions import connect_four_wins_within, tic_tac_toe_positions
from scripted_games import ScriptedGame

from mcts_agent import MCTS, AlphaBetaMinimax, ExhaustiveMinimax
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import TicTacToeModel, format_board

C = 2 * math.sqrt(2)
BOUNDS = (-1.0, 1.0)


def solver(model, iterations, **options):
    return MCTS(model, iterations, exploration=C, seed=0, solve=True, **options)


def win_in_one():
    # Player 1 to move: a (draw, terminal), b (player 2 then wins), w (wins at once).
    return ScriptedGame(
        {
            "root": (1, {"a": ("A", 0.0, True), "b": ("B", 0.0, False), "w": ("W", 1.0, True)}),
            "B": (2, {"x": ("BX", 1.0, True)}),
        }
    )


def test_a_win_in_one_is_proven_as_soon_as_it_is_tried_with_bounds():
    planner = solver(win_in_one(), 100, value_bounds=BOUNDS)
    planner.search("root")
    summary = planner.summary()
    # Iteration 1 expands a (terminal: proven 0), 2 expands b (rollout: 2 wins, Q = -1),
    # 3 expands w: proven at hi = 1, which proves the root (V = 1) and stops the search.
    assert (summary.iterations, summary.stop_reason) == (3, "solved")
    assert summary.proven_value == 1.0
    assert summary.proven == (0.0, None, 1.0)
    assert summary.action == "w"
    assert planner.tree[0].proven_value == 1.0


def test_without_bounds_a_win_waits_for_every_sibling_to_be_proven():
    planner = solver(win_in_one(), 100)
    planner.search("root")
    summary = planner.summary()
    # Iterations 1-3 expand a (proven 0), b (rollout: Q = -1) and w (proven 1): the root is
    # not proven while b is not. Iteration 4 scores a = 0 and w = 1 exactly (proven) and b
    # -1 + c * sqrt(ln 3 / 1) = 1.97: b, whose only move BX (player 2 wins, V = 1) proves
    # V(b) = 0 - 1 * 1 = -1, and then the root, V = max(0, -1, 1) = 1.
    assert (summary.iterations, summary.stop_reason) == (4, "solved")
    assert summary.proven == (0.0, -1.0, 1.0)
    assert summary.proven_value == 1.0 and summary.action == "w"
    b = planner.tree[planner.tree[0].children[1]]
    assert b.proven_value == -1.0 and planner.tree[b.children[0]].proven_value == 1.0


def test_a_terminal_reward_out_of_the_bounds_is_an_error_naming_it_and_the_bounds(each_backend):
    # (-1, 0.5) excludes w's reward 1: "proven at hi" would no longer mean "best possible".
    planner = solver(win_in_one(), 100, value_bounds=(-1.0, 0.5))
    planner.search("root", iterations=1)  # a: reward 0, within the bounds
    before = planner.tree
    with pytest.raises(ValueError) as raised:
        planner.search("root")  # iteration 3 expands w
    message = str(raised.value)
    assert "value_bounds=(-1.0, 0.5) must bound every node's value" in message
    assert "the game pays the reward 1.0 at the end of step('root', 'w')" in message
    assert planner.tree is before  # the failed search left the previous tree


def test_a_proven_value_out_of_the_bounds_is_an_error():
    # Every reward is within (-1, 1), but a then b pays 0.5 + 0.8: V(a) = 1.3 > hi.
    game = ScriptedGame(
        {
            "root": (0, {"a": ("A", 0.5, False), "c": ("C", 0.0, True)}),
            "A": (0, {"b": ("AB", 0.8, True)}),
        }
    )
    with pytest.raises(ValueError, match=r"proved the value 1\.3 for the move step\('root', 'a'\)"):
        solver(game, 100, value_bounds=BOUNDS).search("root")


def loss_in_two():
    # Player 1 to move; whatever it plays, player 2 has a winning reply (and a losing one).
    moves = {}
    table = {}
    for a in ("a", "b"):
        moves[a] = (a, 0.0, False)
        table[a] = (2, {"win": (a + "w", 1.0, True), "lose": (a + "l", -1.0, True)})
    table["root"] = (1, moves)
    return ScriptedGame(table)


@pytest.mark.parametrize("bounds", [None, BOUNDS], ids=["no-bounds", "bounds"])
def test_a_loss_in_two_is_proven(bounds):
    planner = solver(loss_in_two(), 1000, value_bounds=bounds)
    planner.search("root")
    summary = planner.summary()
    assert summary.stop_reason == "solved"
    assert summary.proven == (-1.0, -1.0)  # player 2 wins after either move
    assert summary.proven_value == -1.0
    if bounds is not None:
        # Iterations 1-2 expand a and b; 3 expands a's first reply, "win" (1 for player
        # 2, at hi): a is proven at -1; 4 does the same under b, which proves the root.
        assert (summary.iterations, summary.nodes) == (4, 5)


def test_a_draw_is_proven_only_when_every_child_is():
    # Both moves draw, but b's draw is behind a choice of player 2 between two draws.
    game = ScriptedGame(
        {
            "root": (1, {"a": ("A", 0.0, True), "b": ("B", 0.0, False)}),
            "B": (2, {"x": ("BX", 0.0, True), "y": ("BY", 0.0, False)}),
            "BY": (1, {"z": ("BYZ", 0.0, True)}),
        }
    )
    planner = solver(game, 1000, value_bounds=BOUNDS)
    planner.search("root")
    tree = planner.tree
    assert planner.summary().stop_reason == "solved"
    assert planner.summary().proven_value == 0.0
    # Every node of the game was needed: 6 nodes, each made once, each proven.
    assert len(tree) == 6
    assert all(node.proven_value == 0.0 for node in tree)
    # No earlier proof: a search stopped after 4 iterations (BYZ not made) has not proven b.
    short = solver(game, 4, value_bounds=BOUNDS)
    short.search("root")
    assert short.summary().proven == (0.0, None) and short.summary().proven_value is None


def test_discounting_enters_the_proven_values():
    # One player, gamma 0.9: a then b pays 1 at the second move; c pays 0.85 at once.
    game = ScriptedGame(
        {
            "root": (0, {"a": ("A", 0.0, False), "c": ("C", 0.85, True)}),
            "A": (0, {"b": ("AB", 1.0, True)}),
        }
    )
    planner = MCTS(game, 100, seed=0, gamma=0.9, solve=True)
    planner.search("root")
    summary = planner.summary()
    assert summary.stop_reason == "solved"
    assert summary.proven == (0.9, 0.85)  # V(a) = 0 + 0.9 * 1; V(c) = 0.85
    assert summary.proven_value == 0.9 and summary.action == "a"


def test_a_one_player_task_is_solved_to_its_best_return():
    # A chain of choices: the best return is 0.5 + 1 along left-right; greedy "right" pays 1.
    game = ScriptedGame(
        {
            "s": (0, {"left": ("L", 0.5, False), "right": ("R", 1.0, True)}),
            "L": (0, {"left": ("LL", 0.0, True), "right": ("LR", 1.0, True)}),
        }
    )
    planner = MCTS(game, 100, seed=0, solve=True)
    planner.search("s")
    assert planner.summary().proven == (1.5, 1.0)
    assert planner.summary().proven_value == 1.5
    assert planner.best_action() == "left"


def test_a_proven_child_scores_its_value_without_exploration():
    # After a is proven at 0 and b's Q is about -1, UCB1 alone would revisit a (its
    # exploration term); the solver scores a exactly 0 and b at Q + c * sqrt(ln N / n).
    planner = solver(win_in_one(), 3)
    planner.search("root")
    tree = planner.tree
    a, b, w = (tree[c] for c in tree[0].children)
    assert (a.proven_value, b.proven_value, w.proven_value) == (0.0, None, 1.0)
    planner.search("root", iterations=4)
    # Iteration 4: scores a = 0, b = -1 + c * sqrt(ln 3 / 1) = 1.96, w = 1: b is selected.
    assert planner.tree[planner.tree[0].children[1]].visits == 2


def final_move_game():
    # Player 1: a loses at once (-1, terminal), b draws (0, terminal), u and v lead on.
    return ScriptedGame(
        {
            "root": (
                1,
                {
                    "a": ("A", -1.0, True),
                    "b": ("B", 0.0, True),
                    "u": ("U", 0.0, False),
                    "v": ("V", 0.0, False),
                },
            ),
            "U": (2, {f"x{i}": (f"U{i}", 0.0, i != 0) for i in range(3)}),
            "U0": (1, {"y": ("U0Y", 0.0, True)}),
            "V": (2, {f"x{i}": (f"V{i}", 0.0, i != 0) for i in range(3)}),
            "V0": (1, {"y": ("V0Y", 0.0, True)}),
        }
    )


def test_the_move_played_skips_children_proven_worse_or_at_lo():
    planner = solver(final_move_game(), 5, value_bounds=BOUNDS)
    planner.search("root")
    tree = planner.tree
    children = [tree[c] if c != -1 else None for c in tree[0].children]
    # Give the proven children the most visits by hand: the rule must still skip them.
    a, b, u, v = tree[0].children
    tree.visits[a] = 100  # proven at lo = -1: never played while another child is not
    tree.visits[b] = 90  # proven 0: fine, nothing proven is better
    tree.visits[u] = 10
    tree.visits[v] = 20
    assert children[0].proven_value == -1.0 and children[1].proven_value == 0.0
    assert planner.summary().proven_value is None
    assert planner.best_action() == "b"
    tree.proven_values[v] = 0.5  # now b (0) is proven worse than v (0.5)
    assert planner.best_action() == "v"
    tree.proven_values[v] = None
    tree.proven_values[b] = -1.0  # every proven child at lo: the unproven are played
    assert planner.best_action() == "v"  # most visited of u, v


def test_a_proven_root_plays_its_best_proven_child_whatever_the_visits():
    planner = solver(win_in_one(), 100)
    planner.search("root")
    tree = planner.tree
    a, b, w = tree[0].children
    tree.visits[a] = 10**6
    assert planner.best_action() == "w"


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"value_bounds": BOUNDS}, ValueError, "without solve=True they are not read"),
        ({"solve": True, "value_bounds": (1, -1)}, ValueError, r"lo < hi, got \(1.0, -1.0\)"),
        ({"solve": True, "value_bounds": (0, math.nan)}, ValueError, "finite"),
        ({"solve": True, "value_bounds": 1.0}, TypeError, r"a pair \(lo, hi\)"),
        ({"solve": "yes"}, TypeError, "solve must be a bool"),
    ],
)
def test_bad_solver_settings_are_rejected(kwargs, error, message):
    with pytest.raises(error, match=message):
        MCTS(TicTacToeModel(), 10, **kwargs)


def test_every_tic_tac_toe_position_with_two_marks_is_proven_and_played_right():
    model = TicTacToeModel()
    oracle = ExhaustiveMinimax(model)
    positions = tic_tac_toe_positions(min_marks=2)
    assert len(positions) == 4510
    wrong = []
    for i, state in enumerate(positions):
        planner = MCTS(model, 20_000, exploration=C, seed=i, solve=True, value_bounds=BOUNDS)
        planner.search(state)
        summary = planner.summary()
        if (
            summary.stop_reason != "solved"
            or summary.proven_value != oracle.value(state)
            or summary.action not in oracle.best_actions(state)
        ):
            wrong.append((format_board(state), summary.proven_value, summary.action))
    assert wrong == []


def test_connect_four_forced_wins_in_five_are_proven_and_played():
    model = ConnectFourModel()
    oracle = AlphaBetaMinimax(model, depth=5)
    for i, state in enumerate(connect_four_wins_within(5, 8, seed=11)):
        planner = MCTS(model, 50_000, exploration=C, seed=i, solve=True, value_bounds=BOUNDS)
        planner.search(state)
        summary = planner.summary()
        assert summary.stop_reason == "solved", i
        assert summary.proven_value == 1.0
        assert oracle.action_values(state)[summary.action] == 1.0


def test_the_solver_under_puct_proves_tic_tac_toe_positions_right():
    model = TicTacToeModel()
    oracle = ExhaustiveMinimax(model)
    for i, state in enumerate(tic_tac_toe_positions(min_marks=4)[::40]):
        planner = MCTS(
            model,
            20_000,
            exploration=4 * C / 2,
            seed=i,
            solve=True,
            value_bounds=BOUNDS,
            selection="puct",
        )
        planner.search(state)
        summary = planner.summary()
        assert summary.stop_reason == "solved"
        assert summary.proven_value == oracle.value(state)
        assert summary.action in oracle.best_actions(state)
