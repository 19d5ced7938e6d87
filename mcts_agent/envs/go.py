"""Go as a native model, with the rules exactly as PettingZoo's ``classic/go_v5`` plays them.

PettingZoo's go_v5 wraps minigo's ``go.py`` (``pettingzoo/classic/go/go_base.py``, from
https://github.com/tensorflow/minigo); this module follows that code, rule by rule:

* **Board and actions.** ``board_size`` N; a point is ``(row, column)``, row 0 on top, and
  action ``a < N*N`` places a stone on ``divmod(a, N)`` (minigo's ``coords.from_flat``);
  action ``N*N`` passes. Black (player 1, PettingZoo's ``black_0``) moves first; the players
  alternate, passes included.
* **Captures.** A stone placed removes every opponent group adjacent to it that is left
  without a liberty (``LibertyTracker.add_stone``).
* **Suicide** is illegal: a move that captures nothing and leaves its own group without a
  liberty (``Position.is_move_suicidal``).
* **Ko.** Simple ko only, no superko (minigo's comment promises "positional superko", but
  the code checks none): a move played on a point whose neighbours are all opponent stones
  that captures exactly one stone makes the captured point illegal for the next move only
  (``is_koish``, ``Position.play_move``). A pass clears the ko point.
* **Pass** is always legal; two passes in a row end the game (``Position.is_game_over``).
  Nothing else ends it (no move limit, no resignation).
* **Scoring.** Area scoring, Tromp-Taylor: a player's stones plus the empty regions that
  reach only that player's stones; the score is black's area - white's area - komi
  (``Position.score``). PettingZoo gives +1 to black when the score is positive and to white
  otherwise, so **a drawn score (an integer komi) is a win for white**
  (``raw_env._encode_rewards``); the loser gets -1.

Only the scoring is the Tromp-Taylor rules' (J. Tromp and B. Taylor, "The Logical Rules of
Go", https://tromp.github.io/go.html, rules 8-9): those rules allow suicide and forbid the
repetition of any earlier position (positional superko); minigo does neither.

The model gives the reward +1.0 or -1.0 to the player whose pass ends the game (the
opponent's reward is its negative, ``docs/concepts/iteration.md``'s backup rule), 0.0 for
every other move. An illegal action raises ``ValueError`` (PettingZoo instead ends the game
with -1 for the mover, ``TerminateIllegalWrapper``).

A state is a :class:`GoState`: an immutable, hashable named tuple of the board (``bytes`` of
N*N cells row-major, 0 empty, 1 black, 2 white), the player to move, the ko point and the
number of passes just played. :meth:`GoModel.state_of` reads a live PettingZoo go env into
one.
"""

from __future__ import annotations

import math
import operator
import random
from itertools import compress
from typing import Any, NamedTuple

from mcts_agent import compiled
from mcts_agent.model import StepResult

__all__ = ["BLACK", "EMPTY", "WHITE", "GoModel", "GoState", "parse_board", "render_board"]

EMPTY, BLACK, WHITE = 0, 1, 2
"""Cell values of :attr:`GoState.board` (and the players' ids: black 1, white 2)."""

_NO_KO = -1
_EMPTY_FLAG = bytes.maketrans(b"\x00\x01\x02", b"\x01\x00\x00")
"""``bytes.translate`` table of a board: 1 for an empty cell, 0 for a stone."""


class GoState(NamedTuple):
    """A Go position: immutable and hashable.

    Attributes:
        board: ``bytes`` of N*N cells, row-major from the top-left point (the index of a point
            is its action), each :data:`EMPTY` (0), :data:`BLACK` (1) or :data:`WHITE` (2).
        to_play: the player to move, :data:`BLACK` or :data:`WHITE`.
        ko: the point the player to move may not play (simple ko), or -1 for none.
        passes: passes just played in a row: 0, 1, or 2 (the game is over).
    """

    board: bytes
    to_play: int
    ko: int
    passes: int


def _neighbour_table(size: int) -> tuple[tuple[int, ...], ...]:
    """Returns the orthogonal neighbours of each point of a ``size`` x ``size`` board."""
    table = []
    for i in range(size * size):
        r, c = divmod(i, size)
        near = [(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)]
        table.append(tuple(y * size + x for y, x in near if 0 <= y < size and 0 <= x < size))
    return tuple(table)


