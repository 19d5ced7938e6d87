"""Root parallelism (``docs/guides/parallel.md``): workers, merging, seeds, errors."""

from __future__ import annotations

import contextlib
import copy
import gc
import json
import math
import multiprocessing
import os
import pickle
import random
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from pettingzoo_envs import game_view, make_tictactoe, played

from mcts_agent import MCTS, MCTSAgent, StepResult
from mcts_agent.adapters import PettingZooModel
from mcts_agent.adapters.gymnasium import GymnasiumModel
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.pig import PigModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.parallel import digest, dumps, merge, worker_seeds
from mcts_agent.tree import ROOT, UNVISITED, GuidedTree

C = 2 * math.sqrt(2)


def alive(pid):
    """Whether process ``pid`` runs (a zombie, ended but not reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


# ------------------------------------------------------------------ seeds, merging (no processes)


def test_worker_seeds_start_with_the_planners_seed_then_draw_from_it():
    draws = random.Random(7)
    assert worker_seeds(7, 3) == [7, draws.getrandbits(63), draws.getrandbits(63)]
    assert worker_seeds(7, 2) == worker_seeds(7, 3)[:2]
    assert worker_seeds(None, 3) == [None, None, None]


def hand_made_root(stats, actions=("a", "b", "c")):
    """A digest-shaped tree: the root and one child per ``{index: (N, W)}``."""
    tree = GuidedTree("s", 1, actions, (1 / 3,) * 3, None)
    for i, (n, w) in sorted(stats.items()):
        child = len(tree)
        for field, value in (
            ("states", f"s{i}"),
            ("players", 2),
            ("rewards", 0.0),
            ("discounts", -1.0),
            ("actions", ("x",)),
            ("children", ()),
            ("untried", 1),
            ("visits", n),
            ("value_sums", w),
            ("values", w / n),
            ("action_indices", i),
            ("priors", (1.0,)),
            ("scaled_priors", 1.0),
            ("leaf_values", None),
            ("expansion_orders", None),
            ("proven_values", None),
            ("chance_records", None),
        ):
            getattr(tree, field).append(value)
        tree.children[ROOT] += (child,)
    tree.visits[ROOT] = sum(n for n, _ in stats.values())
    return tree


def test_merging_sums_visits_and_weights_values_by_visits():
    one = hand_made_root({0: (6, 3.0), 1: (4, -2.0)})  # Q = 0.5, -0.5
    two = hand_made_root({0: (2, -1.0), 2: (8, 4.0)})  # Q = -0.5, 0.5
    merged = merge([one, two])
    root = merged[ROOT]
    assert root.visits == 20
    a, b, c = (merged[child] for child in root.children)
    assert (a.visits, a.value_sum, a.value) == (8, 2.0, 0.25)  # (6 * 0.5 + 2 * -0.5) / 8
    assert (b.visits, b.value) == (4, -0.5)  # tried by the first worker only
    assert (c.visits, c.value) == (8, 0.5)  # by the second only
    assert [merged[child].state for child in root.children] == ["s0", "s1", "s2"]
    assert merged.untried[ROOT] == 0


def test_merging_keeps_untried_actions_untried_and_takes_the_busiest_workers_node():
    one = hand_made_root({0: (1, 1.0)})
    two = hand_made_root({0: (3, 0.0)})
    two.states[1] = "the second worker's"
    merged = merge([one, two])
    assert merged[ROOT].children[1:] == (UNVISITED, UNVISITED)
    child = merged[merged[ROOT].children[0]]
    assert (child.state, child.visits, child.value) == ("the second worker's", 4, 0.25)


def test_a_digest_keeps_the_root_its_children_and_the_principal_line_below_each():
    planner = MCTS(TicTacToeModel(), 400, exploration=C, seed=1)
    planner.search(EMPTY_BOARD)
    tree = planner.tree
    kept = digest(tree, C)
    assert kept.actions[ROOT] == tree.actions[ROOT]
    for i, child in enumerate(tree[ROOT].children):
        node, copy = child, kept[ROOT].children[i]
        while True:  # the same node, statistics and state, down the robust line
            assert kept[copy][:5] == tree[node][:5]  # state, player, reward, terminated, actions
            assert (kept.visits[copy], kept.value_sums[copy]) == (
                tree.visits[node],
                tree.value_sums[node],
            )
            best = tree.robust_child(node)
            if best < 0:
                assert not kept.children[copy]
                break
            node = tree[node].children[best]
            (copy,) = kept.children[copy]
            assert kept.action_indices[copy] == best
    one_planner = MCTS(TicTacToeModel(), 400, exploration=C, seed=1)
    one_planner._tree = merge([kept])
    one_planner._record = planner._record
    assert one_planner.principal_variation() == planner.principal_variation()
    assert one_planner.summary().visit_counts == planner.summary().visit_counts


def test_pettingzoo_envs_are_sent_as_their_position_not_rebuilt():
    env = played(make_tictactoe, [4, 0])
    model = PettingZooModel(env)
    state = model.state_of(env)
    copy, copied_state = pickle.loads(dumps((model, state)))
    assert copied_state == state
    assert copy.step(copied_state, 8).next_state == model.step(state, 8).next_state
    assert copy.actions(copied_state) == (1, 2, 3, 5, 6, 7, 8)


# ------------------------------------------------------------------ worker processes


def test_a_search_is_reproducible_per_seed_and_workers_and_contains_worker_zeros():
    model = ConnectFourModel()
    runs = []
    for _ in range(2):
        with MCTS(model, 300, seed=3, workers=2) as planner:
            planner.search(C4_START)
            first = planner.summary()
            planner.search(C4_START)  # the workers' generators go on
            second = planner.summary()
            runs.append((first, second, planner.principal_variation()))
            zero, one = planner.worker_summaries
    (a, b, line_a), (c, d, line_b) = runs
    assert (a.visit_counts, a.values, b.visit_counts, b.values) == (
        c.visit_counts,
        c.values,
        d.visit_counts,
        d.values,
    )
    assert line_a == line_b
    first, second, line = runs[0]
    assert first.iterations == 600 and first.visit_counts != second.visit_counts
    assert sum(first.visit_counts) == 600
    assert zero.iterations == one.iterations == 300
    assert line[0] == second.action


@pytest.mark.parametrize(
    "model, state",
    [(ConnectFourModel(), C4_START), (PigModel(), PigModel().initial_state())],
    ids=["connect four", "pig (chance nodes)"],
)
def test_worker_zero_searches_exactly_as_a_single_planner(model, state):
    alone = MCTS(model, 250, seed=11)
    alone.search(state)
    with MCTS(model, 250, seed=11, workers=2) as planner:
        planner.search(state)
        assert planner.worker_summaries[0].visit_counts == alone.summary().visit_counts
        assert planner.worker_summaries[0].values == alone.summary().values
        merged = planner.summary()
        zero, one = planner.worker_summaries
        expected = [a + b for a, b in zip(zero.visit_counts, one.visit_counts, strict=True)]
        assert list(merged.visit_counts) == expected


class Poisoned:
    """Tic-tac-toe and one more position, whose step raises (module level: it pickles)."""

    def __init__(self):
        self.inner = TicTacToeModel()

    def actions(self, state):
        return (0,) if state == POISON else self.inner.actions(state)

    def player(self, state):
        return 1 if state == POISON else self.inner.player(state)

    def step(self, state, action):
        if state == POISON:
            raise ValueError(f"poisoned position {state}")
        return self.inner.step(state, action)


POISON = "poison"


def test_a_workers_exception_reaches_the_caller_with_its_traceback_and_the_planner_goes_on():
    with MCTS(Poisoned(), 50, exploration=C, seed=0, workers=2) as planner:
        root = planner.search(EMPTY_BOARD)
        before = planner.summary()
        with pytest.raises(ValueError, match="poisoned position") as caught:
            planner.search(POISON)
        remote = str(caught.value.__cause__)
        assert "in step" in remote and "raise ValueError" in remote  # the worker's traceback
        assert any("worker 0 of 2" in note for note in caught.value.__notes__)
        assert planner.tree[ROOT] == root and planner.summary() == before
        planner.search(EMPTY_BOARD)  # usable: the same workers search on
        assert planner.summary().iterations == 100


class OneMove:
    """Every state has one move, which ends the game (module level: it pickles)."""

    def actions(self, state):
        return ("end",) if state != "over" else ()

    def player(self, state):
        return 1

    def step(self, state, action):
        return StepResult("over", 1.0, True)


class Crashing(OneMove):
    """OneMove whose step ends the process in one state (a worker that dies)."""

    def step(self, state, action):
        if state == "crash":
            os._exit(3)
        return super().step(state, action)


def test_a_worker_process_that_dies_is_replaced_at_the_next_search():
    with MCTS(Crashing(), 5, seed=0, workers=2) as planner:
        planner.search("start")
        before = planner._parallel.worker_pids()
        with pytest.raises(BrokenProcessPool):
            planner.search("crash")
        assert planner.summary().iterations == 10  # the previous search's
        planner.search("start")
        assert planner.summary().iterations == 10
        assert not set(planner._parallel.worker_pids()) & set(before)


def test_close_ends_the_worker_processes_and_so_does_garbage_collection():
    planner = MCTS(TicTacToeModel(), 20, seed=0, workers=2)
    assert planner._parallel.worker_pids() == []  # started by the first search
    planner.search(EMPTY_BOARD)
    pids = planner._parallel.worker_pids()
    assert len(pids) == 2 and all(alive(pid) for pid in pids)
    planner.close()
    planner.close()  # idempotent
    assert not any(alive(pid) for pid in pids)
    assert not {p.pid for p in multiprocessing.active_children()} & set(pids)
    with pytest.raises(RuntimeError, match="closed"):
        planner.search(EMPTY_BOARD)

    planner = MCTS(TicTacToeModel(), 20, seed=0, workers=2)
    planner.search(EMPTY_BOARD)
    pids = planner._parallel.worker_pids()
    del planner
    gc.collect()
    assert not any(alive(pid) for pid in pids)


STALLING = """
import json, os, signal, sys, threading, time
from mcts_agent import MCTS, StepResult


