"""Budgets (docs/guides/anytime-and-solver.md): iterations, time_limit, max_nodes; a fake clock.

No test here reads the wall clock: the clock is a counter that the model
advances as it works, so each search's "time" is a pure function of its work.
"""

import math

import pytest
from scripted_games import nested

from mcts_agent import MCTS, budgets
from mcts_agent.budgets import CHUNK_SECONDS
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel

pytestmark = pytest.mark.usefixtures("each_backend")  # both search backends

C = 2 * math.sqrt(2)


class WorkClock:
    """A clock that advances ``tick`` seconds at every model call (and on every reading)."""

    def __init__(self, tick=1e-4, per_reading=0.0):
        self.now = 0.0
        self.tick = tick
        self.per_reading = per_reading
        self.readings = 0

    def __call__(self):
        self.readings += 1
        self.now += self.per_reading
        return self.now


class TimedModel:
    """A model whose every step and rollout advances a WorkClock (the 'work' takes time)."""

    def __init__(self, model, clock):
        self.model, self.clock = model, clock

    def actions(self, state):
        return self.model.actions(state)

    def player(self, state):
        return self.model.player(state)

    def step(self, state, action):
        self.clock.now += self.clock.tick
        return self.model.step(state, action)

    def rollout(self, state, rng, limit, gamma):
        self.clock.now += self.clock.tick
        return self.model.rollout(state, rng, limit, gamma)


def timed_planner(time_limit, tick=1e-4, **options):
    clock = WorkClock(tick)
    model = TimedModel(TicTacToeModel(), clock)
    planner = MCTS(model, time_limit=time_limit, exploration=C, seed=3, clock=clock, **options)
    return planner, clock


GENERAL = [{}, {"selection": "puct"}, {"solve": True}]


@pytest.mark.parametrize("options", GENERAL, ids=["plain", "puct", "solver"])
def test_a_time_limit_stops_after_the_deadline_and_never_before(options):
    planner, clock = timed_planner(0.05, **options)
    planner.search(EMPTY_BOARD)
    summary = planner.summary()
    assert summary.stop_reason in ("time_limit", "solved")
    if summary.stop_reason == "time_limit":
        assert summary.elapsed >= 0.05  # never early
        # At most one chunk past the deadline: a chunk aims at CHUNK_SECONDS at the rate so far;
        # each iteration here costs 1 or 2 ticks (an expansion step and a rollout).
        assert summary.elapsed < 0.05 + CHUNK_SECONDS + 4 * clock.tick
    assert summary.iterations == planner.tree[0].visits > 100


@pytest.mark.parametrize("options", GENERAL, ids=["plain", "puct", "solver"])
def test_a_timed_search_builds_the_tree_of_the_same_number_of_iterations(options):
    planner, _ = timed_planner(0.03, **options)
    planner.search(EMPTY_BOARD)
    ran = planner.summary().iterations
    counted = MCTS(TicTacToeModel(), ran, exploration=C, seed=3, **options)
    counted.search(EMPTY_BOARD)
    assert nested(planner.tree) == nested(counted.tree)  # chunks do not change the tree
    assert planner.rng.getstate() == counted.rng.getstate()


def test_every_search_runs_at_least_one_iteration():
    clock = WorkClock(tick=0.0, per_reading=10.0)  # each reading jumps past any deadline
    planner = MCTS(TicTacToeModel(), time_limit=0.001, seed=0, clock=clock)
    planner.search(EMPTY_BOARD)
    assert planner.summary().iterations == 1
    assert planner.summary().stop_reason == "time_limit"
    assert planner.tree[0].visits == 1


def test_iterations_and_time_limit_stop_at_whichever_comes_first():
    clock = WorkClock()
    model = TimedModel(TicTacToeModel(), clock)
    planner = MCTS(model, 300, time_limit=100.0, seed=0, clock=clock)
    planner.search(EMPTY_BOARD)
    assert (planner.summary().iterations, planner.summary().stop_reason) == (300, "iterations")
    planner = MCTS(model, 10**9, time_limit=0.02, seed=0, clock=clock)
    planner.search(EMPTY_BOARD)
    assert planner.summary().stop_reason == "time_limit"
    assert 100 <= planner.summary().iterations <= 101  # 2 ticks (1e-4 s) per iteration


