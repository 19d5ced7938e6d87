"""Guided search (docs/guides/guided-search.md): evaluators, PUCT, max_depth, noise, temperature."""

from __future__ import annotations

import math
import random
import re
import runpy
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo_envs import make_connect_four, played
from scripted_games import (
    OneMoveGame,
    ReferenceUCT,
    ScriptedGame,
    assert_same_tree,
    child_of,
    games,
    nested,
    nested_reference,
    plain_configs,
    reference_backup,
    reference_rollout,
)

from mcts_agent import MCTS, Evaluation, StepResult
from mcts_agent.adapters import EnvViewEvaluator, PettingZooModel
from mcts_agent.agent import MCTSAgent
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel, heuristic_evaluator, parse_board
from mcts_agent.envs.kuhn import KuhnModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.envs.tic_tac_toe import parse_board as ttt_board
from mcts_agent.selection import SCORE_ALL


def constant(value=None, priors=None):
    """An evaluator that says the same of every state (and counts its calls)."""

    def evaluator(state, actions):
        evaluator.calls.append(state)
        return Evaluation(value, priors)

    evaluator.calls = []
    return evaluator


# ---------------------------------------------------------------- hand-worked PUCT trees

BANDIT = {"root": (0, {"a": ("A", 0.2, True), "b": ("B", 1.0, True)})}


def test_puct_follows_the_priors_until_the_exploration_term_turns():
    # c = 1, priors a 3/4, b 1/4 (given as 3 and 1), both arms end the game.
    # Score = Q + c * P * sqrt(max(N, 1)) / (1 + N(a)), untried Q = 0:
    # it 1: N=0:  a 0 + .75*1/1 = .75     b .25              -> a  (a: N 1, W .2)
    # it 2: N=1:  a .2 + .75*1/2 = .575   b .25              -> a  (a: N 2, W .4)
    # it 3: N=2:  a .2 + .75*1.414/3 = .554  b .25*1.414 = .354 -> a (a: N 3, W .6)
    # it 4: N=3:  a .2 + .75*1.732/4 = .525  b .433          -> a  (a: N 4, W .8)
    # it 5: N=4:  a .2 + .75*2/5 = .5     b .25*2 = .5: a tie -> a, the first (a: N 5, W 1)
    # it 6: N=5:  a .2 + .75*2.236/6 = .480  b .559          -> b  (b: N 1, W 1)
    # it 7: N=6:  a .2 + .75*2.449/6 = .506  b 1 + .25*2.449/2 = 1.306 -> b (b: N 2, W 2)
    game = ScriptedGame(BANDIT)
    planner = MCTS(game, 5, exploration=1.0, selection="puct", evaluator=constant(0.0, [3, 1]))
    planner.search("root")
    assert planner.tree[0].children[1] == -1  # b never tried: the tie went to a
    a = child_of(planner, "a")
    assert (planner.tree[0].visits, a.visits, a.value_sum) == (5, 5, pytest.approx(1.0))

    planner = MCTS(game, 7, exploration=1.0, selection="puct", evaluator=constant(0.0, [3, 1]))
    assert planner("root") == "a"
    a, b = child_of(planner, "a"), child_of(planner, "b")
    assert (a.visits, a.value_sum, b.visits, b.value_sum) == (5, pytest.approx(1.0), 2, 2.0)
    assert planner.summary().priors == (0.75, 0.25)
    assert planner.summary().visit_distribution == (5 / 7, 2 / 7)


SIGN = {
    "root": (1, {"x": ("X", 0.0, False), "y": ("Y", 0.0, False)}),
    "X": (2, {"e": ("X_end", 1.0, True)}),
    "Y": (2, {"f": ("Y_end", 0.0, True)}),
}


def sign_evaluator(state, actions):
    # From the point of view of the player to move (player 2 at X and Y): X is won for
    # player 2 (+0.8), Y is lost for player 2 (-0.5). The root's value is not used.
    return Evaluation({"root": 123.0, "X": 0.8, "Y": -0.5}[state], None)


