"""The search's behaviour, checked against the specification's worked examples and rules."""

from __future__ import annotations

import collections
import math
import random
import re
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scripted_games import (
    ReferenceUCT,
    ScriptedGame,
    assert_same_tree,
    child_of,
    games,
    nested,
    nested_reference,
)

from mcts_agent import MCTS, UNVISITED, Evaluation, StepResult
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.summary import format_seconds

pytestmark = pytest.mark.usefixtures("each_backend")  # both search backends

# ---------------------------------------------------------------- the worked examples


def test_one_move_game_backs_up_the_terminal_reward():
    game = ScriptedGame({"s": (0, {"a": ("end", 1.0, True)})})
    planner = MCTS(game, iterations=3, seed=0)
    assert planner("s") == "a"
    root, child = planner.tree[0], child_of(planner, "a")
    assert (root.visits, child.visits, child.value_sum, child.value) == (3, 3, 3.0, 1.0)


SIGN_GAME = {
    "root": (1, {"a": ("A", 0.0, False), "b": ("B", 0.5, True)}),
    "A": (2, {"x": ("A_end", 1.0, True)}),
}


@pytest.mark.parametrize("seed", range(5))
def test_two_players_values_are_from_the_movers_point_of_view(seed):
    planner = MCTS(ScriptedGame(SIGN_GAME), iterations=2, seed=seed)
    planner.search("root")
    a, b = child_of(planner, "a"), child_of(planner, "b")
    assert (a.visits, a.value, b.visits, b.value) == (1, -1.0, 1, 0.5)

    planner = MCTS(ScriptedGame(SIGN_GAME), iterations=50, seed=seed)
    assert planner("root") == "b"
    a, b = child_of(planner, "a"), child_of(planner, "b")
    a_child = planner.tree[a.children[0]]
    assert (a.visits, a.value, a_child.visits, a_child.value, b.visits) == (3, -1.0, 2, 1.0, 47)


MOST_VISITED_GAME = {
    "root": (0, {"a": ("A", 0.5, False), "b": ("B", 0.0, False)}),
    "A": (0, {"f": ("A_end", 0.0, True)}),
    "B": (0, {"f": ("B_end", 1.0, True)}),
}


def test_the_move_played_is_the_most_visited_then_the_higher_value():
    planner = MCTS(ScriptedGame(MOST_VISITED_GAME), 7, exploration=1.0, rollout_limit=0)
    assert planner("root") == "a"
    a, b = child_of(planner, "a"), child_of(planner, "b")
    assert (a.visits, a.value_sum, b.visits, b.value_sum) == (4, 2.0, 3, 2.0)
    assert b.value > a.value

    planner = MCTS(ScriptedGame(MOST_VISITED_GAME), 8, exploration=1.0, rollout_limit=0)
    assert planner("root") == "b"
    a, b = child_of(planner, "a"), child_of(planner, "b")
    assert (a.visits, b.visits, b.value) == (4, 4, 0.75)


CHAIN = {
    "s0": (0, {"f": ("s1", 0.0, False)}),
    "s1": (0, {"f": ("s2", 0.0, False)}),
    "s2": (0, {"f": ("end", 1.0, True)}),
}


@pytest.mark.parametrize(
    "rollout_limit, values", [(1000, (0.81, 0.9, 1.0)), (0, (0.648, 0.8, 1.0))]
)
def test_discounting_along_a_forced_chain(rollout_limit, values):
    planner = MCTS(ScriptedGame(CHAIN), 10, gamma=0.9, rollout_limit=rollout_limit, seed=3)
    planner.search("s0")
    chain = [child_of(planner, "f")]
    for _ in range(2):
        chain.append(planner.tree[chain[-1].children[0]])
    assert [node.visits for node in chain] == [10, 9, 8]
    assert [node.value for node in chain] == pytest.approx(values, abs=1e-12)


# ---------------------------------------------------------------- faults others shipped


