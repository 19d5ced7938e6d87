"""Chess as a native model on python-chess, with PettingZoo ``classic/chess_v6``'s rules.

PettingZoo's chess_v6 (``pettingzoo/classic/chess/chess.py`` and ``chess_utils.py``) plays
python-chess's ``chess.Board``; this module follows that code, rule by rule:

* **Players.** White is player 0 (PettingZoo's ``player_0``) and moves first; black is
  player 1 (``player_1``).
* **Actions.** AlphaZero's 8x8x73 move encoding (D. Silver et al., "A general reinforcement
  learning algorithm that masters chess, shogi, and Go through self-play", Science 2018,
  supplementary table S2), flattened: action ``(8 * file + rank) * 73 + plane`` picks up the
  piece on ``(file, rank)`` of the **mover's frame**: the board as it stands for white, flipped
  top to bottom (rank ``r`` read as ``7 - r``) for black (``chess_utils.legal_moves`` mirrors
  the board for black). Planes ``0..55`` are queen-like moves, ``8 * (distance - 1) +
  direction`` with the directions ``(dfile, drank)`` in the order ``(-1,-1), (-1,0),
  (-1,1), (0,-1), (0,1), (1,-1), (1,0), (1,1)``; planes ``56..63`` knight moves in the order
  ``(-2,-1), (-2,1), (-1,-2), (-1,2), (1,-2), (1,2), (2,-1), (2,1)``; planes ``64..72``
  underpromotions, ``64 + 3 * (dfile + 1) + k`` with ``k`` 0 knight, 1 bishop, 2 rook. A
  pawn's queen-like move to the last rank promotes to a queen (``action_to_move``).
  Castling is the king's two-square move (``e1g1``, ``e1c1``); en passant the pawn's
  diagonal step.
* **Legal actions** are python-chess's legal moves, in increasing action order (the order
  of ``numpy.flatnonzero(action_mask)``).
* **The end.** After each move PettingZoo ends the game if the player to move has no legal
  move (checkmate or stalemate), if the material is insufficient
  (``Board.is_insufficient_material``), or if the player to move **could claim a draw**
  (``Board.can_claim_draw``): the fifty-move rule (a halfmove clock of 100, or 99 and a legal
  move that is neither a capture nor a pawn move) or threefold repetition (the position
  has occurred three times since the last irreversible move, or a legal move reaches a
  position that has occurred twice). The result is ``Board.result(claim_draw=True)``:
  checkmate wins for the mover, everything else is a draw.

The model gives the reward +1.0 to the player whose move checkmates (PettingZoo: +1 to the
winner, -1 to the loser), 0.0 for a draw and for every other move. An illegal action raises
``ValueError`` (PettingZoo instead ends the game with -1 for the mover,
``TerminateIllegalWrapper``).

A state is a :class:`ChessState`: immutable and hashable, equal when the positions (as
``chess.Board.__eq__`` compares them: pieces, side to move, castling rights, a legal en
passant square, both move counters) and the repetition histories are equal.
:meth:`ChessModel.state_of` reads a live PettingZoo chess env into one; :func:`board_of`,
:func:`move_of` and :func:`action_of` connect states and actions to python-chess.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Hashable
from typing import Any

import chess

from mcts_agent.model import StepResult

__all__ = [
    "BLACK",
    "WHITE",
    "ChessModel",
    "ChessState",
    "action_of",
    "board_of",
    "drawn_by_rule",
    "history_of",
    "move_of",
    "position_after",
    "repetition_key",
]

WHITE, BLACK = 0, 1
"""The players: white (PettingZoo's ``player_0``) and black (``player_1``)."""

NUM_ACTIONS = 8 * 8 * 73
"""The size of PettingZoo's action space, ``Discrete(4672)``."""

_QUEEN_DIRECTIONS = [(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1) if (x, y) != (0, 0)]
_KNIGHT_MOVES = [(x, y) for x in range(-2, 3) for y in range(-2, 3) if abs(x) + abs(y) == 3]
_UNDERPROMOTIONS = (chess.KNIGHT, chess.BISHOP, chess.ROOK)


def _tables() -> tuple[
    dict[tuple[int, int, int | None], int], dict[int, tuple[int, int, int | None]]
]:
    """Returns the encoding in the mover's frame, both ways.

    ``(from_square, to_square, promotion) -> action`` (promotion None, a queen for a queen-like
    move from the 7th rank to the 8th, or an underpromotion's piece type) and ``action ->
    (from_square, to_square, underpromotion or None)`` for every action on the board.
    """
    to_action: dict[tuple[int, int, int | None], int] = {}
    to_move: dict[int, tuple[int, int, int | None]] = {}
    for file in range(8):
        for rank in range(8):
            base = (8 * file + rank) * 73
            source = chess.square(file, rank)
            targets = []  # (plane, dfile, drank, promotion)
            for distance in range(1, 8):
                for direction, (dx, dy) in enumerate(_QUEEN_DIRECTIONS):
                    targets.append(
                        (8 * (distance - 1) + direction, dx * distance, dy * distance, None)
                    )
            for k, (dx, dy) in enumerate(_KNIGHT_MOVES):
                targets.append((56 + k, dx, dy, None))
            if rank == 6:
                for dx in (-1, 0, 1):
                    for k, piece in enumerate(_UNDERPROMOTIONS):
                        targets.append((64 + 3 * (dx + 1) + k, dx, 1, piece))
            for plane, dx, dy, piece in targets:
                if 0 <= file + dx < 8 and 0 <= rank + dy < 8:
                    target = chess.square(file + dx, rank + dy)
                    to_action[source, target, piece] = base + plane
                    to_move[base + plane] = (source, target, piece)
                    if plane < 56 and rank == 6 and dy == 1 and abs(dx) <= 1:
                        to_action[source, target, chess.QUEEN] = base + plane
    return to_action, to_move


_TO_ACTION, _TO_MOVE = _tables()


def repetition_key(board: chess.Board) -> Hashable:
    """The position as python-chess compares it for repetitions (``Board._transposition_key``)."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.occupied_co[chess.BLACK],
        board.turn,
        board.clean_castling_rights(),
        board.ep_square if board.has_legal_en_passant() else None,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class ChessState:
    """A chess position with what the draw rules need: immutable and hashable.

    Attributes:
        key: the position as ``chess.Board.__eq__`` compares boards: its transposition key
            (pieces, side to move, castling rights, a legal en passant square), the halfmove
            clock and the fullmove number.
        history: the transposition keys of the positions since the last irreversible move
            (python-chess's ``Board.is_irreversible``), oldest first, this one last: what
            ``Board.can_claim_threefold_repetition`` counts.
        board: the ``chess.Board`` of this position (its move stack holds at most the move
            that led to it); never mutated. Not compared.
        actions: the legal actions in increasing order, () once the game is over. Not
            compared (they follow from ``key`` and ``history``).
    """

    key: Hashable
    history: tuple[Hashable, ...]
    board: chess.Board = dataclasses.field(compare=False, repr=False)
    actions: tuple[int, ...] = dataclasses.field(compare=False, repr=False)

    def __repr__(self) -> str:
        return f"ChessState({self.board.fen()!r}, history of {len(self.history)})"

    def __deepcopy__(self, memo: dict) -> ChessState:
        return self  # immutable


def _check(state: Any) -> None:
    """Raises ``ValueError`` unless ``state`` is a :class:`ChessState`."""
    if not isinstance(state, ChessState):
        raise ValueError(f"expected a ChessState, got {state!r}")


def board_of(state: ChessState) -> chess.Board:
    """Returns the ``chess.Board`` of ``state``; the caller must not change it.

    It is the state's own board (``board_of(state).copy()`` gives one to change); its move
    stack holds at most the move that led to it (repetitions are in ``state.history``).

    Raises:
        ValueError: if ``state`` is not a :class:`ChessState`.
    """
    _check(state)
    return state.board


def _decode(board: chess.Board, action: int) -> chess.Move | None:
    """Returns the move ``action`` stands for in ``board``, legal or not.

    As PettingZoo's ``chess_utils.action_to_move``; None for an action outside the board.
    """
    entry = _TO_MOVE.get(action)
    if entry is None:
        return None
    source, target, piece = entry
    if board.turn == chess.BLACK:
        source, target = chess.square_mirror(source), chess.square_mirror(target)
    if (
        piece is None
        and board.pawns & chess.BB_SQUARES[source]
        and chess.square_rank(target) in (0, 7)
    ):
        piece = chess.QUEEN
    return chess.Move(source, target, piece)


def move_of(state: ChessState, action: int) -> chess.Move:
    """Returns the ``chess.Move`` of the legal ``action`` in ``state``.

    As PettingZoo's ``chess_utils.action_to_move``: a pawn's queen-like move to the last rank
    promotes to a queen.

    Raises:
        ValueError: if ``state`` is not a :class:`ChessState` or ``action`` is not legal in it.
    """
    _check(state)
    index = _action_index(state, action)
    move = _decode(state.board, index)
    assert move is not None  # a legal action decodes
    return move


def action_of(state: ChessState, move: chess.Move) -> int:
    """Returns PettingZoo's action for the legal ``move`` in ``state``.

    Raises:
        ValueError: if ``state`` is not a :class:`ChessState`, ``move`` not a ``chess.Move``,
            or the move is not legal in ``state``.
    """
    _check(state)
    if not isinstance(move, chess.Move):
        raise ValueError(f"expected a chess.Move, got {move!r}")
    action = _encode(state.board.turn, move)
    if action is None or action not in state.actions:
        raise ValueError(
            f"move {move.uci()} is not legal in {state.board.fen()}; legal moves: "
            f"{[m.uci() for m in state.board.legal_moves] if state.actions else 'none (game over)'}"
        )
    return action


def _encode(turn: bool, move: chess.Move) -> int | None:
    """The action of ``move`` for the side ``turn``, None if no action encodes it."""
    source, target = move.from_square, move.to_square
    if turn == chess.BLACK:
        source, target = chess.square_mirror(source), chess.square_mirror(target)
    return _TO_ACTION.get((source, target, move.promotion))


def _action_index(state: ChessState, action: Any) -> int:
    """Returns ``action`` as an int if it is legal in ``state``; else raises ``ValueError``."""
    try:
        index = operator.index(action)  # Python's or numpy's ints
    except TypeError:
        index = None
    if index is None or isinstance(action, bool) or index not in state.actions:
        if not state.actions:
            raise ValueError(
                f"the game is over in {state.board.fen()}; no action is legal, got {action!r}"
            )
        raise ValueError(
            f"action {action!r} is not legal in {state.board.fen()}: expected one of "
            f"{list(state.actions)} (moves {[m.uci() for m in state.board.legal_moves]})"
        )
    return index


def _state(board: chess.Board, history: tuple[Hashable, ...]) -> ChessState:
    """Returns the state of ``board`` with the repetition ``history`` (ending in its key).

    ``board`` becomes the state's own: not to be changed after. Decides whether the game is
    over (module docstring) and lists the legal actions.
    """
    turn = board.turn
    actions = sorted(_TO_ACTION[_frame(turn, m)] for m in board.generate_legal_moves())
    if actions and drawn_by_rule(board, history):
        actions = []
    key = (history[-1], board.halfmove_clock, board.fullmove_number)
    return ChessState(key, history, board, tuple(actions))


def _frame(turn: bool, move: chess.Move) -> tuple[int, int, int | None]:
    """The key of ``move`` in :data:`_TO_ACTION`, in the mover's frame."""
    if turn == chess.BLACK:
        return (
            chess.square_mirror(move.from_square),
            chess.square_mirror(move.to_square),
            move.promotion,
        )
    return move.from_square, move.to_square, move.promotion


def drawn_by_rule(board: chess.Board, history: tuple[Hashable, ...]) -> bool:
    """Whether PettingZoo's chess ends the game on ``board`` as a draw by rule.

    The rule :class:`ChessModel` follows (module docstring): the material is insufficient,
    or the side to move can claim a draw, by the fifty-move rule or by threefold
    repetition, now or with its next move (``Board.can_claim_draw``, here from
    ``history`` rather than a move stack). Checkmate and stalemate are not looked at.
    A search that plays moves on a board of its own (:func:`position_after`) asks this to
    end a line where the model would.

    Args:
        board: the position (pushed and popped, unchanged on return).
        history: the repetition keys of the positions since the last irreversible move,
            ending in ``board``'s (:func:`history_of`, :func:`position_after`).

    Returns:
        bool.
    """
    return (
        board.is_insufficient_material()
        or board.can_claim_fifty_moves()
        or _can_claim_threefold(board, history)
    )


def history_of(state: ChessState) -> tuple[Hashable, ...]:
    """The repetition keys of ``state``'s game since its last irreversible move, its own last.

    Raises:
        ValueError: if ``state`` is not a :class:`ChessState`.
    """
    _check(state)
    return state.history


def position_after(
    board: chess.Board, history: tuple[Hashable, ...], move: chess.Move
) -> tuple[Hashable, ...]:
    """Pushes the legal ``move`` on ``board`` and returns the history after it.

    As :meth:`ChessModel.step` keeps it: an irreversible move (a capture, a pawn move, a
    change of castling rights) starts the history afresh. The caller pops the move.

    Args:
        board: the position before ``move`` (changed: ``move`` is pushed).
        history: its repetition keys (:func:`history_of`).
        move: a legal move of ``board``.

    Returns:
        The repetition keys after ``move``, ending in the new position's.
    """
    irreversible = board.is_irreversible(move)
    board.push(move)
    key = repetition_key(board)
    return (key,) if irreversible else (*history, key)


def _can_claim_threefold(board: chess.Board, history: tuple[Hashable, ...]) -> bool:
    """``Board.can_claim_threefold_repetition`` from the repetition ``history``."""
    if len(set(history)) == len(history):
        return False  # no position twice: neither now nor after any move
    if history.count(history[-1]) >= 3:
        return True
    for move in board.generate_legal_moves():
        board.push(move)
        try:
            if history.count(repetition_key(board)) >= 2:
                return True
        finally:
            board.pop()
    return False


class ChessModel:
    """Chess as a :class:`~mcts_agent.model.Model`, with PettingZoo ``classic/chess_v6``'s rules.

    The rules, actions and end of the game listed in the module docstring. Players: 0 white
    (moves first), 1 black. Actions: PettingZoo's ints in ``0..4671``. Rewards: +1.0 to the
    player whose move checkmates; 0.0 otherwise (draws included).
    """

    num_players = 2

    def __repr__(self) -> str:
        return "ChessModel()"

    def initial_state(self) -> ChessState:
        """Returns the starting position, white to move (PettingZoo's ``reset``)."""
        return self.state_of_board(chess.Board())

    def state_of_board(self, board: chess.Board) -> ChessState:
        """Returns the state of ``board`` with the repetitions its move stack records.

        Reads the positions back through the move stack to the last irreversible move, as
        ``Board.can_claim_threefold_repetition`` does; ``board`` is left unchanged.

        Raises:
            ValueError: if ``board`` is not a standard ``chess.Board`` (a variant, chess960,
                or another type).
        """
        if type(board) is not chess.Board or board.chess960:
            raise ValueError(f"expected a standard chess.Board, got {board!r}")
        own = board.copy()
        keys = [repetition_key(own)]
        while own.move_stack:
            move = own.pop()
            if own.is_irreversible(move):
                break
            keys.append(repetition_key(own))
        return _state(board.copy(stack=False), tuple(reversed(keys)))

    def state_of(self, env: Any) -> ChessState:
        """Returns the state of a live PettingZoo ``classic/chess_v6`` env; leaves it unchanged.

        Reads its ``chess.Board`` (``env.unwrapped.board``) with its move stack
        (:meth:`state_of_board`).

        Raises:
            TypeError: if ``env`` is not a PettingZoo chess env.
        """
        raw = getattr(env, "unwrapped", env)
        board = getattr(raw, "board", None)
        if type(board) is not chess.Board:
            raise TypeError(f"expected a PettingZoo classic/chess_v6 env, got {env!r}")
        return self.state_of_board(board)

    def player(self, state: ChessState) -> int:
        """Returns the player to move: 0 (white) or 1 (black).

        Raises:
            ValueError: if ``state`` is not a :class:`ChessState`.
        """
        _check(state)
        return WHITE if state.board.turn == chess.WHITE else BLACK

    def actions(self, state: ChessState) -> tuple[int, ...]:
        """Returns the legal actions in increasing order; () once the game is over.

        Raises:
            ValueError: if ``state`` is not a :class:`ChessState`.
        """
        _check(state)
        return state.actions

    def step(self, state: ChessState, action: int) -> StepResult:
        """Plays ``action`` for the player to move.

        Returns:
            ``StepResult(next_state, reward, terminated)``: ``terminated`` when PettingZoo
            ends the game (module docstring); ``reward`` +1.0 for a checkmate, else 0.0.

        Raises:
            ValueError: if ``state`` is not a :class:`ChessState`, the game is over, or
                ``action`` is not one of ``actions(state)``.
        """
        _check(state)
        index = _action_index(state, action)
        board = state.board
        move = _decode(board, index)
        after = board.copy(stack=False)
        history = position_after(after, state.history, move)
        next_state = _state(after, history)
        if next_state.actions:
            return StepResult(next_state, 0.0, False)
        return StepResult(next_state, 1.0 if after.is_checkmate() else 0.0, True)
