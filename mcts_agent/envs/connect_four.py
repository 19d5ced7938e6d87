"""Connect four (7 columns, 6 rows) as a fast bitboard model.

The board is drawn with the top row first, as PettingZoo's ``connect_four_v3``
keeps it (``env.unwrapped.board``: a flat list of 42 cells, row-major from the
top, 0 empty, 1 for ``player_0``, 2 for ``player_1``)::

    PettingZoo cell index (row-major, top row first)

     0  1  2  3  4  5  6      <- top row
     7  8  9 10 11 12 13
    14 15 16 17 18 19 20
    21 22 23 24 25 26 27
    28 29 30 31 32 33 34
    35 36 37 38 39 40 41      <- bottom row
    ---------------------
     0  1  2  3  4  5  6      <- action = column

An action is a column 0..6 (as in PettingZoo); the piece drops to the lowest
empty cell of that column. Player 1 (``X``, PettingZoo's ``player_0``) moves
first and moves when both have as many pieces; player 2 (``O``,
``player_1``) moves otherwise. The move that makes four in a row
(horizontally, vertically or diagonally) earns its player 1.0 and ends the
game; the move that fills the board without a four earns 0.0 and ends it. (A
win on the move that fills the board is a win, as in PettingZoo.) PettingZoo
also gives the loser -1: in our models the loser's view of the move is the
same 1.0 with the opposite sign (``docs/concepts/iteration.md``'s backup rule).

A state is a tuple ``(x, o)`` of two int bitboards, player 1's pieces and
player 2's, immutable and hashable. Bits follow John Tromp's layout, column
by column from the bottom, with one spare (always empty) bit on top of each
column so that lines cannot wrap from one column into the next::

    bit index = 7 * column + height        (height 0 = bottom row)

     5 12 19 26 33 40 47      <- top row
     4 11 18 25 32 39 46
     3 10 17 24 31 38 45
     2  9 16 23 30 37 44
     1  8 15 22 29 36 43
     0  7 14 21 28 35 42      <- bottom row
    (6 13 20 27 34 41 48 are the spare bits)

so PettingZoo's cell ``i`` is bit ``7 * (i % 7) + 5 - i // 7``. A bitboard ``b``
holds four in a row when, for one direction ``s`` (1 vertical, 7 horizontal,
6 and 8 the diagonals), ``m = b & (b >> s)`` has ``m & (m >> 2 * s)`` non-zero.

:func:`parse_board` / :func:`format_board` / :func:`render_board` read and write
the board as text (``X``, ``O``, ``.``; top row first, like PettingZoo's
``board``), and :func:`from_pettingzoo_board` / :func:`to_pettingzoo_board`
convert from and to PettingZoo's 42-cell list. PettingZoo's observation for
the agent to move is ``observation[row, column, 0]`` for its own pieces and
``[..., 1]`` for the opponent's, rows top first: the cell ``(row, column)``
there is bit ``7 * column + 5 - row``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from mcts_agent import compiled
from mcts_agent.evaluator import Evaluation
from mcts_agent.model import StepResult
from mcts_agent.plots import BoardLayout

__all__ = [
    "COLUMNS",
    "EMPTY_BOARD",
    "ROWS",
    "ConnectFourModel",
    "format_board",
    "from_pettingzoo_board",
    "heuristic_evaluator",
    "parse_board",
    "render_board",
    "to_pettingzoo_board",
]

COLUMNS = 7
"""Number of columns (and of actions)."""

ROWS = 6
"""Number of rows."""

EMPTY_BOARD: tuple[int, int] = (0, 0)
"""The state of the empty board (player 1 to move)."""

_HEIGHT = ROWS + 1  # bits per column: six cells and the spare bit
_BOTTOM = tuple(1 << (_HEIGHT * c) for c in range(COLUMNS))
_COLUMN = tuple(((1 << ROWS) - 1) << (_HEIGHT * c) for c in range(COLUMNS))
_TOP = tuple(1 << (_HEIGHT * c + ROWS - 1) for c in range(COLUMNS))
_TOP_ROW = sum(_TOP)
_BOTTOM_ROW = sum(_BOTTOM)
_FULL = sum(_COLUMN)
# _LEGAL[mask & _TOP_ROW] is the tuple of columns whose top cell is empty.
_LEGAL = {
    sum(_TOP[c] for c in range(COLUMNS) if full >> c & 1): tuple(
        c for c in range(COLUMNS) if not full >> c & 1
    )
    for full in range(1 << COLUMNS)
}
# Bit of PettingZoo's cell i (row-major from the top).
_CELL_BIT = tuple(1 << (_HEIGHT * (i % COLUMNS) + ROWS - 1 - i // COLUMNS) for i in range(42))


def _has_four(b: int) -> bool:
    """Returns True if the bitboard ``b`` holds four in a row (Tromp's shifts)."""
    m = b & (b >> 1)  # vertical
    if m & (m >> 2):
        return True
    m = b & (b >> 7)  # horizontal
    if m & (m >> 14):
        return True
    m = b & (b >> 6)  # diagonal, down to the right
    if m & (m >> 12):
        return True
    m = b & (b >> 8)  # diagonal, up to the right
    return bool(m & (m >> 16))


def _check_state(state: object) -> tuple[int, int]:
    """Returns ``(x, o)`` if ``state`` is a well-formed state, else raises ValueError.

    Checks the type, that every piece lies on the board and rests on another or
    on the bottom, that the counts allow the turn order, and that play stopped
    at the first four (only the last mover may have one, and removing one of
    its top pieces undoes it).
    """
    if not (
        isinstance(state, tuple)
        and len(state) == 2
        and all(isinstance(b, int) and not isinstance(b, bool) and b >= 0 for b in state)
    ):
        raise ValueError(
            f"a connect four state is a tuple (x, o) of two int bitboards, got {state!r}"
        )
    x, o = state
    mask = x | o
    if x & o or mask & ~_FULL:
        raise ValueError(f"not a connect four state (overlapping or off-board bits): {state!r}")
    # Gravity: in each column the occupied cells form a prefix from the bottom.
    for c in range(COLUMNS):
        column = (mask & _COLUMN[c]) >> (_HEIGHT * c)
        if column & (column + 1):
            raise ValueError(f"not a connect four state: a piece floats in column {c}: {state!r}")
    nx, no = x.bit_count(), o.bit_count()
    if nx - no not in (0, 1):
        raise ValueError(
            f"not a connect four state: X has {nx} pieces and O {no}; X moves first, so X has "
            "as many pieces as O or one more"
        )
    last, other = (x, o) if nx > no else (o, x)
    if _has_four(other) or (
        _has_four(last) and all(_has_four(last & ~top) for top in _column_tops(mask) if top & last)
    ):
        raise ValueError(
            f"not a connect four state: play continued after a four:\n{render_board(state)}"
        )
    return x, o


def _column_tops(mask: int) -> list[int]:
    """Returns the bit of the highest piece of each non-empty column of ``mask``."""
    tops = []
    for c in range(COLUMNS):
        column = (mask & _COLUMN[c]) >> (_HEIGHT * c)
        if column:
            tops.append(1 << (_HEIGHT * c + column.bit_length() - 1))
    return tops


def parse_board(board: str) -> tuple[int, int]:
    """Returns the state of a board written as text, top row first.

    Args:
        board: 42 cells, 6 rows of 7, top row first (PettingZoo's order):
            ``X``/``x`` for player 1, ``O``/``o`` for player 2, ``.``, ``-``
            or space for empty; newlines and ``|`` are ignored. E.g. with
            ``"." * 35 + "XXXOOO."`` the bottom row holds three of each.

    Returns:
        The state ``(x, o)``.

    Raises:
        TypeError: if ``board`` is not a str.
        ValueError: if it has not 42 cells, holds another character, or is not a
            position reachable in play (pieces rest on pieces, X has as many
            pieces as O or one more, play stopped at the first four).
    """
    if not isinstance(board, str):
        raise TypeError(f"board must be a str of 42 cells (top row first), got {board!r}")
    cells = board.replace("\n", "").replace("|", "")
    if len(cells) != 42:
        raise ValueError(
            f"board must have 42 cells (6 rows of 7, top row first), got {len(cells)} in {board!r}"
        )
    x = o = 0
    for i, ch in enumerate(cells):
        if ch in "Xx":
            x |= _CELL_BIT[i]
        elif ch in "Oo":
            o |= _CELL_BIT[i]
        elif ch not in ". -":
            raise ValueError(f"cell {i} of {board!r} is {ch!r}; expected X, O or '.'")
    return _check_state((x, o))


def format_board(state: tuple[int, int]) -> str:
    """Returns the 42-character text of ``state``, top row first (``X``, ``O``, ``.``)."""
    x, o = state
    return "".join("X" if x & bit else "O" if o & bit else "." for bit in _CELL_BIT)


def board_layout(state: tuple[int, int]) -> BoardLayout:
    """Returns the board of ``state`` for :func:`mcts_agent.plots.plot_root`'s heat maps.

    A column's action colours the column's free cells, its figures written in
    the cell a disc would land in (the lowest free one); discs show X or O.
    """
    text = format_board(state)
    cells = {}
    for column in range(COLUMNS):
        free = [row for row in range(ROWS) if text[row * COLUMNS + column] == "."]
        if free:
            cells[column] = tuple((row, column) for row in reversed(free))
    marks = {divmod(i, COLUMNS): m for i, m in enumerate(text) if m != "."}
    return BoardLayout(shape=(ROWS, COLUMNS), cells=cells, marks=marks)


def render_board(state: tuple[int, int]) -> str:
    """Returns ``state`` as 6 lines of 7 characters, top row first."""
    text = format_board(state)
    return "\n".join(text[r * COLUMNS : (r + 1) * COLUMNS] for r in range(ROWS))


def from_pettingzoo_board(board: Sequence[int]) -> tuple[int, int]:
    """Returns the state of PettingZoo's ``connect_four_v3`` board.

    Args:
        board: ``env.unwrapped.board``, 42 ints row-major from the top: 0
            empty, 1 for ``player_0`` (our player 1), 2 for ``player_1``.

    Returns:
        The state ``(x, o)``.

    Raises:
        ValueError: if ``board`` has not 42 cells, holds another value, or is
            not a position reachable in play.
    """
    cells = list(board)
    if len(cells) != 42:
        raise ValueError(f"a connect four board has 42 cells, got {len(cells)}")
    x = o = 0
    for i, piece in enumerate(cells):
        if piece == 1:
            x |= _CELL_BIT[i]
        elif piece == 2:
            o |= _CELL_BIT[i]
        elif piece != 0:
            raise ValueError(f"cell {i} of the board is {piece!r}; expected 0, 1 or 2")
    return _check_state((x, o))


def to_pettingzoo_board(state: tuple[int, int]) -> list[int]:
    """Returns PettingZoo's 42-cell board (row-major from the top, 0/1/2) of ``state``."""
    x, o = state
    return [1 if x & bit else 2 if o & bit else 0 for bit in _CELL_BIT]


class ConnectFourModel:
    """Connect four as a :class:`~mcts_agent.model.Model` (see the module docstring).

    Players: 1 (X, moves first) and 2 (O). Actions: columns 0..6. Rewards: 1.0
    to the player who makes four in a row, 0.0 otherwise. States: ``(x, o)``
    bitboards. Also offers the fused random ``rollout`` that
    :class:`~mcts_agent.search.MCTS` uses when present.
    """

    num_players = 2

    def actions(self, state: tuple[int, int]) -> tuple[int, ...]:
        """Returns the columns that are not full, in increasing order; () once over.

        The game is over when the last mover has four in a row or the board is
        full.

        Raises:
            ValueError: if ``state`` is not a tuple of two int bitboards.
        """
        try:
            x, o = state
            mask = x | o
            last = x if x.bit_count() > o.bit_count() else o
        except (TypeError, ValueError, AttributeError):
            raise ValueError(
                f"a connect four state is a tuple (x, o) of two int bitboards, got {state!r}"
            ) from None
        if _has_four(last):
            return ()
        return _LEGAL[mask & _TOP_ROW]

    def player(self, state: tuple[int, int]) -> int:
        """Returns 1 if X is to move (as many pieces each), else 2.

        Raises:
            ValueError: if ``state`` is not a tuple of two int bitboards.
        """
        try:
            x, o = state
            return 1 if x.bit_count() == o.bit_count() else 2
        except (TypeError, ValueError, AttributeError):
            raise ValueError(
                f"a connect four state is a tuple (x, o) of two int bitboards, got {state!r}"
            ) from None

    def step(self, state: tuple[int, int], action: int) -> StepResult:
        """Drops a piece of the player to move into column ``action``.

        Returns:
            ``StepResult((x, o), reward, terminated)``: reward 1.0 if the move
            makes four in a row (and the game ends), else 0.0; the game also
            ends when the board is full.

        Raises:
            ValueError: if ``state`` is not a state, the game is over, or
                ``action`` is not a column whose top cell is empty.
        """
        legal = self.actions(state)
        if action not in legal or isinstance(action, bool):
            raise ValueError(
                f"action {action!r} is not legal in\n{render_board(state)}\n"
                f"legal actions: {list(legal)}"
            )
        x, o = state
        mask = x | o
        bit = (mask + _BOTTOM[action]) & _COLUMN[action]
        if x.bit_count() == o.bit_count():
            x |= bit
            won = _has_four(x)
        else:
            o |= bit
            won = _has_four(o)
        if won:
            return StepResult((x, o), 1.0, True)
        return StepResult((x, o), 0.0, (mask | bit) == _FULL)

    def native_rollout(self) -> Any:
        """Returns the compiled core's capsule of :meth:`rollout`, or None without the core.

        The same playout in C (``docs/guides/compiled-core.md``: the protocol),
        drawing the same random numbers; a subclass that overrides
        :meth:`rollout` loses it.
        """
        if ConnectFourModel.rollout is not _ROLLOUT:  # replaced on the class itself
            return None
        return compiled.native_rollout("connect_four")

    def native_step(self) -> Any:
        """Returns the compiled core's capsule of :meth:`step`, :meth:`actions` and :meth:`player`.

        None without the core, or once one of the three is replaced on the class.
        Leaf batching expands its nodes with it in C (``docs/guides/compiled-core.md``,
        "Compiled core": native steps); a subclass that overrides any of the
        three loses it.
        """
        if (ConnectFourModel.step, ConnectFourModel.actions, ConnectFourModel.player) != _STEP:
            return None  # one of them replaced on the class itself
        return compiled.native_step("connect_four")

    def rollout(
        self, state: tuple[int, int], rng: random.Random, limit: int, gamma: float
    ) -> float:
        """Plays uniformly random moves from ``state``; returns the mover's return.

        The fused form of the search's generic random rollout, with the same
        distribution of returns (its readable form is in
        :meth:`mcts_agent.model.RolloutModel.rollout`): up to ``limit`` moves,
        the winner's move earns 1, and players alternate, so each ply flips
        the sign and discounts by ``gamma``.

        Fast path: ``free`` lists, for each column not full, the bit of its
        lowest empty cell; a move takes ``free[i]`` for a uniform ``i``, moves
        it up one cell (or drops the column when it fills), and tests only the
        mover's bitboard for four in a row.

        Args:
            state: a position with at least one legal action.
            rng: the generator to draw from.
            limit: int >= 1, most moves played.
            gamma: discount rate.

        Returns:
            The return from the point of view of ``player(state)``: gamma**k
            for a win on its k-th move from now, -gamma**k for a loss, else 0.0.
        """
        x, o = state
        mask = x | o
        if x.bit_count() == o.bit_count():
            mover, other = x, o
        else:
            mover, other = o, x
        free = [(mask + _BOTTOM[c]) & _COLUMN[c] for c in _LEGAL[mask & _TOP_ROW]]
        n = len(free)
        top_row = _TOP_ROW
        random_ = rng.random
        coef = 1.0
        while True:
            i = int(random_() * n)
            bit = free[i]
            if bit & top_row:
                n -= 1
                free[i] = free[n]
            else:
                free[i] = bit << 1
            b = mover | bit
            m = b & (b >> 1)
            if m & (m >> 2):
                return coef
            m = b & (b >> 7)
            if m & (m >> 14):
                return coef
            m = b & (b >> 6)
            if m & (m >> 12):
                return coef
            m = b & (b >> 8)
            if m & (m >> 16):
                return coef
            limit -= 1
            if n == 0 or limit == 0:
                return 0.0
            mover = other
            other = b
            coef *= -gamma


# ------------------------------------------------------------------ the heuristic evaluator

_CENTRE_WEIGHTS = (1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0)
"""Centre-first prior weight of each column (the number of fours through its middle cells,
roughly: the centre column takes part in the most lines)."""
_URGENT = 16.0  # prior factor of a column that wins now or blocks the opponent's win
_CENTRE_COLUMN = _COLUMN[COLUMNS // 2]
_THREAT_WEIGHT = 1.0  # per open three (an empty cell that would complete a four)
_CENTRE_WEIGHT = 0.25  # per piece in the centre column
_SCALE = 0.5  # value = tanh(_SCALE * score): a few threats already mean a clear edge


# The methods the native capsules stand for, as defined above (replaced on the class, a
# method loses its capsule: native_rollout and native_step then return None).
_ROLLOUT = ConnectFourModel.rollout
_STEP = (ConnectFourModel.step, ConnectFourModel.actions, ConnectFourModel.player)


def _completing_cells(b: int, mask: int) -> int:
    """Returns the empty cells that would give bitboard ``b`` four in a row.

    Pascal Pons's ``compute_winning_position`` (Connect 4 solver, 2019) on
    Tromp's layout: for each direction ``s``, a cell completes a four when the
    three cells before it, the three after it, or two before and one after
    (or one before and two after) hold ``b``'s pieces.
    """
    r = (b << 1) & (b << 2) & (b << 3)  # vertical: three below
    for s in (_HEIGHT, _HEIGHT - 1, _HEIGHT + 1):  # horizontal and the two diagonals
        p = (b << s) & (b << 2 * s)
        r |= p & (b << 3 * s)
        r |= p & (b >> s)
        p = (b >> s) & (b >> 2 * s)
        r |= p & (b << s)
        r |= p & (b >> 3 * s)
    return r & (_FULL ^ mask)


def heuristic_evaluator(state: tuple[int, int], actions: Sequence[int]) -> Evaluation:
    """A hand-written connect four evaluator: threats and centre control, centre-first priors.

    For :class:`~mcts_agent.search.MCTS`'s ``evaluator`` (with
    :class:`ConnectFourModel`). Reasoning (the classic hand-tuned features of
    connect four programs; Allis 1988, "A knowledge-based approach of
    connect-four", ch. 3, on threats and the value of the centre):

    * Value, from the point of view of the player to move, in [-1, 1]: 1 if
      it can make four now; -1 if the opponent has two places to make four on
      the next move (only one can be blocked); else ``tanh(0.5 * score)``
      with ``score`` = (the mover's open threes - the opponent's) + 0.25 *
      (the mover's pieces in the centre column - the opponent's). An open
      three is an empty cell that would complete a four (Pons's
      ``compute_winning_position``), counted once however many fours it
      completes.
    * Priors: the centre first (column weights 1, 2, 3, 4, 3, 2, 1 from left
      to right: the centre cells lie in the most fours), multiplied by 16 for
      a column that wins now or blocks a four the opponent would make there.

    Args:
        state: a connect four state ``(x, o)`` with at least one legal action.
        actions: its legal actions (``ConnectFourModel().actions(state)``).

    Returns:
        ``Evaluation(value, priors)``, ``priors`` one per action, unnormalised.
    """
    x, o = state
    mask = x | o
    if x.bit_count() == o.bit_count():
        me, other = x, o
    else:
        me, other = o, x
    playable = (mask + _BOTTOM_ROW) & _FULL
    mine = _completing_cells(me, mask)
    theirs = _completing_cells(other, mask)
    if mine & playable:
        value = 1.0
    elif (theirs & playable).bit_count() >= 2:
        value = -1.0
    else:
        score = _THREAT_WEIGHT * (mine.bit_count() - theirs.bit_count()) + _CENTRE_WEIGHT * (
            (me & _CENTRE_COLUMN).bit_count() - (other & _CENTRE_COLUMN).bit_count()
        )
        value = math.tanh(_SCALE * score)
    urgent = (mine | theirs) & playable
    priors = [_CENTRE_WEIGHTS[c] * (_URGENT if urgent & _COLUMN[c] else 1.0) for c in actions]
    return Evaluation(value, priors)