def test_rewards_inside_the_tree_are_signed_per_player():
    # Player 1's a earns +1, then player 2's only move earns player 2 +3: a is worth -2.
    game = ScriptedGame(
        {
            "root": (1, {"a": ("A", 1.0, False), "b": ("B", 0.0, True)}),
            "A": (2, {"x": ("A_end", 3.0, True)}),
        }
    )
    planner = MCTS(game, 100, seed=0)
    assert planner("root") == "b"
    assert child_of(planner, "a").value == -2.0


def test_the_sign_does_not_flip_when_the_same_player_moves_again():
    game = ScriptedGame(
        {
            "root": (1, {"a": ("A", 0.0, False), "b": ("B", 0.0, False)}),
            "A": (1, {"win": ("A_win", 1.0, True), "lose": ("A_lose", -1.0, True)}),
            "B": (2, {"x": ("B_end", 0.5, True)}),
        }
    )
    planner = MCTS(game, 200, seed=0)
    assert planner("root") == "a"
    assert child_of(planner, "b").value == -0.5
    assert child_of(planner, "a").value > 0.5


def test_a_finished_root_is_an_error_and_the_model_is_not_stepped():
    game = ScriptedGame({"root": (1, {"a": ("end", 1.0, True)})})
    planner = MCTS(game, 10, seed=0)
    with pytest.raises(ValueError, match="no legal actions"):
        planner.search("end_of_nothing")
    assert game.calls["step"] == 0
    with pytest.raises(RuntimeError, match="no search has run"):
        planner.best_action()


def test_endless_rollouts_stop_at_the_limit_without_recursion():
    class PassForever:
        def actions(self, state):
            return ("pass",)

        def player(self, state):
            return 1 + state % 2

        def step(self, state, action):
            return StepResult(state + 1, 0.0, False)

    planner = MCTS(PassForever(), 5000, rollout_limit=5, seed=0)
    assert planner(0) == "pass"
    assert len(planner.tree) == 5001
    assert planner.tree[1].value == 0.0


def test_expansion_never_changes_a_list_based_state():
    class ListTicTacToe:
        """Tic-tac-toe on a list of 9 cells; step copies the list."""

        def actions(self, board):
            return tuple(i for i, cell in enumerate(board) if cell == 0)

        def player(self, board):
            return 1 if board.count(1) == board.count(2) else 2

        def step(self, board, action):
            board = list(board)
            board[action] = self.player(board)
            return StepResult(board, 0.0, False)

    empty = [0] * 9
    planner = MCTS(ListTicTacToe(), 200, rollout_limit=0, seed=0)
    planner.search(empty)
    root = planner.tree[0]
    assert root.state == [0] * 9 and empty == [0] * 9
    for action, child in zip(root.actions, root.children, strict=True):
        marks = planner.tree[child].state
        assert [i for i, cell in enumerate(marks) if cell] == [action]


# ---------------------------------------------------------------- parameters and errors


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"iterations": 0}, ValueError, "iterations must be >= 1, got 0"),
        ({"iterations": 2.5}, TypeError, "iterations must be an int"),
        ({"iterations": 5, "exploration": -1}, ValueError, "exploration must be"),
        ({"iterations": 5, "exploration": math.inf}, ValueError, "exploration must be"),
        ({"iterations": 5, "gamma": 1.5}, ValueError, r"gamma must be .* in \[0.0, 1.0\], got 1.5"),
        ({"iterations": 5, "exploration": "sqrt(2)"}, TypeError, "exploration must be a real"),
        ({"iterations": 5, "gamma": None}, TypeError, "gamma must be a real number, got None"),
        ({"iterations": 5, "rollout_limit": -1}, ValueError, "rollout_limit must be >= 0"),
        ({"iterations": 5, "seed": "x"}, TypeError, "seed must be an int or None"),
        ({"iterations": 5, "rollout_policy": 3}, TypeError, "rollout_policy must be a callable"),
    ],
)
def test_bad_parameters_are_rejected_with_what_was_expected(kwargs, error, message):
    with pytest.raises(error, match=message):
        MCTS(ScriptedGame(CHAIN), **kwargs)