def test_a_call_can_give_its_own_budget():
    planner = MCTS(TicTacToeModel(), 1000, seed=0)
    planner.search(EMPTY_BOARD, iterations=7)
    assert planner.summary().iterations == planner.tree[0].visits == 7
    planner.search(EMPTY_BOARD)
    assert planner.summary().iterations == 1000  # the planner's budget again
    clock = WorkClock()
    timed = MCTS(TimedModel(TicTacToeModel(), clock), 50, seed=0, clock=clock)
    timed.search(EMPTY_BOARD, time_limit=0.01)  # this call's budget: time only
    assert timed.summary().stop_reason == "time_limit"
    assert timed.summary().iterations > 50
    with pytest.raises(ValueError, match="iterations must be >= 1, got 0"):
        planner.search(EMPTY_BOARD, iterations=0)
    with pytest.raises(ValueError, match=r"time_limit must be a finite number > 0 \(seconds\)"):
        planner.search(EMPTY_BOARD, time_limit=0.0)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({}, TypeError, "needs a budget: give iterations"),
        ({"iterations": None}, TypeError, "needs a budget"),
        # One rule, said the same way, whatever the value out of range (issue 28, item 14).
        ({"time_limit": -1.0}, ValueError, r"finite number > 0 \(seconds\), got -1\.0$"),
        ({"time_limit": 0}, ValueError, r"finite number > 0 \(seconds\), got 0\.0$"),
        ({"time_limit": math.nan}, ValueError, r"finite number > 0 \(seconds\), got nan$"),
        ({"time_limit": math.inf}, ValueError, "time_limit must be a finite number"),
        ({"time_limit": "1s"}, TypeError, "time_limit must be a real number, got '1s'"),
        ({"iterations": 10, "max_nodes": 0}, ValueError, "max_nodes must be >= 1, got 0"),
        ({"iterations": 10, "max_nodes": 2.5}, TypeError, "max_nodes must be an int"),
        ({"iterations": 10, "clock": 3}, TypeError, "clock must be a callable"),
    ],
)
def test_bad_budgets_are_rejected_with_what_was_expected(kwargs, error, message):
    with pytest.raises(error, match=message):
        MCTS(TicTacToeModel(), **kwargs)


@pytest.mark.parametrize("general", [False, True], ids=["plain", "general"])
@pytest.mark.parametrize(
    "model, start", [(TicTacToeModel(), EMPTY_BOARD), (ConnectFourModel(), C4_START)]
)
def test_a_node_cap_is_never_passed_and_keeps_the_tree_of_its_iterations(model, start, general):
    options = {"selection": "puct"} if general else {}
    planner = MCTS(model, 100_000, max_nodes=500, exploration=C, seed=1, **options)
    planner.search(start)
    summary = planner.summary()
    assert summary.stop_reason == "max_nodes"
    assert summary.nodes == len(planner.tree) == 500
    counted = MCTS(model, summary.iterations, exploration=C, seed=1, **options)
    counted.search(start)
    assert nested(planner.tree) == nested(counted.tree)


def test_a_node_cap_below_the_first_iteration_still_runs_one():
    planner = MCTS(TicTacToeModel(), 100, max_nodes=1, seed=0)
    planner.search(EMPTY_BOARD)
    assert (planner.summary().iterations, planner.summary().stop_reason) == (1, "max_nodes")
    assert len(planner.tree) == 2


def test_a_full_tree_under_a_node_cap_runs_its_iterations():
    # Tic-tac-toe from a position with few moves left: the whole game tree fits under the cap,
    # so the search stops on its iterations with fewer nodes than the cap.
    from mcts_agent.envs.tic_tac_toe import parse_board

    planner = MCTS(TicTacToeModel(), 2000, max_nodes=1000, seed=0)
    planner.search(parse_board("XOXOX...."))
    summary = planner.summary()
    assert summary.stop_reason == "iterations"
    assert summary.iterations == 2000
    assert summary.nodes < 1000


