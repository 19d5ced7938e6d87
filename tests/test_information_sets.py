"""Information-set MCTS (mcts_agent.information_sets): SPEC.md, "Hidden information"."""

from __future__ import annotations

import random

import pytest

from mcts_agent import MCTS
from mcts_agent.envs.connect_four import EMPTY_BOARD, ConnectFourModel, heuristic_evaluator
from mcts_agent.envs.kuhn import BET, JACK, KING, PASS, QUEEN, KuhnModel, KuhnState
from mcts_agent.envs.three_in_a_row import ThreeInARowModel
from mcts_agent.envs.tic_tac_toe import TicTacToeModel
from mcts_agent.model import StepResult


def search(model, state, iterations, seed=0, c=2.0):
    planner = MCTS(model, iterations=iterations, seed=seed, exploration=c)
    planner.search(state)
    return planner.tree


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


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"solve": True}, "solve=True"),
        ({"reuse_tree": True}, "reuse_tree=True"),
        ({"leaf_batch": 4, "selection": "puct"}, "leaf_batch > 1"),
        ({"widening": (1.0, 0.5)}, "widening"),
        ({"determinize": True, "on_iteration": lambda p, i: None}, "on_iteration"),
    ],
)
def test_what_ismcts_does_not_compose_with_is_refused_with_its_cause(options, named):
    with pytest.raises(ValueError, match=named) as caught:
        MCTS(HiddenCoin(), iterations=10, **options)
    assert "information-set MCTS" in str(caught.value)


def test_determinized_search_fuses_strategies_where_ismcts_does_not():
    pimc = MCTS(HiddenCoin(), iterations=3000, seed=0, exploration=2.0, determinize=True)
    assert pimc((1, ())) == "guess"  # every world's search knows the coin: guessing is worth 1
    ismcts = MCTS(HiddenCoin(), iterations=3000, seed=0, exploration=2.0)
    assert ismcts((1, ())) == "safe"


class Transparent:
    """A perfect-information model seen as a hidden-information one: a state is ``(state,
    moves so far)``, the information set is all of it (so transpositions stay apart, as in
    the plain tree), and the only world is the state itself (no draw). ISMCTS on it must be
    the perfect-information search, visit for visit."""

    def __init__(self, model):
        self.model = model
        if getattr(model, "reward_players", None) is not None:
            self.reward_players = model.reward_players
        if hasattr(model, "rollout"):
            self.rollout = lambda state, rng, limit, gamma: model.rollout(
                state[0], rng, limit, gamma
            )

    def actions(self, state):
        return self.model.actions(state[0])

    def player(self, state):
        return self.model.player(state[0])

    def step(self, state, action):
        inner, reward, terminated = self.model.step(state[0], action)
        return StepResult((inner, state[1] + (action,)), reward, terminated)

    def information_set(self, state, player):
        return state

    def sample_world(self, state, player, rng):
        return state


def root_statistics(planner):
    summary = planner.summary()
    statistics = zip(summary.visit_counts, summary.values, strict=True)
    return dict(zip(summary.actions, statistics, strict=True))


@pytest.mark.parametrize(
    "options",
    [
        {"exploration": 2.0},
        {"exploration": 2.0, "value_normalization": True},
        {"exploration": 2.0, "gamma": 0.9, "rollout_limit": 3},
        {"selection": "puct", "evaluator": "heuristic", "exploration": 1.5},
        {
            "selection": "puct",
            "evaluator": "heuristic",
            "max_depth": 3,
            "value_normalization": True,
            "root_noise": (0.3, 0.25),
        },
        {"exploration": 1.0, "players": 3},
    ],
)
def test_ismcts_on_transparent_information_sets_is_the_perfect_information_search(options):
    options = dict(options)
    if options.pop("players", None):
        model, state = ThreeInARowModel(3, 4, 4), ThreeInARowModel(3, 4, 4).initial_state
    elif options.get("evaluator"):
        model, state = ConnectFourModel(), EMPTY_BOARD
        options["evaluator"] = heuristic_evaluator
    else:
        model, state = TicTacToeModel(), 0
    plain = MCTS(model, iterations=600, seed=5, **options)
    plain.search(state)
    if options.get("evaluator"):
        options["evaluator"] = lambda state, actions: heuristic_evaluator(state[0], actions)
    hidden = MCTS(Transparent(model), iterations=600, seed=5, **options)
    hidden.search((state, ()))
    assert hidden.hidden and not plain.hidden
    assert root_statistics(hidden) == root_statistics(plain)
    assert hidden.best_action() == plain.best_action()
    assert hidden.summary().priors == plain.summary().priors
    # Every node has the visits of its plain twin (the graph is the tree), and each action
    # was available at every earlier visit.
    twins, stack = {(): 0}, [((), 0)]
    while stack:
        moves, node = stack.pop()
        for action, child in zip(
            plain.tree.actions[node], plain.tree.children_by_action(node), strict=True
        ):
            if child >= 0:
                twins[moves + (action,)] = child
                stack.append((moves + (action,), child))
    for node, key in enumerate(hidden.tree.keys):
        twin = twins[key[1][1]]
        assert hidden.tree.visits[node] == plain.tree.visits[twin]
        assert set(hidden.tree.availability[node].values()) <= {hidden.tree.visits[node]}