def test_an_evaluator_value_is_from_the_point_of_view_of_the_player_to_move():
    # UCT, c = 1, no rollouts needed: the evaluator's values replace them.
    # it 1: expand x; G = +0.8 for player 2 at X; backup at X (mover 1 != 2): 0 - 0.8
    #       -> x: N 1, W -0.8
    # it 2: expand y; G = -0.5 at Y -> y: N 1, W +0.5
    # it 3: UCB1 x -0.8 + sqrt(ln 2) = 0.033, y 0.5 + 0.833 = 1.333 -> y; expand f
    #       (terminal, reward 0): f N 1, W 0; y: N 2, W 0.5 + (0 - 1*0) = 0.5
    planner = MCTS(ScriptedGame(SIGN), 3, exploration=1.0, evaluator=sign_evaluator, seed=0)
    assert planner("root") == "y"
    x, y = child_of(planner, "x"), child_of(planner, "y")
    assert (x.visits, x.value_sum, y.visits, y.value_sum) == (1, -0.8, 2, 0.5)
    f = planner.tree[y.children[0]]
    assert (f.visits, f.value_sum) == (1, 0.0)
    assert planner.tree.leaf_values[:3] == [123.0, 0.8, -0.5]
    # The wrong sign would make x worth +0.8 and play it.
    planner = MCTS(ScriptedGame(SIGN), 50, evaluator=sign_evaluator, selection="puct", seed=0)
    assert planner("root") == "y"


CHAIN = {
    "s0": (0, {"f": ("s1", 0.0, False)}),
    "s1": (0, {"f": ("s2", 0.0, False)}),
    "s2": (0, {"f": ("end", 1.0, True)}),
}


@pytest.mark.parametrize("selection", ["uct", "puct"])
def test_max_depth_stops_expansion_and_takes_the_value_or_a_new_rollout(selection):
    # max_depth = 1, gamma = 0.9: s1 (depth 1) is made but never expanded.
    # With the evaluator's 0.5: each of the 4 iterations backs up 0 + 0.9 * 0.5 = 0.45 at s1.
    planner = MCTS(
        ScriptedGame(CHAIN),
        4,
        gamma=0.9,
        max_depth=1,
        selection=selection,
        evaluator=constant(0.5),
    )
    planner.search("s0")
    assert len(planner.tree) == 2
    s1 = child_of(planner, "f")
    assert (s1.visits, s1.value_sum) == (4, pytest.approx(4 * 0.45))
    # Without a value: a new (forced) rollout every time, s1 -> s2 -> end: 0 + 0.9 * 1 = 0.9
    # from s1, so 0 + 0.9 * 0.9 = 0.81 backed up at s1.
    game = ScriptedGame(CHAIN)
    planner = MCTS(game, 4, gamma=0.9, max_depth=1, selection=selection, seed=0)
    planner.search("s0")
    assert len(planner.tree) == 2 and game.calls["step"] == 1 + 4 * 2
    assert child_of(planner, "f").value_sum == pytest.approx(4 * 0.81)


def test_the_evaluator_is_asked_once_per_non_terminal_node_and_for_the_root():
    evaluator = constant(0.0)
    planner = MCTS(TicTacToeModel(), 300, selection="puct", evaluator=evaluator, seed=0)
    planner.search(EMPTY_BOARD)
    non_terminal = [node.state for node in planner.tree if not node.terminated]
    assert sorted(evaluator.calls) == sorted(non_terminal)


def test_unvisited_value_makes_puct_try_or_avoid_new_actions():
    # Q(a) = 0.2 after a's first visit. With unvisited_value = 1 an untried b scores 1 + ...,
    # so b is tried at once; with -1, a is followed until its exploration term falls.
    eager = MCTS(ScriptedGame(BANDIT), 2, exploration=1.0, selection="puct", unvisited_value=1.0)
    eager.search("root")
    assert eager.summary().visit_counts == (1, 1)
    shy = MCTS(ScriptedGame(BANDIT), 6, exploration=1.0, selection="puct", unvisited_value=-1.0)
    shy.search("root")
    # it k (N = k-1 >= 1): a .2 + .5 * sqrt(N) / (1 + N) > -1 + .5 * sqrt(N) for N <= 5
    assert shy.summary().visit_counts == (6, 0)


# ---------------------------------------------------------------- a reference PUCT from the spec


