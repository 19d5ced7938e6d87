"""Tic-tac-toe as a fast model, with exhaustive minimax play.

Cells are numbered 0..8 row by row::

    0 1 2
    3 4 5
    6 7 8

(PettingZoo's ``tictactoe_v3`` numbers them column by column; convert before
comparing.) X is player 1 and moves when both have marked as many cells; O is
player 2. The move that completes a line earns its player 1.0 and ends the
game; the move that fills the board without a line earns 0.0 and ends it.

A state is an ``int`` bitboard: bit ``i`` is X's mark on cell ``i`` and bit
``9 + i`` is O's. It is immutable and hashable; :func:`parse_board` and
:func:`format_board` convert from and to text such as ``"XX.OO...."``. Every
position reachable from the empty board (5,478 of them) is tabulated when the
module is imported, so ``actions``, ``player`` and ``step`` are one dict look-up
each.
"""

from __future__ import annotations

import operator
import random
from typing import Any

from mcts_agent import compiled
from mcts_agent.minimax import ExhaustiveMinimax
from mcts_agent.model import StepResult
from mcts_agent.plots import BoardLayout
from mcts_agent.policies import PerfectPolicy, RandomPolicy

__all__ = [
    "EMPTY_BOARD",
    "TicTacToeModel",
    "format_board",
    "from_pettingzoo_action",
    "parse_board",
    "perfect_moves",
    "perfect_policy",
    "random_policy",
    "render_board",
    "state_from_pettingzoo",
    "to_pettingzoo_action",
]

EMPTY_BOARD = 0
"""The state of the empty board (X to move)."""

_FULL = 0b111111111
_LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip
_LINE_MASKS = tuple(sum(1 << cell for cell in line) for line in _LINES)
# _HAS_LINE[marks] is True when the 9-bit set of one player's marks holds a line.
_HAS_LINE = tuple(any(marks & m == m for m in _LINE_MASKS) for marks in range(512))


def _marks(state: int) -> tuple[int, int]:
    return state & _FULL, state >> 9


def _build_tables() -> tuple[dict[int, tuple[int, ...]], dict[int, int], dict[int, StepResult]]:
    """Tabulates actions, player and every transition of the reachable positions."""
    actions: dict[int, tuple[int, ...]] = {}
    players: dict[int, int] = {}
    transitions: dict[int, StepResult] = {}
    stack = [EMPTY_BOARD]
    while stack:
        state = stack.pop()
        if state in actions:
            continue
        x, o = _marks(state)
        player = 1 if bin(x).count("1") == bin(o).count("1") else 2
        over = _HAS_LINE[x] or _HAS_LINE[o] or (x | o) == _FULL
        legal = () if over else tuple(i for i in range(9) if not (x | o) >> i & 1)
        actions[state] = legal
        players[state] = player
        for action in legal:
            if player == 1:
                next_state = state | 1 << action
                won = _HAS_LINE[x | 1 << action]
            else:
                next_state = state | 1 << (action + 9)
                won = _HAS_LINE[o | 1 << action]
            full = (x | o | 1 << action) == _FULL
            reward = 1.0 if won else 0.0
            transitions[state << 4 | action] = StepResult(next_state, reward, won or full)
            stack.append(next_state)
    return actions, players, transitions


_ACTIONS, _PLAYERS, _TRANSITIONS = _build_tables()


def parse_board(board: str) -> int:
    """Returns the state of a board written as 9 characters, row by row.

    Args:
        board: ``X``/``x`` for X, ``O``/``o`` for O, ``.`` or space or ``-`` for
            empty, e.g. ``"XX.OO...."``; newlines and ``|`` are ignored.

    Returns:
        The state (int bitboard) of that position.

    Raises:
        TypeError: if ``board`` is not a str.
        ValueError: if it has not 9 cells, has another character, or is not a
            position reachable in play (X has as many marks as O or one more,
            and play stopped at the first line).
    """
    if not isinstance(board, str):
        raise TypeError(f"board must be a str like 'XX.OO....', got {board!r}")
    cells = board.replace("\n", "").replace("|", "")
    if len(cells) != 9:
        raise ValueError(f"board must have 9 cells (row by row), got {len(cells)} in {board!r}")
    state = 0
    for i, ch in enumerate(cells):
        if ch in "Xx":
            state |= 1 << i
        elif ch in "Oo":
            state |= 1 << (i + 9)
        elif ch not in ". -":
            raise ValueError(f"cell {i} of {board!r} is {ch!r}; expected X, O or '.'")
    if state not in _ACTIONS:
        raise ValueError(
            f"{board!r} is not reachable in play: X moves first, the marks must differ by "
            "at most one in X's favour, and the game stops at the first line"
        )
    return state


