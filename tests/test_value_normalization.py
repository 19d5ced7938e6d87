"""Value normalisation (``value_normalization=True``): MuZero's min-max statistics.

Selection reads ``Qn = (Q - lo) / (hi - lo)`` in place of Q, lo and hi the
smallest and largest node values met in the current search's backups; the
tree, the summary and the move played keep the plain values.
"""

from __future__ import annotations

import math

import pytest
from chance_games import ChanceGame, check_invariants
from hypothesis import given, settings
from hypothesis import strategies as st
from scripted_games import ScriptedGame, games, nested, plain_configs
from test_compiled import HashedPriors, assert_same_on_both, guided_snapshot
from test_guided_search import forced_general

from mcts_agent import MCTS, Evaluation, StepResult, compiled
from mcts_agent.cli import main
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.pig import PigModel
from mcts_agent.envs.three_in_a_row import ThreeInARowModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel, parse_board
from mcts_agent.tree import ROOT

C = 2 * math.sqrt(2)
needs_core = pytest.mark.skipif(compiled._core is None, reason="the compiled core is not built")


class Scaled:
    """``model`` with every reward multiplied by ``factor`` (a mapping's too; outcomes' too).

    Only ``actions``, ``player``, ``step`` or ``outcomes`` and ``reward_players``
    are passed on: rollouts are the search's generic ones, for every factor.
    """

    def __init__(self, model, factor):
        self.model = model
        self.factor = factor
        if getattr(model, "reward_players", None) is not None:
            self.reward_players = model.reward_players
        if callable(getattr(model, "outcomes", None)):
            self.outcomes = self._outcomes
        else:
            self.step = self._step

    def actions(self, state):
        return self.model.actions(state)

    def player(self, state):
        return self.model.player(state)

    def _scaled(self, result):
        reward = result.reward
        if isinstance(reward, dict):
            reward = {p: self.factor * r for p, r in reward.items()}
        else:
            reward = self.factor * reward
        return StepResult(result.next_state, reward, result.terminated)

    def _step(self, state, action):
        return self._scaled(self.model.step(state, action))

    def _outcomes(self, state, action):
        return [(p, self._scaled(result)) for p, result in self.model.outcomes(state, action)]


def two_arms():
    """One player; a pays 3 and ends the game, b pays -1 and ends it."""
    return ScriptedGame({"": (0, {"a": ("A", 3.0, True), "b": ("B", -1.0, True)})})


def visits(planner):
    return list(planner.tree.visits)


# ------------------------------------------------------------------ a hand-worked tree


def test_a_hand_worked_tree_where_normalisation_turns_selection():
    # Iteration 1 expands a (Q = 3): lo = hi = 3, so Qn = Q. Iteration 2 expands b
    # (Q = -1): lo = -1, hi = 3, so Qn(a) = (3 + 1) / 4 = 1 and Qn(b) = 0. With c = 2:
    #   N = 2: a 1 + 2 sqrt(ln 2 / 1) = 2.665  b 0 + 2 sqrt(ln 2) = 1.665  -> a
    #   N = 3: a 1 + 2 sqrt(ln 3 / 2) = 2.482  b 2 sqrt(ln 3) = 2.096      -> a
    #   N = 4: a 1 + 2 sqrt(ln 4 / 3) = 2.360  b 2 sqrt(ln 4) = 2.355      -> a
    #   N = 5: a 1 + 2 sqrt(ln 5 / 4) = 2.269  b 2 sqrt(ln 5) = 2.537      -> b
    # so after 6 iterations a has N = 4, b N = 2. Plain UCT scores a 3 + ... and b
    # -1 + 2 sqrt(ln N), which stays below a's until N is in the hundreds: a N = 5, b N = 1.
    normalised = MCTS(two_arms(), 6, exploration=2.0, seed=0, value_normalization=True)
    normalised.search("")
    plain = MCTS(two_arms(), 6, exploration=2.0, seed=0)
    plain.search("")
    assert normalised.summary().visit_counts == (4, 2)
    assert plain.summary().visit_counts == (5, 1)
    summary = normalised.summary()
    assert summary.value_range == (-1.0, 3.0)
    assert summary.values == (3.0, -1.0)  # the tree's values are not normalised
    assert plain.summary().value_range is None
    assert "values normalised by the range [-1, +3] met in the backups" in str(summary)
    assert "value_range" not in repr(summary)


