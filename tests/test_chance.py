"""Chance nodes (docs/guides/chance.md): stochastic models sampled when the walk crosses them."""

from __future__ import annotations

import math
import random

import pytest
from chance_games import ChanceGame, SampledGame, check_invariants
from scripted_games import nested

from mcts_agent import MCTS, Evaluation, StepResult, chance
from mcts_agent.testing import ModelCheckError, check_model

# A coin flip: heads (u < 0.5) ends the game with reward 1; tails (reward 0) leads to "T",
# where a second flip pays 0.5 on heads and 0 on tails, both ending the game.
COIN = {
    "s": (0, {"flip": [(0.5, "H", 1.0, True), (0.5, "T", 0.0, False)]}),
    "T": (0, {"again": [(0.5, "TH", 0.5, True), (0.5, "TT", 0.0, True)]}),
}


@pytest.mark.parametrize("game", [ChanceGame, SampledGame], ids=["outcomes", "sample_step"])
def test_coin_flip_tree_by_hand(game):
    # rollout_limit = 0 (G = 0 at a new leaf); seed 0 draws u = .844 .758 .421 .259 .511
    # .405 .784 .303 (heads when u < .5). Nodes: root, C1 = chance node of "flip",
    # T and H its outcomes, C2 = chance node of "again", TH its outcome.
    # it 1: C1 made, u .844 tails: T new.            T N1 W0      C1 N1 W0
    # it 2: C1 u .758 tails; at T: C2 made, u .421 heads: TH new (r .5):
    #       TH N1 W.5, C2 N1 W.5, T N2 W.5 (0 + .5), C1 N2 W.5
    # it 3: C1 u .259 heads: H new (r 1).            H N1 W1      C1 N3 W1.5
    # it 4: C1 u .511 tails; C2 u .405 heads: TH terminal, G = 0, backed up r = .5:
    #       TH N2 W1, C2 N2 W1, T N3 W1, C1 N4 W2
    # it 5: C1 u .784 tails; C2 u .303 heads: TH N3 W1.5, C2 N3 W1.5, T N4 W1.5, C1 N5 W2.5
    planner = MCTS(game(COIN), iterations=5, rollout_limit=0, seed=0)
    planner.search("s")
    tree = planner.tree
    root = tree[0]
    c1 = tree[root.children[0]]
    assert c1.chance and c1.state == "s" and c1.player == 0
    by_key = dict(zip(c1.actions, c1.children, strict=True))
    t, h = tree[by_key[("T", 0.0, False)]], tree[by_key[("H", 1.0, True)]]
    c2 = tree[t.children[0]]
    th = tree[c2.children[0]]
    assert c2.chance and c2.actions == (("TH", 0.5, True),)
    assert (root.visits, root.value_sum) == (5, 0.0)
    assert (c1.visits, c1.value_sum) == (5, 2.5)
    assert (t.visits, t.value_sum, h.visits, h.value_sum) == (4, 1.5, 1, 1.0)
    assert (c2.visits, c2.value_sum, th.visits, th.value_sum) == (3, 1.5, 3, 1.5)
    assert not t.chance and not th.chance and th.terminated and th.reward == 0.5
    assert len(tree) == 6
    check_invariants(tree)


def test_outcomes_and_sample_step_drawing_alike_build_the_same_tree():
    a = MCTS(ChanceGame(COIN), iterations=300, seed=3)
    b = MCTS(SampledGame(COIN), iterations=300, seed=3)
    a.search("s")
    b.search("s")
    assert nested(a.tree) == nested(b.tree)
    assert [n.chance for n in a.tree] == [n.chance for n in b.tree]
    check_invariants(a.tree)


def test_outcomes_are_asked_once_per_chance_node_and_step_never():
    game = ChanceGame(COIN)
    planner = MCTS(game, iterations=200, seed=0)
    planner.search("s")
    chance_nodes = sum(node.chance for node in planner.tree)
    assert chance_nodes == 2
    # once per chance node; the rollouts from T (its first visit) draw with outcomes too
    assert game.calls["outcomes"] == chance_nodes + 1


# A bet: "risky" pays 1 with probability 0.6 (its most likely payoff, above "safe"'s 0.8)
# and 0 otherwise: its expectation 0.6 is below safe's 0.8. A planner that keeps the first
# draw of an edge takes risky 60% of the time; the expectation says safe.
BET = {
    "s": (
        0,
        {
            "risky": [(0.6, "win", 1.0, True), (0.4, "lose", 0.0, True)],
            "safe": [(1.0, "safe", 0.8, True)],
        },
    )
}


