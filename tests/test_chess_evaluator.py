"""The chess evaluator (mcts_agent.envs.chess_evaluator) on hand-made positions."""

from __future__ import annotations

import math
import random

import chess
import pytest

from mcts_agent import MCTS
from mcts_agent.envs.chess import ChessModel, drawn_by_rule, history_of, position_after
from mcts_agent.envs.chess_evaluator import (
    _MATE,
    CASTLING_RIGHT_VALUE,
    CENTIPAWN_SCALE,
    MATERIAL_VALUE_BOUND,
    MOBILITY_WEIGHT,
    QUIESCENCE_DEPTH,
    ChessEvaluator,
    _quiescence_score,
    _value,
    evaluate_board,
    mop_up_progress,
    move_priors,
    quiescence,
    search_value,
    static_score,
)
from mcts_agent.evaluator import checked_evaluation
from mcts_agent.model import StepResult

# A quiet Queen's Gambit Declined middle game, White to move, neither side in check.
MIDDLE_GAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
NO_BLACK_QUEEN = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FOOLS_MATE = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"  # White is mated
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
BARE_KINGS = "8/8/4k3/8/8/3K4/8/8 w - - 0 1"
HANGING_QUEEN = "rnbqkbnr/ppp1pppp/8/3p4/4P1Q1/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2"  # 1.e4 d5 2.Qg4


def test_start_position_is_level():
    board = chess.Board()
    assert static_score(board) == 0
    assert evaluate_board(board) == 0.0
    assert quiescence(board) == 0.0
    assert board == chess.Board()  # pushed and popped moves leave no trace


def test_static_score_hand_worked():
    # White: king e1 (0), queen d1 (900 - 5); Black: king e8 (0). Endgame king tables:
    # e1 -> -30 for White, e8 -> -30 for Black. The queen on d1 attacks 14 empty squares
    # (c1 b1 a1, e2 f3 g4 h5, c2 b3 a4, d2 ... d8: 7) and e1 is its own: 3 + 4 + 3 + 7 = 17.
    board = chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    assert static_score(board) == 895 + 17 * MOBILITY_WEIGHT
    # A queen against a bare king is a mop-up ending: the lone king on e8 is 3 from the
    # centre, the kings 7 apart: progress (4.7 * 3 + 1.6 * (14 - 7)) / 50.6 = 0.5.
    assert mop_up_progress(board) == (chess.WHITE, pytest.approx(0.5))
    assert evaluate_board(board) == pytest.approx(0.6 + 0.4 * 0.5)


def reference_static_score(board):
    """static_score the plain way: python-chess's piece_map and attacks_mask, Michniewski's
    tables as printed (rank 8 first, so White reads square ^ 56), no hand-walked bitboards."""
    from mcts_agent.envs.chess_evaluator import (
        _KING_ENDGAME_TABLE,
        _PIECE_SQUARE_TABLES,
        PIECE_VALUES,
        _is_endgame,
    )

    endgame = _is_endgame(board)
    score = 0
    for square, piece in board.piece_map().items():
        table = _PIECE_SQUARE_TABLES[piece.piece_type]
        if piece.piece_type == chess.KING and endgame:
            table = _KING_ENDGAME_TABLE
        index = square ^ 56 if piece.color == chess.WHITE else square
        term = PIECE_VALUES[piece.piece_type] + table[index]
        if piece.piece_type not in (chess.PAWN, chess.KING):
            own = board.occupied_co[piece.color]
            term += MOBILITY_WEIGHT * chess.popcount(board.attacks_mask(square) & ~own)
        score += term if piece.color == chess.WHITE else -term
    if not endgame:
        for square, sign in ((chess.H1, 1), (chess.A1, 1), (chess.H8, -1), (chess.A8, -1)):
            if board.castling_rights & chess.BB_SQUARES[square]:
                score += sign * CASTLING_RIGHT_VALUE
    return score if board.turn == chess.WHITE else -score


