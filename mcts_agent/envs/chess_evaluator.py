"""A hand-written chess evaluator on python-chess boards: material, piece-square tables, mobility.

Values and priors for guided search (``docs/guides/guided-search.md``) in
chess, computed on ``chess.Board`` and ``chess.Move`` (python-chess), so they
work with any chess model that can show a state as a board:

* :func:`evaluate_board`: the static value of a position for the side to
  move, in [-1, 1]: material, piece-square tables and mobility in
  centipawns, squashed into (-0.6, 0.6) by ``0.6 * tanh(score / 543)``;
  mating progress (:func:`mop_up_progress`) above that when a bare king faces
  a queen or rook; checkmate -1, stalemate and insufficient material 0.
* :func:`quiescence`: the value after a short capture-only search, since a
  position in the middle of an exchange is misjudged by a static evaluation.
* :func:`search_value`: the value after a full-width alpha-beta search of a
  few plies with the capture search at its leaves: a leaf of the tree then
  sees every reply, quiet mates and forks included (an MCTS-minimax hybrid,
  Baier & Winands 2015).
* :func:`move_priors`: priors favouring captures (most valuable victim, least
  valuable attacker), promotions and checks.
* :class:`ChessEvaluator`: the two together as an evaluator
  ``(state, actions) -> Evaluation(value, priors)`` for a model, given the
  model's ``board_of(state)`` and ``move_of(state, action)``.

Sources: material values and piece-square tables are Tomasz Michniewski's
"Simplified Evaluation Function" (Chess Programming Wiki,
https://www.chessprogramming.org/Simplified_Evaluation_Function): pawn 100,
knight 320, bishop 330, rook 500, queen 900 centipawns, the classic 1, 3, 3,
5, 9 of Shannon (1950, "Programming a computer for playing chess", Phil.
Mag. 41, section 3) with the bishop a little above the knight. Mobility:
Chess Programming Wiki, "Mobility". Quiescence search and MVV-LVA ordering:
Chess Programming Wiki, "Quiescence Search" and "MVV-LVA". Shallow alpha-beta
searches at the leaves of a Monte Carlo tree: Baier & Winands (2015), "MCTS-Minimax
Hybrids", IEEE Trans. Comput. Intell. AI Games 7(2), section 4 ("minimax in the
evaluation"); Knuth & Moore (1975) for alpha-beta. The squashing
scale is Lichess's winning chances, ``2 / (1 + exp(-0.00368208 * cp)) - 1 =
tanh(0.00184104 * cp)`` (https://lichess.org/page/accuracy). Mating a bare
king: Chess Programming Wiki, "Mop-up Evaluation".

Why material stays below 0.6: with every won position near +0.95 (a queen
up), a search cannot tell the moves that drive the lone king to the edge from
the ones that shuffle, and a PUCT search follows its priors instead (king and
queen against king was not mated in fifty moves, 0 of 8 trials against
minimax at depth 2, at 800 iterations a move). Keeping material below
:data:`MATERIAL_VALUE_BOUND` leaves the band up to 1 for mating progress,
which the search can then climb (5 of 6 mated within fifty moves, in 19 to 46).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import chess

from mcts_agent.envs.chess import drawn_by_rule, position_after, repetition_key
from mcts_agent.evaluator import Evaluation

__all__ = [
    "CAPTURE_WEIGHT",
    "CASTLING_RIGHT_VALUE",
    "CENTIPAWN_SCALE",
    "CHECK_WEIGHT",
    "MATERIAL_VALUE_BOUND",
    "MATE_PRIOR_FACTOR",
    "MOBILITY_WEIGHT",
    "MOP_UP_PRIOR_WEIGHT",
    "MOP_UP_THRESHOLD",
    "PIECE_VALUES",
    "QUIESCENCE_DEPTH",
    "SEARCH_DEPTH",
    "ChessEvaluator",
    "evaluate_board",
    "mop_up_progress",
    "move_priors",
    "quiescence",
    "search_value",
    "static_score",
]

PIECE_VALUES: dict[int, int] = {
    chess.PAWN: 100,
    chess.KNIGHT: 320,
    chess.BISHOP: 330,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}
"""Centipawns per piece type (Michniewski's Simplified Evaluation Function; king not counted)."""

CENTIPAWN_SCALE = 0.00184104
"""``value = MATERIAL_VALUE_BOUND * tanh(CENTIPAWN_SCALE * centipawns)``: Lichess's winning chances
scaled (a queen: 0.6 * 0.93 = 0.56)."""

MATERIAL_VALUE_BOUND = 0.6
"""Material values lie in (-0.6, 0.6); mating progress above them (mop-up), mate at 1."""

MOP_UP_THRESHOLD = 400
"""Centipawns ahead (after the capture search) for a rook or queen vs a bare king to be mop-up."""

MOP_UP_PRIOR_WEIGHT = 5.0
"""In mop-up, the stronger side's prior of a move is ``exp(5 * progress after it)`` (times mate)."""

MATE_PRIOR_FACTOR = 10.0
"""In mop-up, a move that mates has its prior weight multiplied by this."""

MOBILITY_WEIGHT = 4
"""Centipawns per square a knight, bishop, rook or queen attacks that its side does not occupy."""

CASTLING_RIGHT_VALUE = 15
"""Centipawns per castling right a side keeps, in the middle game (its king not yet exposed).

The piece-square tables score a king on d7 as on e8, so a king walk in the opening cost
nothing (two lost games against minimax began with ...Kd7); castling itself gives the
rights up for the tables' +30 on g1 or c1's +10."""

QUIESCENCE_DEPTH = 4
"""The default cap on the plies of captures :func:`quiescence` searches."""

SEARCH_DEPTH = 1
"""The full-width plies :func:`search_value` searches by default, and the chess defaults'
``ChessEvaluator(search_depth=...)`` (:func:`mcts_agent.defaults.chess_defaults`)."""

_MATE = 100_000  # centipawns: beyond any material, tanh of it is 1.0 in floating point

# Michniewski's tables as printed, from White's side: rank 8 first, a-file first in each rank.
# fmt: off
_PIECE_SQUARE_TABLES: dict[int, tuple[int, ...]] = {
    chess.PAWN: (
        0, 0, 0, 0, 0, 0, 0, 0,
        50, 50, 50, 50, 50, 50, 50, 50,
        10, 10, 20, 30, 30, 20, 10, 10,
        5, 5, 10, 25, 25, 10, 5, 5,
        0, 0, 0, 20, 20, 0, 0, 0,
        5, -5, -10, 0, 0, -10, -5, 5,
        5, 10, 10, -20, -20, 10, 10, 5,
        0, 0, 0, 0, 0, 0, 0, 0,
    ),
    chess.KNIGHT: (
        -50, -40, -30, -30, -30, -30, -40, -50,
        -40, -20, 0, 0, 0, 0, -20, -40,
        -30, 0, 10, 15, 15, 10, 0, -30,
        -30, 5, 15, 20, 20, 15, 5, -30,
        -30, 0, 15, 20, 20, 15, 0, -30,
        -30, 5, 10, 15, 15, 10, 5, -30,
        -40, -20, 0, 5, 5, 0, -20, -40,
        -50, -40, -30, -30, -30, -30, -40, -50,
    ),
    chess.BISHOP: (
        -20, -10, -10, -10, -10, -10, -10, -20,
        -10, 0, 0, 0, 0, 0, 0, -10,
        -10, 0, 5, 10, 10, 5, 0, -10,
        -10, 5, 5, 10, 10, 5, 5, -10,
        -10, 0, 10, 10, 10, 10, 0, -10,
        -10, 10, 10, 10, 10, 10, 10, -10,
        -10, 5, 0, 0, 0, 0, 5, -10,
        -20, -10, -10, -10, -10, -10, -10, -20,
    ),
    chess.ROOK: (
        0, 0, 0, 0, 0, 0, 0, 0,
        5, 10, 10, 10, 10, 10, 10, 5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        0, 0, 0, 5, 5, 0, 0, 0,
    ),
    chess.QUEEN: (
        -20, -10, -10, -5, -5, -10, -10, -20,
        -10, 0, 0, 0, 0, 0, 0, -10,
        -10, 0, 5, 5, 5, 5, 0, -10,
        -5, 0, 5, 5, 5, 5, 0, -5,
        0, 0, 5, 5, 5, 5, 0, -5,
        -10, 5, 5, 5, 5, 5, 0, -10,
        -10, 0, 5, 0, 0, 0, 0, -10,
        -20, -10, -10, -5, -5, -10, -10, -20,
    ),
    chess.KING: (  # middle game
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -20, -30, -30, -40, -40, -30, -30, -20,
        -10, -20, -20, -20, -20, -20, -20, -10,
        20, 20, 0, 0, 0, 0, 20, 20,
        20, 30, 10, 0, 0, 10, 30, 20,
    ),
}
_KING_ENDGAME_TABLE = (
    -50, -40, -30, -20, -20, -30, -40, -50,
    -30, -20, -10, 0, 0, -10, -20, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -30, 0, 0, 0, 0, -30, -30,
    -50, -30, -30, -30, -30, -30, -30, -50,
)
# fmt: on


def _by_square(table: Sequence[int], piece_value: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Returns ``(white, black)``: piece value plus table entry, indexed by python-chess square.

    The printed table's index of White's square ``s`` (a1 = 0) is ``s ^ 56``
    (rank 8 printed first); Black reads the table mirrored, so its index is ``s``.
    """
    white = tuple(piece_value + table[square ^ 56] for square in chess.SQUARES)
    black = tuple(piece_value + table[square] for square in chess.SQUARES)
    return white, black


_SQUARE_VALUES = {
    piece_type: _by_square(table, PIECE_VALUES[piece_type])
    for piece_type, table in _PIECE_SQUARE_TABLES.items()
}
_KING_ENDGAME_VALUES = _by_square(_KING_ENDGAME_TABLE, 0)
_PROMOTION_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8
_BEFORE_PROMOTION = {chess.WHITE: chess.BB_RANK_7, chess.BLACK: chess.BB_RANK_2}


def _is_endgame(board: chess.Board) -> bool:
    """Michniewski's endgame: no queens, or each side with a queen has at most one minor piece."""
    for color in chess.COLORS:
        if board.pieces_mask(chess.QUEEN, color):
            others = board.occupied_co[color] & ~board.pawns & ~board.kings & ~board.queens
            if board.rooks & others or chess.popcount(others) > 1:
                return False
    return True


def static_score(board: chess.Board) -> int:
    """The static evaluation in centipawns, from the point of view of the side to move.

    Material and piece-square tables (Michniewski's Simplified Evaluation
    Function; the king's endgame table when :func:`_is_endgame` says so,
    his definition) plus ``MOBILITY_WEIGHT`` centipawns per square each
    knight, bishop, rook and queen attacks that its own side does not occupy
    (pseudo-legal mobility, Chess Programming Wiki "Mobility"), plus, in the
    middle game, ``CASTLING_RIGHT_VALUE`` per castling right kept. Every term
    is counted for both sides alike, so flipping only the side to move
    negates the score, and ``board.mirror()`` keeps it. Checkmate and draws
    are not seen here (:func:`evaluate_board` sees them).

    Args:
        board: any position.

    Returns:
        White's score minus Black's, negated when Black is to move.
    """
    endgame = _is_endgame(board)
    score = _side_score(board, chess.WHITE, endgame) - _side_score(board, chess.BLACK, endgame)
    if not endgame and board.castling_rights:
        rights = board.castling_rights
        score += CASTLING_RIGHT_VALUE * (
            chess.popcount(rights & chess.BB_RANK_1) - chess.popcount(rights & chess.BB_RANK_8)
        )
    return score if board.turn == chess.WHITE else -score


def _knight_attacks(square: int, occupied: int) -> int:
    """A knight's attacks from ``square`` (python-chess's table; ``occupied`` is not needed)."""
    return chess.BB_KNIGHT_ATTACKS[square]


def _diagonal_attacks(square: int, occupied: int) -> int:
    """A bishop's attacks from ``square`` given ``occupied`` (python-chess's tables)."""
    return chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & occupied]


def _straight_attacks(square: int, occupied: int) -> int:
    """A rook's attacks from ``square`` given the ``occupied`` bitboard (python-chess's tables)."""
    return (
        chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & occupied]
        | chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & occupied]
    )


