"""Speed of planning through PettingZooModel on PettingZoo tic-tac-toe, in one run.

From the empty board (``classic/tictactoe-v3``, reset(seed=0)), c = 2*sqrt(2),
the same seed everywhere, it measures (CPU time, best of ``--repeats``):

* iterations per second on our native ``TicTacToeModel`` (the ceiling);
* through ``PettingZooModel`` with its snapshot clones (the default for
  tic-tac-toe) and with the generic attribute copy (any AEC env);
* through a naive adapter: a state is a whole env, every ``step`` deep-copies
  it (``copy.deepcopy`` returns a *fresh* game, so the naive adapter copies the
  game's variables back in by hand to stay correct) and the search's generic
  rollout steps (so clones) move by move;
* where the snapshot adapter's search time goes: PettingZoo's own code (its
  ``step``, legal moves, agent selector, observation) versus ours (the search
  core and the adapter), by cProfile and by timers around PettingZoo's calls
  (cProfile's per-call overhead weighs on both sides).

Targets (issue 3): ours under 25% of the search time through the adapter, and
the adapter at least 5x the naive one. Run::

    python benchmarks/bench_pettingzoo_adapter.py --iterations 5000 --repeats 3
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import math
import os
import pstats
import time

import numpy as np
import pettingzoo
from pettingzoo.classic.tictactoe import board as ttt_board
from pettingzoo.classic.tictactoe import tictactoe as ttt_env

from mcts_agent import MCTS, StepResult
from mcts_agent.adapters import PettingZooModel
from mcts_agent.envs.tic_tac_toe import TicTacToeModel

C = 2 * math.sqrt(2)
PETTINGZOO_DIR = os.path.dirname(ttt_env.__file__).rsplit(os.sep, 2)[0]  # .../pettingzoo


def make_env():
    return pettingzoo.make("aec", "classic/tictactoe-v3")


class NaiveDeepcopyModel:
    """A state is an env; ``step`` deep-copies it, then repairs the fresh game deepcopy gives."""

    def actions(self, env):
        agent = env.agent_selection
        if all(env.terminations.values()):
            return ()
        return tuple(np.flatnonzero(env.observe(agent)["action_mask"]).tolist())

    def player(self, env):
        return env.agent_selection

    def step(self, env, action):
        clone = copy.deepcopy(env)  # EzPickle: a fresh, reset-less game...
        clone.board.squares = list(env.board.squares)  # ...so copy the game in by hand
        for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
            setattr(clone, name, dict(getattr(env, name)))
        clone.infos = {agent: dict(info) for agent, info in env.infos.items()}
        clone.agents = list(env.agents)
        clone.agent_selection = env.agent_selection
        clone._agent_selector = copy.deepcopy(env._agent_selector)
        mover = env.agent_selection
        clone.step(action)
        return StepResult(clone, float(clone.rewards[mover]), all(clone.terminations.values()))


def search_rate(model, state, iterations, repeats):
    """Best iterations per CPU second over ``repeats`` searches (same seed each time)."""
    best = math.inf
    for _ in range(repeats):
        planner = MCTS(model, iterations, exploration=C, seed=0)
        start = time.process_time()
        planner.search(state)
        best = min(best, time.process_time() - start)
    return iterations / best


def profile_split(model, state, iterations):
    """(total, PettingZoo, adapter) seconds of one search under cProfile."""
    planner = MCTS(model, iterations, exploration=C, seed=0)
    profiler = cProfile.Profile()
    profiler.enable()
    planner.search(state)
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    total = sum(tottime for (_, _, tottime, _, _) in stats.values())

    def in_pettingzoo(key):
        return key[0].startswith(PETTINGZOO_DIR)

    def is_adapter(key):
        return os.path.join("adapters", "pettingzoo", "") in key[0]

    def time_entered(inside) -> float:
        """Inclusive time of the functions ``inside`` accepts, when called from outside."""
        return sum(
            caller_stats[3]
            for key, (_, _, _, _, callers) in stats.items()
            if inside(key)
            for caller, caller_stats in callers.items()
            if not inside(caller)
        )

    pettingzoo = time_entered(in_pettingzoo)
    adapter_inclusive = time_entered(is_adapter)  # called by the search core
    return total, pettingzoo, adapter_inclusive - pettingzoo


def timed_split(model, state, iterations):
    """(total, PettingZoo, adapter) seconds of one search, by timers (no profiler).

    PettingZoo's time is measured around its env ``step`` and ``legal_moves``;
    the adapter's around the model's ``step`` and ``rollout`` (as the search
    calls them), minus PettingZoo's time inside them. ``perf_counter`` (cheaper
    to read than the CPU clock): run it on a quiet machine.
    """
    clock = time.perf_counter
    pettingzoo = [0.0]
    adapter = [0.0]

    def timed(function, spent):
        def timed_call(*args):
            start = clock()
            result = function(*args)
            spent[0] += clock() - start
            return result

        return timed_call

    originals = ttt_env.raw_env.step, ttt_board.Board.legal_moves
    ttt_env.raw_env.step = timed(originals[0], pettingzoo)
    ttt_board.Board.legal_moves = timed(originals[1], pettingzoo)
    model.step = timed(model.step, adapter)  # instance attributes: the search calls these
    model.rollout = timed(model.rollout, adapter)
    try:
        planner = MCTS(model, iterations, exploration=C, seed=0)
        start = clock()
        planner.search(state)
        total = clock() - start
    finally:
        ttt_env.raw_env.step, ttt_board.Board.legal_moves = originals
        del model.step, model.rollout
    return total, pettingzoo[0], adapter[0] - pettingzoo[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5000)
    parser.add_argument("--naive-iterations", type=int, default=None, help="default: --iterations")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    naive_iterations = args.naive_iterations or args.iterations

    env = make_env()
    env.reset(seed=0)
    snapshot = PettingZooModel(env)
    attributes = PettingZooModel(env, clone="attributes")
    print("PettingZoo tic-tac-toe from the empty board")
    print(f"iterations per search: {args.iterations} (naive adapter: {naive_iterations})")
    native = search_rate(TicTacToeModel(), 0, args.iterations, args.repeats)
    fast = search_rate(snapshot, snapshot.state_of(env), args.iterations, args.repeats)
    generic = search_rate(attributes, attributes.state_of(env), args.iterations, args.repeats)
    # The live env is the naive root: the naive model never steps the state it is given.
    naive = search_rate(NaiveDeepcopyModel(), env.unwrapped, naive_iterations, args.repeats)
    print("iterations per CPU second (best of repeats):")
    print(f"  native TicTacToeModel                    {native:10.0f}")
    print(f"  PettingZooModel, snapshot clones         {fast:10.0f}")
    print(f"  PettingZooModel, attribute-copy clones   {generic:10.0f}")
    print(f"  naive adapter (deepcopy + repair)        {naive:10.0f}")
    print(f"snapshot adapter vs naive: {fast / naive:.1f}x (target >= 5x)")
    print(f"snapshot adapter vs native: {native / fast:.1f}x slower")

    shares = []
    for name, split in (("timers", timed_split), ("cProfile", profile_split)):
        total, pettingzoo, adapter = split(snapshot, snapshot.state_of(env), args.iterations)
        shares.append((name, pettingzoo / total, adapter / total))
    print("where the snapshot adapter's search time goes:")
    for name, pettingzoo, adapter in shares:
        core = 1 - pettingzoo - adapter
        print(
            f"  {name:8s}: PettingZoo {pettingzoo:6.1%}   ours {1 - pettingzoo:6.1%}"
            f" = adapter {adapter:6.1%} + search core {core:6.1%}"
        )
    print("target: ours under 25% of the search time")


if __name__ == "__main__":
    main()
