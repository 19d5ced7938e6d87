"""The chess tactics set (tests/chess_tactics.py) is sound, and the chess defaults solve it.

The positions are legal, their stored solutions legal, and the mates are checked by brute
force with python-chess. The search: ``MCTS(ChessModel(), SOLVE_ITERATIONS, seed=0,
**chess_defaults({}))`` must solve at least ``SOLVE_RATE`` of the set (the issue's 90%).
"""

from __future__ import annotations

import chess
import pytest
from chess_tactics import CATEGORIES, MATE_DISTANCE, TACTICS, Tactic

from mcts_agent import MCTS
from mcts_agent.defaults import chess_defaults
from mcts_agent.envs.chess import ChessModel, action_of, move_of

SOLVE_ITERATIONS = 200
"""The search's budget in the solve-rate test."""

SOLVE_RATE = 0.9
"""The issue's bar: the share of the set the search must solve."""


def _mates_within(board: chess.Board, moves: int) -> bool:
    """Whether the side to move mates within ``moves`` of its own moves, whatever the replies."""
    for move in board.legal_moves:
        board.push(move)
        try:
            if board.is_checkmate():
                return True
            if (
                moves > 1
                and not board.is_game_over()
                and all(_after_reply_mates(board, reply, moves - 1) for reply in board.legal_moves)
            ):
                return True
        finally:
            board.pop()
    return False


def _after_reply_mates(board: chess.Board, reply: chess.Move, moves: int) -> bool:
    """Whether, after ``reply``, the side to move then mates within ``moves``."""
    board.push(reply)
    try:
        return _mates_within(board, moves)
    finally:
        board.pop()


def _move_mates_in(board: chess.Board, move: chess.Move, moves: int) -> bool:
    """Whether ``move`` mates at once (``moves`` 1) or forces mate within ``moves`` moves."""
    board.push(move)
    try:
        if board.is_checkmate():
            return True
        return (
            moves > 1
            and not board.is_game_over()
            and all(_after_reply_mates(board, reply, moves - 1) for reply in board.legal_moves)
        )
    finally:
        board.pop()


def test_the_set_has_at_least_eight_positions_a_category_and_thirty_in_all():
    counts = {category: 0 for category in CATEGORIES}
    for tactic in TACTICS:
        counts[tactic.category] += 1
    assert len(TACTICS) >= 30
    assert min(counts.values()) >= 8, counts
    assert len({tactic.fen for tactic in TACTICS}) == len(TACTICS)


@pytest.mark.parametrize("tactic", TACTICS, ids=lambda tactic: tactic.fen)
def test_position_and_solutions_are_legal(tactic: Tactic):
    board = chess.Board(tactic.fen)
    assert board.is_valid(), board.status()
    assert not board.is_game_over()
    assert tactic.solutions and tactic.source
    for uci in tactic.solutions:
        assert chess.Move.from_uci(uci) in board.legal_moves, uci


@pytest.mark.parametrize(
    "tactic",
    [tactic for tactic in TACTICS if tactic.category in MATE_DISTANCE],
    ids=lambda tactic: tactic.fen,
)
def test_mates_mate_in_the_stated_number_and_no_sooner(tactic: Tactic):
    board = chess.Board(tactic.fen)
    distance = MATE_DISTANCE[tactic.category]
    for uci in tactic.solutions:
        assert _move_mates_in(board, chess.Move.from_uci(uci), distance), uci
    if distance > 1:
        assert not _mates_within(board, distance - 1)
    # Every move that mates in the stated number is stored (the set is complete).
    mating = {m.uci() for m in board.legal_moves if _move_mates_in(board, m, distance)}
    assert mating == set(tactic.solutions)


def test_brute_force_mate_check_rejects_a_non_mate():
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    assert _move_mates_in(board, chess.Move.from_uci("d1d8"), 1)
    assert not _move_mates_in(board, chess.Move.from_uci("d1d7"), 1)
    assert not _mates_within(chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), 2)


def test_model_actions_round_trip_the_solutions():
    model = ChessModel()
    for tactic in TACTICS:
        state = model.state_of_board(chess.Board(tactic.fen))
        for uci in tactic.solutions:
            move = chess.Move.from_uci(uci)
            assert move_of(state, action_of(state, move)) == move


def test_chess_defaults_solve_ninety_percent_at_200_iterations():
    # About 6 s on one core (200 iterations on each of the 40 positions). The defaults'
    # leaves search one full-width ply (ChessEvaluator(search_depth=1)): at 100 iterations
    # they solve 38 of the 40, the two quiet queen mates in 2 missed; with the capture search
    # alone at the leaves they solved 35 at 200 iterations and 36 at 800.
    model = ChessModel()
    failures = []
    for tactic in TACTICS:
        state = model.state_of_board(chess.Board(tactic.fen))
        planner = MCTS(model, SOLVE_ITERATIONS, seed=0, **chess_defaults({}))
        move = move_of(state, planner(state)).uci()
        if move not in tactic.solutions:
            failures.append(f"{tactic.category} {tactic.fen}: played {move}, {tactic.solutions}")
    solved = len(TACTICS) - len(failures)
    assert solved >= SOLVE_RATE * len(TACTICS), (
        f"solved {solved}/{len(TACTICS)} < {SOLVE_RATE:.0%}; failures:\n" + "\n".join(failures)
    )