def test_a_hand_worked_puct_tree_where_normalisation_turns_selection():
    # PUCT, priors (0.4, 0.6), c = 2, unvisited_value = 0 (taken as normalised). Scores
    # Qn + 2 P sqrt(max(N, 1)) / (1 + N(a)):
    #   N = 0: a (untried) 0.8          b (untried) 1.2          -> b: Q(b) = -1, lo = hi = -1
    #   N = 1: a (untried) 0.8          b -1 + 1.2 / 2 = -0.4    -> a: Q(a) = 3, lo = -1, hi = 3
    # then Qn(a) = 1, Qn(b) = 0:
    #   N = 2: a 1 + 0.8 sqrt(2) / 2 = 1.566   b 1.2 sqrt(2) / 2 = 0.849  -> a
    #   N = 3: a 1 + 0.8 sqrt(3) / 3 = 1.462   b 1.2 sqrt(3) / 2 = 1.039  -> a
    #   N = 4: a 1 + 0.8 * 2 / 4 = 1.400       b 1.2 * 2 / 2 = 1.200      -> a
    #   N = 5: a 1 + 0.8 sqrt(5) / 5 = 1.358   b 1.2 sqrt(5) / 2 = 1.342  -> a
    #   N = 6: a 1 + 0.8 sqrt(6) / 6 = 1.327   b 1.2 sqrt(6) / 2 = 1.470  -> b
    # so after 7 iterations a has N = 5, b N = 2. Unnormalised, a scores 3 + ... and b
    # -1 + 1.2 sqrt(N) / 2, below a's until N > 44: a N = 6, b N = 1.
    def evaluator(state, actions):
        return Evaluation(None, [0.4, 0.6])

    config = {"selection": "puct", "exploration": 2.0, "evaluator": evaluator}
    normalised = MCTS(two_arms(), 7, value_normalization=True, **config)
    normalised.search("")
    plain = MCTS(two_arms(), 7, **config)
    plain.search("")
    assert normalised.summary().visit_counts == (5, 2)
    assert plain.summary().visit_counts == (6, 1)
    assert normalised.summary().value_range == (-1.0, 3.0)


def test_puct_takes_the_unvisited_value_as_already_normalised():
    # Arms a (3), b (-1), d (1), priors (0.2, 0.6, 0.2), c = 1, unvisited_value = 1 (the
    # top of the normalised scale). N = 0: untried 1 + P: b (1.6) first: lo = hi = -1.
    # N = 1: b -1 + 0.6 / 2 = -0.7, a 1 + 0.2 = 1.2 -> a: lo = -1, hi = 3. N = 2:
    # a (3 + 1) / 4 + 0.2 sqrt(2) / 2 = 1.141, b 0 + 0.6 sqrt(2) / 2 = 0.424, d (untried)
    # 1 + 0.2 sqrt(2) = 1.283 -> d. Were 1 normalised, (1 + 1) / 4 + 0.283 = 0.783 -> a.
    model = ScriptedGame(
        {"": (0, {"a": ("A", 3.0, True), "b": ("B", -1.0, True), "d": ("D", 1.0, True)})}
    )

    def evaluator(state, actions):
        return Evaluation(None, [0.2, 0.6, 0.2])

    planner = MCTS(
        model,
        3,
        selection="puct",
        exploration=1.0,
        evaluator=evaluator,
        unvisited_value=1.0,
        value_normalization=True,
    )
    planner.search("")
    assert planner.summary().visit_counts == (1, 1, 1)


# ------------------------------------------------------------------ off: unchanged


@pytest.mark.parametrize(
    "config",
    [{}, {"selection": "puct"}, {"solve": True}, {"leaf_batch": 4}],
    ids=["uct", "puct", "solve", "leaf_batch"],
)
def test_off_is_the_tree_of_a_planner_without_the_option(config):
    absent = MCTS(TicTacToeModel(), 500, exploration=C, seed=3, **config)
    absent.search(EMPTY_BOARD)
    off = MCTS(TicTacToeModel(), 500, exploration=C, seed=3, value_normalization=False, **config)
    off.search(EMPTY_BOARD)
    assert nested(off.tree) == nested(absent.tree)
    assert off.summary().value_range is None
    assert off.rng.getstate() == absent.rng.getstate()