def _queen_attacks(square: int, occupied: int) -> int:
    """A queen's attacks from ``square``: a bishop's and a rook's."""
    return _diagonal_attacks(square, occupied) | _straight_attacks(square, occupied)


def _side_score(board: chess.Board, color: bool, endgame: bool) -> int:
    """One side's material, piece-square and mobility terms of :func:`static_score`, centipawns.

    The inner loop of the leaf searches (about 60 calls a leaf), so the squares of each
    bitboard are walked by hand (lowest bit first, as ``chess.scan_forward``) and a piece's
    attacks read from python-chess's tables as ``chess.Board.attacks_mask`` reads them.
    """
    own = board.occupied_co[color]
    occupied = board.occupied
    free = ~own
    side = 0 if color == chess.WHITE else 1  # the index of _by_square's (white, black)
    popcount = chess.popcount
    score = mobility = 0
    king_values = _KING_ENDGAME_VALUES if endgame else _SQUARE_VALUES[chess.KING]
    for pieces, values in (
        (board.pawns, _SQUARE_VALUES[chess.PAWN][side]),
        (board.kings, king_values[side]),
    ):
        pieces &= own
        while pieces:
            lowest = pieces & -pieces
            pieces ^= lowest
            score += values[lowest.bit_length() - 1]
    for pieces, values, attacks_of in (
        (board.knights & own, _SQUARE_VALUES[chess.KNIGHT][side], _knight_attacks),
        (board.bishops & own, _SQUARE_VALUES[chess.BISHOP][side], _diagonal_attacks),
        (board.rooks & own, _SQUARE_VALUES[chess.ROOK][side], _straight_attacks),
        (board.queens & own, _SQUARE_VALUES[chess.QUEEN][side], _queen_attacks),
    ):
        while pieces:
            lowest = pieces & -pieces
            pieces ^= lowest
            square = lowest.bit_length() - 1
            score += values[square]
            mobility += popcount(attacks_of(square, occupied) & free)
    return score + MOBILITY_WEIGHT * mobility


