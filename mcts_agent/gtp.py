"""The Go Text Protocol, version 2 (the engine's side): MCTS on :class:`GoModel` as a GTP engine.

Follows G. Farnebäck, "GTP - Go Text Protocol, Version 2, Specification Draft 2"
(https://www.lysator.liu.se/~gunnar/gtp/gtp2-spec-draft2/gtp2-spec.html): a command is a
line ``[id] command_name [arguments]``; the engine answers ``=[id] result`` or
``?[id] error message``, each response ended by an empty line (section 2). Comments (from
``#``) and lines of only white space are ignored, control characters other than tab and
newline are dropped and a tab is a space (section 2.10).

A vertex is a column letter ``A``..``Z`` without ``I`` and a row number counted from the
**bottom** (``A1`` is the bottom-left point, section 2.11); :class:`GoModel`'s row 0 is the
top, so vertex ``A1`` on 9x9 is row 8, column 0, action ``8 * 9 + 0 = 72``; ``pass`` is
action ``N*N``. Letters reach 25 columns, so boards are 2x2 to 25x25.

:class:`GTPEngine` takes one command line and returns its response, with no I/O;
``mcts-agent gtp`` (:mod:`mcts_agent.cli.gtp`) reads the commands from stdin and writes
the responses to stdout.
"""

from __future__ import annotations

import math
from typing import Any

from mcts_agent import __version__
from mcts_agent.defaults import go_defaults
from mcts_agent.envs.go import BLACK, WHITE, GoModel, GoState
from mcts_agent.search import MCTS

__all__ = [
    "COMMANDS",
    "GTP_COLUMNS",
    "MAX_BOARD_SIZE",
    "GTPEngine",
    "action_of",
    "board_text",
    "vertex_of",
]

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
"""GTP's column letters, left to right: ``A`` to ``Z`` without ``I`` (spec section 2.11)."""

MAX_BOARD_SIZE = len(GTP_COLUMNS)
"""The largest board GTP's vertices name: 25x25."""

_COLOURS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}
_COLOUR_NAMES = {BLACK: "black", WHITE: "white"}


def vertex_of(action: int, board_size: int) -> str:
    """Returns the GTP vertex of :class:`GoModel` action ``action``: e.g. ``"A1"``, ``"pass"``.

    Args:
        action: int in ``0..board_size**2``, ``row * board_size + column`` with row 0 on top,
            ``board_size**2`` for a pass.
        board_size: int in ``2..25``.

    Raises:
        ValueError: if ``board_size`` is not in ``2..25`` or ``action`` not in
            ``0..board_size**2``.
    """
    _check_size(board_size)
    if isinstance(action, bool) or not isinstance(action, int):
        raise ValueError(f"a Go action is an int, got {action!r}")
    if action == board_size * board_size:
        return "pass"
    if not 0 <= action < board_size * board_size:
        raise ValueError(
            f"a {board_size}x{board_size} Go action is in 0..{board_size * board_size}, "
            f"got {action}"
        )
    row, column = divmod(action, board_size)
    return f"{GTP_COLUMNS[column]}{board_size - row}"


def action_of(vertex: str, board_size: int) -> int:
    """Returns the :class:`GoModel` action of GTP vertex ``vertex`` (any case).

    The inverse of :func:`vertex_of`: ``"A1"`` is the bottom-left point, ``"pass"`` a pass.

    Raises:
        ValueError: if ``board_size`` is not in ``2..25``, or ``vertex`` is not ``pass`` or a
            letter (no ``I``) and a number naming a point of the board.
    """
    _check_size(board_size)
    if not isinstance(vertex, str):
        raise ValueError(f"a GTP vertex is a str such as 'D4' or 'pass', got {vertex!r}")
    text = vertex.strip().upper()
    if text == "PASS":
        return board_size * board_size
    columns = GTP_COLUMNS[:board_size]
    if len(text) < 2 or text[0] not in columns or not text[1:].isdigit():
        raise ValueError(
            f"a {board_size}x{board_size} GTP vertex is a column {columns[0]}..{columns[-1]} "
            f"(no I) and a row 1..{board_size}, or 'pass'; got {vertex!r}"
        )
    number = int(text[1:])
    if not 1 <= number <= board_size:
        raise ValueError(
            f"a {board_size}x{board_size} GTP vertex's row is 1..{board_size}, got {vertex!r}"
        )
    return (board_size - number) * board_size + columns.index(text[0])