def test_check_model_accepts_consistent_worlds_and_names_inconsistent_ones():
    from mcts_agent.envs.leduc import LeducModel
    from mcts_agent.testing import ModelCheckError, check_model

    leduc = LeducModel()
    check_model(leduc, leduc.initial_state(random.Random(1)), num_playouts=30)
    check_model(KuhnModel(), KuhnState((QUEEN, JACK), ()), num_playouts=30)
    check_model(HiddenCoin(), (1, ()))

    class Peeking(HiddenCoin):  # the information set holds the coin the player cannot see
        def information_set(self, state, player):
            return state

    with pytest.raises(ModelCheckError, match="information set is"):
        check_model(Peeking(), (1, ()))

    class GlobalDraw(HiddenCoin):  # draws from the global generator, not from rng
        def sample_world(self, state, player, rng):
            return (random.randrange(2), state[1])

    random.seed(0)
    with pytest.raises(ModelCheckError, match="from its rng only"):
        check_model(GlobalDraw(), (1, ()))

    class Telling(SometimesLegal):  # the legal actions give the hidden bit away
        def information_set(self, state, player):
            return state[1]

    with pytest.raises(ModelCheckError, match="legal actions"):
        check_model(Telling(), (1, False))


def test_determinized_search_runs_on_a_time_budget_and_is_reproducible_on_iterations():
    state = KuhnState((QUEEN, KING), (BET,))
    a = MCTS(KuhnModel(), iterations=1000, seed=4, exploration=2.0, determinize=True)
    b = MCTS(KuhnModel(), iterations=1000, seed=4, exploration=2.0, determinize=True)
    assert a(state) == b(state) == BET
    assert a.summary().visit_counts == b.summary().visit_counts
    assert sum(a.summary().visit_counts) == 1000  # every world's root visits, summed
    timed = MCTS(KuhnModel(), time_limit=0.05, seed=4, determinize=True)
    timed.search(state)
    assert timed.summary().stop_reason == "time_limit" and timed.summary().iterations > 10


def test_the_information_set_graph_is_exported():
    import json

    planner = MCTS(KuhnModel(), iterations=300, seed=0, exploration=2.0)
    planner.search(KuhnState((QUEEN, JACK), ()))
    data = json.loads(json.dumps(planner.to_dict()))
    assert data["format"] == "mcts_agent.information_sets"
    root = data["nodes"][0]
    assert root["visits"] == 300 and sum(a["visits"] for a in root["actions"]) == 300
    for node in data["nodes"]:
        for action in node["actions"]:
            assert action["visits"] <= action["availability"]
            assert all(0 < child < len(data["nodes"]) for child in action["children"])
    # Player 1's nodes are keyed by her own card and the history: the worlds deal her the
    # jack or the king (player 0 holds the queen), a node per card and history.
    second = [n["key"][1] for n in data["nodes"] if n["player"] == 1]
    assert {(card, tuple(history)) for _, card, history in second} == {
        (card, (action,)) for card in (JACK, KING) for action in (PASS, BET)
    }
    dot = planner.to_dot(min_visits=1)
    assert dot.startswith("digraph") and "n0 -> n" in dot
    assert planner.principal_variation() == [planner.best_action()]


def test_a_first_world_the_player_could_tell_apart_is_refused():
    class Leaky(HiddenCoin):  # the world's history is not the one the player saw
        def sample_world(self, state, player, rng):
            return (int(rng.random() * 2), ("guess",))

    with pytest.raises(ValueError, match="information set for 0 differ"):
        MCTS(Leaky(), iterations=10, seed=0)((1, ()))
    with pytest.raises(ValueError, match="information set for 0 differ"):
        MCTS(Leaky(), iterations=10, seed=0, determinize=True)((1, ()))

    class Telling(SometimesLegal):  # the legal actions give the hidden bit away
        def information_set(self, state, player):
            return state[1]

    planner = MCTS(Telling(), iterations=50, seed=1)  # its first world has bit 0: no "extra"
    with pytest.raises(ValueError, match="legal actions for 0 differ"):
        planner((1, False))


def test_root_trace_and_determinized_figures_on_a_hidden_information_search():
    from mcts_agent.envs.leduc import LeducModel, LeducState
    from mcts_agent.trace import RootTrace

    state = LeducState((0, 1), 2, 0, ())
    trace = RootTrace()
    planner = MCTS(LeducModel(), iterations=200, seed=0, on_iteration=trace)
    planner.search(state)
    trace.finish(planner)
    assert trace.iterations[-1] == 200 and trace.visit_counts[-1] == planner.summary().visit_counts
    # PIMC: the node budget counts the worlds' trees, and so does the summary.
    pimc = MCTS(LeducModel(), iterations=1000, max_nodes=50, determinize=True, seed=0)
    pimc.search(state)
    summary = pimc.summary()
    assert summary.stop_reason == "max_nodes" and summary.nodes >= 50 > summary.iterations > 10
    normalised = MCTS(
        LeducModel(), iterations=200, value_normalization=True, determinize=True, seed=0
    )
    normalised.search(state)
    lo, hi = normalised.summary().value_range
    assert -7 <= lo < 0 < hi <= 7  # big blinds: a hand wins or loses at most 14 chips