def _squash(centipawns: float) -> float:
    """``MATERIAL_VALUE_BOUND * tanh(CENTIPAWN_SCALE * centipawns)``: centipawns to (-0.6, 0.6)."""
    return MATERIAL_VALUE_BOUND * math.tanh(CENTIPAWN_SCALE * centipawns)


def _center_distance(square: int) -> int:
    """Manhattan distance of ``square`` from the four centre squares: 0 (d4..e5) to 6 (a corner)."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    return max(3 - file, file - 4) + max(3 - rank, rank - 4)


_MOP_UP_SCALE = 4.7 * 6 + 1.6 * 14  # the most the mop-up terms can add, so progress < 1


def mop_up_progress(board: chess.Board) -> tuple[bool | None, float]:
    """How far a queen or rook has driven a bare king towards mate: ``(stronger side, progress)``.

    Applies when one side has only its king and pawns and the other a queen or a
    rook; the stronger side must drive the lone king to the edge with its own king
    close. Chess Programming Wiki, "Mop-up Evaluation": ``4.7 * CMD + 1.6 * (14 -
    MD)``, with CMD the lone king's Manhattan distance from the centre (0 to 6) and
    MD the distance between the kings, divided by its largest value (50.6).
    Material is not looked at here (:func:`quiescence` decides if the stronger
    side is ahead enough, :data:`MOP_UP_THRESHOLD`).

    Args:
        board: any position (not changed).

    Returns:
        ``(colour, progress)``: the stronger side (``chess.WHITE`` or
        ``chess.BLACK``) and a float in [0, 1); ``(None, 0.0)`` if the
        position is not such an ending.
    """
    for strong in chess.COLORS:
        weak = not strong
        if board.occupied_co[weak] & ~board.pawns & ~board.kings:
            continue
        if not (board.queens | board.rooks) & board.occupied_co[strong]:
            continue
        lone_king, king = board.king(weak), board.king(strong)
        if lone_king is None or king is None:
            return None, 0.0
        distance = chess.square_manhattan_distance(lone_king, king)
        return strong, (4.7 * _center_distance(lone_king) + 1.6 * (14 - distance)) / _MOP_UP_SCALE
    return None, 0.0


def _value(board: chess.Board, centipawns: float) -> float:
    """The value for the side to move of a position scored ``centipawns`` (its view).

    ``_squash(centipawns)``, or, in a mop-up ending (:func:`mop_up_progress`) where the
    stronger side is at least :data:`MOP_UP_THRESHOLD` ahead, ``±(bound + (1 - bound)
    * progress)``: above every material value, below mate; a mate the capture search
    found (``±_MATE``) is ±1.
    """
    if abs(centipawns) >= _MATE:
        return math.copysign(1.0, centipawns)
    strong, progress = mop_up_progress(board)
    if strong is not None:
        ahead = centipawns if board.turn == strong else -centipawns
        if ahead >= MOP_UP_THRESHOLD:
            value = MATERIAL_VALUE_BOUND + (1.0 - MATERIAL_VALUE_BOUND) * progress
            return value if board.turn == strong else -value
    return _squash(centipawns)


def _check_board(board: Any) -> None:
    """Raises TypeError unless ``board`` is a ``chess.Board``."""
    if not isinstance(board, chess.Board):
        raise TypeError(f"expected a chess.Board, got {type(board).__name__}: {board!r}")


def evaluate_board(board: chess.Board) -> float:
    """The static value of a position for the side to move, in [-1, 1].

    -1 if the side to move is checkmated; 0 if it is stalemated or neither
    side has mating material (``board.is_insufficient_material()``); in a
    mop-up ending (:func:`mop_up_progress`) with the stronger side
    :data:`MOP_UP_THRESHOLD` ahead, ``±(0.6 + 0.4 * progress)``; else
    ``MATERIAL_VALUE_BOUND * tanh(CENTIPAWN_SCALE * static_score(board))``.
    Repetitions and the fifty-move rule are the model's business (it ends
    the game), not seen here.

    Args:
        board: a ``chess.Board`` (not changed).

    Returns:
        The value, a float in [-1, 1]: about 0 at the start, about +0.56 a
        queen up in the middle game.

    Raises:
        TypeError: if ``board`` is not a ``chess.Board``.
    """
    _check_board(board)
    value = _terminal_value(board)
    return _value(board, static_score(board)) if value is None else value


def _terminal_value(board: chess.Board) -> float | None:
    """-1.0 if checkmated, 0.0 if stalemate or insufficient material, else None."""
    if not any(board.generate_legal_moves()):
        return -1.0 if board.is_check() else 0.0
    if board.is_insufficient_material():
        return 0.0
    return None


def _victim_value(board: chess.Board, move: chess.Move) -> int:
    """The centipawn value of the piece ``move`` captures (a pawn for en passant), 0 if none."""
    victim = board.piece_type_at(move.to_square)
    if victim is not None:
        return PIECE_VALUES[victim]
    return PIECE_VALUES[chess.PAWN] if board.is_en_passant(move) else 0


def _mvv_lva(board: chess.Board, move: chess.Move) -> int:
    """The MVV-LVA key of a move: the victim's value first, then the cheaper attacker."""
    attacker = board.piece_type_at(move.from_square)
    return 16 * _victim_value(board, move) - PIECE_VALUES[attacker]