def test_numpy_numbers_are_accepted():
    planner = MCTS(ScriptedGame(CHAIN), np.int64(5), exploration=np.float32(1), seed=np.int64(3))
    assert (planner.iterations, planner.seed) == (5, 3)
    assert type(planner.iterations) is int and type(planner.exploration) is float


def test_a_model_without_the_protocol_is_rejected():
    with pytest.raises(TypeError, match="has no player"):
        MCTS(type("NoPlayer", (), {"actions": lambda s, x: (), "step": lambda s, x, a: None})(), 1)


def test_a_failing_model_keeps_the_previous_tree():
    class Exploding:
        def __init__(self):
            self.armed = False

        def actions(self, state):
            return (0, 1)

        def player(self, state):
            return 1

        def step(self, state, action):
            if self.armed:
                raise RuntimeError("boom")
            return StepResult(state + 1, 0.0, True)

    model = Exploding()
    planner = MCTS(model, 5, seed=0)
    planner.search(0)
    before = list(planner.tree)
    model.armed = True
    with pytest.raises(RuntimeError, match="boom"):
        planner.search(10)
    assert list(planner.tree) == before


@pytest.mark.parametrize("error", [ValueError("no such move"), TypeError("bad argument")])
def test_the_models_own_errors_from_step_propagate_unchanged(error):
    # The search catches TypeError and ValueError around step to name a result of the
    # wrong shape; an error the model raises itself must come out as it was.
    class Refuses(Countdown):
        def step(self, state, action):
            if state < 6:
                raise error
            return super().step(state, action)

    with pytest.raises(type(error), match=str(error)) as raised:
        MCTS(Refuses(), 10, rollout_limit=0, seed=0).search(6)
    assert raised.value is error


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are Python >= 3.11")
def test_a_model_error_during_the_search_points_to_check_model():
    class TwoFieldStep:
        def actions(self, state):
            return (0, 1)

        def player(self, state):
            return 1

        def step(self, state, action):
            return (state + 1, 0.0)  # no terminated flag

    with pytest.raises(TypeError, match=r"step\(0, 0\) returned \(1, 0.0\)") as raised:
        MCTS(TwoFieldStep(), 10, seed=0).search(0)
    assert "check_model" in " ".join(raised.value.__notes__)


def test_a_rollout_policy_is_used_and_checked():
    game = ScriptedGame(
        {
            "root": (0, {"a": ("A", 0.0, False)}),
            "A": (0, {"good": ("G", 1.0, True), "bad": ("B", 0.0, True)}),
        }
    )
    always_good = MCTS(game, 1, rollout_policy=lambda state, actions, rng: "good", seed=0)
    always_good.search("root")
    assert child_of(always_good, "a").value == 1.0

    broken = MCTS(game, 1, rollout_policy=lambda state, actions, rng: "teleport", seed=0)
    with pytest.raises(ValueError, match="'teleport', which is not one of the legal actions"):
        broken.search("root")


def test_summary_reports_each_root_action():
    planner = MCTS(ScriptedGame(MOST_VISITED_GAME), 7, exploration=1.0, rollout_limit=0)
    planner.search("root")
    summary = planner.summary()
    assert summary.actions == ("a", "b")
    assert summary.visit_counts == (4, 3)
    assert summary.values == pytest.approx((0.5, 2 / 3))
    assert summary.action == "a"


def test_untried_actions_are_reported_as_unvisited():
    planner = MCTS(ScriptedGame(MOST_VISITED_GAME), 1, rollout_limit=0)
    planner.search("root")
    assert planner.tree[0].children == (1, UNVISITED)
    assert planner.summary().visit_counts == (1, 0)
    assert math.isnan(planner.summary().values[1])


