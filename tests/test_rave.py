"""RAVE and GRAVE (selection="rave", mcts_agent.rave, docs/guides/rave.md): hand-worked trees."""

from __future__ import annotations

import math

import pytest
from scripted_games import ScriptedGame

from mcts_agent import MCTS, StepResult
from mcts_agent import rave as rave_
from mcts_agent.envs.tic_tac_toe import TicTacToeModel, parse_board, perfect_moves
from mcts_agent.export import to_dict


class AmafGame(ScriptedGame):
    """A scripted game whose actions mean the same everywhere, with scripted rollouts.

    ``rollouts[state] = (G, [(player, action), ...])``: what ``amaf_rollout`` returns
    from ``state`` (G from the point of view of the player to move there); ``rollout``
    must never be called (the RAVE loop asks for the moves).
    """

    amaf_actions = True

    def __init__(self, table, rollouts=None):
        super().__init__(table)
        self.rollouts = rollouts or {}

    def rollout(self, state, rng, limit, gamma):
        raise AssertionError("the RAVE loop called rollout, not amaf_rollout")

    def amaf_rollout(self, state, rng, limit, gamma):
        g, moves = self.rollouts[state]
        return g, list(moves)


# Root R (player 1): a -> A, b -> B (player 2). A: b -> AB, c -> AC; B: a -> BA, c -> BC
# (BC ends the game, player 2 winning: reward 1). Rollouts: from A, G = -1 for player 2
# with the moves (2, a), (1, b), (1, a): action a twice (the second not counted); from B,
# G = -0.5 for player 2 with (2, c), (1, a).
GAME = {
    "R": (1, {"a": ("A", 0.0, False), "b": ("B", 0.0, False)}),
    "A": (2, {"b": ("AB", 0.0, False), "c": ("AC", 0.0, False)}),
    "B": (2, {"a": ("BA", 0.0, False), "c": ("BC", 1.0, True)}),
    "AB": (1, {"x": ("ABx", 0.0, True)}),
    "AC": (1, {"x": ("ACx", 0.0, True)}),
    "BA": (1, {"x": ("BAx", 0.0, True)}),
}
ROLLOUTS = {"A": (-1.0, [(2, "a"), (1, "b"), (1, "a")]), "B": (-0.5, [(2, "c"), (1, "a")])}


def hand_planner(iterations, rollouts=None, **options):
    options = {"exploration": 1.0, "rave_bias": 0.0, "grave_ref": 0, "seed": 0, **options}
    game = AmafGame(GAME, rollouts or ROLLOUTS_3)
    planner = MCTS(game, iterations, selection="rave", **options)
    planner.search("R")
    return planner


def node_of(planner, state):
    return planner.tree.states.index(state)


