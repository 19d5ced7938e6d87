"""Progressive widening (MCTS(widening=...), state_widening, action samplers): SPEC.md's rules."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from mcts_agent import MCTS
from mcts_agent.action_samplers import GaussianActionSampler
from mcts_agent.model import StepResult
from mcts_agent.testing import ModelCheckError, check_model
from mcts_agent.tree import ROOT
from mcts_agent.widening import DEFAULT_WIDENING


class Bandit:
    """One decision: x in [0, 1], reward scale * (1 - 4 (x - best)^2), then the end."""

    def __init__(self, best: float = 0.3, scale: float = 1.0) -> None:
        self.best = best
        self.scale = scale

    def sample_action(self, state, rng):
        return (rng.random(),)

    def step(self, state, action):
        (x,) = action
        return StepResult("end", self.scale * (1.0 - 4.0 * (x - self.best) ** 2), True)

    def player(self, state):
        return 0


class ThreeArms:
    """One decision among arms 0, 1, 2, drawn uniformly; arm a pays a / 2."""

    def sample_action(self, state, rng):
        return int(rng.random() * 3)

    def step(self, state, action):
        return StepResult("end", action / 2, True)

    def player(self, state):
        return 0


class Line:
    """A walk on the line: x += a for a in [-1, 1], reward -|x| each step, ends after 3 steps."""

    def sample_action(self, state, rng):
        return (2.0 * rng.random() - 1.0,)

    def step(self, state, action):
        x, t = state
        x += action[0]
        return StepResult((x, t + 1), -abs(x), t + 1 == 3)

    def player(self, state):
        return 0


def children_per_iteration(planner, state, iterations):
    """The root's number of children after each of ``iterations`` iterations."""
    counts = []

    def record(p, done):
        counts.append(len(p.tree.actions[ROOT]))

    planner.on_iteration = record
    planner.search(state, iterations=iterations)
    return counts


@pytest.mark.parametrize("widening", [(1.0, 0.5), (2.0, 0.25), (0.5, 1.0), (3.0, 0.0)])
def test_a_child_is_added_exactly_when_ceil_k_n_alpha_grows(widening):
    # Every draw is a new float: the root, visited t times, gets a child at each visit
    # while it has fewer than ceil(k * t**alpha).
    k, alpha = widening
    planner = MCTS(Bandit(), iterations=1, widening=widening, seed=0)
    counts = children_per_iteration(planner, 0, 40)
    expected = [1]  # at most one child a visit
    for t in range(2, 41):
        expected.append(expected[-1] + (expected[-1] < math.ceil(k * t**alpha)))
    assert counts == expected
    assert expected[-1] == min(40, math.ceil(k * 40**alpha))


def test_an_equal_draw_joins_its_child_hand_worked():
    # ThreeArms draws int(random() * 3); the model's steps end the game, so the planner's
    # generator is drawn only when the root may widen: replay those draws by hand.
    planner = MCTS(ThreeArms(), iterations=1, widening=(1.0, 0.5), seed=7)
    counts = children_per_iteration(planner, "start", 30)
    replay = random.Random(7)
    expected_actions: list[int] = []
    expected_counts = []
    for t in range(1, 31):
        if len(expected_actions) < math.ceil(t**0.5):
            arm = int(replay.random() * 3)
            if arm not in expected_actions:
                expected_actions.append(arm)
        expected_counts.append(len(expected_actions))
    assert counts == expected_counts
    tree = planner.tree
    assert list(tree.actions[ROOT]) == expected_actions
    assert sum(tree.visits[c] for c in tree.children[ROOT]) == 30
    # A draw of an arm already there added nothing; UCB1 chose: the best arm most.
    visits = dict(
        zip(tree.actions[ROOT], (tree.visits[c] for c in tree.children[ROOT]), strict=True)
    )
    assert max(visits, key=visits.get) == 2