def _x_wins_at_2():
    """Tic-tac-toe after X 0, O 3, X 1, O 4: X to move, and cell 2 wins at once."""
    model, state = TicTacToeModel(), EMPTY_BOARD
    for cell in (0, 3, 1, 4):
        state, _, _ = model.step(state, cell)
    return model, state


def test_str_of_a_summary_is_the_table_the_cli_prints():
    # Hand-checked: the first untried action is 2 (legal: 2 5 6 7 8); it wins at once, so
    # the solver proves it +1 in the first iteration and the root with it: 1 visit, 2 nodes.
    model, state = _x_wins_at_2()
    planner = MCTS(model, 1000, seed=0, solve=True, value_bounds=(-1.0, 1.0))
    assert planner(state) == 2
    summary = planner.summary()
    assert summary.principal_variation == (2,)
    lines = str(summary).splitlines()
    assert lines[:7] == [
        "visits and value for player 1 of each move:",
        "move  visits   share   value  proven",
        "2          1  100.0%  +1.000      +1",
        "5          0    0.0%       -       -",
        "6          0    0.0%       -       -",
        "7          0    0.0%       -       -",
        "8          0    0.0%       -       -",
    ]
    assert lines[7] == "principal variation: 2"
    assert re.fullmatch(
        r"1 iteration in \S+ s \([\d,.]+ iterations/s\), 2 nodes, stopped on solved; "
        r"proven value \+1",
        lines[8],
    )
    assert "0.000 s" not in lines[8] and len(lines) == 9


def test_str_of_a_summary_shows_the_priors_an_evaluator_gave():
    model, state = _x_wins_at_2()
    root = (0.5, 0.2, 0.1, 0.1, 0.1)  # of 2 5 6 7 8; uniform elsewhere

    def evaluator(position, actions):
        return Evaluation(0.0, root if position == state else [1.0] * len(actions))

    planner = MCTS(model, 40, seed=0, selection="puct", evaluator=evaluator)
    planner(state)
    summary = planner.summary()
    lines = str(summary).splitlines()
    assert lines[1].split() == ["move", "visits", "share", "value", "prior"]
    n = summary.visit_counts[0]
    assert lines[2].split() == ["2", str(n), f"{n / 40:.1%}", "+1.000", "0.500"]
    assert sorted(line.split()[-1] for line in lines[3:7]) == ["0.100", "0.100", "0.100", "0.200"]


def test_the_repr_of_a_summary_is_the_named_tuple_of_its_fourteen_fields():
    model, state = _x_wins_at_2()
    planner = MCTS(model, 30, seed=0)
    planner(state)
    summary = planner.summary()
    before = collections.namedtuple("SearchSummary", summary._fields[:-2])(*summary[:-2])
    assert repr(summary) == repr(before)  # as before principal_variation, value_range were added
    assert "principal_variation" not in repr(summary) and summary.principal_variation[0] == 2
    assert "value_range" not in repr(summary) and summary.value_range is None
    assert summary._replace(iterations=1).principal_variation == summary.principal_variation


@pytest.mark.parametrize(
    "seconds, text",
    [
        (0.0, "0 s"),
        (2.5e-05, "2.5e-05 s"),
        (0.000123456, "0.000123 s"),
        (0.0004, "0.0004 s"),
        (1.23456, "1.23 s"),
        (99.94, "99.9 s"),
        (1234.4, "1234 s"),
    ],
)
def test_format_seconds_keeps_three_significant_digits(seconds, text):
    assert format_seconds(seconds) == text


def test_format_seconds_refuses_what_is_not_a_number():
    with pytest.raises(TypeError, match="seconds must be a real number, got '1'"):
        format_seconds("1")


# ---------------------------------------------------------------- non-finite values


