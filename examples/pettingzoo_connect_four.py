"""MCTSAgent in PettingZoo's connect four AEC loop, against a random player, seats alternating.

Plays ``--games`` games (the agent is player_0 in even games, player_1 in odd
ones), prints the board and the agent's root statistics at each of its moves
in the first game, and a win/draw/loss tally::

    python examples/pettingzoo_connect_four.py --seed 0 --iterations 500 --games 4
    python examples/pettingzoo_connect_four.py --adapter   # plan through PettingZooModel
"""

from __future__ import annotations

import argparse
import math

import pettingzoo

from mcts_agent.agent import MCTSAgent


def make_env():
    """``classic/connect_four-v3`` from PettingZoo's registry."""
    return pettingzoo.make("aec", "classic/connect_four-v3")


def board_text(env) -> str:
    """The board, top row first (``player_0``: X, ``player_1``: O), columns numbered."""
    cells = env.unwrapped.board
    marks = {0: ".", 1: "X", 2: "O"}
    rows = [" ".join(marks[cells[7 * row + col]] for col in range(7)) for row in range(6)]
    return "\n".join([*rows, " ".join(str(col) for col in range(7))])


def play_game(agent: MCTSAgent, agent_seat: str, seed: int, verbose: bool) -> int:
    """Plays one game; returns the agent's final reward (1 win, 0 draw, -1 loss)."""
    env = make_env()
    env.reset(seed=seed)
    for name in env.possible_agents:
        env.action_space(name).seed(seed)
    result = 0
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if name == agent_seat:
            result = reward
        if termination or truncation:
            action = None
        elif name == agent_seat:
            action = agent.act(env)
            if verbose:
                summary = agent.last_summary
                print(f"{name} plays column {action}")
                for column, visits, value in zip(
                    summary.actions, summary.visit_counts, summary.values, strict=True
                ):
                    print(f"  column {column}: visits {visits:5d}  value {value:+.3f}")
        else:
            action = env.action_space(name).sample(observation["action_mask"])
        env.step(action)
        if verbose and action is not None:
            print(board_text(env), end="\n\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seed of game i is seed + i")
    parser.add_argument("--iterations", type=int, default=500, help="MCTS iterations per move")
    parser.add_argument("--games", type=int, default=4, help="games to play")
    parser.add_argument(
        "--adapter", action="store_true", help="plan through PettingZooModel, not ConnectFourModel"
    )
    args = parser.parse_args()

    agent = MCTSAgent(
        iterations=args.iterations,
        exploration=2 * math.sqrt(2),
        seed=args.seed,
        native_models=not args.adapter,
    )
    tally = {1: 0, 0: 0, -1: 0}
    for game in range(args.games):
        seat = "player_0" if game % 2 == 0 else "player_1"
        tally[play_game(agent, seat, args.seed + game, verbose=game == 0)] += 1
    print(f"MCTS vs random, {args.games} games: W {tally[1]} D {tally[0]} L {tally[-1]}")


if __name__ == "__main__":
    main()
