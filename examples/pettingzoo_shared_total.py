"""Two MCTS agents cooperate in a PettingZoo AEC game: the shared total (max^n).

Both agents add 0..3 to one total, three moves each, and both win (+1) only if
the total ends at exactly 15, which neither can make alone
(:mod:`mcts_agent.envs.shared_total`). ``PettingZooModel`` reports every
agent's reward of each step, so each agent's search backs up both agents'
returns (max^n) and plays for the shared goal::

    python examples/pettingzoo_shared_total.py --games 5 --iterations 600 --seed 0
"""

from __future__ import annotations

import argparse

from mcts_agent.agent import MCTSAgent
from mcts_agent.envs import shared_total


def play(iterations: int, seed: int) -> tuple[list[int], int, float]:
    """One game, both seats played by one seeded MCTSAgent; returns (moves, total, reward)."""
    env = shared_total.env()
    env.reset(seed=seed)
    agent = MCTSAgent(iterations, seed=seed)
    moves: list[int] = []
    reward = 0.0
    for _ in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        else:
            action = agent.act(env)
            moves.append(action)
        env.step(action)
    return moves, env.unwrapped.total, float(reward)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    reached = 0
    for game in range(args.games):
        moves, total, reward = play(args.iterations, args.seed + game)
        reached += reward > 0
        print(f"game {game}: moves {moves}, total {total}, reward {reward:+g} to both")
    print(f"goal reached in {reached} of {args.games} games")


if __name__ == "__main__":
    main()