@pytest.mark.parametrize("rollout_limit", [0, 1000])
@pytest.mark.parametrize("reward", [math.nan, math.inf, -math.inf])
def test_a_non_finite_reward_in_the_tree_ends_the_search_naming_it(reward, rollout_limit):
    # Before: NaN > -inf is never true, so selection returned -1 (the last node): with
    # rollouts off the search looped for ever, with rollouts it failed with an IndexError.
    game = ScriptedGame(
        {
            "root": (1, {"a": ("A", reward, False)}),
            "A": (2, {"x": ("A_end", 0.0, True)}),
        }
    )
    message = rf"step\('root', 'a'\) returned the reward {reward}; expected a finite number"
    with pytest.raises(ValueError, match=message):
        MCTS(game, 100, rollout_limit=rollout_limit, seed=0).search("root")
    assert game.calls["step"] == (2 if rollout_limit else 1)  # at once: the first iteration


class FusedRollout:
    """Countdown with a fused rollout returning a given value."""

    def __init__(self, value):
        self.value = value

    def actions(self, state):
        return (1,) if state > 0 else ()

    def player(self, state):
        return 0

    def step(self, state, action):
        return StepResult(state - 1, 0.0, state == 1)

    def rollout(self, state, rng, limit, gamma):
        return self.value


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float64(math.nan)])
def test_a_rollout_with_a_non_finite_return_names_its_start_and_return(value):
    generic = ScriptedGame(
        {
            "root": (1, {"a": ("A", 0.0, False)}),
            "A": (1, {"x": ("B", 0.0, False)}),
            "B": (1, {"y": ("end", value, True)}),
        }
    )
    with pytest.raises(ValueError, match=rf"the rollout from state 'A' gave the return {value}"):
        MCTS(generic, 1, seed=0).search("root")
    with pytest.raises(ValueError, match=rf"the rollout from state 2 gave the return {value}"):
        MCTS(FusedRollout(value), 1, seed=0).search(3)


def test_a_fused_rollout_must_return_a_number():
    with pytest.raises(TypeError, match=r"rollout from state 2 returned '0.5' \(str\); expected"):
        MCTS(FusedRollout("0.5"), 1, seed=0).search(3)
    planner = MCTS(FusedRollout(np.float64(0.5)), 3, seed=0)  # numpy's floats are fine
    planner.search(100)
    assert planner.tree[1].value_sum == 1.5


def test_a_return_that_overflows_in_the_backup_ends_the_search_at_once():
    # G = 1e308 from the rollout, plus the reward 1e308 into A: inf.
    game = ScriptedGame(
        {
            "root": (0, {"a": ("A", 1e308, False)}),
            "A": (0, {"x": ("end", 1e308, True)}),
        }
    )
    with pytest.raises(
        ValueError,
        match=r"the backed-up return overflowed at the node reached by action 'a' from "
        r"state 'root': its value sum W is inf \(reward there 1e\+308\)",
    ):
        MCTS(game, 1000, seed=0).search("root")
    assert game.calls["step"] == 2  # one iteration: the expansion and the rollout's move


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_value_sums_that_overflow_end_the_search_and_keep_the_previous_tree(sign):
    # Each return is finite, but W = N * 1e308 overflows at N = 2. Before: W = -inf at
    # every child made selection return -1; W = +inf silently won the move.
    game = ScriptedGame(
        {
            "root": (0, {"a": ("A_end", sign * 1e308, True), "b": ("B_end", sign * 1e308, True)}),
            "safe": (0, {"a": ("A_end", 1.0, True)}),
        }
    )
    planner = MCTS(game, 10, seed=0)
    planner.search("safe")
    before = list(planner.tree)
    with pytest.raises(
        ValueError,
        match=rf"sum of the backed-up returns overflowed at the node reached by action 'a' "
        rf"from state 'root': its value sum W is {sign * math.inf}",
    ):
        planner.search("root")
    assert list(planner.tree) == before


# ---------------------------------------------------------------- protocol violations


