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
from pettingzoo.classic.tictactoe import board as ttt_board
from pettingzoo.classic.tictactoe import tictactoe as ttt_env

from mcts_agent import MCTS, StepResult
from mcts_agent.adapters import PettingZooModel
from mcts_agent.envs.tic_tac_toe import TicTacToeModel

C = 2 * math.sqrt(2)
PETTINGZOO_DIR = os.path.dirname(ttt_env.__file__).rsplit(os.sep, 2)[0]  # .../pettingzoo


def make_env():
    try:
        from pettingzoo import make
    except ImportError:
        from pettingzoo.classic import tictactoe_v3

        return tictactoe_v3.env()
    return make("aec", "classic/tictactoe-v3")


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
        return key[0].endswith(os.path.join("adapters", "pettingzoo_model.py"))

    # Inclusive time of PettingZoo's functions when called from outside PettingZoo.
    pettingzoo = sum(
        caller_stats[3]
        for key, (_, _, _, _, callers) in stats.items()
        if in_pettingzoo(key)
        for caller, caller_stats in callers.items()
        if not in_pettingzoo(caller)
    )
    # Inclusive time of the adapter's methods when called by the search core.
    adapter_inclusive = sum(
        caller_stats[3]
        for key, (_, _, _, _, callers) in stats.items()
        if is_adapter(key)
        for caller, caller_stats in callers.items()
        if not is_adapter(caller)
    )
    return total, pettingzoo, adapter_inclusive - pettingzoo


def timed_split(model, state, iterations):
    """(total, PettingZoo) CPU seconds of one search, timing PettingZoo's calls directly."""
    spent = [0.0]
    clock = time.process_time
    step, legal_moves = ttt_env.raw_env.step, ttt_board.Board.legal_moves

    def timed_step(self, action):
        start = clock()
        step(self, action)
        spent[0] += clock() - start

    def timed_legal_moves(self):
        start = clock()
        moves = legal_moves(self)
        spent[0] += clock() - start
        return moves

    ttt_env.raw_env.step, ttt_board.Board.legal_moves = timed_step, timed_legal_moves
    try:
        planner = MCTS(model, iterations, exploration=C, seed=0)
        start = clock()
        planner.search(state)
        total = clock() - start
    finally:
        ttt_env.raw_env.step, ttt_board.Board.legal_moves = step, legal_moves
    return total, spent[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5000)
    parser.add_argument("--naive-iterations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    env = make_env()
    env.reset(seed=0)
    snapshot = PettingZooModel(env)
    attributes = PettingZooModel(env, clone="attributes")
    print("PettingZoo tic-tac-toe from the empty board")
    print(f"iterations per search: {args.iterations} (naive adapter: {args.naive_iterations})")
    native = search_rate(TicTacToeModel(), 0, args.iterations, args.repeats)
    fast = search_rate(snapshot, snapshot.state_of(env), args.iterations, args.repeats)
    generic = search_rate(attributes, attributes.state_of(env), args.iterations, args.repeats)
    # The live env is the naive root: the naive model never steps the state it is given.
    naive = search_rate(NaiveDeepcopyModel(), env.unwrapped, args.naive_iterations, args.repeats)
    print("iterations per CPU second (best of repeats):")
    print(f"  native TicTacToeModel                    {native:10.0f}")
    print(f"  PettingZooModel, snapshot clones         {fast:10.0f}")
    print(f"  PettingZooModel, attribute-copy clones   {generic:10.0f}")
    print(f"  naive adapter (deepcopy + repair)        {naive:10.0f}")
    print(f"snapshot adapter vs naive: {fast / naive:.1f}x (target >= 5x)")
    print(f"snapshot adapter vs native: {native / fast:.1f}x slower")

    total, pettingzoo = timed_split(snapshot, snapshot.state_of(env), args.iterations)
    ours = total - pettingzoo
    print("snapshot adapter's search time, timers around PettingZoo's step and legal moves:")
    print(
        f"  PettingZoo {pettingzoo / total:6.1%}   ours (search core + adapter) {ours / total:6.1%}"
    )
    total, pettingzoo, adapter = profile_split(snapshot, snapshot.state_of(env), args.iterations)
    core = total - pettingzoo - adapter
    print("the same under cProfile (inclusive time of PettingZoo's functions):")
    print(
        f"  PettingZoo {pettingzoo / total:6.1%}   ours {(total - pettingzoo) / total:6.1%}"
        f" (adapter {adapter / total:.1%}, search core {core / total:.1%})"
    )
    print("target: ours under 25% of the search time")


if __name__ == "__main__":
    main()