def test_amaf_tables_after_one_two_and_three_iterations():
    # it 1: R's first untried action (no AMAF data: model order) a -> A; rollout G = -1
    #   for player 2. A's table, the rollout's first occurrences: (2, a) from 2's view -1,
    #   (1, b) from 1's view +1 ((1, a) is a's second occurrence: not counted).
    #   Backup: A gets G = 0 - 1 * (-1) = +1 (player 1's view). The suffix from R is
    #   (1, a) (2, a) (1, b) (1, a): first occurrences (1, a), (1, b), each +1 for player 1.
    planner = hand_planner(1)
    tree, a = planner.tree, node_of(planner, "A")
    assert tree.amaf(a) == {(2, "a"): (1, -1.0), (1, "b"): (1, 1.0)}
    assert tree.amaf(0) == {(1, "a"): (1, 1.0), (1, "b"): (1, 1.0)}
    assert (tree.visits[a], tree.value_sums[a]) == (1, 1.0)
    # it 2: b -> B (the only untried action); rollout G = -0.5 for player 2: B's table
    #   (2, c) -0.5, (1, a) +0.5; B gets W = +0.5. R's suffix (1, b) (2, c) (1, a):
    #   (1, b) +0.5, (2, c) -0.5 (player 2's view), (1, a) +0.5.
    planner = hand_planner(2)
    tree, a, b = planner.tree, node_of(planner, "A"), node_of(planner, "B")
    assert tree.amaf(b) == {(2, "c"): (1, -0.5), (1, "a"): (1, 0.5)}
    assert tree.amaf(a) == {(2, "a"): (1, -1.0), (1, "b"): (1, 1.0)}
    assert tree.amaf(0) == {(1, "a"): (2, 1.5), (1, "b"): (2, 1.5), (2, "c"): (1, -0.5)}
    # it 3: at R (N = 2; grave_ref = 0: R's own table), b = 0: beta = 2 / (2 + 1) for both:
    #   A: (1/3) * 1 + (2/3) * 0.75 = 0.833, B: (1/3) * 0.5 + (2/3) * 0.75 = 0.667 (+ the
    #   same sqrt(ln 2)): A. At A (player 2, N = 1, its own table): untried b and c, keys
    #   (2, b) and (2, c) without data: the model's order, b -> AB (player 1). Rollout
    #   from AB: G = 0 with the move (1, x). AB's table (1, x) 0; AB W = 0; A's suffix
    #   (2, b) (1, x): both 0; A: N 2, W 1; R's suffix (1, a) (2, b) (1, x): (1, a) (3, 1.5).
    planner = hand_planner(3)
    tree = planner.tree
    a, ab = node_of(planner, "A"), node_of(planner, "AB")
    assert tree.amaf(ab) == {(1, "x"): (1, 0.0)}
    assert tree.amaf(a) == {(2, "a"): (1, -1.0), (1, "b"): (1, 1.0), (1, "x"): (1, 0.0),
                            (2, "b"): (1, 0.0)}  # fmt: skip
    assert tree.amaf(0) == {
        (1, "a"): (3, 1.5),
        (1, "b"): (2, 1.5),
        (2, "c"): (1, -0.5),
        (1, "x"): (1, 0.0),
        (2, "b"): (1, 0.0),
    }
    assert (tree.visits[a], tree.value_sums[a], tree.visits[ab], tree.value_sums[ab]) == (
        2, 1.0, 1, 0.0)  # fmt: skip


ROLLOUTS_3 = {**ROLLOUTS, "AB": (0.0, [(1, "x")])}


class NoPassAmaf(AmafGame):
    """AmafGame with its action ``a`` kept out of the AMAF statistics, as Go keeps its pass."""

    amaf_excluded = ("a",)


def test_excluded_actions_are_never_recorded_and_their_children_are_scored_by_ucb1():
    # The three iterations above with "a" excluded: every entry of action a is gone, the
    # others are unchanged (a's occurrences no longer hide later ones: none does here).
    planner = MCTS(NoPassAmaf(GAME, ROLLOUTS_3), 3, selection="rave", exploration=1.0,
                   rave_bias=0.0, grave_ref=0, seed=0)  # fmt: skip
    planner.search("R")
    tree = planner.tree
    a, b = node_of(planner, "A"), node_of(planner, "B")
    assert tree.amaf(a) == {(1, "b"): (1, 1.0), (1, "x"): (1, 0.0), (2, "b"): (1, 0.0)}
    assert tree.amaf(b) == {(2, "c"): (1, -0.5)}
    assert tree.amaf(0) == {
        (1, "b"): (2, 1.5),
        (2, "c"): (1, -0.5),
        (2, "b"): (1, 0.0),
        (1, "x"): (1, 0.0),
    }
    # it 3 at R: A (action a, no AMAF entry) scores Q + c sqrt(ln 2) = 1 + 0.833; B's
    #   (1, b) entry gives (1/3) * 0.5 + (2/3) * 0.75 + 0.833 = 1.5: A again, then AB.
    assert node_of(planner, "AB") == 3
    with pytest.raises(TypeError, match="amaf_excluded must be a collection of hashable"):
        rave_.amaf_excluded(type("Bad", (), {"amaf_excluded": 3})())