def test_children_are_selected_by_ucb1_once_widening_stops():
    # alpha = 0 caps the root at ceil(k) = 2 children; then UCB1 decides every visit:
    # replay the two draws, then UCB1 with c = sqrt(2) by hand.
    planner = MCTS(Bandit(), widening=(2.0, 0.0), seed=3, iterations=50)
    planner.search(0)
    replay = random.Random(3)
    arms = [(replay.random(),), (replay.random(),)]
    tree = planner.tree
    assert list(tree.actions[ROOT]) == arms
    rewards = [Bandit().step(0, a).reward for a in arms]
    n = [1, 1]
    for t in range(3, 51):
        scores = [rewards[j] + math.sqrt(2) * math.sqrt(math.log(t - 1) / n[j]) for j in (0, 1)]
        n[scores.index(max(scores))] += 1
    assert [tree.visits[c] for c in tree.children[ROOT]] == n


def test_the_default_widening_applies_to_a_model_without_actions_only():
    assert MCTS(Bandit(), iterations=10).widening == DEFAULT_WIDENING == (10.0, 0.5)

    class Listed(Bandit):
        def actions(self, state):
            return ((0.1,), (0.3,))

    assert MCTS(Listed(), iterations=10).widening is None


@pytest.mark.parametrize("seed", range(4))
def test_a_continuous_bandit_is_solved_within_0_05(seed):
    planner = MCTS(Bandit(best=0.3), iterations=2000, seed=seed)
    (x,) = planner(0)
    assert abs(x - 0.3) < 0.05


def test_a_gaussian_sampler_refines_around_the_best_child():
    sampler = GaussianActionSampler([0.0], [1.0], scale=0.05)
    errors = []
    for seed in range(4):
        planner = MCTS(Bandit(best=0.71), iterations=2000, seed=seed, action_sampler=sampler)
        (x,) = planner(0)
        errors.append(abs(x - 0.71))
    assert max(errors) < 0.01


def test_the_gaussian_sampler_stays_in_bounds_and_draws_near_the_best():
    sampler = GaussianActionSampler([-2.0, 0.0], [2.0, 1.0], scale=0.1, uniform_fraction=0.0)
    rng = random.Random(0)
    tried = (((1.9, 0.5), 10, 0.0), ((-1.0, 0.2), 3, 5.0))  # the most visited: the first
    draws = [sampler("s", rng, tried) for _ in range(2000)]
    assert all(-2.0 <= a <= 2.0 and 0.0 <= b <= 1.0 for a, b in draws)
    assert sum(a == 2.0 for a, _ in draws) > 0  # clipped at the bound
    mean_b = sum(b for _, b in draws) / len(draws)
    assert abs(mean_b - 0.5) < 0.01
    with pytest.raises(ValueError, match="below low"):
        GaussianActionSampler([1.0], [0.0])
    with pytest.raises(ValueError, match="draws floats"):
        GaussianActionSampler([0.0], [1.0], dtype=np.int64)
    # A dimension of zero width is kept; float32 draws are float32 values.
    narrow = GaussianActionSampler([0.5, -2.0], [0.5, 2.0], dtype=np.float32)
    for _ in range(50):
        a, b = narrow("s", rng, (((0.5, 1.9), 3, 0.0),))
        assert a == 0.5 and float(np.float32(b)) == b
    with pytest.raises(ValueError, match="same length"):
        GaussianActionSampler([0.0, 0.0], [1.0])


def test_value_normalization_makes_the_widened_tree_scale_free():
    # Rewards times 1024 (exact in binary): normalised selection builds the same tree.
    trees = []
    for scale in (1.0, 1024.0):
        planner = MCTS(Bandit(scale=scale), iterations=300, seed=1, value_normalization=True)
        planner.search(0)
        trees.append([planner.tree.visits[c] for c in planner.tree.children[ROOT]])
    assert trees[0] == trees[1]


def test_puct_among_drawn_children_uses_their_weights():
    planner = MCTS(Bandit(), iterations=2000, seed=0, selection="puct", exploration=1.0)
    (x,) = planner(0)
    assert abs(x - 0.3) < 0.05
    summary = planner.summary()
    assert math.isclose(sum(summary.priors), 1.0)
    assert len(set(summary.priors)) == 1  # every draw weighs 1: uniform over the children