def _quiescence_score(board: chess.Board, alpha: int, beta: int, depth: int) -> int:
    """Fail-hard alpha-beta over captures and queen promotions, in centipawns, side to move's view.

    In check, every evasion is searched and there is no stand pat (no legal
    move is a mate, ``-_MATE``); otherwise the static score stands pat
    (Chess Programming Wiki, "Quiescence Search"). ``depth`` plies at most;
    at 0 the static score is returned.
    """
    if depth == 0:
        return static_score(board)
    if board.is_check():
        moves = list(board.generate_legal_moves())
        if not moves:
            return -_MATE
    else:
        stand_pat = static_score(board)
        if stand_pat >= beta:
            return beta
        alpha = max(alpha, stand_pat)
        moves = list(board.generate_legal_captures())
        promoting = board.pawns & board.occupied_co[board.turn] & _BEFORE_PROMOTION[board.turn]
        if promoting:
            moves += [
                move
                for move in board.generate_legal_moves(promoting, _PROMOTION_RANKS)
                if move.promotion == chess.QUEEN and not board.is_capture(move)
            ]
    moves.sort(key=lambda move: _mvv_lva(board, move), reverse=True)
    for move in moves:
        board.push(move)
        score = -_quiescence_score(board, -beta, -alpha, depth - 1)
        board.pop()
        if score >= beta:
            return beta
        alpha = max(alpha, score)
    return alpha