def board_text(state: GoState, komi: float) -> str:
    """Returns the position drawn with GTP's coordinates (``showboard``'s text).

    Rows from the board's side down to 1 (GTP's row 1 is the bottom), columns ``A``... without
    ``I``; ``X`` black, ``O`` white, ``.`` empty; a last line says who is to move (or that the
    game is over) and the komi.

    Args:
        state: a :class:`GoState` (its board a square of 2x2 to 25x25 points).
        komi: the komi to show.
    """
    size = math.isqrt(len(state.board))
    letters = "   " + " ".join(GTP_COLUMNS[:size])
    lines = [letters]
    for row in range(size):
        cells = state.board[row * size : (row + 1) * size]
        number = size - row
        lines.append(f"{number:2d} {' '.join('.XO'[v] for v in cells)} {number}")
    lines.append(letters)
    mover = (
        "game over (two passes)" if state.passes >= 2 else f"{_COLOUR_NAMES[state.to_play]} to move"
    )
    lines.append(f"{mover}, komi {komi:g}")
    return "\n".join(lines)


def _check_size(board_size: Any) -> None:
    """Raises ``ValueError`` unless ``board_size`` is an int in ``2..25``."""
    if isinstance(board_size, bool) or not isinstance(board_size, int):
        raise ValueError(f"a board size is an int in 2..{MAX_BOARD_SIZE}, got {board_size!r}")
    if not 2 <= board_size <= MAX_BOARD_SIZE:
        raise ValueError(f"a board size is an int in 2..{MAX_BOARD_SIZE}, got {board_size}")


class _Failure(Exception):
    """A command's failure: its message is the ``?`` response's."""


COMMANDS = (
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "showboard",
)
"""The commands :class:`GTPEngine` knows, as ``list_commands`` lists them."""