def format_board(state: int) -> str:
    """Returns the 9-character text of ``state``, row by row (``"XX.OO...."``)."""
    x, o = _marks(state)
    return "".join("X" if x >> i & 1 else "O" if o >> i & 1 else "." for i in range(9))


def board_layout(state: int) -> BoardLayout:
    """Returns the board of ``state`` for :func:`mcts_agent.plots.plot_root`'s heat maps.

    Each free cell is its own action's cell (row-major 0..8); marked cells show X or O.
    """
    marks = format_board(state)
    return BoardLayout(
        shape=(3, 3),
        cells={cell: ((cell // 3, cell % 3),) for cell in range(9) if marks[cell] == "."},
        marks={(cell // 3, cell % 3): m for cell, m in enumerate(marks) if m != "."},
    )


def render_board(state: int) -> str:
    """Returns ``state`` as three lines of text (cells separated by spaces, rows by newlines)."""
    text = format_board(state)
    return "\n".join(" ".join(text[row * 3 : row * 3 + 3]) for row in range(3))


class TicTacToeModel:
    """Tic-tac-toe as a :class:`~mcts_agent.model.Model` (see the module docstring).

    Players: 1 (X) and 2 (O). Actions: ints 0..8, row by row. Rewards: 1.0 to
    the player who completes a line, 0.0 otherwise. Also offers the fused
    random ``rollout`` that :class:`~mcts_agent.search.MCTS` uses when present.
    """

    num_players = 2

    def actions(self, state: int) -> tuple[int, ...]:
        """Returns the empty cells in increasing order, or () once the game is over.

        Raises:
            ValueError: if ``state`` is not a reachable position.
        """
        try:
            return _ACTIONS[state]
        except (KeyError, TypeError):
            raise ValueError(f"not a tic-tac-toe state: {state!r}") from None

    def player(self, state: int) -> int:
        """Returns 1 if X is to move (as many marks each), else 2.

        Raises:
            ValueError: if ``state`` is not a reachable position.
        """
        try:
            return _PLAYERS[state]
        except (KeyError, TypeError):
            raise ValueError(f"not a tic-tac-toe state: {state!r}") from None

    def step(self, state: int, action: int) -> StepResult:
        """Marks ``action`` for the player to move and returns the result.

        Raises:
            ValueError: if ``action`` is not an empty cell of an unfinished game.
        """
        try:
            if 0 <= action < 9:
                return _TRANSITIONS[state << 4 | action]
        except (KeyError, TypeError):
            pass
        legal = _ACTIONS.get(state) if isinstance(state, int) else None
        if legal is None:
            raise ValueError(f"not a tic-tac-toe state: {state!r}")
        raise ValueError(
            f"action {action!r} is not legal in {format_board(state)!r}; "
            f"legal actions: {list(legal)}"
        )

    def native_rollout(self) -> Any:
        """Returns the compiled core's capsule of :meth:`rollout`, or None without the core.

        The same playout in C (``docs/guides/compiled-core.md``: the protocol),
        drawing the same random numbers; a subclass that overrides
        :meth:`rollout` loses it.
        """
        if TicTacToeModel.rollout is not _ROLLOUT:  # replaced on the class itself
            return None
        return compiled.native_rollout("tic_tac_toe")

    def rollout(self, state: int, rng: random.Random, limit: int, gamma: float) -> float:
        """Plays uniformly random moves from ``state``; returns the mover's return.

        The fused form of the search's generic random rollout, with the same
        distribution of returns (its readable form is in
        :meth:`mcts_agent.model.RolloutModel.rollout`): up to ``limit`` moves,
        the winner's move earns 1, and players alternate, so each ply flips
        the sign and discounts by ``gamma``.

        Args:
            state: a position with at least one legal action.
            rng: the generator to draw from.
            limit: int >= 1, most moves played.
            gamma: discount rate.

        Returns:
            The return from the point of view of ``player(state)``: gamma**k for
            a win on its k-th move from now, -gamma**k for a loss, else 0.0.
        """
        empty = list(_ACTIONS[state])
        n = len(empty)
        x, o = _marks(state)
        x_to_move = _PLAYERS[state] == 1
        random_ = rng.random
        has_line = _HAS_LINE
        coef = 1.0
        while True:
            i = int(random_() * n)
            cell = empty[i]
            n -= 1
            empty[i] = empty[n]
            if x_to_move:
                x |= 1 << cell
                if has_line[x]:
                    return coef
            else:
                o |= 1 << cell
                if has_line[o]:
                    return coef
            limit -= 1
            if n == 0 or limit == 0:
                return 0.0
            x_to_move = not x_to_move
            coef *= -gamma


_ROLLOUT = TicTacToeModel.rollout  # as defined above: replaced on the class, it loses its capsule
_MODEL = TicTacToeModel()
_SOLVER = ExhaustiveMinimax(_MODEL)


def perfect_moves(state: int) -> tuple[int, ...]:
    """Returns every minimax-optimal move of ``state``, in increasing cell order.

    From the game's exhaustive negamax (memoised across calls).

    Raises:
        ValueError: if ``state`` is not a reachable position or the game is over.
    """
    return _SOLVER.best_actions(state)


def random_policy(seed: int | None = None) -> RandomPolicy:
    """Returns a policy ``state -> action`` playing uniformly random legal moves."""
    return RandomPolicy(_MODEL, seed=seed)


def perfect_policy(seed: int | None = None) -> PerfectPolicy:
    """Returns a policy ``state -> action`` playing one of the perfect moves at random."""
    return PerfectPolicy(_MODEL, seed=seed, solver=_SOLVER)


def from_pettingzoo_action(action: int) -> int:
    """Returns our cell (row by row) of a PettingZoo ``tictactoe_v3`` action.

    PettingZoo numbers the cells column by column (action ``a`` is row
    ``a % 3``, column ``a // 3``)::

        0 3 6
        1 4 7
        2 5 8

    The map transposes the board, so it is its own inverse
    (:func:`to_pettingzoo_action` is the same map).

    Args:
        action: int in 0..8, PettingZoo's action.

    Returns:
        int in 0..8, our row-major cell ``3 * (a % 3) + a // 3``.

    Raises:
        TypeError: if ``action`` is not an integer (Python or numpy int).
        ValueError: if it is not in 0..8.
    """
    if isinstance(action, bool):
        raise TypeError(f"a tic-tac-toe action must be an int in 0..8, got {action!r}")
    try:
        index = operator.index(action)
    except TypeError:
        raise TypeError(f"a tic-tac-toe action must be an int in 0..8, got {action!r}") from None
    if not 0 <= index <= 8:
        raise ValueError(f"a tic-tac-toe action must be in 0..8, got {index}")
    return 3 * (index % 3) + index // 3


def to_pettingzoo_action(cell: int) -> int:
    """Returns PettingZoo ``tictactoe_v3``'s action (column by column) of our cell.

    Args:
        cell: int in 0..8, our row-major cell (row ``cell // 3``, column ``cell % 3``).

    Returns:
        int in 0..8, PettingZoo's action ``3 * (cell % 3) + cell // 3``.

    Raises:
        TypeError: if ``cell`` is not an integer (Python or numpy int).
        ValueError: if it is not in 0..8.
    """
    return from_pettingzoo_action(cell)


def state_from_pettingzoo(env) -> int:
    """Returns our state of a PettingZoo ``tictactoe_v3`` env's board.

    Reads ``env.unwrapped.board.squares`` (9 cells, column by column; 0 empty,
    1 for ``player_1``'s X, 2 for ``player_2``'s O) and checks that the agent
    to move agrees with the board while the game is on. The env is not changed.

    Args:
        env: a reset PettingZoo tic-tac-toe env (wrapped or not).

    Returns:
        The state (int bitboard) of the same position.

    Raises:
        TypeError: if ``env`` has no tic-tac-toe board.
        ValueError: if the board is not a reachable position, or the agent to
            move is not the board's player to move.
    """
    squares = getattr(getattr(env.unwrapped, "board", None), "squares", None)
    if not isinstance(squares, list) or len(squares) != 9:
        raise TypeError(
            f"env must be PettingZoo's tictactoe_v3 (board.squares: 9 cells), got {env!r}"
        )
    state = 0
    for action, mark in enumerate(squares):
        cell = 3 * (action % 3) + action // 3
        if mark == 1:
            state |= 1 << cell
        elif mark == 2:
            state |= 1 << (cell + 9)
        elif mark != 0:
            raise ValueError(f"square {action} holds {mark!r}; expected 0, 1 or 2")
    if state not in _ACTIONS:
        raise ValueError(f"the env's board {format_board(state)!r} is not reachable in play")
    if _ACTIONS[state]:
        agent = env.unwrapped.agent_selection
        expected = env.unwrapped.possible_agents[_PLAYERS[state] - 1]
        if agent != expected:
            raise ValueError(
                f"the env has {agent!r} to move, but the board {format_board(state)!r} "
                f"has {expected!r} to move"
            )
    return state