def quiescence(board: chess.Board, depth: int = QUIESCENCE_DEPTH) -> float:
    """The value of a position for the side to move after resolving captures, in [-1, 1].

    A capture-only alpha-beta search (Chess Programming Wiki, "Quiescence
    Search"): at each node the side to move may stand pat on
    :func:`static_score` or play a capture or a queen promotion, ordered by
    MVV-LVA; a side in check must answer it (all evasions, checkmate
    ``-1``). ``depth`` caps the plies searched; the nodes at the cap take the
    static score. The position itself is judged as :func:`evaluate_board`
    does first (checkmate -1, stalemate and insufficient material 0), and
    the score is mapped to a value as there (mop-up endings above 0.6).

    Args:
        board: a ``chess.Board``; moves are pushed and popped, so it is
            unchanged on return (not safe to share with another thread
            meanwhile).
        depth: int >= 0, the most plies searched; 0 is :func:`evaluate_board`.

    Returns:
        ``MATERIAL_VALUE_BOUND * tanh(CENTIPAWN_SCALE * score)`` (or the
        mop-up value), a float in [-1, 1].

    Raises:
        TypeError: if ``board`` is not a ``chess.Board`` or ``depth`` not an int.
        ValueError: if ``depth`` is negative.
    """
    _check_board(board)
    _check_depth(depth)
    value = _terminal_value(board)
    if value is not None:
        return value
    return _value(board, _quiescence_score(board, -_MATE, _MATE, depth))