class GTPEngine:
    """A GTP version 2 engine: Go played by MCTS on :class:`~mcts_agent.envs.go.GoModel`.

    :meth:`respond` answers one command line.

    Commands (:data:`COMMANDS`): the spec's required ``protocol_version`` (2), ``name``,
    ``version``, ``known_command``, ``list_commands``, ``quit``, ``boardsize`` (2 to 25,
    otherwise ``unacceptable size``), ``clear_board``, ``komi``, ``play`` and ``genmove``
    (spec section 6.3), and ``showboard``. Two departures, both answered as errors, never
    silently: :class:`GoModel` has the colours alternate strictly, so ``play`` or
    ``genmove`` for the colour not to move fails saying whose move it is; and after two
    passes the game is over, so both fail with ``game is over``. ``genmove`` never resigns.

    A search plans for the player to move on the current position with a fresh tree (no
    reuse), so its move depends only on the position, the budget and the seed: the planner
    is made again, with the same seed, whenever ``boardsize`` or ``komi`` changes the model.

    Args:
        board_size: int in 2..25, the board's side until ``boardsize`` changes it (9).
        komi: finite real, points given to white, until ``komi`` changes it (7.5).
        iterations: int >= 1, MCTS iterations per ``genmove``, or None.
        time_limit: float > 0, seconds per ``genmove``, or None; at least one of the two
            (whichever comes first, as in :class:`~mcts_agent.search.MCTS`).
        exploration: the UCB1 constant ``c`` (MCTS's ``exploration``), or None for
            :data:`~mcts_agent.defaults.GO_EXPLORATION`. The search is GRAVE with the
            options of :func:`~mcts_agent.defaults.go_defaults`, as ``MCTSAgent`` plays go.
        seed: int >= 0 or None, MCTS's seed.
        options: any other :class:`~mcts_agent.search.MCTS` keywords (``rave``,
            ``rollout_limit``, ``evaluator``...), over the go defaults (``go_defaults``
            steps aside as it does for ``MCTSAgent``); None for none.

    Raises:
        ValueError: for a board size, komi or budget out of range (MCTS's and GoModel's
            messages), or options MCTS refuses.
        TypeError: if neither ``iterations`` nor ``time_limit`` is given (MCTS's message).
    """

    def __init__(
        self,
        board_size: int = 9,
        komi: float = 7.5,
        *,
        iterations: int | None = None,
        time_limit: float | None = None,
        exploration: float | None = None,
        seed: int | None = 0,
        options: dict[str, Any] | None = None,
    ):
        _check_size(board_size)
        given = {**(options or {}), **({} if exploration is None else {"exploration": exploration})}
        self._search = {
            **go_defaults(given),
            **given,
            "iterations": iterations,
            "time_limit": time_limit,
            "seed": seed,
        }
        self.quit = False
        """True once ``quit`` was answered: the controller expects no more responses."""
        self._new_game(GoModel(board_size, komi))

    @property
    def model(self) -> GoModel:
        """The :class:`GoModel` of the current board size and komi."""
        return self._model

    @property
    def state(self) -> GoState:
        """The current position."""
        return self._state

    def _new_game(self, model: GoModel) -> None:
        """Plays on ``model`` from its empty board, with a planner made for it."""
        self._planner = MCTS(model, **self._search)
        self._model = model
        self._state = model.initial_state()

    def respond(self, line: str) -> str:
        """Returns the response to one command line, its two newlines included.

        ``"=[id] result"`` or ``"?[id] message"``, each followed by an empty line, or ``""``
        for a comment or an empty line (no response).

        Raises:
            TypeError: if ``line`` is not a str.
        """
        if not isinstance(line, str):
            raise TypeError(f"a GTP command line is a str, got {line!r}")
        text = "".join(ch for ch in line if ch >= " " or ch in "\t\n").replace("\t", " ")
        words = text.split("#", 1)[0].split()
        if not words:
            return ""
        ident = ""
        if words[0].isdigit():
            ident = words.pop(0)
            if not words:
                return f"?{ident} missing command\n\n"
        name, arguments = words[0], words[1:]
        if name not in COMMANDS:
            return f"?{ident} unknown command\n\n"
        try:
            result = getattr(self, "_" + name)(arguments)
        except _Failure as failure:
            return f"?{ident} {failure}\n\n"
        return f"={ident} {result}\n\n"

    def _protocol_version(self, arguments: list[str]) -> str:
        return "2"

    def _name(self, arguments: list[str]) -> str:
        return "mcts-agent"

    def _version(self, arguments: list[str]) -> str:
        return __version__

    def _known_command(self, arguments: list[str]) -> str:
        _expect(arguments, 1, "a command name")
        return "true" if arguments[0] in COMMANDS else "false"

    def _list_commands(self, arguments: list[str]) -> str:
        return "\n".join(COMMANDS)

    def _quit(self, arguments: list[str]) -> str:
        self.quit = True
        return ""

    def _boardsize(self, arguments: list[str]) -> str:
        _expect(arguments, 1, "a board size")
        if not arguments[0].isdigit():
            raise _Failure(f"syntax error: a board size is an int, got {arguments[0]!r}")
        size = int(arguments[0])
        if not 2 <= size <= MAX_BOARD_SIZE:
            raise _Failure("unacceptable size")
        self._new_game(GoModel(size, self._model.komi))
        return ""

    def _clear_board(self, arguments: list[str]) -> str:
        self._state = self._model.initial_state()
        return ""

    def _komi(self, arguments: list[str]) -> str:
        _expect(arguments, 1, "a komi")
        try:
            komi = float(arguments[0])
        except ValueError:
            komi = math.nan
        if not math.isfinite(komi):
            raise _Failure(f"syntax error: komi is a finite real number, got {arguments[0]!r}")
        board = self._state
        self._new_game(GoModel(self._model.board_size, komi))
        self._state = board  # komi changes the score, not the position
        return ""

    def _play(self, arguments: list[str]) -> str:
        _expect(arguments, 2, "a colour and a vertex")
        self._check_turn(_colour(arguments[0]))
        try:
            action = action_of(arguments[1], self._model.board_size)
        except ValueError as error:
            raise _Failure(f"syntax error: {error}") from None
        if action not in self._model.actions(self._state):
            raise _Failure("illegal move")
        self._state = self._model.step(self._state, action).next_state
        return ""

    def _genmove(self, arguments: list[str]) -> str:
        _expect(arguments, 1, "a colour")
        self._check_turn(_colour(arguments[0]))
        action = self._planner(self._state)
        self._state = self._model.step(self._state, action).next_state
        return vertex_of(action, self._model.board_size)

    def _showboard(self, arguments: list[str]) -> str:
        return "\n" + board_text(self._state, self._model.komi)

    def _check_turn(self, colour: int) -> None:
        """Fails unless the game goes on and ``colour`` is to move."""
        if self._state.passes >= 2:
            raise _Failure("game is over (two passes)")
        to_move = self._state.to_play
        if colour != to_move:
            raise _Failure(
                f"{_COLOUR_NAMES[to_move]} is to move, not {_COLOUR_NAMES[colour]} "
                "(this engine has the colours alternate)"
            )


def _expect(arguments: list[str], count: int, what: str) -> None:
    """Fails with a syntax error unless there are ``count`` arguments."""
    if len(arguments) != count:
        raise _Failure(f"syntax error: expected {what}, got {' '.join(arguments)!r}")


def _colour(text: str) -> int:
    """The player (BLACK or WHITE) of GTP colour ``text`` (``b``, ``black``, ``w``, ``white``)."""
    colour = _COLOURS.get(text.lower())
    if colour is None:
        raise _Failure(f"syntax error: a colour is b, black, w or white, got {text!r}")
    return colour
