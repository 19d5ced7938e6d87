"""Information-set MCTS (mcts_agent.information_sets, work in progress): SPEC's rules."""

from __future__ import annotations

import random

from mcts_agent.envs.kuhn import BET, JACK, KING, PASS, QUEEN, KuhnModel, KuhnState
from mcts_agent.information_sets import InformationSetTree, run
from mcts_agent.model import StepResult


def random_rollout(model, rng):
    def rollout(state, actions, player):
        g, coef = 0.0, 1.0
        while True:
            mover = player
            state, reward, done = model.step(state, actions[int(rng.random() * len(actions))])
            g += coef * reward
            actions = model.actions(state)
            if done or not actions:
                return g
            player = model.player(state)
            coef *= 1.0 if player == mover else -1.0

    return rollout


def search(model, state, iterations, seed=0, c=2.0):
    player = model.player(state)
    tree = InformationSetTree(state, player, (player, model.information_set(state, player)))
    rng = random.Random(seed)
    run(model, tree, iterations, rng, c, random_rollout(model, rng))
    return tree


class HiddenCoin:
    """One player; a coin she cannot see. 'safe' pays 0.5; 'guess', then 'heads' or
    'tails', pays +1 if right, -1 if wrong. Knowing the coin, guessing is worth 1; not
    knowing it, 0: PIMC's strategy fusion guesses, ISMCTS takes the safe 0.5."""

    def actions(self, state):
        coin, history = state
        if not history:
            return ("safe", "guess")
        if history == ("guess",):
            return ("heads", "tails")
        return ()

    def step(self, state, action):
        coin, history = state
        if action == "safe":
            return StepResult((coin, ("safe",)), 0.5, True)
        if action == "guess":
            return StepResult((coin, ("guess",)), 0.0, False)
        right = (action == "heads") == (coin == 0)
        return StepResult((coin, history + (action,)), 1.0 if right else -1.0, True)

    def player(self, state):
        return 0

    def information_set(self, state, player):
        return state[1]  # the history: never the coin

    def sample_world(self, state, player, rng):
        return (int(rng.random() * 2), state[1])


def test_ismcts_does_not_fuse_strategies_across_worlds():
    tree = search(HiddenCoin(), (1, ()), 3000)
    assert tree.most_visited() == "safe"
    guess = tree.edge_values[0]["guess"] / tree.edge_visits[0]["guess"]
    assert abs(guess) < 0.25  # about 0: half the worlds lose the guess


def test_kuhn_second_player_folds_a_jack_and_calls_with_a_king():
    model = KuhnModel()
    assert search(model, KuhnState((QUEEN, JACK), (BET,)), 2000).most_visited() == PASS
    assert search(model, KuhnState((QUEEN, KING), (BET,)), 2000).most_visited() == BET
    # The opponent's card does not matter: every world is redrawn from what player 1 sees.
    a = search(model, KuhnState((QUEEN, JACK), (BET,)), 500, seed=3)
    b = search(model, KuhnState((KING, JACK), (BET,)), 500, seed=3)
    assert a.edge_visits[0] == b.edge_visits[0] and a.edge_values[0] == b.edge_values[0]


class SometimesLegal:
    """One decision; 'extra' is legal only in worlds with hidden bit 1 (half of them)."""

    def actions(self, state):
        bit, done = state
        return () if done else (("stay", "extra") if bit else ("stay",))

    def step(self, state, action):
        return StepResult((state[0], True), 1.0 if action == "extra" else 0.0, True)

    def player(self, state):
        return 0

    def information_set(self, state, player):
        return state[1]

    def sample_world(self, state, player, rng):
        return (int(rng.random() * 2), state[1])


def test_availability_counts_only_the_visits_where_an_action_was_legal():
    tree = search(SometimesLegal(), (1, False), 400)
    replay = random.Random(0)
    worlds = []
    for _ in range(400):
        worlds.append(int(replay.random() * 2))  # one draw per iteration: no rollouts here
    assert tree.availability[0]["stay"] == 400
    assert tree.availability[0]["extra"] == sum(worlds)
    assert tree.visits[0] == 400
    assert sum(tree.edge_visits[0].values()) == 400


def test_mcts_runs_ismcts_on_a_model_with_information_sets():
    from mcts_agent import MCTS

    planner = MCTS(HiddenCoin(), iterations=3000, seed=0, exploration=2.0)
    assert planner((1, ())) == "safe"
    summary = planner.summary()
    assert summary.actions == ("safe", "guess") and sum(summary.visit_counts) == 3000
    assert summary.values[0] == 0.5
    # The true coin is never read: the other coin gives the same search.
    other = MCTS(HiddenCoin(), iterations=3000, seed=0, exploration=2.0)
    other.search((0, ()))
    assert other.summary().visit_counts == summary.visit_counts
    planner = MCTS(KuhnModel(), iterations=2000, seed=0, exploration=2.0)
    assert planner(KuhnState((QUEEN, JACK), (BET,))) == PASS
    assert planner(KuhnState((QUEEN, KING), (BET,))) == BET


def test_what_ismcts_does_not_compose_with_yet_is_refused():
    import pytest

    from mcts_agent import MCTS

    with pytest.raises(ValueError, match='not built yet for selection="puct"'):
        MCTS(HiddenCoin(), iterations=10, selection="puct")
    with pytest.raises(ValueError, match="reuse_tree=True"):
        MCTS(HiddenCoin(), iterations=10, reuse_tree=True)


def test_determinized_search_fuses_strategies_where_ismcts_does_not():
    from mcts_agent import MCTS

    pimc = MCTS(HiddenCoin(), iterations=3000, seed=0, exploration=2.0, determinize=True)
    assert pimc((1, ())) == "guess"  # every world's search knows the coin: guessing is worth 1
    ismcts = MCTS(HiddenCoin(), iterations=3000, seed=0, exploration=2.0)
    assert ismcts((1, ())) == "safe"