def test_the_summary_reports_the_search():
    planner = MCTS(TicTacToeModel(), 200, seed=0)
    planner.search(EMPTY_BOARD)
    summary = planner.summary()
    assert summary.iterations == 200
    assert summary.nodes == len(planner.tree) == 201  # each iteration adds one node here
    assert summary.stop_reason == "iterations"
    assert summary.reused_visits == 0
    assert summary.elapsed > 0.0
    assert summary.proven_value is None and summary.proven == (None,) * 9


# ----------------------------------------------------------------- on_iteration

LOOPS = pytest.mark.parametrize("options", [{}, {"max_depth": 50}], ids=["plain", "general"])


class Recorder:
    """An on_iteration callback: records what the planner shows; stops at ``stop_at``."""

    def __init__(self, stop_at=None, answer=None):
        self.stop_at, self.answer, self.seen = stop_at, answer, []

    def __call__(self, planner, iteration):
        summary = planner.summary()
        self.seen.append(
            (iteration, planner.tree.visits[0], summary.iterations, summary.stop_reason)
        )
        planner.principal_variation()  # the live tree can be read in full
        return True if iteration == self.stop_at else self.answer


@LOOPS
@pytest.mark.parametrize("answer", [None, False])
def test_on_iteration_sees_every_iteration_and_leaves_the_tree_alone(options, answer):
    recorder = Recorder(answer=answer)
    planner = MCTS(TicTacToeModel(), 300, exploration=C, seed=2, on_iteration=recorder, **options)
    planner.search(EMPTY_BOARD)
    plain = MCTS(TicTacToeModel(), 300, exploration=C, seed=2, **options)
    plain.search(EMPTY_BOARD)
    assert nested(planner.tree) == nested(plain.tree)
    # Called after each iteration, with the live tree and the search so far.
    assert recorder.seen == [(i, i, i, "running") for i in range(1, 301)]
    assert planner.summary().stop_reason == "iterations"


@LOOPS
def test_on_iteration_returning_true_stops_the_search_there(options):
    planner = MCTS(
        ConnectFourModel(), 1000, exploration=C, seed=4, on_iteration=Recorder(37), **options
    )
    planner.search(C4_START)
    summary = planner.summary()
    assert (summary.iterations, summary.stop_reason) == (37, "on_iteration")
    counted = MCTS(ConnectFourModel(), 37, exploration=C, seed=4, **options)
    counted.search(C4_START)
    assert nested(planner.tree) == nested(counted.tree)


def test_on_iteration_with_a_time_limit_and_a_node_cap():
    recorder = Recorder()
    planner, clock = timed_planner(0.01, on_iteration=recorder)
    planner.search(EMPTY_BOARD)
    summary = planner.summary()
    assert summary.stop_reason == "time_limit" and clock.now >= 0.01
    assert [seen[0] for seen in recorder.seen] == list(range(1, summary.iterations + 1))
    capped = MCTS(TicTacToeModel(), 10_000, max_nodes=100, seed=1, on_iteration=Recorder())
    capped.search(EMPTY_BOARD)
    assert (capped.summary().stop_reason, len(capped.tree)) == ("max_nodes", 100)


def test_a_solved_root_wins_over_a_stop_on_the_same_iteration():
    from scripted_games import ScriptedGame

    game = ScriptedGame({"": (1, {"a": ("A", 1.0, True)})})
    planner = MCTS(game, 10, solve=True, on_iteration=Recorder(1))
    planner.search("")
    assert (planner.summary().iterations, planner.summary().stop_reason) == (1, "solved")


