"""The compiled chance loop (mcts_agent/_chance_loop.c) builds the pure general loop's trees.

Every per-node list of the GuidedTree, every chance record, the summary, the move, the
model's calls and the generator's final state, on both backends: slippery FrozenLake (4x4,
8x8), slippery CliffWalking and rainy Taxi through GymnasiumModel (native rollouts and
records), Pig (its native rollout), the tables of tests/chance_games.py (outcomes and
sample_step, Python rollouts), with gamma < 1, rollout limits, value normalisation, tree
reuse, chunks and errors.
"""

from __future__ import annotations

import contextlib
import random

import gymnasium as gym
import pytest
from chance_games import ChanceGame, SampledGame, check_invariants
from test_chance import BET, COIN, TWO_PLAYERS

from mcts_agent import MCTS, compiled, compiled_chance
from mcts_agent.adapters import GymnasiumModel
from mcts_agent.chance import new_record
from mcts_agent.compiled import pure_python
from mcts_agent.envs.pig import PigModel, PigState
from mcts_agent.rollout_policies import CautiousRolloutPolicy

CORE = compiled._core
pytestmark = pytest.mark.skipif(CORE is None, reason="the compiled core is not built")

FIELDS = ("states", "players", "rewards", "discounts", "actions", "children", "untried")
FIELDS += ("visits", "value_sums", "values", "action_indices", "priors", "scaled_priors")
FIELDS += ("leaf_values", "expansion_orders", "proven_values")


def snapshot(planner):
    """Every per-node list, the chance records, the summary without its time, the move, rng."""
    tree = planner.tree
    fields = [list(getattr(tree, field)) for field in FIELDS]
    floats = [
        [x.hex() for x in getattr(tree, field)]  # bit for bit (-0.0 too)
        for field in ("rewards", "discounts", "value_sums", "values", "scaled_priors")
    ]
    records = [
        None
        if r is None
        else (r.action, r.index, r.cumulative, r.results, r.keys, type(r).__name__)
        for r in tree.chance_records
    ]
    summary = planner.summary()._replace(elapsed=0.0)
    return fields, floats, records, summary, planner.best_action(), planner.rng.getstate()


@pytest.fixture
def compiled_runs(monkeypatch):
    """Counts the searches' chunks run by the compiled chance loop."""
    runs = []
    run = compiled_chance.run

    def counted(planner, tree, iterations):
        runs.append(iterations)
        return run(planner, tree, iterations)

    monkeypatch.setattr(compiled_chance, "run", counted)
    return runs


def both(make, states, compiled_runs, compiled_expected=True, invariants=True):
    """Searches ``states`` in turn with ``make()`` on both backends; asserts the same trees."""
    with pure_python():
        reference = make()
        for state in states:
            reference.search(state)
            expected = snapshot(reference)
    planner = make()
    before = len(compiled_runs)
    for state in states:
        planner.search(state)
    assert snapshot(planner) == expected
    assert (len(compiled_runs) > before) == compiled_expected
    if invariants:  # (a reused root's N counts its visits as a child too)
        check_invariants(planner.tree)
    return planner, reference


def toy_text(env_id, **kwargs):
    env = gym.make(env_id, **kwargs)
    env.reset(seed=0)
    model = GymnasiumModel(env)
    return model, model.state_of(env)