class ReferencePUCT:
    """Guided search (docs/guides/guided-search.md) written plainly: node objects, all scored."""

    class Node(ReferenceUCT.Node):
        """The reference UCT's node, with the evaluator's priors and value."""

        priors = None
        leaf_value = None

        def parent_value(self):
            """``unvisited_value="parent"``: (v + sum W) / (1 + sum N), in the model's order."""
            total, count = (0.0, 0) if self.leaf_value is None else (self.leaf_value, 1)
            for child in self.children:
                if child is not None:
                    total += child.value_sum
                    count += child.visits
            return total / count if count else 0.0

    def __init__(
        self,
        model,
        iterations,
        exploration,
        gamma,
        rollout_limit,
        seed,
        evaluator,
        selection,
        unvisited_value=0.0,
        max_depth=None,
        root_noise=None,
    ):
        self.model, self.iterations, self.c = model, iterations, exploration
        self.gamma, self.rollout_limit = gamma, rollout_limit
        self.rng = random.Random(seed)
        self.evaluator, self.selection = evaluator, selection
        self.unvisited_value, self.max_depth, self.root_noise = (
            unvisited_value,
            max_depth,
            root_noise,
        )

    def make_node(self, state, reward, terminated):
        actions = () if terminated else tuple(self.model.actions(state))
        player = self.model.player(state) if actions else None
        node = self.Node(state, player, reward, terminated or not actions, actions)
        if actions:
            value, priors = (None, None)
            if self.evaluator is not None:
                value, priors = self.evaluator(state, actions)
            if priors is None:
                node.priors = [1.0 / len(actions)] * len(actions)
            else:
                total = math.fsum(priors)
                node.priors = [p / total for p in priors]
            node.leaf_value = value
        return node

    def select(self, node):
        if self.selection == "uct":
            if None in node.children:
                return node.children.index(None)
            log_n = math.log(node.visits)
            scores = [ch.value + self.c * math.sqrt(log_n / ch.visits) for ch in node.children]
        else:
            root_n = math.sqrt(max(node.visits, 1))
            q_untried = self.unvisited_value
            if q_untried == "parent":
                q_untried = node.parent_value()
            scores = []
            for ch, p in zip(node.children, node.priors, strict=True):
                q, n = (q_untried, 0) if ch is None else (ch.value, ch.visits)
                scores.append(q + self.c * p * root_n / (1 + n))
        return scores.index(max(scores))

    def search(self, state):
        root = self.make_node(state, 0.0, False)
        if self.root_noise is not None:
            alpha, fraction = self.root_noise
            eta = [self.rng.gammavariate(alpha, 1.0) for _ in root.actions]
            total = sum(eta)
            root.priors = [
                (1 - fraction) * p + fraction * (e / total)
                for p, e in zip(root.priors, eta, strict=True)
            ]
        horizon = math.inf if self.max_depth is None else self.max_depth
        for _ in range(self.iterations):
            node, path, depth = root, [], 0
            while not node.terminated and depth < horizon:
                i = self.select(node)
                depth += 1
                parent = node
                if node.children[i] is None:
                    nxt, reward, terminated = self.model.step(node.state, node.actions[i])
                    node = self.make_node(nxt, reward, terminated)
                    parent.children[i] = node
                    path.append((parent, node))
                    break
                node = node.children[i]
                path.append((parent, node))
            if node.terminated:
                g = 0.0
            elif node.leaf_value is not None:
                g = node.leaf_value
            else:
                g = (
                    reference_rollout(
                        self.model, node.state, self.rng, self.rollout_limit, self.gamma
                    )
                    if self.rollout_limit
                    else 0.0
                )
            reference_backup(root, path, g, self.gamma)
        return root


def hashed_evaluator(kind):
    """A deterministic evaluator of the random games' string states (values, priors or None)."""

    def evaluator(state, actions):
        rng = random.Random(f"{kind}:{state}")
        value = round(rng.uniform(-1, 1), 3) if rng.random() < 0.8 else None
        if rng.random() < 0.2:
            return Evaluation(value, None)
        priors = [rng.choice([0.0, 0.5, 1.0, 2.0, rng.random()]) for _ in actions]
        if not any(priors):
            priors[0] = 1.0
        return Evaluation(value, priors)

    return evaluator


guided_settings = st.fixed_dictionaries(
    {
        "iterations": st.integers(1, 80),
        "exploration": st.sampled_from([0.0, 0.5, 1.0, 2.5]),
        "gamma": st.sampled_from([1.0, 0.9, 0.0]),
        "rollout_limit": st.integers(0, 6),
        "seed": st.integers(0, 2**32),
        "evaluator": st.sampled_from([None, "a", "b"]),
        "selection": st.sampled_from(["uct", "puct"]),
        "unvisited_value": st.sampled_from([0.0, -1.0, 0.5, "parent"]),
        "max_depth": st.sampled_from([None, 1, 2, 3]),
        "root_noise": st.sampled_from([None, (0.3, 0.25), (1.0, 1.0)]),
    }
)