def test_a_deeper_model_widens_every_node_and_reuses_its_tree():
    planner = MCTS(Line(), iterations=400, seed=0, reuse_tree=True, value_normalization=True)
    action = planner((1.5, 0))
    tree = planner.tree
    assert action[0] < -0.5  # back toward 0
    for node in tree.widened:
        n = tree.visits[node]
        if tree.untried[node] != -1 and n:
            assert len(tree.children[node]) <= math.ceil(10 * n**0.5)
    # The next position is in the tree: its subtree, widening records kept, is continued.
    next_state = Line().step((1.5, 0), action).next_state
    child = tree.children[ROOT][tree.actions[ROOT].index(action)]
    kept = tree.visits[child]
    planner.search(next_state)
    assert planner.summary().reused_visits == kept
    assert planner.tree.visits[ROOT] == kept + 400


def test_state_widening_caps_the_outcomes_of_a_chance_node():
    class Noisy:
        """One action, whose outcome is a fresh float: every draw is a new outcome."""

        def actions(self, state):
            return () if state != "start" else ("go",)

        def sample_step(self, state, action, rng):
            return StepResult(rng.random(), 1.0, True)

        def player(self, state):
            return 0

    counts = []

    def record(p, done):
        chance = p.tree.children[ROOT][0]
        counts.append(len(p.tree.actions[chance]))

    planner = MCTS(Noisy(), iterations=60, seed=0, state_widening=(1.0, 0.5), on_iteration=record)
    planner.search("start")
    assert counts == [math.ceil(t**0.5) for t in range(1, 61)]
    chance = planner.tree.children[ROOT][0]
    draws = planner.tree.chance_records[chance].draws
    assert sum(draws) == 60 and len(draws) == 8


def test_state_widening_picks_outcomes_in_proportion_to_their_draws():
    class Coin:
        def actions(self, state):
            return () if state != "start" else ("toss",)

        def sample_step(self, state, action, rng):
            return StepResult("heads" if rng.random() < 0.8 else "tails", 0.0, True)

        def player(self, state):
            return 0

    planner = MCTS(Coin(), iterations=4000, seed=2, state_widening=(2.0, 0.0))
    planner.search("start")
    chance = planner.tree.children[ROOT][0]
    draws = planner.tree.chance_records[chance].draws
    visits = {
        key[0]: planner.tree.visits[child]
        for key, child in zip(
            planner.tree.actions[chance], planner.tree.children[chance], strict=True
        )
    }
    # Two outcomes, then picks in proportion to the draws: heads about 80% of the visits.
    assert sum(draws) == 4000
    assert abs(visits["heads"] / 4000 - 0.8) < 0.05


def test_options_widening_does_not_compose_with_are_refused_with_their_cause():
    with pytest.raises(ValueError, match="solve=True"):
        MCTS(Bandit(), iterations=10, solve=True)
    with pytest.raises(ValueError, match="root_noise"):
        MCTS(Bandit(), iterations=10, selection="puct", root_noise=(0.3, 0.25))
    with pytest.raises(ValueError, match="leaf_batch=4"):
        MCTS(Bandit(), iterations=10, leaf_batch=4)
    with pytest.raises(ValueError, match="workers=2"):
        MCTS(Bandit(), iterations=10, workers=2)
    with pytest.raises(ValueError, match="rollout_policy"):
        MCTS(Bandit(), iterations=10, rollout_policy=lambda s, a, r: a[0])
    with pytest.raises(ValueError, match="deterministic"):
        MCTS(Bandit(), iterations=10, state_widening=(1.0, 0.5))
    with pytest.raises(ValueError, match="pass widening"):
        MCTS(_listed(), iterations=10, action_sampler=lambda s, r, t: 0)
    with pytest.raises(TypeError, match="k, alpha"):
        MCTS(Bandit(), iterations=10, widening=3)
    with pytest.raises(ValueError, match="alpha"):
        MCTS(Bandit(), iterations=10, widening=(1.0, 2.0))
    with pytest.raises(ValueError, match="k must be a finite number > 0"):
        MCTS(Bandit(), iterations=10, widening=(0.0, 0.5))

    class Nothing:
        def step(self, state, action):
            return StepResult(state, 0.0, True)

        def player(self, state):
            return 0

    with pytest.raises(TypeError, match="sample_action"):
        MCTS(Nothing(), iterations=10)