class Stalling:
    \"\"\"One move a state, which ends the game; step hangs from the state "stall".\"\"\"

    def actions(self, state):
        return ("end",) if state != "over" else ()

    def player(self, state):
        return 1

    def step(self, state, action):
        if state == "stall":
            time.sleep(3600)
        return StepResult("over", 1.0, True)


def interrupted(planner, send):
    \"\"\"Seconds from the start of a hung search to its KeyboardInterrupt (`send` at 0.5 s).\"\"\"
    timer = threading.Timer(0.5, send)
    start = time.monotonic()
    timer.start()
    try:
        planner.search("stall")
    except KeyboardInterrupt:
        return time.monotonic() - start
    raise AssertionError("no KeyboardInterrupt")


if __name__ == "__main__":
    planner = MCTS(Stalling(), 5, seed=0, workers=2, time_limit=60)
    root = planner.search("start")
    summary = planner.summary()
    print(*planner._parallel.worker_pids(), flush=True)
    if sys.argv[1] == "stall":
        planner.search("stall")  # the test kills this process
    seconds = [
        interrupted(planner, lambda: os.kill(os.getpid(), signal.SIGINT)),  # this process only
        interrupted(planner, lambda: os.killpg(0, signal.SIGINT)),  # Ctrl-C: the process group
    ]
    kept = planner.tree[0] == root and planner.summary() == summary
    stopped = planner._parallel.worker_pids()
    planner.search("start")
    new = planner._parallel.worker_pids()
    print(json.dumps([seconds, kept, stopped, new, planner.summary().iterations]), flush=True)
    planner.close()