def _diagonal_table(size: int) -> tuple[tuple[int, ...], ...]:
    """Returns the diagonal neighbours on the board of each point of a ``size`` x ``size`` board."""
    table = []
    for i in range(size * size):
        r, c = divmod(i, size)
        near = [(r + 1, c + 1), (r + 1, c - 1), (r - 1, c + 1), (r - 1, c - 1)]
        table.append(tuple(y * size + x for y, x in near if 0 <= y < size and 0 <= x < size))
    return tuple(table)


def _liberty_count(board: Any, start: int, neighbours: Any, counts: dict[int, int]) -> int:
    """Returns the number of liberties of the group at ``start``, up to 2 (a flood fill).

    Stops at the second liberty found. Writes the answer into ``counts`` for every stone of
    the group it visited.
    """
    colour = board[start]
    stones = [start]
    seen = {start}
    first = -1  # the first liberty found
    for s in stones:  # the list grows as the fill goes
        for n in neighbours[s]:
            v = board[n]
            if v == EMPTY:
                if first < 0:
                    first = n
                elif n != first:
                    for x in stones:
                        counts[x] = 2
                    return 2
            elif v == colour and n not in seen:
                seen.add(n)
                stones.append(n)
    count = 0 if first < 0 else 1
    for x in stones:
        counts[x] = count
    return count


def _dead_group(board: Any, start: int, neighbours: Any) -> list[int] | None:
    """Returns the stones of the group at ``start`` if it has no liberty, else None."""
    colour = board[start]
    stones = [start]
    seen = {start}
    for s in stones:
        for n in neighbours[s]:
            v = board[n]
            if v == EMPTY:
                return None
            if v == colour and n not in seen:
                seen.add(n)
                stones.append(n)
    return stones


def _atari_liberty(board: Any, start: int, neighbours: Any) -> int:
    """Returns the single liberty of the group at ``start``, or -1 if it has none or several."""
    colour = board[start]
    stones = [start]
    seen = {start}
    liberty = -1
    for s in stones:  # the list grows as the fill goes
        for n in neighbours[s]:
            v = board[n]
            if v == EMPTY:
                if liberty < 0:
                    liberty = n
                elif n != liberty:
                    return -1
            elif v == colour and n not in seen:
                seen.add(n)
                stones.append(n)
    return liberty


def _place(cells: bytearray, point: int, me: int, neighbours: Any) -> int | None:
    """Puts ``me``'s stone on the empty ``point`` of ``cells`` and removes what it captures.

    Returns the new ko point (minigo's ``Position.play_move``: the single stone taken by a
    stone played where every neighbour was the opponent's), -1 for none, or None for a
    suicide (``cells`` is then left with the stone on it; the caller throws it away).
    """
    other = BLACK + WHITE - me
    near = neighbours[point]
    koish = all(cells[n] == other for n in near) and len(near) > 0
    cells[point] = me
    captured = 0
    last_captured = _NO_KO
    for n in near:
        if cells[n] == other:
            dead = _dead_group(cells, n, neighbours)
            if dead is not None:
                for s in dead:
                    cells[s] = EMPTY
                captured += len(dead)
                last_captured = dead[0]
    if captured == 0 and _dead_group(cells, point, neighbours) is not None:
        return None
    return last_captured if captured == 1 and koish else _NO_KO


def parse_board(text: str) -> bytes:
    """Returns the board of ``text``: N lines of N cells, top row first.

    ``X`` (or ``B``) is black, ``O`` (or ``W``) white, ``.`` empty; spaces are ignored.

    Raises:
        TypeError: if ``text`` is not a str.
        ValueError: if the lines are not N of N cells, or a cell is another character.
    """
    if not isinstance(text, str):
        raise TypeError(f"a Go board is a str of N lines of N cells, got {text!r}")
    rows = [line.replace(" ", "") for line in text.strip().splitlines()]
    if not rows or any(len(row) != len(rows) for row in rows):
        raise ValueError(f"a Go board is N lines of N cells (top row first), got {text!r}")
    cells = {".": EMPTY, "X": BLACK, "B": BLACK, "O": WHITE, "W": WHITE}
    try:
        return bytes(cells[ch.upper()] for row in rows for ch in row)
    except KeyError as e:
        raise ValueError(f"cell {e.args[0]!r} of {text!r}: expected X, O or '.'") from None


