"""MCTSAgent as player_1 in PettingZoo's tic-tac-toe AEC loop, against a random player_2.

Prints the board and the agent's root statistics (visits and value of each
action) at each of its moves. Actions are PettingZoo's cell numbers, which run
down the columns (``0 3 6 / 1 4 7 / 2 5 8``), so each is also printed as the
row and column of the board::

    python examples/pettingzoo_tictactoe.py --seed 42 --iterations 2000
    python examples/pettingzoo_tictactoe.py --adapter     # plan through PettingZooModel
"""

from __future__ import annotations

import argparse
import math

import pettingzoo

from mcts_agent.agent import MCTSAgent


def make_env():
    """``classic/tictactoe-v3`` from PettingZoo's registry."""
    return pettingzoo.make("aec", "classic/tictactoe-v3")


def board_text(env) -> str:
    """The board as three rows; PettingZoo's square ``a`` is row ``a % 3``, column ``a // 3``."""
    squares = env.unwrapped.board.squares
    marks = {0: ".", 1: "X", 2: "O"}
    return "\n".join(
        " ".join(marks[squares[row + 3 * col]] for col in range(3)) for row in range(3)
    )


def move_text(action: int) -> str:
    """PettingZoo's cell ``action`` with its row and column (from 0, top left)."""
    return f"{action} (row {action % 3}, column {action // 3})"


def stats_text(summary) -> str:
    """One line per action: visits and value (from the mover's point of view), best first."""
    rows = sorted(
        zip(summary.actions, summary.visit_counts, summary.values, strict=True),
        key=lambda row: -row[1],
    )
    return "\n".join(
        f"  action {move_text(action)}: visits {visits:5d}  value {value:+.3f}"
        for action, visits, value in rows
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=42, help="env reset seed and agent seed")
    parser.add_argument("--iterations", type=int, default=2000, help="MCTS iterations per move")
    parser.add_argument(
        "--adapter", action="store_true", help="plan through PettingZooModel, not TicTacToeModel"
    )
    args = parser.parse_args()

    env = make_env()
    env.reset(seed=args.seed)
    env.action_space("player_2").seed(args.seed)
    agent = MCTSAgent(
        iterations=args.iterations,
        exploration=2 * math.sqrt(2),
        seed=args.seed,
        native_models=not args.adapter,
    )
    print("actions are PettingZoo's cells, numbered down the columns: 0 3 6 / 1 4 7 / 2 5 8\n")
    final_rewards = {}
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        final_rewards[name] = reward
        if termination or truncation:
            action = None
        elif name == "player_1":
            action = agent.act(env)  # plans for env.agent_selection from a clone
            print(f"player_1 (X) plays {move_text(action)}; root statistics:")
            print(stats_text(agent.last_summary))
        else:
            action = env.action_space(name).sample(observation["action_mask"])
            print(f"player_2 (O) plays {move_text(action)}")
        env.step(action)
        if action is not None:
            print(board_text(env), end="\n\n")
    print(f"result: {final_rewards}")


if __name__ == "__main__":
    main()