def _check_depth(depth: Any, what: str = "quiescence depth") -> None:
    """Raises unless ``depth`` is an int >= 0."""
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise TypeError(f"{what} must be an int >= 0, got {depth!r}")
    if depth < 0:
        raise ValueError(f"{what} must be >= 0, got {depth}")


def _alpha_beta_score(
    board: chess.Board,
    depth: int,
    alpha: int,
    beta: int,
    quiescence_depth: int,
    history: tuple[Hashable, ...],
) -> int:
    """Fail-hard alpha-beta over every legal move, ``depth`` plies, then the capture search.

    In centipawns from the side to move's view: no legal move is ``-_MATE``
    (checkmate) or 0 (stalemate); a move after which PettingZoo's game is drawn
    by rule (:func:`mcts_agent.envs.chess.drawn_by_rule`: insufficient material,
    fifty moves, a threefold repetition the opponent can claim; ``history`` the
    repetition keys up to ``board``) scores 0. Captures are tried first, by MVV-LVA.
    """
    if depth == 0:
        return _quiescence_score(board, alpha, beta, quiescence_depth)
    moves = list(board.generate_legal_moves())
    if not moves:
        return -_MATE if board.is_check() else 0
    moves.sort(
        key=lambda move: _mvv_lva(board, move) if board.is_capture(move) else -_MATE,
        reverse=True,
    )
    for move in moves:
        after = position_after(board, history, move)
        if drawn_by_rule(board, after):
            score = 0
        else:
            score = -_alpha_beta_score(board, depth - 1, -beta, -alpha, quiescence_depth, after)
        board.pop()
        if score >= beta:
            return beta
        alpha = max(alpha, score)
    return alpha