def test_a_bad_answer_or_an_error_in_on_iteration_fails_the_search_keeping_the_last_tree():
    planner = MCTS(TicTacToeModel(), 50, seed=0, on_iteration=Recorder())
    planner.search(EMPTY_BOARD)
    tree, summary = planner.tree, planner.summary()
    planner.on_iteration = Recorder(answer=1)
    with pytest.raises(TypeError, match=r"must return True .*, False or None .*; got 1 after"):
        planner.search(EMPTY_BOARD)

    def fail(planner, iteration):
        if iteration == 5:
            raise KeyError("from the callback")

    planner.on_iteration = fail
    with pytest.raises(KeyError, match="from the callback"):
        planner.search(EMPTY_BOARD)
    assert planner.tree is tree and planner.summary() == summary

    def interrupt(planner, iteration):  # Ctrl-C in the middle of a search
        if iteration == 5:
            raise KeyboardInterrupt

    planner.on_iteration = interrupt
    with pytest.raises(KeyboardInterrupt):
        planner.search(EMPTY_BOARD)
    assert planner.tree is tree and planner.summary() == summary
    with pytest.raises(TypeError, match="on_iteration must be a callable"):
        MCTS(TicTacToeModel(), 50, on_iteration=3)


def test_the_agent_passes_on_iteration_to_its_planners():
    import pettingzoo

    from mcts_agent import MCTSAgent

    recorder = Recorder(stop_at=20)
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    env.reset(seed=0)
    agent = MCTSAgent(iterations=500, seed=0, on_iteration=recorder)
    agent.act(env)
    assert agent.last_summary.iterations == 20
    assert agent.last_summary.stop_reason == "on_iteration"


def test_a_node_cap_holds_for_a_stochastic_model_whose_iterations_make_two_nodes():
    # Pig: an iteration may make a chance node and its outcome node, so a chunk runs at most
    # half the room left.
    from mcts_agent.envs.pig import PigModel

    model = PigModel()
    planner = MCTS(model, 100_000, max_nodes=501, seed=0)
    planner.search(model.initial_state())
    summary = planner.summary()
    assert summary.stop_reason == "max_nodes"
    assert 499 <= summary.nodes <= 501


class StandingClock:
    """A clock that reads ``first``, then ``later`` for ever (a frozen or backward clock)."""

    def __init__(self, first, later):
        self.readings = iter([first])
        self.later = later

    def __call__(self):
        return next(self.readings, self.later)


@pytest.mark.parametrize("later", [5.0, 4.0], ids=["frozen", "backwards"])
@pytest.mark.parametrize("callback", [None, lambda planner, done: None], ids=["chunks", "each"])
def test_a_clock_that_does_not_advance_ends_a_timed_search_with_a_value_error(
    monkeypatch, later, callback
):
    # Without the check the search ran until its iteration budget (here 20,000) or for ever.
    monkeypatch.setattr(budgets, "STALLED_CHUNKS", 12)
    planner = MCTS(TicTacToeModel(), 20_000, time_limit=1.0, seed=0, on_iteration=callback)
    planner.search(EMPTY_BOARD, iterations=10, time_limit=None)
    before = planner.tree
    planner.clock = StandingClock(5.0, later)
    with pytest.raises(ValueError, match=rf"has not advanced over 12 chunks .*read {later}, not"):
        planner.search(EMPTY_BOARD)
    assert planner.tree is before and planner.summary().iterations == 10  # kept


@pytest.mark.parametrize(
    "reading, error, message",
    [
        (math.nan, ValueError, "must return a finite number of seconds, got nan"),
        (math.inf, ValueError, "must return a finite number of seconds, got inf"),
        ("3", TypeError, r"must return seconds as a real number, got '3' \(str\)"),
        (None, TypeError, r"must return seconds as a real number, got None"),
    ],
)
def test_a_clock_reading_that_is_not_a_finite_number_is_refused(reading, error, message):
    for first in (0.0, reading):  # a bad reading at the start, or after a good one
        clock = StandingClock(first, reading)
        planner = MCTS(TicTacToeModel(), 20_000, time_limit=1.0, seed=0, clock=clock)
        with pytest.raises(error, match=message):
            planner.search(EMPTY_BOARD)