def _options(config):
    config = dict(config)
    if config["evaluator"] is not None:
        config["evaluator"] = hashed_evaluator(config["evaluator"])
    if config["selection"] == "uct":
        config["unvisited_value"] = 0.0
        config["root_noise"] = None
    return config


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games, config=guided_settings)
def test_the_general_loop_matches_a_plain_reference_of_the_spec(game, config):
    config = _options(config)
    planner = MCTS(game, **config)
    planner.search("")
    reference = ReferencePUCT(game, **config).search("")
    assert_same_tree(nested(planner.tree), nested_reference(reference))


def test_puct_trees_match_the_reference_on_tic_tac_toe():
    # Deep trees with many close calls: the fast path (tried children and the best
    # untried action) must pick exactly the children that scoring every action picks.
    model = TicTacToeModel()
    plain = SimpleNamespace(actions=model.actions, step=model.step, player=model.player)

    def centre_first(state, actions):
        return Evaluation(None, [3.0 if a == 4 else 2.0 if a % 2 == 0 else 1.0 for a in actions])

    for gamma, evaluator, noise in [(1.0, None, None), (0.9, centre_first, (0.3, 0.25))]:
        config = {
            "iterations": 2000,
            "exploration": 2.0,
            "gamma": gamma,
            "seed": 7,
            "rollout_limit": 9,
            "evaluator": evaluator,
            "selection": "puct",
            "root_noise": noise,
        }
        planner = MCTS(plain, **config)
        planner.search(EMPTY_BOARD)
        reference = ReferencePUCT(plain, **config).search(EMPTY_BOARD)
        assert_same_tree(nested(planner.tree), nested_reference(reference))
        # The stored children stay in the model's order (ties go to the first action),
        # also where the priors made PUCT try a later action first (the first child made
        # is not the first stored).
        tree = planner.tree
        orders = [[tree.action_indices[c] for c in kids] for kids in tree.children]
        assert all(order == sorted(set(order)) for order in orders)
        out_of_order = [kids for kids in tree.children if kids and min(kids) != kids[0]]
        assert bool(out_of_order) == (evaluator is not None)


@pytest.mark.parametrize("valued", [False, True])
def test_parent_unvisited_value_matches_the_reference_on_tic_tac_toe(valued):
    # unvisited_value="parent": an untried action scores the mean of its node's evaluation
    # and of every return backed up through the node's tried children.
    model = TicTacToeModel()
    plain = SimpleNamespace(actions=model.actions, step=model.step, player=model.player)

    def evaluator(state, actions):
        value = round(random.Random(repr(state)).uniform(-0.5, 0.5), 3) if valued else None
        return Evaluation(value, [3.0 if a == 4 else 2.0 if a % 2 == 0 else 1.0 for a in actions])

    config = {
        "iterations": 1500,
        "exploration": 1.0,
        "gamma": 1.0,
        "seed": 3,
        "rollout_limit": 9,
        "evaluator": evaluator,
        "selection": "puct",
    }
    planner = MCTS(plain, unvisited_value="parent", **config)
    planner.search(EMPTY_BOARD)
    reference = ReferencePUCT(plain, unvisited_value="parent", **config).search(EMPTY_BOARD)
    assert_same_tree(nested(planner.tree), nested_reference(reference))
    # The option changes the tree: with a constant 0 the same search grows another one.
    constant = MCTS(plain, **config)
    constant.search(EMPTY_BOARD)
    assert nested(constant.tree) != nested(planner.tree)


def test_parent_unvisited_value_by_hand():
    # Priors (0.7, 0.2, 0.1), c = 1, every move ends the game with reward -0.2, -0.6 or 0.1
    # for the mover, and the root's evaluation is -0.2: the mover stands worse.
    losing = OneMoveGame(rewards=(-0.2, -0.6, 0.1), priors=(0.7, 0.2, 0.1), root_value=-0.2)

    def visits(unvisited_value, iterations):
        planner = MCTS(
            losing,
            iterations,
            selection="puct",
            exploration=1.0,
            evaluator=losing.evaluator,
            unvisited_value=unvisited_value,
        )
        planner.search("root")
        return planner.summary().visit_counts

    # Iteration 1 tries action 0 (highest prior). Iteration 2, N = 1: action 0 scores
    # -0.2 + 0.7 * 1 / 2 = 0.15; action 1, untried, 0 + 0.2 = 0.2 with a constant 0 (tried
    # at once), but with the parent's value (-0.2 + -0.2) / 2 = -0.2 it scores 0.0, so 0 is
    # followed again. Iteration 3, N = 2: 0 scores -0.2 + 0.7 * 1.414 / 3 = 0.130; 1 scores
    # -0.2 + 0.2 * 1.414 = 0.083: still 0.
    assert visits(0.0, 2) == (1, 1, 0)
    assert visits("parent", 3) == (3, 0, 0)


