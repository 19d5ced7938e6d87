"""Test positions with known values: every tic-tac-toe position, connect four forced wins."""

from __future__ import annotations

import random

from mcts_agent import AlphaBetaMinimax
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel, format_board


def tic_tac_toe_positions(min_marks: int = 0) -> list[int]:
    """Every reachable non-terminal tic-tac-toe position with at least ``min_marks`` marks."""
    model = TicTacToeModel()
    seen, frontier = {EMPTY_BOARD}, [EMPTY_BOARD]
    while frontier:
        state = frontier.pop()
        for action in model.actions(state):
            result = model.step(state, action)
            if not result.terminated and result.next_state not in seen:
                seen.add(result.next_state)
                frontier.append(result.next_state)
    return sorted(s for s in seen if sum(ch != "." for ch in format_board(s)) >= min_marks)


def connect_four_wins_within(plies: int, count: int, seed: int) -> list[tuple[int, int]]:
    """Positions of random play (6 to 24 moves) whose player to move wins within ``plies``.

    Found with alpha-beta to ``plies`` plies; positions with a win in one move are left out.
    """
    model = ConnectFourModel()
    rng = random.Random(seed)
    shallow = AlphaBetaMinimax(model, depth=plies)
    found = []
    while len(found) < count:
        state = C4_START
        for _ in range(rng.randint(6, 24)):
            result = model.step(state, rng.choice(model.actions(state)))
            if result.terminated:
                break
            state = result.next_state
        else:
            immediate = any(model.step(state, a).terminated for a in model.actions(state))
            if not immediate and shallow.value(state) == 1.0:
                found.append(state)
    return found