class Countdown:
    """From n take 1 or 2; players 1 and 2 alternate; taking the last one earns 1.0.

    ``faults`` maps "actions", "player", "reward", "terminated" or "step" to a function
    applied to that answer in every state <= ``below``.
    """

    def __init__(self, faults=None, below=math.inf):
        self.faults = faults or {}
        self.below = below

    def _answer(self, what, state, value):
        fault = self.faults.get(what)
        return fault(value) if fault is not None and state <= self.below else value

    def actions(self, state):
        return self._answer("actions", state, (1, 2) if state >= 2 else (1,) if state else ())

    def player(self, state):
        return self._answer("player", state, 1 + state % 2)

    def step(self, state, action):
        nxt = state - action
        result = StepResult(
            nxt,
            self._answer("reward", state, 1.0 if nxt == 0 else 0.0),
            self._answer("terminated", state, nxt == 0),
        )
        return self._answer("step", state, result)


VIOLATIONS = {
    "generator actions": (
        {"actions": lambda a: (x for x in a)},
        r"actions\(\d\) returned <generator object .*> \(generator\); expected a sequence of "
        r"the legal actions in a fixed order, a tuple or a list",
    ),
    "iterator actions": ({"actions": iter}, r"actions\(\d\) returned .* \(tuple_iterator\)"),
    "ndarray actions": (
        {"actions": np.array},
        r"actions\(\d\) returned array\(\[1, 2\]\) \(ndarray\); expected .* \(use \.tolist\(\)",
    ),
    "str actions": (
        {"actions": lambda a: "".join(map(str, a))},
        r"actions\(\d\) returned '12' \(str\)",
    ),
    "set actions": ({"actions": set}, r"actions\(\d\) returned \{1, 2\} \(set\)"),
    "dict actions": ({"actions": dict.fromkeys}, r"returned \{1: None, 2: None\} \(dict\)"),
    "list player": (
        {"player": lambda p: [p]},
        r"player\(\d\) returned \[\d\] \(list\); expected a hashable player id",
    ),
    "str reward": (
        {"reward": str},
        r"step\(\d, \d\) returned the reward '0.0' \(str\); expected a real number",
    ),
    "array terminated": (
        {"terminated": lambda t: np.array([t, t])},
        r"step\(\d, \d\) returned terminated=array\(\[False, False\]\) \(ndarray\); "
        r"expected a bool",
    ),
    "two-field step": (
        {"step": lambda r: r[:2]},
        r"step\(\d, \d\) returned \(\d, 0.0\) \(tuple of 2 fields\); expected "
        r"StepResult\(next_state, reward, terminated\)",
    ),
    "None step": ({"step": lambda r: None}, r"step\(\d, \d\) returned None \(NoneType\)"),
}
# Where the violation first shows: (below, iterations, rollout_limit). "root": in the
# root's answers or its first expansion; "tree": only in later expansions; "rollout":
# only inside the first rollout (states <= 4 are reached by rollouts only).
WHERE = {"root": (6, 10, 0), "tree": (5, 10, 0), "rollout": (4, 1, 1000)}


@pytest.mark.parametrize(
    "violation, where",
    # Rollouts only compare players with ==, which a list allows: not a violation there.
    [(v, w) for v in VIOLATIONS for w in WHERE if (v, w) != ("list player", "rollout")],
)
def test_a_protocol_violation_is_a_type_error_in_the_protocols_words(violation, where):
    faults, message = VIOLATIONS[violation]
    below, iterations, rollout_limit = WHERE[where]
    planner = MCTS(Countdown(faults, below), iterations, rollout_limit=rollout_limit, seed=0)
    with pytest.raises(TypeError, match=message):
        planner.search(6)


def as_range(actions):
    return range(1, len(actions) + 1)