@pytest.mark.parametrize("exploration", [0.0, 2.0])
def test_puct_scores_every_action_where_its_fast_path_could_round_differently(exploration):
    # Priors 1 apart in the 16th digit: q + c * P * sqrt(N) can round alike for both, so
    # the node scores every action (as with c = 0, where every untried action ties).
    model = TicTacToeModel()
    plain = SimpleNamespace(actions=model.actions, step=model.step, player=model.player)

    def near_ties(state, actions):
        return Evaluation(0.1, [1.0 + (1e-15 if a % 2 else 0.0) for a in actions])

    config = {
        "iterations": 500,
        "exploration": exploration,
        "gamma": 1.0,
        "seed": 3,
        "rollout_limit": 0,
        "evaluator": near_ties,
        "selection": "puct",
        "unvisited_value": 0.5,
    }
    planner = MCTS(plain, **config)
    planner.search(EMPTY_BOARD)
    assert planner.tree.expansion_orders[0] == SCORE_ALL
    reference = ReferencePUCT(plain, **config).search(EMPTY_BOARD)
    assert_same_tree(nested(planner.tree), nested_reference(reference))


# ------------------------------------------------------------ the general loop is the plain loop


def forced_general(planner):
    planner._general = True  # the general loop with every option off
    return planner


@pytest.mark.parametrize("gamma", [1.0, 0.9])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "model, start, iterations",
    [(TicTacToeModel(), EMPTY_BOARD, 2000), (ConnectFourModel(), C4_START, 1500)],
    ids=["tictactoe", "connect_four"],
)
def test_with_every_option_off_the_general_loop_builds_the_plain_tree(
    model, start, iterations, gamma, seed
):
    config = {
        "iterations": iterations,
        "exploration": 2 * math.sqrt(2),
        "gamma": gamma,
        "seed": seed,
    }
    plain = MCTS(model, **config)
    plain.search(start)
    general = forced_general(MCTS(model, **config))
    general.search(start)
    assert not plain._general
    assert nested(general.tree) == nested(plain.tree)  # every N and W, exactly
    assert general.best_action() == plain.best_action()
    assert general.summary()._replace(elapsed=0.0) == plain.summary()._replace(elapsed=0.0)
    assert general.rng.getstate() == plain.rng.getstate()


@settings(max_examples=100, deadline=None)
@given(
    game=games,
    config=plain_configs,
)
def test_with_every_option_off_the_general_loop_builds_the_plain_tree_on_random_games(game, config):
    plain = MCTS(game, **config)
    plain.search("")
    general = forced_general(MCTS(game, **config))
    general.search("")
    assert nested(general.tree) == nested(plain.tree)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "evaluation, message",
    [
        (Evaluation(0.0, [1.0]), r"gave 1 priors for the 2 actions"),
        (Evaluation(0.0, [1.0, -0.5]), r"prior of action 'b' is -0.5"),
        (Evaluation(0.0, [1.0, math.nan]), r"prior of action 'b' is nan"),
        (Evaluation(0.0, [math.inf, 1.0]), r"prior of action 'a' is inf"),
        (Evaluation(0.0, [math.inf, -math.inf]), r"prior of action 'a' is inf"),
        (Evaluation(0.0, [1e308, -1e308]), r"prior of action 'b' is -1e\+308"),
        (Evaluation(0.0, [0.0, 0.0]), r"priors sum to 0"),
        (Evaluation(math.nan, None), r"value must be finite, got nan"),
        (Evaluation(-math.inf, [1.0, 1.0]), r"value must be finite, got -inf"),
    ],
)
def test_bad_evaluations_are_value_errors_naming_the_state(evaluation, message):
    planner = MCTS(ScriptedGame(BANDIT), 3, selection="puct", evaluator=lambda s, a: evaluation)
    with pytest.raises(ValueError, match=message) as raised:
        planner.search("root")
    assert "'root'" in str(raised.value)


def test_priors_whose_sum_overflows_are_normalised_by_the_largest_first():
    # 1e308 + 1e308 is past the largest float: the priors are divided by 1e308 first.
    planner = MCTS(
        ScriptedGame(BANDIT),
        3,
        selection="puct",
        evaluator=lambda s, a: Evaluation(0.0, [1e308, 1e308]),
    )
    planner.search("root")
    assert planner.summary().priors == (0.5, 0.5)


