"""Speed of the native Go model against stepping PettingZoo's go_v5 env, in one run.

Random playouts from the empty board (uniformly random legal actions, the pass included,
until two passes in a row), the same games in both. Measured (CPU time, median of
``--repeats`` interleaved runs), in moves per second:

* ``GoModel``: ``actions`` then ``step``, as the search's generic rollout plays it;
* PettingZoo's ``classic/go_v5`` env stepped directly (no clone: the least any planner on
  the env pays), reading the legal actions from ``action_mask``.

And a move's time from the empty board at ``--iterations`` (one light playout each), with
``MCTSAgent``'s go defaults (GRAVE, :func:`~mcts_agent.defaults.go_defaults`): ``MCTS`` on
``GoModel`` itself, against ``MCTSAgent.act`` on the PettingZoo env (which reads the env
into a ``GoState`` and plans on ``GoModel``); the issue asks for the second within 1.2x of
the first.

Run::

    python benchmarks/bench_go.py --size 9 --games 20 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import pettingzoo
from timing import env_random_games

from mcts_agent import MCTS, MCTSAgent
from mcts_agent.defaults import go_defaults
from mcts_agent.envs.go import GoModel


def model_games(model: GoModel, seeds: range) -> int:
    """Plays one random game per seed with the model; returns the moves played."""
    moves = 0
    for seed in seeds:
        choice = random.Random(seed).choice
        state = model.initial_state()
        actions = model.actions(state)
        while actions:
            state = model.step(state, choice(actions)).next_state
            actions = model.actions(state)
            moves += 1
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=5000)
    args = parser.parse_args()
    model = GoModel(args.size, args.komi)
    go_env = pettingzoo.make("aec", "classic/go_v5", board_size=args.size, komi=args.komi)
    seeds = range(args.games)
    rates: dict[str, list[float]] = {"GoModel": [], "PettingZoo go_v5": []}
    move_times: dict[str, list[float]] = {"MCTS on GoModel": [], "MCTSAgent on go_v5": []}
    env = pettingzoo.make("aec", "classic/go_v5", board_size=args.size, komi=args.komi)
    env.reset(seed=0)
    agent = MCTSAgent(iterations=args.iterations, seed=0)
    agent.act(env)  # its first move also makes the agent's planner on GoModel: not timed
    for _ in range(args.repeats):  # interleaved
        start = time.process_time()
        moves = model_games(model, seeds)
        rates["GoModel"].append(moves / (time.process_time() - start))
        start = time.process_time()
        env_moves = env_random_games(go_env, seeds)
        rates["PettingZoo go_v5"].append(env_moves / (time.process_time() - start))
        assert env_moves == moves  # the same games
        planner = MCTS(model, args.iterations, seed=0, **go_defaults({}))
        start = time.process_time()
        planner.search(model.initial_state())
        move_times["MCTS on GoModel"].append(time.process_time() - start)
        start = time.process_time()
        agent.act(env)
        move_times["MCTSAgent on go_v5"].append(time.process_time() - start)
    print(
        f"{args.size}x{args.size}, komi {args.komi}: {args.games} random games "
        f"({moves} moves, {moves / args.games:.1f} a game), median of {args.repeats} runs"
    )
    for name, values in rates.items():
        print(f"  {name:18s} {statistics.median(values):10,.0f} moves/s")
    ratio = statistics.median(rates["GoModel"]) / statistics.median(rates["PettingZoo go_v5"])
    print(f"  GoModel / PettingZoo: {ratio:.1f}x")
    print(f"  a move from the empty board, {args.iterations} iterations, GRAVE (go_defaults):")
    for name, values in move_times.items():
        print(f"  {name:18s} {statistics.median(values):10.3f} s")
    overhead = statistics.median(move_times["MCTSAgent on go_v5"]) / statistics.median(
        move_times["MCTS on GoModel"]
    )
    print(f"  MCTSAgent / MCTS: {overhead:.2f}x (issue 33: within 1.2x)")


if __name__ == "__main__":
    main()
