"""PettingZoo chess (``classic/chess-v6``): PUCT with a material evaluator against a random player.

Plain UCT cannot play chess in Python: a random rollout is a random game of a
hundred or more moves, each a copy and a step of PettingZoo's env. Guided
search replaces the rollout by an evaluation of the position: here the
material balance read from the observation the env gives the player to move
(:class:`~mcts_agent.adapters.EnvViewEvaluator`), with a horizon
(``max_depth``) so that the tree stays in the next few plies. Only legal
moves are searched and played (the env's action mask).

The material evaluator. PettingZoo's observation (8 x 8 x 111, AlphaZero's
planes) holds, in channels 7-12, the pieces of the player to move (pawn,
knight, bishop, rook, queen, king) and in 13-18 the opponent's; the value,
from the point of view of the player to move, is ``0.9 * tanh(d / 10) + 0.1
* tanh((m - 20) / 10)`` with ``d`` the difference of their material at 1, 3,
3, 5, 9 points (the classic piece values; Shannon, 1950, "Programming a
computer for playing chess") and ``m`` the number of legal moves of the
player to move (its action mask): a cornered king is worth less, which
steers the search towards mates. Priors are uniform.

``unvisited_value=1.0`` (``--unvisited-value``): with PUCT's default 0, a
player already ahead (values near +0.9) scores every untried move below its
tried ones (``0 + c * P * sqrt(N)`` is 0.86 at N = 400 with 35 moves and c =
1.5), so it stops looking at new moves and misses mates; an optimistic value
for untried moves makes the search try each move once first (Leela's "first
play urgency" question). (The very first
observation after ``reset`` has no piece planes: PettingZoo fills them from
its board history at the first step; that is the root before White's first
move, whose value the search does not use.)

Plays ``--games`` games, the agent White in even games and Black in odd
ones, and prints each game's outcome, length and the agent's CPU time per
move::

    python examples/pettingzoo_chess.py --games 4 --seed 0
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np
import pettingzoo

from mcts_agent import Evaluation
from mcts_agent.adapters import EnvViewEvaluator
from mcts_agent.agent import MCTSAgent

PIECE_VALUES = np.array([1.0, 3.0, 3.0, 5.0, 9.0, 0.0])  # pawn knight bishop rook queen king


def material(observation: np.ndarray, action_mask: np.ndarray) -> Evaluation:
    """Material balance and mobility for the player to move, a value in (-1, 1); uniform priors."""
    counts = observation[:, :, 7:19].sum(axis=(0, 1), dtype=np.int64)
    difference = float(counts[:6] @ PIECE_VALUES - counts[6:] @ PIECE_VALUES)
    mobility = int(action_mask.sum())
    return Evaluation(
        0.9 * math.tanh(difference / 10.0) + 0.1 * math.tanh((mobility - 20) / 10), None
    )


def play_game(
    agent: MCTSAgent, agent_seat: str, seed: int, max_plies: int | None = None
) -> tuple[float, int, list[float]]:
    """Plays one game; returns the agent's final reward, the plies played, its move times.

    With ``max_plies``, a game still on after that many plies stops there (reward 0).
    """
    env = pettingzoo.make("aec", "classic/chess-v6")
    env.reset(seed=seed)
    for name in env.possible_agents:
        env.action_space(name).seed(seed)
    plies = 0
    times: list[float] = []
    result = 0.0
    for name in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            if name == agent_seat:
                result = reward
            env.step(None)
            continue
        if name == agent_seat:
            start = time.process_time()
            action = agent.act(env)
            times.append(time.process_time() - start)
        else:
            action = env.action_space(name).sample(observation["action_mask"])
        env.step(action)
        plies += 1
        if plies == max_plies:
            break
    return result, plies, times


def main(argv: list[str] | None = None) -> None:
    """Parses the options, plays the games and prints a tally."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--max-depth", type=int, default=4)
    parser.add_argument("--exploration", type=float, default=1.5)
    parser.add_argument("--unvisited-value", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-plies", type=int, default=None, help="stop a game after that many plies (a draw)"
    )
    args = parser.parse_args(argv)
    agent = MCTSAgent(
        args.iterations,
        exploration=args.exploration,
        selection="puct",
        evaluator=EnvViewEvaluator(material),
        max_depth=args.max_depth,
        unvisited_value=args.unvisited_value,
        seed=args.seed,
    )
    print(
        f"chess-v6: PUCT (c = {args.exploration}, unvisited_value {args.unvisited_value}, "
        f"{args.iterations} iterations, max_depth "
        f"{args.max_depth}, material and mobility evaluator) against a random player"
    )
    tally = {"win": 0, "draw": 0, "loss": 0}
    all_times: list[float] = []
    for i in range(args.games):
        seat = ("player_0", "player_1")[i % 2]
        result, plies, times = play_game(agent, seat, args.seed + i, args.max_plies)
        key = "win" if result > 0 else "loss" if result < 0 else "draw"
        tally[key] += 1
        all_times += times
        print(
            f"game {i + 1}: agent {'White' if seat == 'player_0' else 'Black'}, {key}, {plies} "
            f"plies, {statistics.mean(times):.2f} s CPU per move (max {max(times):.2f})",
            flush=True,
        )
    print(
        f"W/D/L {tally['win']}/{tally['draw']}/{tally['loss']} over {args.games} games; "
        f"{statistics.mean(all_times):.2f} s CPU per move (median "
        f"{statistics.median(all_times):.2f}, max {max(all_times):.2f})"
    )


if __name__ == "__main__":
    main()