def test_a_malformed_evaluation_is_a_type_error():
    planner = MCTS(ScriptedGame(BANDIT), 3, evaluator=lambda s, a: 0.5)
    with pytest.raises(TypeError, match=r"must return Evaluation\(value, priors\), got 0.5"):
        planner.search("root")


class _EmptyingBatch:
    """An evaluator whose ``batch``, once ``emptying``, empties its ``states`` (answers none)."""

    emptying = False

    def __call__(self, state, actions):
        return Evaluation(0.0, None)

    def batch(self, states, actions_list):
        if not self.emptying:
            return [Evaluation(0.0, None) for _ in states]
        states.clear()
        return []


def test_a_batch_that_changes_its_arguments_is_told_what_it_was_given_and_left():
    evaluator = _EmptyingBatch()
    planner = MCTS(TicTacToeModel(), 20, evaluator=evaluator, leaf_batch=4, seed=0)
    planner.search(EMPTY_BOARD)
    before = planner.tree
    evaluator.emptying = True
    with pytest.raises(ValueError) as raised:
        planner.search(EMPTY_BOARD)
    message = str(raised.value)
    assert re.search(r"given (\d+) states and \1 action lists\); it left 0 states and \1", message)
    assert planner.tree is before  # the failed search left the previous tree


def test_a_non_finite_reward_is_a_value_error_naming_state_action_and_value():
    game = ScriptedGame({"root": (0, {"a": ("A", math.nan, True)})})
    planner = MCTS(game, 3, selection="puct")
    with pytest.raises(ValueError, match=r"step\('root', 'a'\) returned the reward nan"):
        planner.search("root")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (
            {"selection": "ucb"},
            ValueError,
            r"selection must be one of \('uct', 'puct', 'rave', 'gumbel'\)",
        ),
        ({"root_noise": (0.3, 0.25)}, ValueError, "root_noise perturbs the priors"),
        ({"selection": "puct", "root_noise": 0.3}, TypeError, "root_noise must be a pair"),
        ({"selection": "puct", "root_noise": (0.0, 0.25)}, ValueError, "alpha must be > 0"),
        ({"selection": "puct", "root_noise": (0.3, 1.5)}, ValueError, "fraction must be"),
        ({"unvisited_value": -1.0}, ValueError, "unvisited_value is PUCT's"),
        ({"selection": "puct", "unvisited_value": math.nan}, ValueError, "unvisited_value"),
        ({"max_depth": 0}, ValueError, "max_depth must be >= 1"),
        ({"evaluator": "net"}, TypeError, "evaluator must be a callable"),
    ],
)
def test_bad_guided_options_are_rejected(kwargs, error, message):
    with pytest.raises(error, match=message):
        MCTS(ScriptedGame(BANDIT), 5, **kwargs)


# ---------------------------------------------------------------- noise and temperature


def test_root_noise_is_reproducible_per_seed_and_off_by_default():
    model = TicTacToeModel()

    def priors(**kwargs):
        planner = MCTS(model, 50, selection="puct", **kwargs)
        planner.search(EMPTY_BOARD)
        return planner.summary().priors

    assert priors(seed=1) == (1 / 9,) * 9
    noisy = priors(seed=1, root_noise=(0.3, 0.25))
    assert noisy == priors(seed=1, root_noise=(0.3, 0.25))
    assert noisy != priors(seed=2, root_noise=(0.3, 0.25))
    assert sum(noisy) == pytest.approx(1.0)
    assert min(noisy) >= 0.75 / 9  # (1 - fraction) * P + fraction * eta, eta >= 0
    assert noisy != (1 / 9,) * 9


def test_sample_action_at_temperature_zero_is_the_best_action():
    planner = MCTS(TicTacToeModel(), 500, selection="puct", seed=0)
    planner.search(EMPTY_BOARD)
    assert all(planner.sample_action(0) == planner.best_action() for _ in range(5))
    with pytest.raises(ValueError, match="temperature must be"):
        planner.sample_action(-1.0)


def test_sample_action_at_temperature_one_follows_the_visit_counts():
    scipy_stats = pytest.importorskip("scipy.stats")
    planner = MCTS(TicTacToeModel(), 400, exploration=4.0, selection="puct", seed=3)
    planner.search(EMPTY_BOARD)
    summary = planner.summary()
    draws = 5000
    counts = dict.fromkeys(summary.actions, 0)
    for _ in range(draws):
        counts[planner.sample_action(1.0)] += 1
    observed = [counts[a] for a in summary.actions]
    expected = [draws * p for p in summary.visit_distribution]
    assert all(e >= 5 for e in expected)  # the chi-square approximation holds
    assert scipy_stats.chisquare(observed, expected).pvalue > 0.001
    # A low temperature concentrates on the most visited action.
    assert {planner.sample_action(0.01) for _ in range(50)} == {planner.best_action()}