CONFIGS = [
    {},
    {"gamma": 0.9},
    {"rollout_limit": 0},
    {"rollout_limit": 3},
    {"value_normalization": True},
    {"gamma": 0.95, "value_normalization": True, "exploration": 0.5},
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize(
    "env_id, kwargs, iterations",
    [
        ("FrozenLake-v1", {"is_slippery": True}, 600),
        ("FrozenLake-v1", {"is_slippery": True, "map_name": "8x8"}, 300),
        ("CliffWalking-v1", {"is_slippery": True}, 200),
    ],
    ids=["frozen_lake_4x4", "frozen_lake_8x8", "cliff_walking"],
)
def test_slippery_toy_text_trees_are_the_pure_trees(
    env_id, kwargs, iterations, config, compiled_runs
):
    model, state = toy_text(env_id, **kwargs)
    assert model.native_chance() is not None
    if env_id.startswith("Cliff"):
        config = {"rollout_limit": 40, **config}  # its random walks are long
    both(lambda: MCTS(model, iterations=iterations, seed=7, **config), [state], compiled_runs)


def test_rainy_taxi_with_its_masks_builds_the_pure_tree(compiled_runs):
    env_id = "Taxi-v4" if "Taxi-v4" in gym.registry else "Taxi-v3"
    model, state = toy_text(env_id, is_rainy=True)
    assert model.native_chance() is not None
    planner, _ = both(
        lambda: MCTS(model, iterations=300, seed=2, rollout_limit=20), [state], compiled_runs
    )
    # Its snapshots hold a bool (fickle_step): the native records made the chance nodes.
    later = planner.tree.states[2]
    assert any(v.__class__ is bool for v in later.snapshot)
    rng = random.Random(0)
    assert CORE.call_chance_rollout(model.native_chance(), later, rng, 5, 1.0) is not None


@pytest.mark.parametrize("config", [*CONFIGS, {"goal": 12, "gamma": 0.8}])
def test_pig_trees_are_the_pure_trees(config, compiled_runs):
    config = dict(config)
    model = PigModel(config.pop("goal", 30))
    states = [model.initial_state(), PigState(2, 5, 9, 3)]
    both(lambda: MCTS(model, iterations=800, seed=4, **config), states, compiled_runs)


class Logging:
    """Logs every call of a table game's methods, in order (``log``)."""

    log: list

    def actions(self, state):
        self.log.append(("actions", state))
        return super().actions(state)

    def player(self, state):
        self.log.append(("player", state))
        return super().player(state)


class Logged(Logging, ChanceGame):
    def outcomes(self, state, action):
        self.log.append(("outcomes", state, action))
        return super().outcomes(state, action)


class LoggedSampled(Logging, SampledGame):
    def sample_step(self, state, action, rng):
        self.log.append(("sample_step", state, action))
        return super().sample_step(state, action, rng)


def folded(state):
    return state[:1]  # "TH" and "TT" are one position to the player


@pytest.mark.parametrize("sampled", [False, True], ids=["outcomes", "sample_step"])
@pytest.mark.parametrize("table", [COIN, BET, TWO_PLAYERS], ids=["coin", "bet", "two_players"])
@pytest.mark.parametrize(
    "config",
    [
        {},
        {"gamma": 0.7, "rollout_limit": 1},
        {"rollout_limit": 0, "value_normalization": True},
        {"rollout_policy": lambda state, actions, rng: actions[-1]},
        {"key": folded},
    ],
)
def test_table_games_make_the_same_calls_and_trees(sampled, table, config, compiled_runs):
    config = dict(config)
    key = config.pop("key", None)
    games = []

    def make():
        game = (LoggedSampled if sampled else Logged)(table, key)
        game.log = []
        games.append(game)
        return MCTS(game, iterations=300, seed=1, **config)

    both(make, [next(iter(table))], compiled_runs)
    reference, game = games
    assert game.log == reference.log
    assert game.calls == reference.calls


def test_reused_trees_are_the_pure_trees(compiled_runs):
    model, state = toy_text("FrozenLake-v1", is_slippery=True)

    def make():
        return MCTS(model, iterations=400, seed=3, reuse_tree=True, value_normalization=True)

    # The states the first search reached: two steps down its tree.
    with pure_python():
        planner = make()
        planner.search(state)
    tree = planner.tree
    outcome = tree.children[tree.children[0][1]][0]
    later = tree.children[tree.children[outcome][0]][0]
    states = [state, tree.states[outcome], tree.states[later]]
    planner, reference = both(make, states, compiled_runs, invariants=False)
    assert planner.summary().reused_visits == reference.summary().reused_visits > 0


class Clock:
    """A clock that moves 1 ms per reading: timed searches chunk alike on both backends."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 0.001
        return self.now


@pytest.mark.parametrize(
    "budget",
    [
        {"time_limit": 0.05, "iterations": None},
        {"max_nodes": 500},
        {"on_iteration": lambda planner, done: done >= 60},
    ],
    ids=["time_limit", "max_nodes", "on_iteration"],
)
def test_searches_in_chunks_are_the_pure_searches(budget, compiled_runs):
    model = PigModel(20)

    def make():
        config = {"iterations": 400, "seed": 6, "value_normalization": True, **budget}
        return MCTS(model, clock=Clock(), **config)

    both(make, [model.initial_state()], compiled_runs)
    assert len(compiled_runs) > 1  # more than one chunk


def test_a_chunked_compiled_search_is_one_search():
    model, state = toy_text("FrozenLake-v1", is_slippery=True, map_name="8x8")
    whole = MCTS(model, iterations=1_000, seed=9, value_normalization=True)
    whole.search(state)
    chunked = MCTS(model, iterations=1, seed=9, value_normalization=True)
    chunked.search(state)
    for n in (1, 2, 300, 696):
        compiled_chance.run(chunked, chunked.tree, n)
    assert snapshot(chunked)[:3] == snapshot(whole)[:3]
    assert chunked.rng.getstate() == whole.rng.getstate()
    assert chunked._value_range == whole._value_range


class Failing(Logged):
    """Raises in ``method`` at its ``after``-th call (the search fails mid-way)."""

    def __init__(self, table, method):
        super().__init__(table)
        self.log = []
        self.method, self.left = method, None

    def outcomes(self, state, action):
        self._count("outcomes")
        return super().outcomes(state, action)

    def actions(self, state):
        self._count("actions")
        return super().actions(state)

    def _count(self, method):
        if method == self.method and self.left is not None:
            self.left -= 1
            if self.left == 0:
                raise ValueError(f"{method} broke")


DEEP = {
    state: (0, {"a": [(0.5, state + "a", 0.1, False), (0.5, state + "b", 0.0, False)]})
    for state in ("s", "sa", "sb", "saa", "sab", "sba", "sbb")
}


@pytest.mark.parametrize("method, after", [("outcomes", 5), ("outcomes", 12), ("actions", 10)])
def test_a_model_raising_mid_search_keeps_the_previous_tree_as_the_pure_loop(method, after):
    results = []
    for pure in (True, False):
        game = Failing(DEEP, method)
        planner = MCTS(game, iterations=300, seed=5)
        with pure_python() if pure else contextlib.nullcontext():
            planner.search("sa")  # the first search: fine (a later count raises)
            game.left = after
            kept = snapshot(planner)[:5]
            with pytest.raises(ValueError, match=f"{method} broke"):
                planner.search("s")
        assert snapshot(planner)[:5] == kept  # the previous tree, as it was
        results.append((kept, game.log, planner.rng.getstate()))
    assert results[0] == results[1]


def test_a_broken_outcomes_answer_raises_as_in_the_pure_loop():
    table = {"s": (0, {"a": [(0.5, "x", 0.0, True), (0.6, "y", 1.0, True)]})}
    errors = []
    for pure in (True, False):
        planner = MCTS(ChanceGame(table), iterations=10, seed=0)
        with (
            pure_python() if pure else contextlib.nullcontext(),
            pytest.raises(ValueError) as error,
        ):
            planner.search("s")
        errors.append(str(error.value))
    assert errors[0] == errors[1] and "summing to" in errors[0]


def test_a_model_changing_the_tree_during_the_search_is_refused():
    class Meddling(ChanceGame):
        tree = None

        def outcomes(self, state, action):
            if self.tree is not None:
                self.tree.states.append(None)
            return super().outcomes(state, action)

    game = Meddling(DEEP)

    def watch(planner, done):  # the tree being grown, handed to the model
        game.tree = planner.tree

    planner = MCTS(game, iterations=50, seed=0, on_iteration=watch)
    with pytest.raises(RuntimeError, match="tree.states has"):
        planner.search("s")


# ------------------------------------------------------------------ native rollouts, records


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("FrozenLake-v1", {"is_slippery": True, "map_name": "8x8"}),
        ("CliffWalking-v1", {"is_slippery": True}),
    ],
)
@pytest.mark.parametrize("limit, gamma", [(1, 1.0), (7, 0.9), (10**9, 0.99)])
def test_the_table_rollout_is_the_search_s_own(env_id, kwargs, limit, gamma):
    model, start = toy_text(env_id, **kwargs)
    capsule = model.native_chance()
    with pure_python():
        planner = MCTS(model, iterations=1, rollout_limit=min(limit, 200), gamma=gamma, seed=0)
    _, rollout = planner._rollouts()
    # (the start's snapshot holds the env's numpy int: the native rollout leaves it to Python)
    states = [result.next_state for _, result in model.outcomes(start, 1)]
    states += [result.next_state for _, result in model.outcomes(states[-1], 2)]
    for seed in range(20):
        state = states[seed % len(states)]
        planner.rng.seed(seed)
        expected = rollout(state, state.actions, 0)
        mine = random.Random(seed)
        got = CORE.call_chance_rollout(capsule, state, mine, min(limit, 200), gamma)
        assert got.hex() == expected.hex()
        assert mine.getstate() == planner.rng.getstate()


def test_the_pig_rollout_is_pig_s_own():
    model = PigModel(25)
    capsule = model.native_chance()
    for seed in range(40):
        state = PigState(1 + seed % 2, seed % 23, (3 * seed) % 24, seed % 5)
        for limit, gamma in ((1, 1.0), (5, 0.9), (10**6, 0.97)):
            expected_rng, mine = random.Random(seed), random.Random(seed)
            expected = model.rollout(state, expected_rng, limit, gamma)
            got = CORE.call_chance_rollout(capsule, state, mine, limit, gamma)
            assert got.hex() == float(expected).hex()
            assert mine.getstate() == expected_rng.getstate()


def test_a_state_the_native_rollout_does_not_take_is_left_to_python():
    model, state = toy_text("FrozenLake-v1", is_slippery=True)
    capsule = model.native_chance()
    rng = random.Random(0)
    before = rng.getstate()
    for odd in (state, state._replace(snapshot=(99, None))):  # a numpy int; no such cell
        assert CORE.call_chance_rollout(capsule, odd, rng, 10, 1.0) is None
    assert rng.getstate() == before  # nothing drawn
    assert CORE.call_chance_rollout(PigModel().native_chance(), "x", rng, 10, 1.0) is None


@pytest.mark.parametrize("game", ["cliff_walking", "pig"])
def test_native_records_are_new_record_s(game):
    if game == "pig":
        model = PigModel(20)
        state = model.initial_state()
    else:
        model, state = toy_text("CliffWalking-v1", is_slippery=True)
    planner = MCTS(model, iterations=200, seed=0, rollout_limit=20)
    planner.search(state)
    tree = planner.tree
    chance_nodes = [i for i, r in enumerate(tree.chance_records) if r is not None]
    assert len(chance_nodes) > 50
    for node in chance_nodes:
        record = tree.chance_records[node]
        key = getattr(model, "key", None)
        expected = new_record(model.outcomes, key, None, tree.states[node], record.action)
        assert (record.cumulative, record.results, record.keys) == (
            expected.cumulative,
            expected.results,
            expected.keys,
        )
        assert [type(r.next_state) for r in record.results] == [
            type(r.next_state) for r in expected.results
        ]


class KeyedPig(PigModel):
    def key(self, state):
        return state


class OwnOutcomes(PigModel):
    def outcomes(self, state, action):
        return super().outcomes(state, action)


def test_a_pig_changing_what_its_capsule_fuses_loses_it(compiled_runs):
    assert PigModel().native_chance() is not None
    for model in (KeyedPig(15), OwnOutcomes(15)):
        assert model.native_chance() is None
        both(lambda m=model: MCTS(m, iterations=300, seed=1), [m_state()], compiled_runs)


def m_state():
    return PigModel().initial_state()


class OwnActions(GymnasiumModel):
    def actions(self, state):
        return state.actions


def test_a_model_replacing_a_fused_method_loses_its_native_chance(compiled_runs):
    env = gym.make("FrozenLake-v1", is_slippery=True)
    env.reset(seed=0)
    model = OwnActions(env)
    assert model.native_chance() is None
    other, state = toy_text("FrozenLake-v1", is_slippery=True)
    other.outcomes = lambda s, a: other._table.outcomes(s, a)
    assert other.native_chance() is None
    for planner_model in (model, other):
        both(lambda m=planner_model: MCTS(m, iterations=300, seed=1), [state], compiled_runs)


def test_the_pure_loop_runs_where_the_compiled_one_does_not_apply(compiled_runs):
    model = PigModel(15)
    state = model.initial_state()
    for config in ({"selection": "puct"}, {"max_depth": 3}):
        both(
            lambda c=config: MCTS(model, iterations=200, seed=0, **c),
            [state],
            compiled_runs,
            compiled_expected=False,
            invariants=False,
        )

    class OwnRandom(random.Random):
        pass

    def make():
        planner = MCTS(model, iterations=200, seed=0)
        planner.rng = OwnRandom(0)
        return planner

    both(make, [state], compiled_runs, compiled_expected=False)


# ------------------------------------------------------------------ the cautious rollout policy


@pytest.fixture
def policy_moves(monkeypatch):
    """The moves CautiousRolloutPolicy chose in Python (its safe_actions calls), by backend."""
    moves = {"pure": 0, "compiled": 0}
    safe_actions = CautiousRolloutPolicy.safe_actions

    def counted(policy, state, actions):
        moves["pure" if compiled._core is None else "compiled"] += 1
        return safe_actions(policy, state, actions)

    monkeypatch.setattr(CautiousRolloutPolicy, "safe_actions", counted)
    return moves


TAXI = "Taxi-v4" if "Taxi-v4" in gym.registry else "Taxi-v3"


@pytest.mark.parametrize(
    "config",
    [{}, {"value_normalization": True}, {"reuse_tree": True, "gamma": 0.95}],
    ids=["plain", "value_normalization", "reuse_tree"],
)
@pytest.mark.parametrize(
    "env_id, kwargs, loss_reward, iterations",
    [
        ("FrozenLake-v1", {"is_slippery": True}, 0.0, 300),
        ("FrozenLake-v1", {"is_slippery": True, "map_name": "8x8"}, 0.0, 150),
        ("FrozenLake-v1", {"is_slippery": True, "max_episode_steps": 6}, 0.0, 200),
        ("CliffWalking-v1", {"is_slippery": True}, -2.0, 150),
        (TAXI, {"is_rainy": True}, 0.0, 150),
    ],
    ids=["frozen_lake_4x4", "frozen_lake_8x8", "frozen_lake_6_steps", "cliff_walking", "taxi"],
)
def test_cautious_rollouts_build_the_pure_trees_natively(
    env_id, kwargs, loss_reward, iterations, config, compiled_runs, policy_moves
):
    model, state = toy_text(env_id, **kwargs)
    limit = {} if env_id.startswith("Frozen") else {"rollout_limit": 30}

    def make():
        policy = CautiousRolloutPolicy(model, loss_reward=loss_reward)
        return MCTS(model, iterations=iterations, seed=5, rollout_policy=policy, **limit, **config)

    states = [state]
    if config.get("reuse_tree"):  # two steps down the first search's tree
        with pure_python():
            planner = make()
            planner.search(state)
        tree = planner.tree
        outcome = tree.children[tree.children[0][0]][0]
        states += [tree.states[outcome], tree.states[tree.children[tree.children[outcome][0]][0]]]
    policy_moves.update(pure=0, compiled=0)  # (the first search above counts too)
    both(make, states, compiled_runs, invariants=False)
    assert policy_moves["pure"] > 500
    assert policy_moves["compiled"] == 0  # every rollout move chosen in C


@pytest.mark.parametrize(
    "env_id, kwargs, loss_reward",
    [
        ("FrozenLake-v1", {"is_slippery": True}, 0.0),
        ("FrozenLake-v1", {"is_slippery": True, "map_name": "8x8"}, 0.0),
        ("CliffWalking-v1", {"is_slippery": True}, 0.0),
        ("CliffWalking-v1", {"is_slippery": True}, -50.0),
    ],
)
@pytest.mark.parametrize("limit, gamma", [(1, 1.0), (7, 0.9), (200, 0.99)])
def test_the_cautious_table_rollout_is_the_search_s_own(env_id, kwargs, loss_reward, limit, gamma):
    model, start = toy_text(env_id, **kwargs)
    capsule = model.native_chance_for(CautiousRolloutPolicy(model, loss_reward=loss_reward))
    assert capsule is not None
    with pure_python():
        policy = CautiousRolloutPolicy(model, loss_reward=loss_reward)
        planner = MCTS(model, iterations=1, rollout_limit=limit, gamma=gamma, rollout_policy=policy)
    _, rollout = planner._rollouts()
    states = [result.next_state for _, result in model.outcomes(start, 1)]
    states += [result.next_state for _, result in model.outcomes(states[-1], 2)]
    states = [state for state in states if state.actions]
    # The last counted step (its safe actions are others: every outcome ends) and a few before.
    states += [state._replace(steps_left=steps) for state in states for steps in (1, 2)]
    for seed in range(30):
        state = states[seed % len(states)]
        planner.rng.seed(seed)
        expected = rollout(state, state.actions, 0)
        mine = random.Random(seed)
        got = CORE.call_chance_rollout(capsule, state, mine, limit, gamma)
        assert got.hex() == expected.hex()
        assert mine.getstate() == planner.rng.getstate()


def test_the_cautious_capsule_is_made_once_per_policy_and_loss():
    model, start = toy_text("FrozenLake-v1", is_slippery=True)
    policy = CautiousRolloutPolicy(model)
    # Cell 6 (row 1, column 2), holes left (5) and right (7): left and right slip into one of
    # them 1/3 of the time (a move slips to either side of its direction), down and up 2/3.
    cell_6 = start._replace(snapshot=(6, 1), observation=6)
    assert policy.least_risky(cell_6, cell_6.actions) == (0, 2)
    capsule = model.native_chance_for(policy)
    assert model.native_chance_for(policy) is capsule
    assert model.native_chance_for(CautiousRolloutPolicy(model)) is not capsule
    policy.loss_reward = -1.0
    assert model.native_chance_for(policy) is not capsule


class OwnCautious(CautiousRolloutPolicy):
    pass


def test_other_policies_keep_the_python_rollout(compiled_runs, policy_moves):
    model, state = toy_text("FrozenLake-v1", is_slippery=True)
    other_model, _ = toy_text("FrozenLake-v1", is_slippery=True)
    policies = [OwnCautious(model), CautiousRolloutPolicy(other_model)]
    for policy in policies:
        assert model.native_chance_for(policy) is None
        policy_moves.update(pure=0, compiled=0)
        both(
            lambda p=policy: MCTS(model, iterations=100, seed=4, rollout_policy=p),
            [state],
            compiled_runs,
        )
        assert policy_moves["compiled"] == policy_moves["pure"] > 100
    assert model.native_chance_for(lambda state, actions, rng: actions[0]) is None


def test_a_state_whose_actions_are_not_its_cell_s_is_left_to_python():
    model, state = toy_text("FrozenLake-v1", is_slippery=True, map_name="8x8")
    capsule = model.native_chance_for(CautiousRolloutPolicy(model))
    later = next(r.next_state for _, r in model.outcomes(state, 2) if r.next_state.actions)
    rng = random.Random(0)
    before = rng.getstate()
    assert CORE.call_chance_rollout(capsule, later._replace(actions=(0, 1)), rng, 10, 1.0) is None
    assert rng.getstate() == before
    assert CORE.call_chance_rollout(capsule, later, rng, 10, 1.0) is not None


def test_malformed_choices_are_refused():
    from mcts_agent.adapters.gymnasium.model import GymnasiumState
    from mcts_agent.model import StepResult

    table = [[((1.0, 0, 0.0, False),), ((1.0, 1, 1.0, True),)], [((1.0, 1, 0.0, True),)] * 2]
    legal = [(0, 1), ()]
    good = [[(1,), ()], [(0, 1), ()]]
    assert CORE.table_rollout(table, legal, GymnasiumState, StepResult, good) is not None
    for choices in (
        [[(1,), ()]],
        [[(), ()], [(0,), ()]],
        [[(2,), ()], [(0,), ()]],
        [[(1,), (0,)], [(0,), ()]],
        [[[1], ()], [(0,), ()]],
    ):
        with pytest.raises(ValueError, match="choices must be None or a list of two lists"):
            CORE.table_rollout(table, legal, GymnasiumState, StepResult, choices)