def test_a_terminal_leaf_adds_no_rollout_moves_and_a_move_played_twice_counts_once():
    # As above but A's rollout is a loss for player 1 (G = +1 for player 2), so that
    # iteration 3 goes to B, where (2, c) has data and (2, a) none: c is expanded first
    # although a comes first in the model's order.
    rollouts = {**ROLLOUTS, "A": (1.0, [(2, "a"), (1, "b"), (1, "a")])}
    planner = MCTS(
        AmafGame(GAME, rollouts),
        3,
        selection="rave",
        exploration=1.0,
        rave_bias=0.0,
        grave_ref=0,
        seed=0,
    )
    planner.search("R")
    tree = planner.tree
    a, b = node_of(planner, "A"), node_of(planner, "B")
    # it 1: A W = -1; A's table (2, a) +1, (1, b) -1; R's (1, a) -1, (1, b) -1.
    # it 2: B W = +0.5; B's table (2, c) -0.5, (1, a) +0.5; R's (1, b) (2, -0.5),
    #   (2, c) (1, -0.5), (1, a) (2, -0.5).
    # it 3: R, N = 2, beta = 2/3 for both: A (1/3)(-1) + (2/3)(-0.25) = -0.5,
    #   B (1/3)(0.5) + (2/3)(-0.25) = 0: B. At B (mover 2, its own table): a has no data
    #   ((1, a) is player 1's), c has Q~ = -0.5: c first -> BC, terminal, reward 1:
    #   G = 0, no rollout. Backup: BC W = 1; B's table (2, c) (2, 0.5); B's
    #   W = 0.5 - 1 = -0.5; R's suffix (1, b) (2, c): (1, b) (3, -1.5), (2, c) (2, 0.5).
    bc = node_of(planner, "BC")
    assert (tree.visits[bc], tree.value_sums[bc], tree.amaf(bc)) == (1, 1.0, {})
    assert tree.amaf(b) == {(2, "c"): (2, 0.5), (1, "a"): (1, 0.5)}
    assert (tree.visits[b], tree.value_sums[b]) == (2, -0.5)
    assert tree.amaf(a) == {(2, "a"): (1, 1.0), (1, "b"): (1, -1.0)}
    assert tree.amaf(0) == {(1, "a"): (2, -0.5), (1, "b"): (3, -1.5), (2, "c"): (2, 0.5)}
    assert (tree.visits[0], tree.visits[a]) == (3, 1)
    assert tree[b].children == (-1, bc)  # c tried, a not: the model's order kept
    nodes = to_dict(planner)["nodes"]  # the export still works
    assert [n["visits"] for n in nodes] == [3, 1, 2, 1]


def score(q, n, n_amaf, w_amaf, log_n, c, bias):
    """The selection score as the module docstring writes it."""
    beta = n_amaf / (n_amaf + n + bias * n_amaf * n)
    return (1.0 - beta) * q + beta * (w_amaf / n_amaf) + c * math.sqrt(log_n / n)


@pytest.mark.parametrize(("bias", "chosen"), [(0.0, "B"), (0.2, "B"), (0.3, "A"), (1.0, "A")])
def test_beta_and_the_score_on_hand_computed_numbers(bias, chosen):
    # After 2 iterations (first test): A N = 1 Q = +1, B N = 1, R N = 2; set B's Q to -1
    # and R's table to (1, a): Ñ 1, Q~ 1 and (1, b): Ñ 100, Q~ 1.5. Both children have
    # the same exploration term; A mixes to 1 whatever beta, B to -1 + 2.5 beta with
    # beta = 100 / (101 + 100 b): B wins iff beta > 0.8, iff b < 0.24.
    planner = hand_planner(2, rave_bias=bias)
    tree = planner.tree
    b = node_of(planner, "B")
    tree.value_sums[b], tree.values[b] = -1.0, -1.0
    tree.amaf_tables[0] = {(1, "a"): [1, 1.0], (1, "b"): [100, 150.0]}
    log_2 = math.log(2)
    expected = {
        "A": score(1.0, 1, 1, 1.0, log_2, 1.0, bias),
        "B": score(-1.0, 1, 100, 150.0, log_2, 1.0, bias),
    }
    assert max(expected, key=expected.get) == chosen
    rave_.run(planner, tree, 1)
    visited = {state: tree.visits[node_of(planner, state)] for state in "AB"}
    assert visited == ({"A": 2, "B": 1} if chosen == "A" else {"A": 1, "B": 2})