def test_the_option_must_be_a_bool():
    with pytest.raises(TypeError, match="value_normalization must be a bool, got 1"):
        MCTS(TicTacToeModel(), 10, value_normalization=1)


# ------------------------------------------------------------------ scale invariance

SCALE_CASES = [
    pytest.param(TicTacToeModel(), EMPTY_BOARD, {}, id="tictactoe-uct"),
    pytest.param(TicTacToeModel(), EMPTY_BOARD, {"gamma": 0.9}, id="tictactoe-uct-gamma"),
    pytest.param(TicTacToeModel(), EMPTY_BOARD, {"selection": "puct"}, id="tictactoe-puct"),
    pytest.param(TicTacToeModel(), parse_board("X.O.O...X"), {"solve": True}, id="ttt-solve"),
    pytest.param(
        TicTacToeModel(),
        parse_board("X.O.O...X"),
        {"solve": True, "selection": "puct"},
        id="ttt-solve-puct",
    ),
    # (virtual_loss = 0: a virtual loss of 1 is not scaled with the rewards)
    pytest.param(
        TicTacToeModel(),
        EMPTY_BOARD,
        {"leaf_batch": 8, "virtual_loss": 0.0, "selection": "puct"},
        id="ttt-leaf-batch",
    ),
    pytest.param(PigModel(goal=12), PigModel(goal=12).initial_state(), {}, id="pig-chance"),
    pytest.param(
        ThreeInARowModel(), ThreeInARowModel().initial_state, {}, id="three-in-a-row-maxn"
    ),
]


@pytest.mark.parametrize("model, state, config", SCALE_CASES)
def test_rewards_times_1024_give_the_very_same_tree(model, state, config):
    # A power of two scales every sum and quotient exactly, so every Qn is the same float.
    trees = []
    for factor in (1.0, 1024.0):
        planner = MCTS(
            Scaled(model, factor), 400, exploration=1.0, seed=5, value_normalization=True, **config
        )
        planner.search(state)
        trees.append(planner)
    assert visits(trees[1]) == visits(trees[0])
    lo, hi = trees[0].summary().value_range
    assert trees[1].summary().value_range == (1024 * lo, 1024 * hi)
    assert list(trees[1].tree.values) == [1024 * q for q in trees[0].tree.values]
    # Without normalisation c is not scale-free: the trees differ.
    plain = [
        MCTS(Scaled(model, factor), 400, exploration=1.0, seed=5, **config)
        for factor in (1.0, 1024.0)
    ]
    for planner in plain:
        planner.search(state)
    assert visits(plain[1]) != visits(plain[0])


@pytest.mark.parametrize(
    "board, right",
    [("XX.OO....", 2), ("X.O.O...X", 6), ("XX..O....", 2), ("XX.OO...X", 5)],
)
def test_rewards_times_1000_find_the_same_moves(board, right):
    state = parse_board(board)
    for selection in ("uct", "puct"):
        for factor in (1.0, 1000.0):
            planner = MCTS(
                Scaled(TicTacToeModel(), factor),
                300,
                exploration=1.0,
                seed=7,
                selection=selection,
                value_normalization=True,
            )
            assert planner(state) == right, (selection, factor)


# ------------------------------------------------------------------ the loops agree


@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_the_general_loop_with_only_normalisation_builds_the_plain_tree(gamma):
    config = {"iterations": 1500, "exploration": C, "gamma": gamma, "seed": 1}
    plain = MCTS(TicTacToeModel(), value_normalization=True, **config)
    plain.search(EMPTY_BOARD)
    general = forced_general(MCTS(TicTacToeModel(), value_normalization=True, **config))
    general.search(EMPTY_BOARD)
    assert not plain._general
    assert nested(general.tree) == nested(plain.tree)
    assert general.summary().value_range == plain.summary().value_range
    assert general.rng.getstate() == plain.rng.getstate()
    unnormalised = MCTS(TicTacToeModel(), **config)
    unnormalised.search(EMPTY_BOARD)
    assert nested(unnormalised.tree) != nested(plain.tree)  # the option did something


@settings(max_examples=40, deadline=None)
@given(game=games, config=plain_configs)
def test_the_general_loop_builds_the_plain_tree_on_random_games(game, config):
    plain = MCTS(game, value_normalization=True, **config)
    plain.search("")
    general = forced_general(MCTS(game, value_normalization=True, **config))
    general.search("")
    assert nested(general.tree) == nested(plain.tree)
    assert general.summary().value_range == plain.summary().value_range