@pytest.mark.parametrize("game", [ChanceGame, SampledGame], ids=["outcomes", "sample_step"])
@pytest.mark.parametrize("seed", range(8))
def test_the_bet_is_chosen_by_expectation(game, seed):
    planner = MCTS(game(BET), iterations=2000, seed=seed)
    planner.search("s")
    summary = planner.summary()
    assert summary.action == "safe"
    risky, safe = summary.values
    assert safe == pytest.approx(0.8)
    assert 0.45 < risky < 0.75  # the mean of its draws, near 0.6
    risky_node = planner.tree[planner.tree[0].children[0]]
    assert len(risky_node.children) == 2  # both outcomes seen, one node each


# Two players through a chance node: player 1 rolls; on X (p .5) player 2 moves and wins 0.5,
# on Y player 1 moves again and wins 1. Player 1's value of "roll": .5 * -.5 + .5 * 1 = .25;
# "pass" ends the game with 0.1.
TWO_PLAYERS = {
    "s": (
        1,
        {
            "roll": [(0.5, "X", 0.0, False), (0.5, "Y", 0.0, False)],
            "pass": [(1.0, "P", 0.1, True)],
        },
    ),
    "X": (2, {"win": [(1.0, "X2", 0.5, True)]}),
    "Y": (1, {"win": [(1.0, "Y1", 1.0, True)]}),
}


@pytest.mark.parametrize("seed", range(5))
def test_two_player_signs_through_a_chance_node(seed):
    planner = MCTS(ChanceGame(TWO_PLAYERS), iterations=400, seed=seed)
    planner.search("s")
    tree = planner.tree
    roll = tree[tree[0].children[0]]
    outcome = dict(zip((k[0] for k in roll.actions), roll.children, strict=True))
    x, y = tree[outcome["X"]], tree[outcome["Y"]]
    # The rollouts are forced, so every return is exact: from player 1's point of view
    # (who chose the roll) X is worth -0.5 and Y +1; X's child +0.5 for player 2.
    assert x.value == -0.5 and y.value == 1.0
    assert tree[tree[x.children[0]].children[0]].value == 0.5
    assert roll.value_sum == pytest.approx(-0.5 * x.visits + y.visits)
    assert roll.visits == x.visits + y.visits
    assert planner.best_action() == "roll"
    check_invariants(tree)


# Keys: two coins; the state records the order of the faces, the key only how many heads.
def _two_coins():
    return [
        (0.25, ("HH", 2), 0.0, False),
        (0.25, ("HT", 1), 0.0, False),
        (0.25, ("TH", 1), 0.0, False),
        (0.25, ("TT", 0), 0.0, False),
    ]


def _after_coins():
    table = {("start", 0): (0, {"toss": _two_coins()})}
    for faces, heads in (("HH", 2), ("HT", 1), ("TH", 1), ("TT", 0)):
        table[(faces, heads)] = (0, {"cash": [(1.0, ("end", heads), heads / 2, True)]})
    return table


@pytest.mark.parametrize("game", [ChanceGame, SampledGame], ids=["outcomes", "sample_step"])
def test_two_draws_reaching_the_same_visible_position_share_one_node(game):
    model = game(_after_coins(), key=lambda state: state[1])
    planner = MCTS(model, iterations=200, seed=0)
    planner.search(("start", 0))
    tree = planner.tree
    toss = tree[tree[0].children[0]]
    assert sorted(k for k, _, _ in toss.actions) == [0, 1, 2]  # HT and TH: one node
    one = tree[toss.children[[k for k, _, _ in toss.actions].index(1)]]
    assert one.state in (("HT", 1), ("TH", 1))  # the state of the first draw
    assert one.visits / toss.visits == pytest.approx(0.5, abs=0.12)
    # Without a key the states themselves are the keys: four nodes.
    plain = MCTS(game(_after_coins()), iterations=200, seed=0)
    plain.search(("start", 0))
    assert len(plain.tree[plain.tree[0].children[0]].children) == 4
    check_invariants(tree)


def test_outcomes_with_one_key_but_different_rewards_are_two_nodes():
    # Slippery CliffWalking reaches its start both by a step (-1) and by a fall (-100).
    table = {"s": (0, {"go": [(0.5, "start", -1.0, False), (0.5, "start", -100.0, False)]})}
    planner = MCTS(ChanceGame(table), iterations=50, seed=0, rollout_limit=0)
    planner.search("s")
    go = planner.tree[planner.tree[0].children[0]]
    assert sorted(go.actions) == [("start", -100.0, False), ("start", -1.0, False)]


