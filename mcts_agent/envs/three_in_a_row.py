"""Three in a row for two or more players: a small n-player game of perfect information.

The rules. A board of ``rows x cols`` cells (4 x 4 by default), numbered row
by row from 0::

     0  1  2  3
     4  5  6  7
     8  9 10 11
    12 13 14 15

Players 1, 2, ..., n (3 by default) mark an empty cell each in turn, player 1
first. The first to hold three cells in a row (a row, a column or a diagonal)
wins and the game ends; a full board without a line ends it in a draw. The
winner's move earns it +1 and every other player ``-1 / (n - 1)`` (so the
rewards sum to 0: with two players this is +1 / -1); a draw earns nothing.

Why it is a good test of max^n:

* it has three players, so the negamax backup of a two-player search is
  wrong: counting every change of player as a change of sign, it takes the
  win of the player after next (two changes) for the searching player's own
  win. The known right moves of the tests are positions where that matters:
  block the next player's threat, and block one threat of a fork of the
  player after next (the next player blocks the other, since it loses too if
  the fork wins), which negamax gladly leaves open;
* positions from the middle game are small enough to be solved by brute
  force (:func:`mcts_agent.maxn.maxn_moves`), the tests' oracle;
* with ``num_players=2`` it is the same game for two players, and
  ``every_reward=False`` reports the mover's reward as a float: a two-player
  zero-sum game of the same size for the plain search
  (``benchmarks/bench_maxn.py`` compares the speed of the two searches).

A state is a :class:`Board` (immutable, hashable): the cells as text (``"."``
empty, ``"1"``... a player's mark) and whether the game is over.
:func:`parse_board` reads text such as ``"11.. 22.. 3... ...."`` (spaces and
newlines ignored).
"""

from __future__ import annotations

from typing import NamedTuple

from mcts_agent.model import StepResult

__all__ = ["Board", "ThreeInARowModel", "parse_board"]


class Board(NamedTuple):
    """A position of three in a row.

    Attributes:
        cells: str of ``rows * cols`` characters, row by row: ``"."`` for an
            empty cell, ``"1"``... ``"9"`` for a player's mark.
        over: True once a player has three in a row or the board is full.
    """

    cells: str
    over: bool = False


def parse_board(text: str) -> Board:
    """Returns the :class:`Board` written as ``text`` (spaces and newlines ignored).

    The game is over if a player already holds a line or the board is full
    (lines of three on a board of ``len`` cells read as square: 9 or 16 cells).

    Raises:
        ValueError: if a character is not ``"."`` or a digit 1..9, or the board is not square.
    """
    cells = "".join(text.split())
    size = round(len(cells) ** 0.5)
    if size * size != len(cells) or size < 3:
        raise ValueError(f"expected a square board of at least 3 x 3 cells, got {len(cells)}")
    for mark in cells:
        if mark != "." and not ("1" <= mark <= "9"):
            raise ValueError(f"a cell must be '.' or a player's digit 1..9, got {mark!r}")
    lines = _lines(size, size)
    won = any(cells[a] != "." and cells[a] == cells[b] == cells[c] for a, b, c in lines)
    return Board(cells, won or "." not in cells)


def _lines(rows: int, cols: int) -> tuple[tuple[int, int, int], ...]:
    """Every line of three cells of a ``rows x cols`` board (rows, columns, diagonals)."""
    lines = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(3)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    lines.append(tuple(rr * cols + cc for rr, cc in cells))
    return tuple(lines)


class ThreeInARowModel:
    """Three in a row for ``num_players`` players as a model (see the module docstring).

    Players: ints 1..n. Actions: the empty cells, in increasing order.

    Args:
        num_players: int in 2..9.
        rows: int >= 3.
        cols: int >= 3.
        every_reward: True (the default) to report every player's reward
            (``reward_players = (1, ..., n)``, a mapping per step, for the
            max^n search of :mod:`mcts_agent.maxn`); False, with two players
            only, for the mover's reward as a float (the negamax search).

    Attributes:
        num_players: the number of players.
        reward_players: ``(1, ..., n)``, or None with ``every_reward=False``.
        initial_state: the empty board.

    Raises:
        ValueError: if an argument is out of range, or ``every_reward=False``
            comes with more than two players.
    """

    def __init__(
        self, num_players: int = 3, rows: int = 4, cols: int = 4, *, every_reward: bool = True
    ) -> None:
        if not 2 <= num_players <= 9:
            raise ValueError(f"num_players must be in 2..9, got {num_players!r}")
        if rows < 3 or cols < 3:
            raise ValueError(f"the board must be at least 3 x 3, got {rows} x {cols}")
        if not every_reward and num_players != 2:
            raise ValueError(
                f"every_reward=False reports the mover's reward only, which the search backs "
                f"up as a two-player zero-sum game; with {num_players} players use "
                "every_reward=True"
            )
        self.num_players = num_players
        self.rows = rows
        self.cols = cols
        self.reward_players = tuple(range(1, num_players + 1)) if every_reward else None
        self.initial_state = Board("." * (rows * cols))
        lines = _lines(rows, cols)
        self._lines_through = tuple(
            tuple(line for line in lines if cell in line) for cell in range(rows * cols)
        )
        players = tuple(range(1, num_players + 1))
        loss = -1.0 / (num_players - 1)
        self._win = {p: {q: (1.0 if q == p else loss) for q in players} for p in players}
        self._nothing = dict.fromkeys(players, 0.0)

    def actions(self, state: Board) -> tuple[int, ...]:
        """Returns the empty cells in increasing order, or () once the game is over."""
        if state.over:
            return ()
        cells = state.cells
        return tuple(i for i, mark in enumerate(cells) if mark == ".")

    def player(self, state: Board) -> int:
        """Returns the player to move: 1 + (marks on the board) mod n."""
        cells = state.cells
        return 1 + (len(cells) - cells.count(".")) % self.num_players

    def step(self, state: Board, action: int) -> StepResult:
        """Marks ``action`` for the player to move.

        Returns:
            ``StepResult(next_state, reward, terminated)``; ``reward`` is
            ``{player: reward}`` (``every_reward``) or the mover's float.

        Raises:
            ValueError: if ``action`` is not an empty cell of an unfinished game.
        """
        cells = state.cells
        if state.over or not (0 <= action < len(cells)) or cells[action] != ".":
            raise ValueError(
                f"action {action!r} is not legal in {cells!r}; legal actions: "
                f"{list(self.actions(state))}"
            )
        mover = self.player(state)
        mark = str(mover)
        cells = cells[:action] + mark + cells[action + 1 :]
        won = any(
            cells[a] == mark and cells[b] == mark and cells[c] == mark
            for a, b, c in self._lines_through[action]
        )
        over = won or "." not in cells
        if self.reward_players is None:
            return StepResult(Board(cells, over), 1.0 if won else 0.0, over)
        reward = self._win[mover] if won else self._nothing
        return StepResult(Board(cells, over), dict(reward), over)