def test_chunks_continue_the_same_statistics():
    # on_iteration runs one iteration per chunk: lo and hi must carry from chunk to chunk.
    for config in ({}, {"selection": "puct"}):
        whole = MCTS(TicTacToeModel(), 600, exploration=C, seed=2, value_normalization=True)
        whole.search(EMPTY_BOARD)
        chunked = MCTS(
            TicTacToeModel(),
            600,
            exploration=C,
            seed=2,
            value_normalization=True,
            on_iteration=lambda planner, i: None,
        )
        chunked.search(EMPTY_BOARD)
        assert nested(chunked.tree) == nested(whole.tree), config


def test_every_search_starts_new_statistics_with_tree_reuse_too():
    # "" -> go (reward 100) -> "s", whose arms pay 3 and -1. The first search meets b's -1
    # and the value of "s" (above 100). The second, from "s" with its subtree reused,
    # starts from lo = hi: Qn = Q, and a (3) beats b (-1 + sqrt(2 ln N / N(b))) all along,
    # so it backs up through a only: its range is (3, 3).
    model = ScriptedGame(
        {
            "": (0, {"go": ("s", 100.0, False)}),
            "s": (0, {"a": ("A", 3.0, True), "b": ("B", -1.0, True)}),
        }
    )
    planner = MCTS(model, 20, seed=0, value_normalization=True, reuse_tree=True)
    planner.search("")
    lo, hi = planner.summary().value_range
    assert lo == -1.0 and hi > 100.0
    planner.search("s")
    assert planner.summary().reused_visits == 20
    assert planner.summary().value_range == (3.0, 3.0)


# ------------------------------------------------------------------ value_range is the truth


def values_met(model, state, iterations):
    """(lo, hi) of every non-root node value seen after each iteration (one per chunk)."""
    seen = []

    def record(planner, i):
        tree = planner.tree
        seen.extend(tree.values[n] for n in range(1, len(tree)) if tree.visits[n])

    planner = MCTS(model, iterations, exploration=C, seed=0, value_normalization=True)
    planner.on_iteration = record
    planner.search(state)
    return min(seen), max(seen)


@pytest.mark.parametrize(
    "model, state",
    [
        pytest.param(TicTacToeModel(), EMPTY_BOARD, id="tictactoe"),
        pytest.param(PigModel(goal=12), PigModel(goal=12).initial_state(), id="pig-chance"),
        pytest.param(ThreeInARowModel(), ThreeInARowModel().initial_state, id="maxn"),
    ],
)
def test_the_value_range_is_the_smallest_and_largest_value_met(model, state):
    planner = MCTS(model, 200, exploration=C, seed=0, value_normalization=True)
    planner.search(state)
    assert planner.summary().value_range == values_met(model, state, 200)


def test_a_chance_model_searches_with_normalisation_and_keeps_the_invariants():
    # Player 1 picks safe (+1) or gamble: +5 or -5 with probability 1/2 each, then the end.
    table = {
        "": (
            1,
            {
                "safe": [(1.0, "s", 1.0, True)],
                "gamble": [(0.5, "w", 5.0, True), (0.5, "l", -5.0, True)],
            },
        )
    }
    planner = MCTS(ChanceGame(table), 300, exploration=1.0, seed=4, value_normalization=True)
    planner.search("")
    check_invariants(planner.tree)
    assert planner.tree.visits[ROOT] == 300
    lo, hi = planner.summary().value_range
    assert lo == -5.0 and hi == 5.0  # the outcome nodes' values (chance nodes' between)
    assert planner.best_action() == "safe"


# ------------------------------------------------------------------ compiled = pure


@needs_core
@pytest.mark.parametrize("gamma", [1.0, 0.9])
@pytest.mark.parametrize("searches", [1, 3])
def test_the_compiled_plain_loop_builds_the_pure_trees(gamma, searches):
    planner = assert_same_on_both(
        TicTacToeModel(),
        EMPTY_BOARD,
        searches=searches,
        iterations=1500,
        exploration=C,
        gamma=gamma,
        seed=11,
        value_normalization=True,
        reuse_tree=searches > 1,
    )
    assert planner.summary().value_range is not None