@pytest.mark.parametrize(
    "faults",
    [
        {"actions": list},
        {"actions": as_range},
        {"player": str},
        {"player": np.int64},
        {"reward": np.float32},
        {"reward": int},
        {"reward": np.float64},
        {"terminated": np.bool_},
        {"terminated": int},
        {"step": tuple},
    ],
    ids=lambda f: f"{next(iter(f))}:{next(iter(f.values())).__name__}",
)
@pytest.mark.parametrize("rollout_limit", [0, 1000])
def test_answers_of_other_allowed_types_build_the_same_tree(faults, rollout_limit):
    config = {"iterations": 60, "gamma": 0.9, "rollout_limit": rollout_limit, "seed": 1}
    reference = MCTS(Countdown(), **config)
    reference.search(7)
    planner = MCTS(Countdown(faults), **config)
    planner.search(7)
    assert len(planner.tree) == len(reference.tree)
    for node, expected in zip(planner.tree, reference.tree, strict=True):
        assert node.visits == expected.visits
        if faults.get("reward") is np.float32 and rollout_limit:  # rollouts add in float32
            assert node.value_sum == pytest.approx(expected.value_sum, rel=1e-6)
        else:
            assert node.value_sum == expected.value_sum
        assert node.actions == expected.actions and type(node.reward) is float


# ---------------------------------------------------------------- invariants (hypothesis)

search_settings = st.fixed_dictionaries(
    {
        "iterations": st.integers(1, 120),
        "exploration": st.floats(0.0, 4.0),
        "gamma": st.floats(0.0, 1.0),
        "rollout_limit": st.integers(0, 6),
        "seed": st.integers(0, 2**32),
    }
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games, config=search_settings)
def test_visit_counts_add_up_and_finished_games_are_never_queried(game, config):
    planner = MCTS(game, **config)
    planner.search("")  # ScriptedGame raises if a finished game is queried or stepped
    tree = planner.tree
    root = tree[0]
    assert root.visits == config["iterations"]
    assert root.visits == sum(tree[c].visits for c in root.children if c != UNVISITED)
    for node in tree[1:]:
        below = sum(tree[c].visits for c in node.children if c != UNVISITED)
        if node.terminated:
            assert below == 0 and node.visits >= 1
        else:
            assert node.visits == below + 1
        tried = [c != UNVISITED for c in node.children]
        assert tried == sorted(tried, reverse=True), "expansion follows the model's order"


@settings(max_examples=100, deadline=None)
@given(game=games, config=search_settings)
def test_the_same_seed_gives_the_same_tree_whatever_the_global_rngs_do(game, config):
    first = MCTS(game, **config)
    first.search("")
    random.seed(12345)
    np.random.seed(54321)
    random.random()
    second = MCTS(game, **config)
    second.search("")
    assert list(first.tree) == list(second.tree)


@settings(max_examples=150, deadline=None)
@given(game=games, config=search_settings)
def test_the_tree_matches_a_plain_reference_implementation_of_the_spec(game, config):
    planner = MCTS(game, **config)
    planner.search("")
    reference = ReferenceUCT(game, **config).search("")
    assert_same_tree(nested(planner.tree), nested_reference(reference))


@pytest.mark.parametrize(
    ("exploration", "gamma", "seed"),
    [(2 * math.sqrt(2), 1.0, 0), (0.5, 1.0, 1), (math.sqrt(2), 0.9, 0), (2 * math.sqrt(2), 0.9, 1)],
)
def test_tic_tac_toe_trees_match_the_textbook_formula(exploration, gamma, seed):
    # Thousands of iterations of tic-tac-toe give deep trees with many close calls. With
    # gamma < 1, sibling values can differ in the last bit only (the same discounted
    # returns summed in another order), so any change to how UCB1 rounds, even one that
    # is exact in real numbers, changes which child is selected: MCTS must score
    # children with docs/concepts/iteration.md's very operations, Q + c * sqrt(ln N / n).
    tic_tac_toe = TicTacToeModel()  # without its fused rollout, so both draw moves alike
    model = SimpleNamespace(
        actions=tic_tac_toe.actions, step=tic_tac_toe.step, player=tic_tac_toe.player
    )
    config = {"iterations": 3000, "exploration": exploration, "gamma": gamma, "seed": seed}
    planner = MCTS(model, rollout_limit=9, **config)
    planner.search(EMPTY_BOARD)
    reference = ReferenceUCT(model, rollout_limit=9, **config).search(EMPTY_BOARD)
    assert_same_tree(nested(planner.tree), nested_reference(reference))