def test_no_amaf_data_is_plain_ucb1():
    # Rollouts that play nothing: the tables hold the tree moves only; with those
    # removed before each selection, RAVE selects exactly as UCT.
    planner = hand_planner(2)
    tree = planner.tree
    tree.amaf_tables[0] = {}
    rave_.run(planner, tree, 1)  # A: 1 + 0.83, B: 0.5 + 0.83: A
    assert tree.visits[node_of(planner, "A")] == 2


# A one-player chain R -> S1 -> S2, then S2's actions x, y, z end the game with reward 0.
CHAIN = {
    "R": (0, {"go": ("S1", 0.0, False)}),
    "S1": (0, {"go": ("S2", 0.0, False)}),
    "S2": (0, {"x": ("X", 0.0, True), "y": ("Y", 0.0, True), "z": ("Z", 0.0, True)}),
}


@pytest.mark.parametrize(("grave_ref", "expanded"), [(0, "z"), (1, "z"), (2, "y"), (3, "x")])
def test_grave_reads_the_closest_ancestor_visited_grave_ref_times(grave_ref, expanded):
    # After 2 iterations N(R) = 2, N(S1) = 2, N(S2) = 1 (rollouts off). Each table
    # favours another of S2's untried actions; the one expanded at iteration 3 tells
    # whose table was read: S2's (N >= 0, 1), S1's (N >= 2), the root's (none has 3).
    planner = MCTS(
        AmafGame(CHAIN), 2, selection="rave", grave_ref=grave_ref, rollout_limit=0, seed=0
    )
    planner.search("R")
    tree = planner.tree
    assert [tree.visits[node_of(planner, s)] for s in ("R", "S1", "S2")] == [2, 2, 1]
    tree.amaf_tables[0][(0, "x")] = [1, 1.0]
    tree.amaf_tables[node_of(planner, "S1")][(0, "y")] = [1, 1.0]
    tree.amaf_tables[node_of(planner, "S2")][(0, "z")] = [1, 1.0]
    rave_.run(planner, tree, 1)
    assert tree.states[-1] == expanded.upper()


def test_untried_actions_are_expanded_in_amaf_value_order():
    # S2's table: x Q~ 0.2, z Q~ 0.5, y no data (grave_ref = 0). Returns are all 0, so
    # each expansion adds (1, 0) to the action's entry: z (0.5 -> 0.25), then x (0.2 >
    # 0.25? no: z is tried; x is the only one with data), then y.
    planner = MCTS(AmafGame(CHAIN), 2, selection="rave", grave_ref=0, rollout_limit=0, seed=0)
    planner.search("R")
    tree = planner.tree
    s2 = node_of(planner, "S2")
    tree.amaf_tables[s2].update({(0, "x"): [1, 0.2], (0, "z"): [2, 1.0]})
    rave_.run(planner, tree, 3)
    assert tree.states[-3:] == ["Z", "X", "Y"]
    assert tree.amaf(s2)[(0, "z")] == (3, 1.0)
    # Ties go to the model's order: x and z equal, y none.
    planner.search("R")
    tree = planner.tree
    s2 = node_of(planner, "S2")
    tree.amaf_tables[s2].update({(0, "x"): [1, 0.5], (0, "z"): [2, 1.0]})
    rave_.run(planner, tree, 3)
    assert tree.states[-3:] == ["X", "Z", "Y"]


# ------------------------------------------------------------------ tic-tac-toe


class AmafTicTacToe(TicTacToeModel):
    """Tic-tac-toe whose cells are AMAF actions; ``amaf_rollout`` is ``rollout`` plus its moves.

    The same draws as :meth:`TicTacToeModel.rollout` (a uniform cell of the empty
    ones, swap-removed), so the same return.
    """

    amaf_actions = True

    def amaf_rollout(self, state, rng, limit, gamma):
        empty = list(self.actions(state))
        n, player, coef, moves = len(empty), self.player(state), 1.0, []
        while True:
            i = int(rng.random() * n)
            cell = empty[i]
            n -= 1
            empty[i] = empty[n]
            moves.append((player, cell))
            state, reward, _ = self.step(state, cell)
            if reward:
                return coef, moves
            limit -= 1
            if n == 0 or limit == 0:
                return 0.0, moves
            player, coef = 3 - player, coef * -gamma