def _listed():
    class Listed(ThreeArms):
        def actions(self, state):
            return (0, 1, 2) if state == "start" else ()

    return Listed()


def test_a_listed_model_widens_over_its_legal_actions_and_refuses_an_illegal_draw():
    planner = MCTS(_listed(), iterations=200, seed=0, widening=(1.0, 0.5))
    assert planner("start") == 2
    assert set(planner.tree.actions[ROOT]) <= {0, 1, 2}

    class Illegal(ThreeArms):
        def actions(self, state):
            return (0, 1) if state == "start" else ()

        def sample_action(self, state, rng):
            return 2

    with pytest.raises(ValueError, match="not one of the legal actions"):
        MCTS(Illegal(), iterations=5, widening=(1.0, 0.5))("start")


def test_an_unhashable_draw_is_a_clear_error_and_the_previous_tree_stays():
    class Lists(Bandit):
        def sample_action(self, state, rng):
            return [rng.random()]

    planner = MCTS(Lists(), iterations=5, seed=0)
    with pytest.raises(TypeError, match="hashable"):
        planner.search(0)


def test_a_listed_model_with_sample_action_but_widening_off_builds_the_plain_tree():
    class Listed(ThreeArms):
        def actions(self, state):
            return (0, 1, 2) if state == "start" else ()

    class ListedSampling(Listed):
        def sample_action(self, state, rng):
            raise AssertionError("never called with widening off")

    trees = []
    for model in (Listed(), ListedSampling()):
        planner = MCTS(model, iterations=100, seed=5)
        planner.search("start")
        tree = planner.tree
        trees.append((tree.actions[ROOT], tree.visits, tree.value_sums))
    assert trees[0] == trees[1]


def test_check_model_checks_sample_action():
    check_model(Bandit(), 0)
    check_model(Line(), (0.0, 0))

    class Global(Bandit):
        def sample_action(self, state, rng):
            return (random.random(),)

    with pytest.raises(ModelCheckError, match="draw from its rng only"):
        check_model(Global(), 0)

    class NotANumber(Bandit):
        def sample_action(self, state, rng):
            return (float("nan"),)

    with pytest.raises(ModelCheckError, match="not equal to itself"):
        check_model(NotANumber(), 0)

    class Unhashable(Bandit):
        def sample_action(self, state, rng):
            return [rng.random()]

    with pytest.raises(ModelCheckError, match="not hashable"):
        check_model(Unhashable(), 0)

    class Illegal(ThreeArms):
        def actions(self, state):
            return (0, 1) if state == "start" else ()

    with pytest.raises(ModelCheckError, match="not one of actions"):
        check_model(Illegal(), "start", seed=1)


def test_the_summary_and_the_drawing_show_continuous_actions_shortly():
    planner = MCTS(Bandit(), iterations=200, seed=0)
    planner.search(0)
    text = str(planner.summary())
    action = planner.best_action()
    assert f"({action[0]:.4g},)" in text
    assert repr(action[0]) not in text
    dot = planner.to_dot(max_depth=1, min_visits=1)
    assert f'label="({action[0]:.4g},)' in dot


def test_reuse_at_a_widened_node_with_no_child_yet_continues_it():
    planner = MCTS(Line(), iterations=30, seed=4, reuse_tree=True)
    planner.search((0.0, 0))
    tree = planner.tree
    once = [j for j, kid in enumerate(tree.children[ROOT]) if tree.visits[kid] == 1]
    assert once and not tree.children[tree.children[ROOT][once[0]]]
    state = tree.states[tree.children[ROOT][once[0]]]
    planner.search(state, iterations=20)
    assert planner.summary().reused_visits == 1
    assert planner.tree.visits[ROOT] == 21
    # Visits 2 to 21 each drew a child (ceil(10 * sqrt(N)) >= N up to N = 100); visit 1
    # was the iteration that made the node.
    assert len(planner.tree.actions[ROOT]) == 20