@needs_core
@settings(max_examples=40, deadline=None)
@given(game=games, config=plain_configs, time_limited=st.booleans())
def test_the_compiled_plain_loop_builds_the_pure_trees_on_random_games(game, config, time_limited):
    if time_limited:  # chunks of one iteration: the statistics carried between them
        config = {**config, "on_iteration": lambda planner, i: None}
    assert_same_on_both(game, "", value_normalization=True, **config)


@needs_core
@pytest.mark.parametrize(
    "config",
    [
        {"evaluator": HashedPriors()},
        {"evaluator": HashedPriors(value=False)},
        {"evaluator": HashedPriors(close=True)},  # off PUCT's fast path: the Python rule
        {"evaluator": HashedPriors(), "reuse_tree": True, "gamma": 0.9},
        {"selection": "uct"},  # selection in Python, the backup in C
    ],
    ids=["priors", "rollouts", "close", "reuse", "uct"],
)
def test_leaf_batching_builds_the_same_trees_on_both_backends(config):
    config = {
        "iterations": 1000,
        "exploration": 2.0,
        "selection": "puct",
        "leaf_batch": 8,
        "virtual_loss": 0.0,  # a virtual loss is not scale-free: refused with the option
        "seed": 4,
        "value_normalization": True,
        **config,
    }
    model = ConnectFourModel()
    with compiled.pure_python():
        reference = MCTS(model, **config)
    planner = MCTS(model, **config)
    for state in (C4_START, model.step(C4_START, 3).next_state):
        with compiled.pure_python():
            reference.search(state)
        planner.search(state)
        assert guided_snapshot(planner) == guided_snapshot(reference)
        assert planner.summary().value_range == reference.summary().value_range


# ------------------------------------------------------------------ workers, the command line


def test_the_merged_range_of_workers_is_the_union_of_theirs():
    from mcts_agent.parallel import value_range

    class Summary:
        def __init__(self, value_range):
            self.value_range = value_range

    assert value_range([Summary((-1.0, 0.5)), Summary((-0.5, 2.0))]) == (-1.0, 2.0)
    assert value_range([Summary(None), Summary(None)]) is None


def test_the_command_line_takes_the_option(capsys):
    argv = ["search", "--iterations", "50", "--options", "value_normalization=true"]
    assert main(argv) == 0
    assert "values normalised by the range [-1, +1] met in the backups" in capsys.readouterr().out


def test_workers_report_the_union_of_their_ranges():
    with MCTS(TicTacToeModel(), 200, seed=0, workers=2, value_normalization=True) as planner:
        planner.search(parse_board("X.O.O...X"))
        summaries = planner.worker_summaries
        merged = planner.summary().value_range
    lo = min(summary.value_range[0] for summary in summaries)
    hi = max(summary.value_range[1] for summary in summaries)
    assert merged == (lo, hi) and lo < hi


def test_the_agent_passes_the_option_and_the_range_through():
    import gymnasium

    from mcts_agent import MCTSAgent

    env = gymnasium.make("CliffWalking-v1")  # rewards -1 a step, -100 off the cliff
    env.reset(seed=0)
    agent = MCTSAgent(iterations=100, rollout_limit=20, seed=0, value_normalization=True)
    agent.act(env)
    assert agent.last_planner.value_normalization
    assert agent.last_summary.value_range == agent.last_planner.summary().value_range
    assert agent.last_summary.value_range[0] < -1.0


def test_a_virtual_loss_with_normalised_values_is_refused():
    # A virtual loss is in reward units: with returns of 1e-6 it swamped Q and played the worst
    # move; the combination is refused with its cause, and virtual_loss=0.0 is accepted.
    with pytest.raises(ValueError, match="virtual loss .* is in reward units"):
        MCTS(ConnectFourModel(), 10, leaf_batch=4, value_normalization=True)
    MCTS(ConnectFourModel(), 10, leaf_batch=4, virtual_loss=0.0, value_normalization=True)


def test_the_summary_says_when_nothing_was_normalised():
    # One backup meets one value: hi == lo, so Qn = Q; the summary must not claim a range.
    planner = MCTS(TicTacToeModel(), 1, value_normalization=True, seed=0)
    planner.search(EMPTY_BOARD)
    lo, hi = planner.summary().value_range
    assert lo == hi
    text = str(planner.summary())
    assert "values not normalised: every value met in the backups was" in text
    assert "normalised by the range" not in text
