"""Speed of the native chess model against stepping PettingZoo's chess_v6 env, in one run.

Uniformly random games from the start position, the same games in all three. Measured (CPU
time, median of ``--repeats`` interleaved runs), in moves per second:

* ``ChessModel``: ``actions`` then ``step``, as the search's generic rollout plays it (a
  state holds a ``chess.Board`` without its move stack, copied and pushed at each step, and
  the repetition history as position keys);
* the other state design: a ``chess.Board`` with its whole move stack, copied at each step,
  the end decided by python-chess's ``can_claim_draw`` as PettingZoo decides it (what a model
  holding an immutable full board would pay);
* PettingZoo's ``classic/chess_v6`` env stepped directly (no clone: the least any planner on
  the env pays), reading the legal actions from ``action_mask``.

And the search's nodes (iterations) per second from the start position at
``--iterations``, the same search (plain UCT, random rollouts of at most 10 moves) on
``ChessModel`` and on :class:`~mcts_agent.adapters.PettingZooModel` of the chess_v6 env
(the adapter: a copy of the env stepped at every move of the tree and the rollouts), and
the chess defaults (PUCT with ``ChessEvaluator``: :func:`~mcts_agent.defaults.chess_defaults`)
on ``ChessModel``.

Run::

    python benchmarks/bench_chess_model.py --games 10 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import chess
from pettingzoo.classic import chess_v6
from pettingzoo.classic.chess import chess_utils
from timing import env_random_games

from mcts_agent import MCTS
from mcts_agent.adapters import PettingZooModel
from mcts_agent.defaults import chess_defaults
from mcts_agent.envs.chess import ChessModel, move_of


def model_games(model: ChessModel, seeds: range) -> tuple[int, list[list[chess.Move]]]:
    """Plays one random game per seed with the model; returns the moves played and the games."""
    moves = 0
    games = []
    for seed in seeds:
        choice = random.Random(seed).choice
        state = model.initial_state()
        actions = model.actions(state)
        game = []
        while actions:
            action = choice(actions)
            game.append(move_of(state, action))
            state = model.step(state, action).next_state
            actions = model.actions(state)
            moves += 1
        games.append(game)
    return moves, games


def full_board_games(games: list[list[chess.Move]]) -> int:
    """Replays the games on full boards copied at each move, ended by python-chess's checks."""
    moves = 0
    for game in games:
        board = chess.Board()
        for move in game:
            board = board.copy()
            board.push(move)
            legal = sorted(chess_utils.legal_moves(board))
            over = not legal or board.is_insufficient_material() or board.can_claim_draw()
            moves += 1
        assert over
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    model = ChessModel()
    chess_env = chess_v6.env()
    seeds = range(args.games)
    rates: dict[str, list[float]] = {"ChessModel": [], "full Board copies": [], "chess_v6 env": []}
    chess_env.reset(seed=0)
    adapter = PettingZooModel(chess_env)
    searches = {
        "UCT on ChessModel": (model, model.initial_state(), {"rollout_limit": 10}),
        "UCT on the adapter": (adapter, adapter.state_of(chess_env), {"rollout_limit": 10}),
        "defaults on ChessModel": (model, model.initial_state(), chess_defaults({})),
    }
    nodes: dict[str, list[float]] = {name: [] for name in searches}
    for _ in range(args.repeats):  # interleaved
        start = time.process_time()
        moves, games = model_games(model, seeds)
        rates["ChessModel"].append(moves / (time.process_time() - start))
        start = time.process_time()
        assert full_board_games(games) == moves
        rates["full Board copies"].append(moves / (time.process_time() - start))
        start = time.process_time()
        assert env_random_games(chess_env, seeds) == moves  # the same games
        rates["chess_v6 env"].append(moves / (time.process_time() - start))
        for name, (searched, root, options) in searches.items():
            start = time.process_time()
            MCTS(searched, args.iterations, seed=0, **options).search(root)
            nodes[name].append(args.iterations / (time.process_time() - start))
    print(
        f"{args.games} random games ({moves} moves, {moves / args.games:.0f} a game), "
        f"median of {args.repeats} runs"
    )
    for name, values in rates.items():
        print(f"  {name:18s} {statistics.median(values):10,.0f} moves/s")
    ratio = statistics.median(rates["ChessModel"]) / statistics.median(rates["chess_v6 env"])
    print(f"  ChessModel / env: {ratio:.1f}x")
    ratio = statistics.median(rates["ChessModel"]) / statistics.median(rates["full Board copies"])
    print(f"  ChessModel / full Board copies: {ratio:.1f}x")
    print(f"MCTS from the start, {args.iterations} iterations, median of {args.repeats} runs")
    for name, values in nodes.items():
        print(f"  {name:24s} {statistics.median(values):10,.0f} nodes/s")
    ratio = statistics.median(nodes["UCT on ChessModel"]) / statistics.median(
        nodes["UCT on the adapter"]
    )
    print(f"  ChessModel / adapter: {ratio:.1f}x")


if __name__ == "__main__":
    main()