# ---------------------------------------------------------------- built-in guidance


@pytest.mark.parametrize(
    "board, to_move, right",
    [
        ("." * 35 + "XXX.OO.", "O", {3}),  # block
        ("." * 28 + "O......XXX.OO.", "X", {3}),  # win
    ],
)
def test_puct_with_the_connect_four_heuristic_alone_wins_and_blocks(board, to_move, right):
    model = ConnectFourModel()
    state = parse_board(board)
    assert model.player(state) == {"X": 1, "O": 2}[to_move]
    planner = MCTS(model, 200, exploration=2.0, selection="puct", evaluator=heuristic_evaluator)
    assert planner(state) in right


def test_the_heuristic_values_are_from_the_movers_point_of_view():
    model = ConnectFourModel()
    x_threat = parse_board("." * 35 + "XXX.OO.")  # O to move, X threatens column 3
    assert heuristic_evaluator(x_threat, model.actions(x_threat)).value < 0  # O is behind
    win_now = parse_board("." * 28 + "O......XXX.OO.")  # X to move and wins at 3
    assert heuristic_evaluator(win_now, model.actions(win_now)).value == 1.0
    two_threats = parse_board("." * 35 + ".XXX.OO")  # O cannot block both ends
    assert heuristic_evaluator(two_threats, model.actions(two_threats)).value == -1.0
    evaluation = heuristic_evaluator(C4_START, model.actions(C4_START))
    assert evaluation.value == 0.0 and list(evaluation.priors) == [1, 2, 3, 4, 3, 2, 1]


def test_puct_with_uniform_priors_finds_the_tic_tac_toe_musts():
    for board, right in [("XX.OO....", 2), ("X.O.O...X", 6), ("XX..O....", 2), ("XX.OO...X", 5)]:
        planner = MCTS(
            TicTacToeModel(), 2000, exploration=4 * math.sqrt(2), selection="puct", seed=0
        )
        assert planner(ttt_board(board)) == right, board


def test_reward_values_from_step_stay_plain_floats():
    class IntRewards:
        def actions(self, state):
            return (0, 1) if state < 3 else ()

        def player(self, state):
            return 0

        def step(self, state, action):
            return StepResult(state + 1, action, state + 1 >= 3)

    planner = MCTS(IntRewards(), 20, selection="puct", seed=0)
    planner.search(0)
    assert {type(node.reward) for node in planner.tree} == {float}


# ---------------------------------------------------------------- the agent and the env view


def test_the_agent_passes_guided_options_through_to_mcts():
    env = played(make_connect_four, [])
    agent = MCTSAgent(
        100,
        exploration=2.0,
        selection="puct",
        evaluator=heuristic_evaluator,
        max_depth=8,
        seed=0,
    )
    assert agent.act(env) in range(7)
    planner = agent.last_planner
    assert (planner.selection, planner.evaluator, planner.max_depth) == (
        "puct",
        heuristic_evaluator,
        8,
    )
    assert agent.last_summary.priors == tuple(w / 16 for w in (1, 2, 3, 4, 3, 2, 1))
    assert sum(agent.last_summary.visit_distribution) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="root_noise perturbs the priors"):
        MCTSAgent(10, root_noise=(0.3, 0.25))
    with pytest.raises(TypeError, match="unexpected keyword argument 'explore'"):
        MCTSAgent(10, explore=1.0)