@pytest.mark.parametrize("game", [ChanceGame, SampledGame], ids=["outcomes", "sample_step"])
def test_the_same_seed_builds_the_same_tree_and_others_differ(game):
    trees = []
    for seed in (5, 5, 6):
        planner = MCTS(game(_after_coins()), iterations=100, seed=seed)
        planner.search(("start", 0))
        trees.append(nested(planner.tree))
    assert trees[0] == trees[1]
    assert trees[0] != trees[2]


@pytest.mark.parametrize("game", [ChanceGame, SampledGame], ids=["outcomes", "sample_step"])
def test_rollouts_draw_outcomes_from_the_planner(game):
    # max_depth 1: every iteration rolls out from the outcome node, where one flip pays 1
    # on heads: the mean return is the probability of heads, drawn anew in each rollout.
    table = {
        "s": (0, {"go": [(1.0, "S", 0.0, False)]}),
        "S": (0, {"flip": [(0.5, "H", 1.0, True), (0.5, "T", 0.0, True)]}),
    }
    planner = MCTS(game(table), iterations=2000, seed=1, max_depth=1)
    planner.search("s")
    go = planner.tree[planner.tree[0].children[0]]
    assert 0.45 < go.value < 0.55
    assert planner.tree[go.children[0]].visits == 2000


def test_a_rollout_draw_checks_the_drawn_result_not_every_outcome(monkeypatch):
    # Issue 28, item 11: a model of many outcomes was checked in full at every rollout draw.
    # max_depth 1: each iteration rolls out from the outcome node of "go" through "roll",
    # 1,000 outcomes whose table is checked in full only where a chance node is made.
    many = [(1 / 1000, f"R{k}", k / 1000, True) for k in range(1000)]
    table = {"s": (0, {"go": [(1.0, "S", 0.0, False)]}), "S": (0, {"roll": many})}
    game = ChanceGame(table)
    checked = []
    real = chance.checked_result
    monkeypatch.setattr(chance, "checked_result", lambda *a: checked.append(a) or real(*a))
    planner = MCTS(game, iterations=50, seed=0, max_depth=1)
    planner.search("s")
    chance_nodes = sum(node.chance for node in planner.tree)
    draws = game.calls["outcomes"] - chance_nodes  # the rollouts' calls
    assert (chance_nodes, draws) == (1, 50)
    assert len(checked) == 1 + draws  # the chance node's one outcome, one result a draw
    go = planner.tree[planner.tree[0].children[0]]
    assert go.value == pytest.approx(sum(r for _, _, r, _ in many) / 1000, abs=0.1)


@pytest.mark.parametrize(
    "entries, error, message",
    [
        ([(0.5, "a", 0.0, True), (0.4, "b", 0.0, True)], ValueError, r"summing to 0\.9"),
        ([(1.5, "a", 0.0, True), (-0.5, "b", 0.0, True)], ValueError, r"probability -0\.5"),
        ([(0.5, "a", 0.0, True), (math.nan, "b", 0.0, True)], ValueError, r"probability nan"),
        ([(0.5, "a", math.nan, True), (0.5, "a", math.nan, True)], ValueError, r"reward nan"),
    ],
)
def test_bad_outcomes_met_in_a_rollout_are_refused_with_their_cause(entries, error, message):
    # max_depth 1: "S" is reached only by rollouts, which draw from its outcomes.
    table = {"s": (0, {"go": [(1.0, "S", 0.0, False)]}), "S": (0, {"roll": entries})}
    with pytest.raises(error, match=message):
        MCTS(ChanceGame(table), iterations=5, seed=0, max_depth=1).search("s")


def test_puct_and_evaluators_work_through_chance_nodes():
    def evaluator(state, actions):
        return Evaluation(0.0, [3.0] + [1.0] * (len(actions) - 1))

    planner = MCTS(ChanceGame(BET), iterations=3000, seed=0, selection="puct", evaluator=evaluator)
    planner.search("s")
    assert planner.best_action() == "safe"
    check_invariants(planner.tree)


@pytest.mark.parametrize(
    "entries, error, message",
    [
        ([(0.5, "a", 0.0, True), (0.4, "b", 0.0, True)], ValueError, r"summing to 0\.9"),
        ([(1.5, "a", 0.0, True), (-0.5, "b", 0.0, True)], ValueError, r"probability -0\.5"),
        ([(1.0, "a", math.nan, True)], ValueError, r"reward nan"),
        ([(1.0, "a", "1", True)], TypeError, r"reward '1' \(str\)"),
        ([], ValueError, r"no outcome"),
        ([(1.0, ["unhashable"], 0.0, True)], TypeError, r"not hashable"),
    ],
)
def test_bad_outcomes_are_refused_with_their_cause(entries, error, message):
    table = {"s": (0, {"go": entries})}
    with pytest.raises(error, match=message):
        MCTS(ChanceGame(table), iterations=5, seed=0).search("s")