def search_value(
    board: chess.Board,
    depth: int = SEARCH_DEPTH,
    quiescence_depth: int = QUIESCENCE_DEPTH,
    history: tuple[Hashable, ...] | None = None,
) -> float:
    """The value of a position for the side to move after a shallow full-width search, in [-1, 1].

    Alpha-beta (Knuth & Moore 1975) over every legal move for ``depth`` plies,
    captures first (MVV-LVA), with :func:`quiescence`'s capture search at its
    leaves: where :func:`quiescence` lets the side to move stand pat, this
    also sees every reply, so a quiet mate, a fork or a piece left hanging one
    ply below is valued. In a Monte Carlo tree each leaf is then judged a
    ``depth``-ply search deep (Baier & Winands 2015, "MCTS-Minimax Hybrids",
    minimax in the evaluation). The position itself is judged as
    :func:`evaluate_board` does first, and the score is mapped to a value as
    there. ``depth=0`` is :func:`quiescence`. A move after which the game is drawn by
    PettingZoo's rules (insufficient material, fifty moves, a threefold repetition the
    opponent can claim, :func:`mcts_agent.envs.chess.drawn_by_rule`) scores 0, so a side
    that is ahead does not walk into a repetition that a leaf could not see: ``history``
    gives the positions before ``board`` (a model's state's,
    :func:`mcts_agent.envs.chess.history_of`).

    Cost: about 35 capture searches a ply on a middle-game board, most cut off
    at once (2.5 to 3.5 ms of CPU at depth 1 in python-chess, against 0.35 ms
    for :func:`quiescence`).

    Args:
        board: a ``chess.Board``; moves are pushed and popped, so it is
            unchanged on return (not safe to share with another thread).
        depth: int >= 0, the full-width plies.
        quiescence_depth: int >= 0, the capture plies below them.
        history: the repetition keys of the positions since the last irreversible
            move, ending in ``board``'s (:func:`mcts_agent.envs.chess.history_of`), or
            None: ``board``'s alone (repetitions inside the search only).

    Returns:
        A float in [-1, 1]: checkmate -1 (or 1 when the search finds a mate),
        stalemate and insufficient material 0.

    Raises:
        TypeError: if ``board`` is not a ``chess.Board`` or a depth not an int.
        ValueError: if a depth is negative.
    """
    _check_board(board)
    _check_depth(depth, "search depth")
    _check_depth(quiescence_depth)
    value = _terminal_value(board)
    if value is not None:
        return value
    if history is None:
        history = (repetition_key(board),)
    score = _alpha_beta_score(board, depth, -_MATE, _MATE, quiescence_depth, history)
    return _value(board, score)


CAPTURE_WEIGHT = 2.0
"""Prior weight per pawn of ``victim - attacker / 16`` (MVV-LVA; a queen taken by a pawn: 8.94)."""

CHECK_WEIGHT = 2.0
"""Prior weight added for a move that gives check."""


def move_priors(board: chess.Board, moves: Sequence[chess.Move]) -> list[float]:
    """Priors over ``moves``: captures by MVV-LVA, promotions and checks favoured; they sum to 1.

    Each move's weight is 1 (every legal move stays possible), plus, for a
    capture, ``CAPTURE_WEIGHT * (victim - attacker / 16)`` in pawns (MVV-LVA:
    the most valuable victim first, then the least valuable attacker; Chess
    Programming Wiki "MVV-LVA"; the king attacks at 0), plus, for a
    promotion, the promoted piece's value in pawns less a pawn, plus
    ``CHECK_WEIGHT`` for a check. The weights are divided by their sum.

    In a mop-up ending (:func:`mop_up_progress`) with the side to move the
    stronger one and :data:`MOP_UP_THRESHOLD` ahead by :func:`static_score`,
    a move's weight is instead ``exp(MOP_UP_PRIOR_WEIGHT * progress after
    it)``, times :data:`MATE_PRIOR_FACTOR` if it mates (a capture loses the
    ending's pawns or the lone king's last hope alike: progress decides).

    Args:
        board: the position (not changed).
        moves: its legal moves, non-empty (for example ``board.legal_moves``
            in a model's order).

    Returns:
        list of floats, shape ``[len(moves)]``, each > 0, summing to 1.

    Raises:
        TypeError: if ``board`` is not a ``chess.Board``.
        ValueError: if ``moves`` is empty or a move is not legal in ``board``.
    """
    _check_board(board)
    if not moves:
        raise ValueError(f"move_priors needs at least one legal move, got none for {board.fen()}")
    legal = set(board.generate_legal_moves())
    for move in moves:
        if move not in legal:
            raise ValueError(f"move {move} is not legal in {board.fen()}")
    strong, _ = mop_up_progress(board)
    if strong == board.turn and static_score(board) >= MOP_UP_THRESHOLD:
        weights = [_mop_up_weight(board, move) for move in moves]
    else:
        weights = [_move_weight(board, move) for move in moves]
    total = sum(weights)
    return [weight / total for weight in weights]


def _mop_up_weight(board: chess.Board, move: chess.Move) -> float:
    """``exp(MOP_UP_PRIOR_WEIGHT * progress after move)``, times ``MATE_PRIOR_FACTOR`` for mate."""
    board.push(move)
    try:
        _, progress = mop_up_progress(board)
        mates = board.is_checkmate()
    finally:
        board.pop()
    weight = math.exp(MOP_UP_PRIOR_WEIGHT * progress)
    return weight * MATE_PRIOR_FACTOR if mates else weight