def render_board(board: bytes) -> str:
    """Returns ``board`` as N lines of N characters (``X`` black, ``O`` white, ``.``)."""
    size = math.isqrt(len(board))
    text = "".join(".XO"[v] for v in board)
    return "\n".join(text[r * size : (r + 1) * size] for r in range(size))


class GoModel:
    """Go on a ``board_size`` x ``board_size`` board as a :class:`~mcts_agent.model.Model`.

    The rules of PettingZoo's ``classic/go_v5`` (minigo), listed in the module docstring:
    captures, no suicide, simple ko, the end after two passes, Tromp-Taylor area scoring with
    ``komi`` (a drawn score is white's win). Players: 1 black (moves first), 2 white. Actions:
    ``row * board_size + column`` for a stone, ``board_size**2`` for a pass (PettingZoo's
    numbering). Rewards: +1.0 / -1.0 to the player whose pass ends the game, as it wins or
    loses; 0.0 otherwise.

    Args:
        board_size: int >= 2, the board's side (PettingZoo's ``board_size``; 9 by default here,
            19 in PettingZoo).
        komi: finite real, points given to white (PettingZoo's ``komi``, 7.5).
        capture_heuristic: bool, False by default: the playout (:meth:`rollout`) captures a
            group the previous move left in atari and saves the mover's group it put in
            atari before its uniform draw (:meth:`rollout`, "The capture heuristic"). The
            rules are the same either way; only the playout policy changes.

    Raises:
        ValueError: for a board size that is not an int >= 2, a komi that is not finite, or
            a ``capture_heuristic`` that is not a bool.
    """

    num_players = 2

    amaf_actions = True
    """An action means the same point in every position: AMAF statistics (RAVE) may share
    an action's results across positions; the pass is kept out (:attr:`amaf_excluded`)."""

    @property
    def amaf_excluded(self) -> tuple[int]:
        """``(board_size**2,)``: the pass, kept out of RAVE's AMAF statistics.

        A pass played later in an iteration says little about passing now: it ends games,
        and its value depends on the whole position (as in Fuego's, Pachi's and michi's
        AMAF, which cover the board's points only). Its child is scored by UCB1 alone, so a
        pass that wins at once is seen as the win it is.
        """
        return (self.pass_action,)

    def __init__(self, board_size: int = 9, komi: float = 7.5, capture_heuristic: bool = False):
        if isinstance(board_size, bool) or not isinstance(board_size, int) or board_size < 2:
            raise ValueError(f"board_size must be an int >= 2, got {board_size!r}")
        if isinstance(komi, bool) or not isinstance(komi, (int, float)) or not math.isfinite(komi):
            raise ValueError(f"komi must be a finite real number, got {komi!r}")
        if not isinstance(capture_heuristic, bool):
            raise ValueError(f"capture_heuristic must be a bool, got {capture_heuristic!r}")
        self.board_size = board_size
        self.komi = float(komi)
        self.capture_heuristic = capture_heuristic
        self.pass_action = board_size * board_size
        self._neighbours = _neighbour_table(board_size)
        self._diagonals = _diagonal_table(board_size)
        # the opponent stones an own eye tolerates on its diagonals: 0 on the edge, else 1
        self._eye_foes = tuple(int(len(d) == 4) for d in self._diagonals)
        self._points = range(self.pass_action)
        self._row_shift = 8 * board_size
        not_first = bytes(int(i % board_size != 0) for i in self._points)
        not_last = bytes(int(i % board_size != board_size - 1) for i in self._points)
        self._not_first_column = int.from_bytes(not_first, "little")  # flags as in actions
        self._not_last_column = int.from_bytes(not_last, "little")

    def __repr__(self) -> str:
        heuristic = ", capture_heuristic=True" if self.capture_heuristic else ""
        return f"GoModel(board_size={self.board_size}, komi={self.komi}{heuristic})"

    def initial_state(self) -> GoState:
        """Returns the empty board, black to move (PettingZoo's ``reset``)."""
        return GoState(bytes(self.pass_action), BLACK, _NO_KO, 0)

    def state_of(self, env: Any) -> GoState:
        """Returns the state of a live PettingZoo ``classic/go_v5`` env; leaves it unchanged.

        Reads minigo's ``Position`` (``env.unwrapped._go``): its board (1 black, -1 white), the
        player to move, the ko point, and the passes at the end of its move history.

        Raises:
            TypeError: if ``env`` is not a PettingZoo go env after ``reset()``.
            ValueError: if its board size or komi is not this model's.
        """
        raw = getattr(env, "unwrapped", env)
        position = getattr(raw, "_go", None)
        if position is None or not hasattr(position, "recent"):
            raise TypeError(f"expected a PettingZoo classic/go_v5 env after reset(), got {env!r}")
        size = position.board.shape[0]
        if size != self.board_size or position.komi != self.komi:
            raise ValueError(
                f"the env plays board_size={size}, komi={position.komi}; this model plays "
                f"board_size={self.board_size}, komi={self.komi}"
            )
        board = bytes(BLACK if v == 1 else WHITE if v == -1 else EMPTY for v in position.board.flat)
        ko = _NO_KO if position.ko is None else position.ko[0] * size + position.ko[1]
        passes = 0
        for move in reversed(position.recent[-2:]):
            if move.move is not None:
                break
            passes += 1
        return GoState(board, BLACK if position.to_play == 1 else WHITE, ko, passes)

    def _check(self, state: Any) -> None:
        """Raises ``ValueError`` unless ``state`` is a :class:`GoState` of this board size."""
        if not isinstance(state, GoState) or len(state.board) != self.pass_action:
            raise ValueError(
                f"expected a GoState with a board of {self.pass_action} cells "
                f"({self.board_size}x{self.board_size}), got {state!r}"
            )

    def player(self, state: GoState) -> int:
        """Returns the player to move: 1 (black) or 2 (white).

        Raises:
            ValueError: if ``state`` is not a :class:`GoState` of this board size.
        """
        self._check(state)
        return state.to_play

    def actions(self, state: GoState) -> tuple[int, ...]:
        """Returns the legal actions in increasing order, the pass last; () once over.

        The order of PettingZoo's ``action_mask``: every empty point but the ko point and
        suicides, then the pass (``Position.all_legal_moves``).

        Raises:
            ValueError: if ``state`` is not a :class:`GoState` of this board size.
        """
        self._check(state)
        if state.passes >= 2:
            return ()
        # One flag per point, 1 in byte i of an int for an empty point i: shifting by 8 bits
        # moves to the next column, by 8 * board_size to the next row.
        board = state.board
        empty = int.from_bytes(board.translate(_EMPTY_FLAG), "little")
        row = self._row_shift
        near_empty = (
            ((empty << 8) & self._not_first_column)
            | ((empty >> 8) & self._not_last_column)
            | (empty << row)
            | (empty >> row)
        )
        legal = empty & near_empty  # an empty neighbour: never a suicide
        surrounded = empty & ~near_empty
        if surrounded:  # legal iff it captures or joins a group with another liberty
            neighbours = self._neighbours
            me = state.to_play
            counts: dict[int, int] = {}  # stone -> its group's liberties, up to 2
            for i in compress(self._points, surrounded.to_bytes(self.pass_action, "little")):
                for n in neighbours[i]:
                    count = counts.get(n)
                    if count is None:
                        count = _liberty_count(board, n, neighbours, counts)
                    if (count > 1) if board[n] == me else (count == 1):
                        legal |= 1 << 8 * i
                        break
        if state.ko >= 0:
            legal &= ~(1 << 8 * state.ko)
        return (
            *compress(self._points, legal.to_bytes(self.pass_action, "little")),
            self.pass_action,
        )

    def step(self, state: GoState, action: int) -> StepResult:
        """Plays ``action`` for the player to move.

        Returns:
            ``StepResult(next_state, reward, terminated)``: a stone removes the opponent groups
            it leaves without a liberty and sets the ko point if it took a single stone in a
            ko shape; the second pass in a row ends the game with +1.0 to the mover if it wins
            on :meth:`score` (black wins on a positive score, white otherwise), -1.0 if it
            loses; every other move earns 0.0.

        Raises:
            ValueError: if ``state`` is not a state of this board size, the game is over, or
                ``action`` is not an int in ``0..board_size**2``, an empty point, off the ko
                point and not a suicide.
        """
        self._check(state)
        if state.passes >= 2:
            raise ValueError(f"the game is over (two passes); no action is legal, got {action!r}")
        me = state.to_play
        other = BLACK + WHITE - me
        try:
            index = operator.index(action)  # Python's or numpy's ints
        except TypeError:
            raise self._illegal(state, action) from None
        if isinstance(action, bool):
            raise self._illegal(state, action)
        if index == self.pass_action:
            next_state = GoState(state.board, other, _NO_KO, state.passes + 1)
            if state.passes == 0:
                return StepResult(next_state, 0.0, False)
            black_wins = self.score(next_state) > 0
            return StepResult(next_state, 1.0 if black_wins == (me == BLACK) else -1.0, True)
        board = state.board
        if not 0 <= index < self.pass_action or board[index] != EMPTY or index == state.ko:
            raise self._illegal(state, action)
        cells = bytearray(board)
        ko = _place(cells, index, me, self._neighbours)
        if ko is None:
            raise self._illegal(state, action, "suicide")
        return StepResult(GoState(bytes(cells), other, ko, 0), 0.0, False)

    @property
    def playout_cap(self) -> int:
        """The most moves a playout plays before it scores the board: ``3 * board_size**2``.

        A light playout seldom ends by two passes before the board is filled up to its eyes;
        this cap stops the rare long one (a cycle of captures and refills), as Pachi's and
        Fuego's playouts stop at a move limit. An int (moves, passes included).
        """
        return 3 * self.pass_action

    def rollout(self, state: GoState, rng: random.Random, limit: int, gamma: float) -> float:
        """Plays Go's light playout from ``state``; returns the return of the player to move.

        The standard Monte Carlo Go playout (B. Bruegmann, "Monte Carlo Go", 1993; S. Gelly,
        Y. Wang, R. Munos and O. Teytaud, "Modification of UCT with Patterns in Monte-Carlo
        Go", INRIA RR-6062, 2006, section 3.1): uniformly random legal moves, except that a
        player never fills one of its own eyes, and passes when it has no other move. This is
        the model's own playout policy (not the uniform one of
        :class:`~mcts_agent.model.RolloutModel`): a uniform playout fills its own eyes and
        hardly ever ends. An **own eye** of the mover is an empty point whose orthogonal
        neighbours are all the mover's stones and whose diagonal neighbours hold at most one
        opponent stone, none on the edge or in a corner (Fuego's and Pachi's eye test).

        Each move: the candidates are the empty points in increasing order, a list ``L`` of
        ``n``; draw ``i = int(rng.random() * n)``; play ``L[i]`` if it is legal (not the ko
        point, not a suicide) and not an own eye, else swap-remove it (``L[i] = L[n-1]``,
        ``n -= 1``) and draw again; with ``n == 0`` pass. The game ends after two passes in a
        row, scored as :meth:`step` scores it; after :attr:`playout_cap` moves the board is
        scored as it stands (area scoring, :meth:`score`). The compiled core plays the very
        same playout in C (:meth:`native_rollout`), draw for draw.

        **The capture heuristic** (``capture_heuristic=True``; Gelly et al. 2006 above,
        section 3.2; P. Baudis, michi, https://github.com/pasky/michi, 2015: its capture
        rule): before the draws, a move that follows a stone played by the opponent in this
        playout (not a pass; the first move of the playout follows none, since a state does
        not record its last move) is chosen by a fixed rule, drawing no random number:

        1. *capture*: if the group of that stone (the opponent's stones next to it are part
           of it) is in atari, play its liberty unless it is the ko point (it captures: never
           a suicide);
        2. else *atari escape*: among the mover's groups next to that stone that are in
           atari, their liberties that are legal (not the ko point, not a suicide) and leave
           the mover's group there with at least two liberties once played (captures
           counted); the smallest such point is played;
        3. else the light move above.

        Args:
            state: a position whose game is not over (fewer than two passes).
            rng: the generator to draw from (``rng.random()`` only).
            limit: int >= 1, the most moves played (passes count).
            gamma: discount rate in [0, 1].

        Returns:
            float, from the point of view of ``player(state)``: ``gamma**k`` if the game ends
            (two passes, or the cap's scoring) on the k-th move from now (k = 0 first) and the
            player who made that move wins, ``-gamma**k`` if it loses, each sign flipped when
            that player is the opponent; 0.0 when ``limit`` moves end the playout first. With
            ``gamma = 1``: +1.0 if ``player(state)`` wins, -1.0 if it loses.

        Raises:
            ValueError: if ``state`` is not a :class:`GoState` of this board size, the game is
                over, or ``limit`` is below 1.
        """
        return self._playout(state, rng, limit, gamma, None)

    def amaf_rollout(
        self, state: GoState, rng: random.Random, limit: int, gamma: float
    ) -> tuple[float, list[tuple[int, int]]]:
        """Plays :meth:`rollout`'s playout; returns its return and the moves it played.

        The same draws and the same return as :meth:`rollout` for the same generator state.

        Returns:
            ``(g, moves)``: ``g`` as :meth:`rollout` returns it; ``moves`` the
            ``(player, action)`` pairs played in order, passes (action ``board_size**2``)
            included: the moves AMAF / RAVE statistics count (Gelly and Silver, "Combining
            Online and Offline Knowledge in UCT", ICML 2007).

        Raises:
            ValueError: as :meth:`rollout`.
        """
        moves: list[tuple[int, int]] = []
        return self._playout(state, rng, limit, gamma, moves), moves

    def _playout(
        self,
        state: GoState,
        rng: random.Random,
        limit: int,
        gamma: float,
        moves: list[tuple[int, int]] | None,
    ) -> float:
        """The light playout of :meth:`rollout`; appends its moves to ``moves`` unless None."""
        self._check(state)
        if state.passes >= 2:
            raise ValueError(f"the game is over (two passes); no playout from {state!r}")
        if limit < 1:
            raise ValueError(f"limit must be an int >= 1, got {limit!r}")
        neighbours = self._neighbours
        points = self._points
        pass_action = self.pass_action
        cap = self.playout_cap
        random_ = rng.random
        cells = bytearray(state.board)
        me = state.to_play
        ko = state.ko
        passes = state.passes
        played = 0
        coef = 1.0
        last = -1  # the stone of the previous move of the playout, -1 after a pass or none
        heuristic = self.capture_heuristic
        while True:
            other = BLACK + WHITE - me
            point = -1
            if heuristic and last >= 0:
                point, ko = self._tactical_move(cells, last, me, ko)
            if point >= 0:
                passes = 0
            else:
                empty = list(compress(points, cells.translate(_EMPTY_FLAG)))
                n = len(empty)
                counts: dict[int, int] = {}  # stone -> its group's liberties (up to 2), this move
                while n:
                    i = int(random_() * n)
                    point = empty[i]
                    if point != ko and self._light_move(cells, point, me, counts):
                        ko = _place(cells, point, me, neighbours)
                        passes = 0
                        break
                    n -= 1
                    empty[i] = empty[n]
                else:
                    point = pass_action
                    ko = _NO_KO
                    passes += 1
            last = point if passes == 0 else -1
            if moves is not None:
                moves.append((me, point))
            played += 1
            if passes == 2 or played == cap:
                black_wins = self.score(GoState(bytes(cells), other, ko, passes)) > 0
                return coef if black_wins == (me == BLACK) else -coef
            if played == limit:
                return 0.0
            coef *= -gamma
            me = other

    def _tactical_move(self, cells: bytearray, last: int, me: int, ko: int) -> tuple[int, int]:
        """The capture heuristic's move after the opponent's stone on ``last`` (:meth:`rollout`).

        Plays it on ``cells`` and returns ``(point, ko point after it)``, or returns
        ``(-1, ko)`` and leaves ``cells`` unchanged when neither rule applies.
        """
        neighbours = self._neighbours
        liberty = _atari_liberty(cells, last, neighbours)
        if liberty >= 0 and liberty != ko:  # 1. capture the group of the previous stone
            return liberty, _place(cells, liberty, me, neighbours)
        escapes = set()
        for n in neighbours[last]:
            if cells[n] == me:
                liberty = _atari_liberty(cells, n, neighbours)
                if liberty >= 0 and liberty != ko:
                    escapes.add(liberty)
        for liberty in sorted(escapes):  # 2. escape: the smallest point that saves a group
            trial = bytearray(cells)
            ko_after = _place(trial, liberty, me, neighbours)
            if ko_after is not None and _liberty_count(trial, liberty, neighbours, {}) >= 2:
                cells[:] = trial
                return liberty, ko_after
        return -1, ko

    def _light_move(self, cells: bytearray, point: int, me: int, counts: dict[int, int]) -> bool:
        """True if the empty ``point`` is legal for ``me`` (ko aside) and not its own eye."""
        near = self._neighbours[point]
        if all(cells[n] == me for n in near):
            other = BLACK + WHITE - me
            foes = sum(cells[d] == other for d in self._diagonals[point])
            if foes <= self._eye_foes[point]:
                return False  # an own eye
        for n in near:
            if cells[n] == EMPTY:
                return True
        for n in near:
            count = counts.get(n)
            if count is None:
                count = _liberty_count(cells, n, self._neighbours, counts)
            if (count > 1) if cells[n] == me else (count == 1):
                return True  # joins a group with another liberty, or captures
        return False  # a suicide

    def native_rollout(self) -> Any:
        """Returns the compiled core's capsule of :meth:`rollout`, or None without the core.

        The same light playout in C (``mcts_agent/_go.c``; ``docs/guides/compiled-core.md``:
        the protocol), drawing the same random numbers, for this model's komi and
        ``capture_heuristic``, on boards of
        2 to 19 points a side (None for a larger board: the Python playout runs); a subclass
        that overrides :meth:`rollout` loses it.
        """
        if GoModel.rollout is not _ROLLOUT or compiled._core is None or self.board_size > 19:
            return None  # rollout replaced on the class itself, no core, or a board past 19
        return compiled._core.go_native_rollout(self.komi, self.capture_heuristic)

    def _illegal(self, state: GoState, action: Any, why: str = "") -> ValueError:
        """Returns the error for an illegal ``action`` in ``state``."""
        reason = f" ({why})" if why else ""
        return ValueError(
            f"action {action!r} is not legal{reason} for player {state.to_play} in\n"
            f"{render_board(state.board)}\nlegal actions: {list(self.actions(state))}"
        )

    def score(self, state: GoState) -> float:
        """Returns black's area - white's area - komi (Tromp-Taylor area scoring).

        A player's area: its stones and the empty points whose region reaches only its stones
        (minigo's ``Position.score``); regions reaching both colours, or none, count for neither.

        Raises:
            ValueError: if ``state`` is not a :class:`GoState` of this board size.
        """
        self._check(state)
        board = state.board
        neighbours = self._neighbours
        area = [0, board.count(BLACK), board.count(WHITE)]
        seen = set()
        for i, v in enumerate(board):
            if v != EMPTY or i in seen:
                continue
            region = [i]
            seen.add(i)
            reaches = 0  # bit 1: black, bit 2: white
            for s in region:
                for n in neighbours[s]:
                    w = board[n]
                    if w == EMPTY:
                        if n not in seen:
                            seen.add(n)
                            region.append(n)
                    else:
                        reaches |= w
            if reaches in (BLACK, WHITE):
                area[reaches] += len(region)
        return area[BLACK] - area[WHITE] - self.komi


# The rollout the native capsule stands for, as defined above (replaced on the class, it
# loses its capsule: native_rollout then returns None).
_ROLLOUT = GoModel.rollout