def test_a_sample_step_returning_no_step_result_is_refused():
    class Bad(SampledGame):
        def sample_step(self, state, action, rng):
            return ("x", 1.0)

    with pytest.raises(TypeError, match=r"expected StepResult"):
        MCTS(Bad(COIN), iterations=5, seed=0).search("s")


def test_a_stochastic_model_needs_no_step():
    class NoStep:
        def actions(self, state):
            return ("go",) if state == 0 else ()

        def player(self, state):
            return 0

        def sample_step(self, state, action, rng):
            return StepResult(1, rng.random(), True)

    planner = MCTS(NoStep(), iterations=100, seed=0)
    assert planner.stochastic
    planner.search(0)
    go = planner.tree[planner.tree[0].children[0]]
    assert go.chance and len(go.children) == 100  # every reward differs: one node each
    assert 0.4 < go.value < 0.6
    assert random.Random(0).random() == planner.tree[go.children[0]].reward


# ---------------------------------------------------------------- check_model


@pytest.mark.parametrize("game", [ChanceGame, SampledGame], ids=["outcomes", "sample_step"])
@pytest.mark.parametrize(
    "table, start", [(COIN, "s"), (TWO_PLAYERS, "s"), (_after_coins(), ("start", 0))]
)
def test_check_model_passes_good_stochastic_models(game, table, start):
    check_model(game(table, key=lambda s: s), start, seed=0)
    check_model(game(table), start, seed=1)


class _Both(ChanceGame):
    """Offers outcomes and a sample_step (drawn by ``rule``)."""

    def __init__(self, table, rule):
        super().__init__(table)
        self.rule = rule

    def sample_step(self, state, action, rng):
        return self.rule(self, state, action, rng)


def _own_generator(self, state, action, rng):
    return SampledGame.sample_step(self, state, action, random.Random())  # not the rng given


def _elsewhere(self, state, action, rng):
    rng.random()
    return StepResult("nowhere", 0.0, True)


@pytest.mark.parametrize(
    "model, message",
    [
        (ChanceGame({"s": (0, {"go": [(0.5, "a", 0.0, True)]})}), r"summing to 0\.5"),
        (ChanceGame({"s": (0, {"go": [(1.0, "a", 1e300, True)]})}), r"\|reward\| >"),
        (_Both(COIN, _own_generator), r"must draw from its rng only"),
        (_Both(COIN, _elsewhere), r"which is none of outcomes"),
        (ChanceGame(COIN, key=lambda s: [s]), r"not hashable"),
    ],
    ids=["sum", "huge-reward", "own-generator", "not-an-outcome", "unhashable-key"],
)
def test_check_model_refuses_bad_stochastic_models(model, message):
    with pytest.raises(ModelCheckError, match=message):
        check_model(model, "s", seed=0, num_playouts=30)


def test_check_model_refuses_unstable_outcomes():
    class Drifting(ChanceGame):
        def outcomes(self, state, action):
            self.calls["outcomes"] += 1
            p = 0.5 if self.calls["outcomes"] % 2 else 0.25
            return [(p, StepResult("a", 0.0, True)), (1 - p, StepResult("b", 0.0, True))]

    with pytest.raises(ModelCheckError, match=r"is not stable"):
        check_model(Drifting(COIN), "s", seed=0)


def test_tree_reuse_finds_the_drawn_position_below_its_chance_node():
    planner = MCTS(ChanceGame(COIN), iterations=60, seed=0, reuse_tree=True)
    planner.search("s")
    flip = planner.tree[planner.tree[0].children[0]]
    tails = planner.tree[flip.children[flip.actions.index(("T", 0.0, False))]]
    planner.search("T")  # the coin fell tails
    root = planner.tree[0]
    assert root.state == "T" and not root.chance
    assert planner.summary().reused_visits == tails.visits
    assert root.visits == tails.visits + 60
    assert planner.tree[root.children[0]].chance


def test_the_solver_is_refused_on_a_stochastic_model():
    with pytest.raises(ValueError, match=r"chance nodes, whose values are expectations"):
        MCTS(ChanceGame(COIN), iterations=10, solve=True)


def test_a_time_limit_runs_chance_searches_in_chunks():
    planner = MCTS(ChanceGame(BET), time_limit=0.05, seed=0)
    planner.search("s")
    assert planner.tree[0].visits >= 1
    check_invariants(planner.tree)