def test_step_is_called_once_per_edge_outside_rollouts():
    game = ScriptedGame(MOST_VISITED_GAME)
    planner = MCTS(game, 50, rollout_limit=0)
    planner.search("root")
    assert game.calls["step"] == len(planner.tree) - 1


# ------------------------------------------------------------------ issue 28 (6, 10)


@pytest.mark.parametrize("limit", [2**63, 2**64, 10**30])
def test_a_rollout_limit_past_64_bits_is_refused_at_construction(limit):
    rule = r"rollout_limit must be an int in \[0, 2\*\*63 - 1\]"
    with pytest.raises(ValueError, match=rf"{rule} \(moves in one rollout\), got {limit}"):
        MCTS(TicTacToeModel(), 10, rollout_limit=limit)
    assert MCTS(TicTacToeModel(), 10, rollout_limit=2**63 - 1).rollout_limit == 2**63 - 1


class Wide:
    """One move from the root among ``width`` actions, each ending the game (reward a / width)."""

    def __init__(self, width):
        self.width = width

    def actions(self, state):
        return tuple(range(self.width)) if state == "root" else ()

    def player(self, state):
        return 0

    def step(self, state, action):
        return action, action / self.width, True


class CountedWrites(list):
    """A list that counts the items written (``children[node] = ...``) per index."""

    def __init__(self, items):
        super().__init__(items)
        self.writes = {}

    def __setitem__(self, index, value):
        self.writes[index] = self.writes.get(index, 0) + 1
        super().__setitem__(index, value)


@pytest.mark.parametrize("chunks", [1, 3])
def test_expanding_a_wide_node_writes_its_children_once_per_chunk_not_per_action(chunks):
    # The pure loop appends a node's new children to a list and writes their tuple when the
    # node is full or the chunk ends: k expansions cost O(k), not a copy of the tuple each.
    from mcts_agent.compiled import pure_python
    from mcts_agent.tree import Tree

    width = 3_000
    with pure_python():
        planner = MCTS(Wide(width), width, seed=0)
        tree = Tree("root", 0, Wide(width).actions("root"))
        tree.children = CountedWrites(tree.children)
        for n in (width,) if chunks == 1 else (1_000, 1_200, 800):
            planner._run(tree, n)
    assert tree.children.writes[0] == chunks  # one tuple per chunk (the last: node full)
    assert tree.children[0] == tuple(range(1, width + 1))
    assert tree.untried[0] == 0 and tree.visits[0] == width


@pytest.mark.parametrize("options", [{"selection": "puct"}, {"max_depth": 3}, {"solve": True}])
def test_the_general_loop_backs_up_numpy_rollout_returns_as_floats(options):
    import json

    model = TicTacToeModel()
    plain = SimpleNamespace(actions=model.actions, player=model.player)
    plain.step = lambda state, action: (lambda s, r, t: (s, np.float32(r), t))(
        *model.step(state, action)
    )
    planner = MCTS(plain, 200, seed=0, gamma=0.9, **options)
    planner.search(EMPTY_BOARD)
    assert {type(w) for w in planner.tree.value_sums} == {float}
    assert json.loads(json.dumps(planner.to_dict()))["nodes"][0]["visits"] == 200


@pytest.mark.parametrize(
    ("scale", "shown"),
    [(1.0, "+1.000"), (1e-6, "+1e-06"), (1e300, "+1e+300"), (1e6, "+1e+06")],
)
def test_str_of_a_summary_shows_values_at_any_scale(scale, shown):
    # Three decimals hide 1e-6 (+0.000) and spell 1e300 in 300 digits: 4 significant digits there.
    model = ScriptedGame({"root": (1, {"win": ("end", scale, True)})})
    planner = MCTS(model, 3, seed=0)
    planner.search("root")
    assert str(planner.summary()).splitlines()[2].split()[-1] == shown