class GenericTicTacToe(TicTacToeModel):
    """The same, with no fused rollout: the RAVE loop's generic rollout, recorded."""

    amaf_actions = True
    rollout = None


def test_the_amaf_rollout_of_the_tests_is_the_models_rollout():
    import random

    model = AmafTicTacToe()
    for seed in range(50):
        for gamma in (1.0, 0.9):
            g, moves = model.amaf_rollout(0, random.Random(seed), 1000, gamma)
            assert g == model.rollout(0, random.Random(seed), 1000, gamma)
            state = 0
            for player, cell in moves:  # legal, alternating, and ending the game
                assert model.player(state) == player and cell in model.actions(state)
                state = model.step(state, cell).next_state
            assert not model.actions(state)


def test_the_generic_rollout_draws_as_the_plain_loops():
    # One iteration from the empty board: X's 0 expanded, then the generic rollout's
    # draws actions[int(random() * len(actions))] from the planner's generator. The
    # root's table holds the first occurrence of each cell, with +-W of the child.
    import random

    model = GenericTicTacToe()
    planner = MCTS(model, 1, selection="rave", seed=11)
    planner.search(0)
    tree = planner.tree
    rng = random.Random(11)
    state, moves = tree.states[1], [(1, 0)]
    while model.actions(state):
        actions = model.actions(state)
        cell = actions[int(rng.random() * len(actions))]
        moves.append((model.player(state), cell))
        state = model.step(state, cell).next_state
    first = {}
    for player, cell in moves:
        first.setdefault(cell, player)
    w = tree.value_sums[1]
    expected = {(p, cell): (1, w if p == 1 else -w) for cell, p in first.items()}
    assert tree.amaf(0) == expected
    assert len(moves) >= 5


# SPEC, "Worked examples" 5: board -> the right move (a minimax-best one; in the last,
# O wins at once at 5 rather than by the slower win after 2).
POSITIONS = {"XX.OO....": 2, "X.O.O...X": 6, "XX..O....": 2, "XX.OO...X": 5}


@pytest.mark.parametrize("board", POSITIONS)
@pytest.mark.parametrize(("model", "grave_ref"), [(AmafTicTacToe(), 0), (AmafTicTacToe(), 100),
                                                  (GenericTicTacToe(), 100)])  # fmt: skip
def test_tic_tac_toe_right_moves(board, model, grave_ref):
    state = parse_board(board)
    right = POSITIONS[board]
    assert right in perfect_moves(state)
    for seed in range(5):
        planner = MCTS(
            model,
            200,
            selection="rave",
            exploration=2 * math.sqrt(2),
            grave_ref=grave_ref,
            seed=seed,
        )
        assert planner(state) == right, (board, seed)


def test_seeded_searches_are_reproducible_and_invariants_hold():
    def search(seed):
        planner = MCTS(AmafTicTacToe(), 400, selection="rave", seed=seed, grave_ref=20)
        planner.search(0)
        return planner

    first, again, other = search(3), search(3), search(4)
    assert to_dict(first) == to_dict(again)
    tree = first.tree
    assert [tree.amaf(i) for i in range(len(tree))] == [
        again.tree.amaf(i) for i in range(len(tree))
    ]
    assert to_dict(first) != to_dict(other)
    assert tree.visits[0] == 400 == sum(tree.visits[c] for c in tree.children[0])
    # Every iteration plays at least one move: the root's Ñ of the first move's action
    # by X counts every iteration that X began with it (9 root children tried).
    root = tree.amaf(0)
    for child in tree.children[0]:
        action = tree.actions[0][tree.action_indices[child]]
        assert root[(1, action)][0] >= tree.visits[child]
    assert sum(n for (player, _), (n, _) in root.items() if player == 1) >= 400
    summary = first.summary()
    assert summary.visit_counts[summary.actions.index(summary.action)] == max(summary.visit_counts)


# ------------------------------------------------------------------ refusals


class Plain(ScriptedGame):
    """A scripted game that does not declare amaf_actions."""