def _move_weight(board: chess.Board, move: chess.Move) -> float:
    """A move's prior weight outside mop-up: 1 plus MVV-LVA, promotion and check terms."""
    weight = 1.0
    victim = _victim_value(board, move)
    if victim:
        attacker = PIECE_VALUES[board.piece_type_at(move.from_square)]
        weight += CAPTURE_WEIGHT * (victim - attacker / 16) / PIECE_VALUES[chess.PAWN]
    if move.promotion:
        weight += (PIECE_VALUES[move.promotion] - PIECE_VALUES[chess.PAWN]) / PIECE_VALUES[
            chess.PAWN
        ]
    if board.gives_check(move):
        weight += CHECK_WEIGHT
    return weight


class ChessEvaluator:
    """A chess evaluator for a model's states: capture (or shallow) search values, MVV-LVA priors.

    ``evaluator(state, actions) -> Evaluation(value, priors)`` (the protocol
    of :mod:`mcts_agent.evaluator`): ``value`` is :func:`quiescence` of
    ``board_of(state)`` at ``quiescence_depth`` (for the player to move, in
    [-1, 1]), or with ``search_depth`` > 0 :func:`search_value` (that many
    full-width plies first: the chess defaults use 1,
    :func:`mcts_agent.defaults.chess_defaults`); ``priors`` are
    :func:`move_priors` of ``move_of(state, a)`` for each action, in the order
    of ``actions``. It knows nothing of the model but these two functions.

    Args:
        board_of: ``state -> chess.Board``; the board is pushed and popped
            during the search but unchanged on return.
        move_of: ``(state, action) -> chess.Move``, a legal move of that board.
        quiescence_depth: int >= 0, the capture plies searched (0: the
            static :func:`evaluate_board`).
        search_depth: int >= 0, the full-width plies searched before them
            (0, the default: :func:`quiescence` alone, the evaluation
            ``minimax:depth=D`` specs use at their depth limit).
        history_of: ``state -> repetition keys`` (:func:`mcts_agent.envs.chess.history_of`),
            or None: what :func:`search_value` is told of the positions before the state,
            so that its plies end where the model would end the game by repetition.

    Raises:
        TypeError: if ``board_of`` or ``move_of`` is not callable, or a depth
            is not an int; when called, if ``board_of`` gives no ``chess.Board``.
        ValueError: if a depth is < 0; when called, if ``actions`` is empty
            or a move is illegal.
    """

    def __init__(
        self,
        board_of: Callable[[Any], chess.Board],
        move_of: Callable[[Any, Any], chess.Move],
        quiescence_depth: int = QUIESCENCE_DEPTH,
        search_depth: int = 0,
        history_of: Callable[[Any], tuple[Hashable, ...]] | None = None,
    ) -> None:
        for name, function in (("board_of", board_of), ("move_of", move_of)):
            if not callable(function):
                raise TypeError(f"{name} must be callable, got {function!r}")
        if history_of is not None and not callable(history_of):
            raise TypeError(f"history_of must be callable or None, got {history_of!r}")
        _check_depth(quiescence_depth)
        _check_depth(search_depth, "search depth")
        self.board_of = board_of
        self.move_of = move_of
        self.quiescence_depth = quiescence_depth
        self.search_depth = search_depth
        self.history_of = history_of

    def __call__(self, state: Any, actions: Sequence[Any]) -> Evaluation:
        """Returns ``Evaluation(value, move priors)`` for ``state`` and ``actions``."""
        board = self.board_of(state)
        moves = [self.move_of(state, action) for action in actions]
        priors = move_priors(board, moves)
        if self.search_depth:
            history = None if self.history_of is None else self.history_of(state)
            value = search_value(board, self.search_depth, self.quiescence_depth, history)
        else:
            value = quiescence(board, self.quiescence_depth)
        return Evaluation(value, priors)

    def __repr__(self) -> str:
        return (
            f"ChessEvaluator({self.board_of!r}, {self.move_of!r}, "
            f"quiescence_depth={self.quiescence_depth}, search_depth={self.search_depth}, "
            f"history_of={self.history_of!r})"
        )