def test_an_env_view_evaluator_sees_the_observation_and_mask_of_the_player_to_move():
    seen = []

    def network(observation, action_mask):
        seen.append((observation.copy(), action_mask.copy()))
        # The mover's own pieces are plane 0: value +0.5 if it has more in column 3.
        own, other = observation[:, 3, 0].sum(), observation[:, 3, 1].sum()
        priors = np.full(7, 0.25)  # over the whole action space; the legal entries are used
        priors[0] = 3.75
        return Evaluation(0.5 if own > other else 0.0, priors)

    env = played(make_connect_four, [3] * 6)  # column 3 full: X, O, X, O, X, O
    model = PettingZooModel(env)
    state = model.state_of(env)
    observation, mask = model.env_view(state)
    assert mask.tolist() == [1, 1, 1, 0, 1, 1, 1]
    assert np.array_equal(observation, env.observe("player_0")["observation"])
    bound = EnvViewEvaluator(network).bind(model)
    assert bound(state, state.actions) == Evaluation(0.0, [3.75, 0.25, 0.25, 0.25, 0.25, 0.25])
    assert np.array_equal(seen[-1][0], env.observe("player_0")["observation"])
    after = model.step(state, 0).next_state  # player_1 to move: its view, its mask
    later = played(make_connect_four, [3] * 6 + [0])
    observation, mask = model.env_view(after)
    assert np.array_equal(observation, later.observe("player_1")["observation"])
    assert mask.tolist() == [1, 1, 1, 0, 1, 1, 1]
    # Restoring a position for a view leaves later steps right.
    expected = model.state_of(played(make_connect_four, [3] * 6 + [1]))
    assert model.step(state, 1).next_state == expected

    agent = MCTSAgent(50, selection="puct", evaluator=EnvViewEvaluator(network), seed=0)
    agent.act(env)
    assert agent.last_summary.priors == (0.75, 0.05, 0.05, 0.05, 0.05, 0.05)
    assert agent.last_planner.model.clone_method == "snapshot"  # the adapter, not native
    with pytest.raises(TypeError, match="must be bound"):
        MCTS(ConnectFourModel(), 5, evaluator=EnvViewEvaluator(network)).search(C4_START)
    with pytest.raises(TypeError, match="ConnectFourModel has none"):
        EnvViewEvaluator(network).bind(ConnectFourModel())


@pytest.mark.parametrize(
    "script, argv, last_line",
    [
        (
            "connect_four_puct.py",
            ["--iterations", "30", "--games", "2", "--seed", "1"],
            r"  plain UCT: \d+ ms CPU per move from the empty board",
        ),
        (
            "pettingzoo_chess.py",
            ["--iterations", "5", "--games", "1", "--max-plies", "6"],
            r"W/D/L 0/1/0 over 1 games; [\d.]+ s CPU per move",
        ),
    ],
)
def test_the_guided_examples_run(script, argv, last_line, monkeypatch, capsys):
    path = Path(__file__).resolve().parent.parent / "examples" / script
    monkeypatch.setattr(sys, "argv", [script, *argv])
    runpy.run_path(str(path), run_name="__main__")
    output = capsys.readouterr().out
    assert re.match(last_line, output.strip().splitlines()[-1]), output


def test_protocol_violations_below_the_root_are_type_errors_in_the_general_loop():
    class IteratorBelowTheRoot:
        def actions(self, state):
            if state == 0:
                return ()
            return (0, 1) if state == 3 else iter([0, 1])

        def player(self, state):
            return 0

        def step(self, state, action):
            return StepResult(state - 1, 0.0, state == 1)

    with pytest.raises(TypeError, match=r"actions\(2\) returned .*expected a sequence"):
        MCTS(IteratorBelowTheRoot(), 5, selection="puct").search(3)


def test_parent_unvisited_value_is_checked_and_refused_where_it_is_not_read():
    model = TicTacToeModel()
    with pytest.raises(ValueError, match="real number or 'parent'"):
        MCTS(model, 10, selection="puct", unvisited_value="parents")
    with pytest.raises(TypeError, match="unvisited_value must be a real number"):
        MCTS(model, 10, selection="puct", unvisited_value=None)
    with pytest.raises(ValueError, match="with selection='uct' every action is tried first"):
        MCTS(model, 10, unvisited_value="parent")
    with pytest.raises(ValueError, match=re.escape("leaf_batch=4 (leaf batching's rule)")):
        MCTS(model, 10, selection="puct", unvisited_value="parent", leaf_batch=4)
    with pytest.raises(ValueError, match="a hidden-information model"):
        MCTS(KuhnModel(), 10, selection="puct", unvisited_value="parent")
    with pytest.raises(ValueError, match="progressive widening"):
        MCTS(model, 10, selection="puct", unvisited_value="parent", widening=(1.0, 0.5))


def test_parent_unvisited_value_with_the_solver_proves_a_win():
    # X to move completes the top row at 2: the solver proves that move won (V = 1), and the
    # rule that selects on the way reads the parent's value for the untried moves.
    board = ttt_board("XX.OO....")
    planner = MCTS(
        TicTacToeModel(), 200, selection="puct", unvisited_value="parent", solve=True, seed=0
    )
    assert planner(board) == 2
    summary = planner.summary()
    assert summary.proven[summary.actions.index(2)] == 1.0
    assert summary.visit_counts == (189, 6, 3, 1, 1)  # a constant 0: (190, 3, 3, 3, 1)