def test_options_are_checked():
    game = AmafGame(CHAIN)
    with pytest.raises(ValueError, match=r"rave_bias=0\.1 tune selection='rave'"):
        MCTS(game, 10, rave_bias=0.1)
    with pytest.raises(ValueError, match=r"grave_ref=5 tune selection='rave'.*'puct'"):
        MCTS(game, 10, selection="puct", grave_ref=5)
    for bad in (-1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="rave_bias"):
            MCTS(game, 10, selection="rave", rave_bias=bad)
    with pytest.raises(TypeError, match="rave_bias"):
        MCTS(game, 10, selection="rave", rave_bias="1e-5")
    with pytest.raises(ValueError, match="grave_ref"):
        MCTS(game, 10, selection="rave", grave_ref=-1)
    with pytest.raises(TypeError, match="grave_ref"):
        MCTS(game, 10, selection="rave", grave_ref=1.5)
    planner = MCTS(game, 10, selection="rave")
    assert (planner.rave_bias, planner.grave_ref) == (1e-5, 100)  # Ludii's UCB1GRAVE
    assert (MCTS(game, 10).rave_bias, MCTS(game, 10).grave_ref) == (None, None)


def test_a_model_must_declare_amaf_actions():
    with pytest.raises(ValueError, match=r"amaf_actions = True.*Plain does not"):
        MCTS(Plain(CHAIN), 10, selection="rave")
    game = Plain(CHAIN)
    game.amaf_actions = 1  # not True
    with pytest.raises(ValueError, match="amaf_actions=1"):
        MCTS(game, 10, selection="rave")
    game.amaf_actions = True  # an instance attribute will do
    assert MCTS(game, 10, selection="rave", rollout_limit=0)("R") == "go"


def test_a_fused_rollout_needs_amaf_rollout():
    class Fused(TicTacToeModel):
        amaf_actions = True

    with pytest.raises(ValueError, match=r"Fused has a fused rollout.*amaf_rollout"):
        MCTS(Fused(), 10, selection="rave")
    # The generic rollout with a rollout_policy, or no rollouts, need none.
    first = MCTS(Fused(), 10, selection="rave", rollout_policy=lambda s, a, rng: a[0])
    assert first(0) in range(9)
    assert first.tree.amaf(0)  # the policy's moves recorded
    assert MCTS(Fused(), 10, selection="rave", rollout_limit=0)(0) in range(9)


def test_amaf_rollout_must_return_a_pair():
    game = AmafGame(CHAIN)
    game.amaf_rollout = lambda state, rng, limit, gamma: 0.5
    with pytest.raises(TypeError, match=r"must return a pair \(G, \[\(player"):
        MCTS(game, 10, selection="rave").search("R")


def test_options_rave_does_not_compose_with_are_refused():
    from mcts_agent import Evaluation

    game = AmafGame(CHAIN)
    refused = [
        ({"evaluator": lambda s, a: Evaluation(None, None)}, "evaluator"),
        ({"max_depth": 2}, "max_depth"),
        ({"solve": True}, "solve=True"),
        ({"value_normalization": True}, "value_normalization=True"),
        ({"reuse_tree": True}, "reuse_tree=True"),
        ({"leaf_batch": 2}, "leaf_batch=2"),
        ({"workers": 2}, "workers=2"),
        ({"widening": (1.0, 0.5)}, "progressive widening"),
    ]
    for options, named in refused:
        with pytest.raises(ValueError, match=re_escape(f"does not work with {named}")):
            MCTS(game, 10, selection="rave", **options)


def re_escape(text):
    import re

    return re.escape(text)


class Stochastic(AmafGame):
    def outcomes(self, state, action):
        return [(1.0, StepResult(*self.table[state][1][action]))]


class Hidden(AmafGame):
    def information_set(self, state, player):
        return state

    def sample_world(self, state, player, rng):
        return state


class EveryReward(AmafGame):
    reward_players = (1, 2)


@pytest.mark.parametrize(
    ("model", "named"),
    [
        (Stochastic(CHAIN), "a stochastic model"),
        (Hidden(CHAIN), "a hidden-information model"),
        (EveryReward(CHAIN), "every player's reward"),
    ],
)
def test_models_rave_does_not_handle_are_refused(model, named):
    with pytest.raises(ValueError, match=re_escape(named)):
        MCTS(model, 10, selection="rave")