def random_positions(count, seed, longest=40):
    """``count`` boards of random games, 6 to ``longest`` plies in, not over."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(6, longest)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            boards.append(board)
    return boards


def test_static_score_matches_a_plain_reference_on_random_games():
    for board in random_positions(300, seed=11, longest=160):  # endgames included
        assert static_score(board) == reference_static_score(board), board.fen()


def test_castling_rights_count_in_the_middle_game_only():
    start = chess.Board()
    walked = chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1")  # no kq
    assert static_score(walked) == 2 * CASTLING_RIGHT_VALUE  # black's two rights gone
    assert static_score(start) == 0
    # Kd7 in the opening: the tables score d7 as e8 (0), so the rights make the difference
    before = chess.Board("rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3")
    after = before.copy()
    after.push_san("Kd7")
    assert -static_score(after) < static_score(before) - CASTLING_RIGHT_VALUE
    # an ending: rights (as a FEN may keep them with few pieces) are not counted
    ending = chess.Board("r3k3/pppp4/8/8/8/8/PPPP4/R3K3 w Qq - 0 1")
    no_rights = chess.Board("r3k3/pppp4/8/8/8/8/PPPP4/R3K3 w - - 0 1")
    assert static_score(ending) == static_score(no_rights)


def test_material_values_stay_below_the_bound():
    # A knight more for White (b1 -> c3: 320 + 10, 8 attacked squares, c3 -> 2 more than
    # from b1), the rest of the start: not a mop-up ending, so material is squashed.
    board = chess.Board("rnbqkb1r/pppppppp/8/8/8/2N5/PPPPPPPP/R1BQKBNR w KQkq - 0 1")
    score = static_score(board)
    assert score > 300
    assert mop_up_progress(board) == (None, 0.0)
    assert evaluate_board(board) == pytest.approx(
        MATERIAL_VALUE_BOUND * math.tanh(CENTIPAWN_SCALE * score)
    )
    assert 0.0 < evaluate_board(board) < MATERIAL_VALUE_BOUND


@pytest.mark.parametrize("fen", [MIDDLE_GAME, NO_BLACK_QUEEN, HANGING_QUEEN, STALEMATE])
def test_mirror_keeps_the_value_for_the_side_to_move(fen):
    board = chess.Board(fen)
    mirrored = board.mirror()  # colours swapped and board flipped: same side-to-move position
    assert static_score(mirrored) == static_score(board)
    assert evaluate_board(mirrored) == evaluate_board(board)
    assert quiescence(mirrored) == pytest.approx(quiescence(board), abs=1e-12)


@pytest.mark.parametrize("fen", [MIDDLE_GAME, NO_BLACK_QUEEN])
def test_the_other_side_to_move_gets_the_negated_static_value(fen):
    board = chess.Board(fen)
    other = board.copy()
    other.turn = not other.turn  # neither side is in check in these positions
    assert static_score(other) == -static_score(board)
    assert evaluate_board(other) == -evaluate_board(board)


def test_a_queen_up_is_clearly_won():
    board = chess.Board(NO_BLACK_QUEEN)
    assert 0.5 < evaluate_board(board) < MATERIAL_VALUE_BOUND
    board.turn = chess.BLACK
    assert -MATERIAL_VALUE_BOUND < evaluate_board(board) < -0.5


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # lone king a8 (centre distance 6), kings 2 apart (a8, a6): (28.2 + 19.2) / 50.6
        ("k7/8/K7/8/8/8/8/7R w - - 0 1", (chess.WHITE, (4.7 * 6 + 1.6 * 12) / 50.6)),
        # lone king d4 (centre, 0), kings 6 apart (d4, g1): 1.6 * 8 / 50.6; Black is strong
        ("8/8/8/8/3K4/8/8/q5k1 w - - 0 1", (chess.BLACK, 1.6 * 8 / 50.6)),
        # pawns do not stop it: the lone side may keep them
        ("k7/p7/K7/8/8/8/8/7R w - - 0 1", (chess.WHITE, (4.7 * 6 + 1.6 * 12) / 50.6)),
        # a minor piece against a bare king cannot drive it: no mop-up
        ("k7/8/K7/8/8/8/8/7B w - - 0 1", (None, 0.0)),
        # the weaker side has a knight: no mop-up
        ("kn6/8/K7/8/8/8/8/7R w - - 0 1", (None, 0.0)),
    ],
)
def test_mop_up_progress_hand_worked(fen, expected):
    side, progress = mop_up_progress(chess.Board(fen))
    assert side == expected[0]
    assert progress == pytest.approx(expected[1])
    assert 0.0 <= progress < 1.0


def test_mop_up_values_lie_between_material_and_mate():
    cornered = chess.Board("k7/8/K7/8/8/8/8/7R w - - 0 1")
    central = chess.Board("8/8/8/3k4/8/8/8/K6R w - - 0 1")
    for board in (cornered, central):
        assert MATERIAL_VALUE_BOUND < evaluate_board(board) < 1.0
        assert evaluate_board(board.mirror()) == evaluate_board(board)
    assert evaluate_board(cornered) > evaluate_board(central)  # closer to mate, higher
    # the lone side to move sees the negated value (here neither side is in check)
    other = central.copy()
    other.turn = chess.BLACK
    assert evaluate_board(other) == -evaluate_board(central)
    # not enough ahead (a rook for a pawn that queens next move is judged on material)
    racing = chess.Board("8/8/8/8/8/8/p7/k1K4R b - - 0 1")
    assert abs(quiescence(racing)) < MATERIAL_VALUE_BOUND


def test_a_mate_found_by_the_capture_search_is_worth_one():
    # Scholar's mate: Qxf7# is a capture, so the capture search finds it.
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    assert quiescence(board) == 1.0
    assert evaluate_board(board) < MATERIAL_VALUE_BOUND  # the static value does not see it


def test_mop_up_priors_favour_the_mate():
    # Black king h8, White king g6 and queen a1: Qa8# is the mate.
    board = chess.Board("7k/8/6K1/8/8/8/8/Q7 w - - 0 1")
    moves = list(board.legal_moves)
    priors = move_priors(board, moves)
    best = moves[max(range(len(moves)), key=priors.__getitem__)]
    assert best == chess.Move.from_uci("a1a8")
    assert sum(priors) == pytest.approx(1.0)
    # the lone king's side gets the ordinary priors (all its moves weigh 1 here)
    board.push(chess.Move.from_uci("a1b1"))
    lone = list(board.legal_moves)
    assert move_priors(board, lone) == pytest.approx([1 / len(lone)] * len(lone))


def test_checkmate_stalemate_and_bare_kings():
    for depth in (0, 4):
        assert quiescence(chess.Board(FOOLS_MATE), depth) == -1.0
        assert quiescence(chess.Board(STALEMATE), depth) == 0.0
        assert quiescence(chess.Board(BARE_KINGS), depth) == 0.0
    assert evaluate_board(chess.Board(FOOLS_MATE)) == -1.0


def test_quiescence_sees_the_hanging_queen():
    board = chess.Board(HANGING_QUEEN)
    static = evaluate_board(board)
    resolved = quiescence(board)
    assert abs(static) < 0.2  # material is even: the static value does not see Bxg4
    assert resolved > 0.5  # Black wins the queen for nothing
    assert quiescence(board, depth=0) == static


def test_quiescence_at_depth_one_is_the_best_capture_or_stand_pat():
    board = chess.Board(HANGING_QUEEN)
    replies = []
    for move in board.generate_legal_captures():
        board.push(move)
        replies.append(-static_score(board))
        board.pop()
    expected = max([static_score(board), *replies])
    squashed = MATERIAL_VALUE_BOUND * math.tanh(CENTIPAWN_SCALE * expected)
    assert quiescence(board, depth=1) == squashed


def test_quiescence_answers_a_check():
    # Black to move, in check from the rook on e1: the king must move (no stand pat in
    # check); the best evasion leaves Black a rook down, not mated.
    board = chess.Board("4k3/8/8/8/8/8/8/4RK2 b - - 0 1")
    assert board.is_check()
    assert -1.0 < quiescence(board) < -0.5  # a rook down, not mated


def test_priors_favour_taking_a_queen_with_a_pawn():
    board = chess.Board("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1")
    moves = list(board.legal_moves)
    priors = dict(zip(moves, move_priors(board, moves), strict=True))
    take = chess.Move.from_uci("e4d5")
    assert priors[take] == max(priors.values())
    assert priors[take] > 5 * priors[chess.Move.from_uci("e4e5")]
    assert math.fsum(priors.values()) == pytest.approx(1.0)
    assert min(priors.values()) > 0.0


def test_priors_follow_mvv_lva():
    # The pawn on c4 and the rook on d1 can both take the queen on d5; the pawn can also
    # take the rook on b5. Most valuable victim first, then the least valuable attacker.
    board = chess.Board("4k3/8/8/1r1q4/2P5/8/8/3RK3 w - - 0 1")
    moves = [chess.Move.from_uci(m) for m in ("c4d5", "d1d5", "c4b5", "c4c5")]
    pawn_takes_queen, rook_takes_queen, pawn_takes_rook, quiet = move_priors(board, moves)
    assert pawn_takes_queen > rook_takes_queen > pawn_takes_rook > quiet > 0.0


def test_priors_favour_promotions_and_checks():
    board = chess.Board("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    moves = [chess.Move.from_uci(m) for m in ("a7a8q", "a7a8r", "a7a8n", "a1b1")]
    queen, rook, knight, quiet = move_priors(board, moves)
    assert queen > rook > knight > quiet > 0.0
    board = chess.Board("4k3/8/8/8/8/8/8/R3K2n w - - 0 1")  # a knight: not a mop-up ending
    check, quiet = move_priors(board, [chess.Move.from_uci("a1a8"), chess.Move.from_uci("a1a7")])
    assert check > quiet
    assert check + quiet == pytest.approx(1.0)


def test_bad_input_is_refused():
    board = chess.Board()
    with pytest.raises(TypeError, match="expected a chess.Board"):
        evaluate_board(MIDDLE_GAME)
    with pytest.raises(ValueError, match="not legal"):
        move_priors(board, [chess.Move.from_uci("e2e5")])
    with pytest.raises(ValueError, match="at least one legal move"):
        move_priors(board, [])
    with pytest.raises(ValueError, match=">= 0"):
        quiescence(board, -1)
    with pytest.raises(TypeError, match="callable"):
        ChessEvaluator(None, chess.Move.from_uci)


class FenModel:
    """A small chess model for the tests: states are FEN strings, actions UCI strings."""

    def actions(self, state):
        board = chess.Board(state)
        if board.is_game_over():
            return ()
        return tuple(sorted(move.uci() for move in board.legal_moves))

    def player(self, state):
        return chess.Board(state).turn

    def step(self, state, action):
        board = chess.Board(state)
        board.push_uci(action)
        reward = 1.0 if board.is_checkmate() else 0.0
        return StepResult(board.fen(), reward, board.is_game_over())


def board_of(state):
    return chess.Board(state)


def move_of(state, action):
    return chess.Move.from_uci(action)


def test_chess_evaluator_answers_the_protocol():
    evaluator = ChessEvaluator(board_of, move_of, quiescence_depth=3)
    actions = FenModel().actions(HANGING_QUEEN)
    value, priors = checked_evaluation(evaluator(HANGING_QUEEN, actions), HANGING_QUEEN, actions)
    board = chess.Board(HANGING_QUEEN)
    assert value == quiescence(board, 3)
    assert priors == pytest.approx(move_priors(board, [move_of(None, a) for a in actions]))
    assert priors[actions.index("c8g4")] == max(priors)


def test_puct_with_the_chess_evaluator_takes_the_free_queen():
    evaluator = ChessEvaluator(board_of, move_of, quiescence_depth=2)
    planner = MCTS(
        FenModel(),
        60,
        selection="puct",
        evaluator=evaluator,
        exploration=1.5,
        max_depth=2,
        unvisited_value=1.0,
        seed=0,
    )
    assert planner(HANGING_QUEEN) == "c8g4"


# White to move: Rd8 mates (a quiet move the capture search never plays); Black's knight keeps
# it out of the mop-up endings.
BACK_RANK = "n5k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"


def reference_search_score(board, depth):
    """search_value's score by plain minimax (no pruning) over every move, the capture search
    (full window) at depth 0; a move after which a draw can be claimed (python-chess's own
    can_claim_draw on the move stack) or the material is insufficient scores 0."""
    if depth == 0:
        return _quiescence_score(board, -_MATE, _MATE, QUIESCENCE_DEPTH)
    moves = list(board.legal_moves)
    if not moves:
        return -_MATE if board.is_check() else 0
    best = -_MATE
    for move in moves:
        board.push(move)
        drawn = board.is_insufficient_material() or board.can_claim_draw()
        score = 0 if drawn else -reference_search_score(board, depth - 1)
        board.pop()
        best = max(best, score)
    return best


def test_search_value_is_the_minimax_of_a_ply_over_the_capture_search():
    model = ChessModel()
    for board in random_positions(12, seed=5):
        before = board.fen()
        expected = _value(board, reference_search_score(board, 1))
        # the repetition history: the model's, from the board's move stack
        history = history_of(model.state_of_board(board))
        assert search_value(board.copy(stack=False), 1, history=history) == expected
        assert board.fen() == before


def test_search_value_ends_a_line_where_a_repetition_can_be_claimed():
    # Knights out and back: positions repeat, and a move can hand the opponent a claim (the
    # model ends the game there). With the model's history the search scores such moves 0,
    # exactly as python-chess's can_claim_draw on the full move stack says.
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2 + ["g1f3", "g8f6", "f3g1"]
    model = ChessModel()
    seen_a_draw = False
    for plies in range(4, len(shuffle) + 1):
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2 3")
        for uci in shuffle[:plies]:
            board.push_uci(uci)
        state = model.state_of_board(board)
        if not state.actions:
            continue  # over already: the model ended it
        expected = _value(board, reference_search_score(board, 1))
        got = search_value(board.copy(stack=False), 1, history=history_of(state))
        assert got == expected
        for move in board.legal_moves:
            after = board.copy()
            history = position_after(after, history_of(state), move)
            assert drawn_by_rule(after, history) == after.can_claim_draw()
            seen_a_draw |= after.can_claim_draw()
    assert seen_a_draw
    # A queen down, black shuffles its king while white's queen shuffles: ...Ke8 hands white
    # a claim (its Qd2 would repeat a third time), which ends the game drawn. Only the
    # history shows it: without it the search sees a lost position.
    board = chess.Board("4k3/4p3/8/8/8/8/3Q4/4K3 b - - 0 1")
    for uci in ["e8f8", "d2c2", "f8e8", "c2d2", "e8f8", "d2c2"]:
        board.push_uci(uci)
    state = model.state_of_board(board)
    assert state.actions
    assert search_value(board.copy(stack=False), 1, history=history_of(state)) == 0.0
    assert search_value(board.copy(stack=False), 1) < -MATERIAL_VALUE_BOUND


def test_search_value_sees_a_quiet_mate_that_the_capture_search_does_not():
    board = chess.Board(BACK_RANK)
    assert search_value(board, 1) == 1.0
    assert 0.0 < quiescence(board) < MATERIAL_VALUE_BOUND  # a rook for a knight, no more
    assert search_value(chess.Board(FOOLS_MATE), 1) == -1.0  # White is already mated


def test_search_value_is_colour_symmetric():
    for board in random_positions(6, seed=9):
        assert search_value(board, 1) == pytest.approx(search_value(board.mirror(), 1))


def test_search_depth_is_checked_and_used_by_the_evaluator():
    with pytest.raises(ValueError, match="search depth must be >= 0"):
        search_value(chess.Board(), -1)
    with pytest.raises(TypeError, match="search depth must be an int"):
        ChessEvaluator(board_of, move_of, search_depth=1.0)
    with pytest.raises(TypeError, match="history_of must be callable or None"):
        ChessEvaluator(board_of, move_of, search_depth=1, history_of=())
    evaluator = ChessEvaluator(board_of, move_of, search_depth=1)
    actions = FenModel().actions(BACK_RANK)
    value, priors = evaluator(BACK_RANK, actions)
    assert value == 1.0 and len(priors) == len(actions)
    assert "search_depth=1" in repr(evaluator)
    assert ChessEvaluator(board_of, move_of)(BACK_RANK, actions).value == quiescence(
        chess.Board(BACK_RANK)
    )