"""


@contextlib.contextmanager
def stalling_planner(tmp_path, mode):
    """Runs STALLING in its own process group; yields it once its 2 workers are up, and them.

    The group is killed on leaving (what a failure left running).
    """
    script = tmp_path / "stalling.py"
    script.write_text(STALLING)
    process = subprocess.Popen(
        [sys.executable, str(script), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        pids = [int(pid) for pid in process.stdout.readline().split()]
        assert len(pids) == 2 and all(alive(pid) for pid in pids), process.stderr.read()
        yield process, pids
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def test_ctrl_c_ends_a_parallel_search_at_once_and_its_workers_and_keeps_the_tree(tmp_path):
    with stalling_planner(tmp_path, "interrupt") as (process, pids):
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
    seconds, kept, stopped, new, iterations = json.loads(out)
    # The interrupted searches hang in the workers (time_limit=60): each Ctrl-C ends one.
    assert all(0.5 <= s < 10 for s in seconds), seconds
    assert kept  # the tree and summary of the search before
    assert stopped == [] and not any(alive(pid) for pid in pids)  # the workers ended
    assert len(new) == 2 and not set(new) & set(pids)  # and replaced by the next search
    assert iterations == 10


def test_the_workers_end_by_themselves_when_the_planners_process_is_killed(tmp_path):
    with stalling_planner(tmp_path, "stall") as (process, pids):
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=30)  # the end of its stdout and stderr: no worker holds them
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in pids)


def test_a_planner_with_workers_refuses_to_be_copied_and_searches_on():
    with MCTS(TicTacToeModel(), 20, seed=0, workers=2) as planner:
        planner.search(EMPTY_BOARD)
        pids = planner._parallel.worker_pids()
        with pytest.raises(TypeError, match="workers=2 cannot be copied or pickled"):
            copy.deepcopy(planner)
        planner.search(EMPTY_BOARD)
        assert planner.summary().iterations == 40
        assert planner._parallel.worker_pids() == pids


def test_what_cannot_be_sent_is_refused_before_any_search():
    model = TicTacToeModel()
    with pytest.raises(TypeError, match="workers=2 sends the model and the search options"):
        MCTS(model, 10, workers=2, rollout_policy=lambda state, actions, rng: actions[0])
    with MCTS(OneMove(), 10, workers=2) as planner:
        with pytest.raises(TypeError, match="sends the root state"):
            planner.search(_Unpicklable())
        assert planner._parallel.worker_pids() == []


class _Unpicklable:
    def __reduce__(self):
        raise TypeError("this state cannot be pickled")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"workers": 0}, ValueError, "workers"),
        ({"workers": 2.0}, TypeError, "workers"),
        ({"workers": 2, "backend": "threads"}, ValueError, "backend"),
        ({"workers": 2, "address": "auto"}, ValueError, "backend='ray'"),
        ({"workers": 2, "on_iteration": print}, ValueError, "on_iteration"),
    ],
)
def test_bad_parallel_options_are_rejected(kwargs, error, message):
    with pytest.raises(error, match=message):
        MCTS(TicTacToeModel(), 10, **kwargs)


def test_with_one_worker_nothing_changes():
    planner = MCTS(TicTacToeModel(), 200, exploration=C, seed=4)
    plain = MCTS(TicTacToeModel(), 200, exploration=C, seed=4, workers=1, backend="ray")
    assert plain._parallel is None and plain.worker_summaries is None
    planner.search(EMPTY_BOARD)
    plain.search(EMPTY_BOARD)
    assert list(planner.tree) == list(plain.tree)
    plain.close()  # nothing to close


def test_the_agent_plans_with_workers_on_native_models_and_pettingzoo_copies():
    env = played(make_tictactoe, [4])
    before = game_view(env)
    moves = []
    for native in (True, False):
        for _ in range(2):
            with MCTSAgent(200, seed=5, workers=2, native_models=native, exploration=C) as agent:
                moves.append(agent.act(env))
                summary = agent.last_summary
                assert sum(summary.visit_counts) == 400
    assert moves[0] == moves[1] and moves[2] == moves[3]
    assert game_view(env) == before  # the live env untouched


def test_a_gymnasium_model_is_made_again_in_each_worker_from_a_copy_of_its_env():
    env = gymnasium.make("FrozenLake-v1", is_slippery=False)
    env.reset(seed=0)
    env.step(2)
    model = GymnasiumModel(env)
    state = model.state_of(env)
    alone = MCTS(model, 100, seed=1)
    alone.search(state)
    with MCTS(model, 100, seed=1, workers=2) as planner:
        planner.search(state)
        zero = planner.worker_summaries[0]
    assert (zero.visit_counts, zero.values) == alone.summary()[1:3]
    assert env.unwrapped.s == 1  # the live env untouched


def test_a_gymnasium_model_that_cannot_be_sent_is_refused_when_the_planner_is_made():
    env = gymnasium.make("FrozenLake-v1", is_slippery=False)
    env.reset(seed=0)
    model = GymnasiumModel(env, action_mask=lambda env: np.ones(4, dtype=np.int8))
    with pytest.raises(TypeError, match="cannot be pickled.*lambda"):
        MCTS(model, 10, workers=2)


# ------------------------------------------------------------------ Ray


def test_ray_actors_search_as_the_processes_do():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        tests = str(Path(__file__).parent)  # Poisoned is unpickled by reference, from here
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": tests}},
        )
    try:
        model = ConnectFourModel()
        with MCTS(model, 200, seed=9, workers=2) as processes:
            processes.search(C4_START)
            expected = processes.summary()
        with MCTS(model, 200, seed=9, workers=2, backend="ray") as remote:
            remote.search(C4_START)
            got = remote.summary()
            assert (got.visit_counts, got.values) == (expected.visit_counts, expected.values)
            actors = list(remote._parallel._actors)
        assert not remote._parallel._actors and actors  # killed by close()
        with MCTS(Poisoned(), 20, seed=0, workers=2, backend="ray") as planner:
            with pytest.raises(ValueError, match="poisoned position"):
                planner.search(POISON)
            planner.search(EMPTY_BOARD)
            assert planner.summary().iterations == 40
        with pytest.raises(ValueError, match="already initialised"):
            MCTS(model, 10, workers=2, backend="ray", address="auto").search(C4_START)
    finally:
        if started:
            ray.shutdown()


def test_the_agent_searches_pettingzoo_chess_with_two_workers():
    """Chess planned on ChessModel with its defaults (PUCT, ChessEvaluator) in two processes."""
    import chess
    from pettingzoo.classic import chess_v6

    from mcts_agent.envs.chess import ChessModel, action_of, move_of

    env = chess_v6.env()
    env.reset(seed=0)
    model = ChessModel()
    for uci in ("e2e4", "d7d5", "d1g4"):  # the queen left hanging: c8g4 takes it
        env.step(action_of(model.state_of(env), chess.Move.from_uci(uci)))
    board = env.unwrapped.board.copy()
    with MCTSAgent(iterations=100, workers=2, seed=0) as agent:
        action = agent.act(env)
        assert agent.last_planner.workers == 2 and agent.last_planner.selection == "puct"
        assert sum(agent.last_summary.visit_counts) == 2 * 100  # both workers' iterations
    assert move_of(model.state_of(env), action).uci() == "c8g4"
    assert env.unwrapped.board == board
