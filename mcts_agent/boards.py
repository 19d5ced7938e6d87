"""A game as a person sees it at the command line: its board as text, moves typed and named.

``mcts-agent search`` and ``play`` work on a *board*: one position of a game,
with the model the planner searches, the board as text, the moves' names
(for the root's statistics, the principal variation and the plots), the
reading of a typed move and of ``--position``, and a :class:`BoardLayout`
for the heat maps where the game has one. Four kinds:

* :class:`ModelBoard`: our models (tic-tac-toe, connect four; also what
  ``classic/tictactoe-v3`` and ``classic/connect_four-v3`` are planned on):
  the state is the model's, moves are cells 0-8 (row by row) or columns
  0-6, ``--position`` a board (``"XX.OO...."``, 42 cells top row first) or
  the moves from the start (``"4 0 8"``).
* :class:`EnvBoard`: any other PettingZoo AEC env the adapter plans, planned
  through :class:`~mcts_agent.adapters.PettingZooModel`: the live env is
  stepped for real; moves are the env's actions, or their names where the
  game has them (RLCard's poker: ``call``, ``raise``); ``--position`` the
  moves from ``reset(seed=0)``, names or numbers. The board is what
  ``env.render()`` returns when the env was made with ``render_mode="ansi"``
  (poker: the hands as the player to move sees them); an env that renders no
  text (another ``render_mode``, or none: a user's env may lack the
  attribute) has no board to show, which the text says, and the game goes on.
* :class:`GoBoard`: PettingZoo's go (``classic/go_v5:board_size=9``), an
  :class:`EnvBoard` planned on our :class:`~mcts_agent.envs.go.GoModel`: moves
  named and typed as GTP vertices (``D4``, ``pass``), the board drawn with GTP's
  coordinates.
* :class:`ChessBoard`: PettingZoo's chess (``classic/chess-v6``), an
  :class:`EnvBoard` planned on our :class:`~mcts_agent.envs.chess.ChessModel`:
  moves named in SAN (``Nf3``, ``Qxf7#``; principal variations played through),
  typed in UCI (``e2e4``) or SAN; ``--position`` moves from the start or from
  a FEN (:meth:`ChessBoard.set_fen`, ``--fen``, which sets the live env's
  board); the board is python-chess's with ranks and files.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from mcts_agent.evaluation.games import Game, PettingZooGame
from mcts_agent.plots import BoardLayout

__all__ = [
    "Board",
    "ChessBoard",
    "EnvBoard",
    "GoBoard",
    "ModelBoard",
    "board_for",
    "is_chess_model",
]

_MOVES = re.compile(r"^[\s,\d]*$")


class Board:
    """One position of a game for ``search`` and ``play`` (see the module docstring).

    Attributes:
        name: the game's name.
        model: the model the planner searches.
        state: the model state of the current position.
        seat_names: names of the first and the second player (``X``/``O``,
            ``white``/``black``, or the env's agent ids).
        move_help: how to type a move, for prompts and errors.
    """

    name: str
    model: Any
    state: Any
    seat_names: tuple[str, str]
    move_help: str

    # ------------------------------------------------------------ what a subclass gives

    def render(self) -> str:
        """The current position as text."""
        raise NotImplementedError

    def label(self, action: Any) -> str:
        """The name of ``action`` (a model action legal in the current position)."""
        raise NotImplementedError

    def line_labels(self, line: Sequence[Any]) -> list[str]:
        """The names of the moves of ``line``, played one after the other from here."""
        raise NotImplementedError

    def play(self, action: Any) -> None:
        """Plays the legal model ``action`` in the current position."""
        raise NotImplementedError

    def returns(self) -> dict[Hashable, float]:
        """Each player's total reward so far, by the model's player."""
        raise NotImplementedError

    def layout(self) -> BoardLayout | None:
        """Where the moves are on the board, for heat maps; None (bars) by default."""
        return None

    def render_to_move(self) -> str:
        """The position as shown to a person about to move (with move numbers where useful)."""
        return self.render()

    def ending(self) -> str | None:
        """Why the game is over, in words, where the game can tell (else None, or if not over)."""
        return None

    # ------------------------------------------------------------ shared

    @property
    def legal(self) -> tuple:
        """The legal model actions of the current position (empty once the game is over)."""
        return tuple(self.model.actions(self.state))

    def player(self) -> Hashable:
        """The model's player to move (the game must not be over)."""
        return self.model.player(self.state)

    def seat(self, player: Hashable) -> str:
        """The seat name of the model's ``player``."""
        return self.seat_names[self.players.index(player)]

    @property
    def players(self) -> tuple:
        """The model's players, first to move first."""
        raise NotImplementedError

    def parse_move(self, text: str) -> Any:
        """Returns the legal model action ``text`` names (its name, or its number).

        Raises:
            ValueError: if ``text`` names no legal move; the message lists them.
        """
        text = text.strip()
        legal = self.legal
        for action in legal:
            if self.label(action).lower() == text.lower():
                return action
        if text.lstrip("-").isdigit():
            for action in legal:
                if _number(action) == int(text):
                    return action
        names = [self.label(a) for a in legal]
        shown = ", ".join(names[:40]) + (
            f", ... ({len(names) - 40} more)" if len(names) > 40 else ""
        )
        raise ValueError(f"{text!r} is not a legal move; enter {self.move_help}: {shown}")

    def play_line(self, text: str) -> None:
        """Plays the moves of ``text`` (names or numbers, separated by spaces or commas).

        Raises:
            ValueError: if a move is not legal where it is played (the message
                says which), or the game ends before the last one.
        """
        for k, word in enumerate(text.replace(",", " ").split()):
            self._play_word(word, k + 1, text)

    def _play_word(self, word: str, number: int, text: str) -> None:
        """Plays ``word``, move ``number`` (from 1) of the line ``text``; raises as play_line."""
        if not self.legal:
            raise ValueError(f"the game is over before move {number} ({word!r}) of {text!r}")
        try:
            action = self.parse_move(word)
        except ValueError as error:
            raise ValueError(f"move {number} of {text!r}: {error}") from None
        self.play(action)


def _number(action: Any) -> int | None:
    try:
        return int(action)
    except (TypeError, ValueError):
        return None


class ModelBoard(Board):
    """A position of one of our models: tic-tac-toe or connect four (see the module docstring).

    Args:
        name: the game's name.
        model: a ``TicTacToeModel`` or a ``ConnectFourModel``.
        state: the starting state.
        rules: the model's module (``mcts_agent.envs.tic_tac_toe`` or
            ``connect_four``: its ``parse_board``, ``render_board``,
            ``board_layout``).
        move_help: how to type a move.
    """

    seat_names = ("X", "O")

    def __init__(self, name: str, model: Any, state: Any, rules: Any, move_help: str) -> None:
        self.name, self.model, self.state = name, model, state
        self._rules, self.move_help = rules, move_help
        self._returns: dict[Hashable, float] = {1: 0.0, 2: 0.0}

    @property
    def players(self) -> tuple:
        """Players 1 (X, first) and 2 (O)."""
        return (1, 2)

    def set_position(self, text: str) -> None:
        """Sets the position from ``text``: a board (``X``, ``O``, ``.``) or moves from the start.

        Raises:
            ValueError: if ``text`` is neither a board of the game nor legal moves.
        """
        if _MOVES.match(text):
            self.play_line(text)
        else:
            self.state = self._rules.parse_board(text)

    def render(self) -> str:
        """The board as the model's module draws it (``render_board``)."""
        return self._rules.render_board(self.state)

    def render_to_move(self) -> str:
        """Tic-tac-toe: free cells numbered; connect four: column numbers under the board."""
        text = self.render()
        if self._rules.__name__.endswith("tic_tac_toe"):
            marks = self._rules.format_board(self.state)
            cells = [str(i) if mark == "." else mark for i, mark in enumerate(marks)]
            rows = (" " + " | ".join(cells[r * 3 : r * 3 + 3]) for r in range(3))
            return "\n---+---+---\n".join(rows)
        return text + "\n" + "".join(str(column) for column in range(7))

    def label(self, action: Any) -> str:
        """The cell or column number."""
        return str(action)

    def line_labels(self, line: Sequence[Any]) -> list[str]:
        """The cell or column numbers."""
        return [str(action) for action in line]

    def play(self, action: Any) -> None:
        """Steps the model (the reward goes to the player who moved)."""
        mover = self.player()
        self.state, reward, _ = self.model.step(self.state, action)
        self._returns[mover] += float(reward)

    def returns(self) -> dict[Hashable, float]:
        """Players 1 and 2's rewards so far."""
        return dict(self._returns)

    def layout(self) -> BoardLayout:
        """The module's ``board_layout`` of the current position."""
        return self._rules.board_layout(self.state)


class EnvBoard(Board):
    """A position of a PettingZoo AEC env, planned through ``PettingZooModel`` (module docstring).

    Args:
        game: the game (:func:`mcts_agent.evaluation.make_game`'s, without a
            model of ours): its env is made with ``game.make_env()``.
        seed: the seed of ``reset``.

    Raises:
        ValueError, TypeError, ImportError: as ``make_env`` and
            ``PettingZooModel`` refuse the env (an option it does not take,
            hidden information, non-``Discrete`` actions...).
    """

    def __init__(self, game: PettingZooGame, seed: int = 0) -> None:
        self.name = game.name
        self._game = game
        self._seed = seed
        self.env = game.make_env()
        self.env.reset(seed=seed)
        if len(self.env.possible_agents) != 2:
            raise ValueError(
                f"search and play take two-player games; {game.name} has "
                f"{len(self.env.possible_agents)} agents {list(self.env.possible_agents)}"
            )
        self.model = self._planned_model()
        self.state = self.model.state_of(self.env)
        self._history: list[Any] = []
        kind = type(self.env.unwrapped).__module__
        self._namer = _NAMERS.get(kind, _number_name)
        self._renderer = _RENDERERS.get(kind, _generic_render)
        self.seat_names = tuple(self.env.possible_agents)
        self.move_help = _MOVE_HELP.get(kind, "an action number")

    def _planned_model(self) -> Any:
        """The model the planner searches: a ``PettingZooModel`` of the live env."""
        from mcts_agent.adapters.pettingzoo import PettingZooModel

        return PettingZooModel(self.env)

    @property
    def players(self) -> tuple:
        """The env's ``possible_agents``."""
        return tuple(self.env.possible_agents)

    def set_position(self, text: str) -> None:
        """Plays the moves of ``text`` from ``reset(seed)`` (names or action numbers).

        Raises:
            ValueError: if a move is not legal where it is played.
        """
        self.play_line(text)

    def render(self) -> str:
        """The game's own text of the board, or a line saying there is none to show."""
        return self._renderer(self.env)

    def label(self, action: Any) -> str:
        """The move's name in the game's notation, else its number."""
        return self._namer(self.env, action)

    def line_labels(self, line: Sequence[Any]) -> list[str]:
        """Names the moves of ``line`` in a scratch env replaying the game from its reset."""
        scratch = self._game.make_env()
        scratch.reset(seed=self._seed)
        for action in self._history:
            scratch.step(action)
        names = []
        for action in line:
            names.append(self._namer(scratch, action))
            scratch.step(action)
        scratch.close()
        return names

    def _env_action(self, action: Any) -> Any:
        """The env's action of the model's ``action`` (``PettingZooModel.to_env_action``)."""
        return self.model.to_env_action(action)

    def play(self, action: Any) -> None:
        """Steps the live env with the model's action (the env's own) and reads its state."""
        action = self._env_action(action)
        self.env.step(action)
        self._history.append(action)
        self.state = self.model.state_of(self.env)

    def returns(self) -> dict[Hashable, float]:
        """The env's cumulative rewards."""
        return {agent: float(r) for agent, r in self.env.unwrapped._cumulative_rewards.items()}


class _OwnModelEnvBoard(EnvBoard):
    """A PettingZoo env planned on a model of ours whose actions are the env's (go, chess).

    The model's players, :attr:`players`, stand for the env's ``possible_agents`` in order.
    """

    def _env_action(self, action: Any) -> int:
        """The model's action as an int: it is the env's."""
        return int(action)

    def returns(self) -> dict[Hashable, float]:
        """The env's cumulative rewards, by the model's player."""
        rewards = self.env.unwrapped._cumulative_rewards
        agents = self.env.possible_agents
        return {
            player: float(rewards[agent])
            for player, agent in zip(self.players, agents, strict=True)
        }


class GoBoard(_OwnModelEnvBoard):
    """A position of PettingZoo's ``classic/go_v5``, planned on our :class:`GoModel`.

    The live env is stepped for real; the planner searches
    :class:`~mcts_agent.envs.go.GoModel` at the env's board size and komi (the env's actions
    are the model's: ``row * N + column``, row 0 on top, ``N * N`` a pass). Moves are named
    by their GTP vertices (:func:`~mcts_agent.gtp.vertex_of`: ``D4``, columns without ``I``,
    row 1 at the bottom; ``pass``) and typed as vertices or action numbers; the board is
    drawn with those coordinates (:func:`~mcts_agent.gtp.board_text`). The players are
    :class:`GoModel`'s 1 (black, first) and 2 (white).

    Args:
        game: the game (:func:`mcts_agent.evaluation.make_game`'s ``classic/go_v5:...``).
        seed: the seed of ``reset``.
    """

    def __init__(self, game: PettingZooGame, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.seat_names = ("black", "white")
        self.move_help = "a vertex such as D4 (columns A.. without I, row 1 at the bottom), pass"

    def _planned_model(self) -> Any:
        """:class:`GoModel` at the env's board size and komi."""
        from mcts_agent.envs.go import GoModel

        position = self.env.unwrapped._go
        return GoModel(position.board.shape[0], position.komi)

    @property
    def players(self) -> tuple:
        """GoModel's players: 1 (black) and 2 (white)."""
        return (1, 2)

    def render(self) -> str:
        """The board with GTP's coordinates, who is to move and the komi."""
        from mcts_agent.gtp import board_text

        return board_text(self.state, self.model.komi)

    def label(self, action: Any) -> str:
        """The move's GTP vertex (``D4``, ``pass``)."""
        from mcts_agent.gtp import vertex_of

        return vertex_of(int(action), self.model.board_size)

    def line_labels(self, line: Sequence[Any]) -> list[str]:
        """The moves' GTP vertices (a vertex names the same point in every position)."""
        return [self.label(action) for action in line]


MAX_HALFMOVE_CLOCK = 127
"""The largest half-move clock PettingZoo's chess observation holds (as a square, clock // 2)."""


class ChessBoard(_OwnModelEnvBoard):
    """A position of PettingZoo's ``classic/chess_v6``, planned on our :class:`ChessModel`.

    The live env is stepped for real; the planner searches
    :class:`~mcts_agent.envs.chess.ChessModel` (its actions are the env's). Moves are named
    in SAN (python-chess's ``Board.san``: ``Nf3``, ``exd5``, ``O-O``, ``Qxf7#``), principal
    variations played through move by move; they are typed in UCI (``e2e4``, ``e7e8q``) or
    SAN, or as action numbers. The board is python-chess's with ranks and files. The players
    are ChessModel's 0 (white, first) and 1 (black).

    A position from a FEN (:meth:`set_fen`) is put into the live env itself, since PettingZoo's
    chess cannot be reset to one: see :meth:`set_fen`.

    Args:
        game: the game (:func:`mcts_agent.evaluation.make_game`'s ``classic/chess-v6``).
        seed: the seed of ``reset``.
    """

    def __init__(self, game: PettingZooGame, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.seat_names = ("white", "black")
        self.move_help = "a move in UCI (e2e4, e7e8q) or SAN (e4, Nf3, O-O, exd8=Q)"
        self._fen: str | None = None

    def _planned_model(self) -> Any:
        """:class:`ChessModel`."""
        from mcts_agent.envs.chess import ChessModel

        return ChessModel()

    @property
    def players(self) -> tuple:
        """ChessModel's players: 0 (white) and 1 (black)."""
        return (0, 1)

    def set_fen(self, fen: str) -> None:
        """Sets the position to the FEN ``fen``, in the live env and the model state.

        PettingZoo's chess env cannot be reset to a position, so its state is set as its
        ``reset`` and ``step`` keep it (``pettingzoo/classic/chess/chess.py``): ``board``
        becomes ``chess.Board(fen)`` (an empty move stack: no repetition before it),
        ``agent_selection`` the agent of the side to move, and the observation's
        ``board_history`` holds this position alone, as after one move from an empty
        history. The game's earlier moves are unknown: ``line_labels`` and the env's
        rewards start here.

        Raises:
            ValueError: if ``fen`` is not a FEN python-chess reads (its message is
                given), or not a legal position (``Board.status``'s flags named), or
                its half-move clock is above :data:`MAX_HALFMOVE_CLOCK`, or the game
                has moved since ``reset``.
        """
        import chess
        import numpy as np
        from pettingzoo.classic.chess import chess_utils

        if self._history:
            raise ValueError("a FEN sets the starting position: before any move is played")
        try:
            board = chess.Board(fen)
        except ValueError as error:
            raise ValueError(f"{fen!r} is not a FEN python-chess reads: {error}") from None
        status = board.status()
        if status != chess.STATUS_VALID:
            flags = [flag.name.lower() for flag in chess.Status if flag and flag in status]
            raise ValueError(
                f"{fen!r} is not a legal chess position (python-chess: {', '.join(flags)})"
            )
        if board.halfmove_clock > MAX_HALFMOVE_CLOCK:
            raise ValueError(
                f"{fen!r} has a half-move clock of {board.halfmove_clock}: PettingZoo's chess "
                f"observation holds at most {MAX_HALFMOVE_CLOCK} (from 100 on, the fifty-move "
                "draw can be claimed and the game is over anyway)"
            )
        raw = self.env.unwrapped
        raw.board = board
        raw.agent_selection = raw._agent_selector.reset()
        if board.turn == chess.BLACK:
            raw.agent_selection = raw._agent_selector.next()
        planes = chess_utils.get_observation(board, player=0)[:, :, 7:]
        raw.board_history = np.dstack((planes, np.zeros_like(raw.board_history[:, :, :-13])))
        self.state = self.model.state_of(self.env)
        self._fen = board.fen()

    def pgn_game(self, white: str, black: str, event: str = "?") -> Any:
        """The game so far as a ``chess.pgn.Game`` (:func:`mcts_agent.pgn.pgn_game`).

        From the FEN of :meth:`set_fen` if one was set, else the start; ``Result`` ``*``
        while the game goes on.

        Args:
            white: the ``White`` tag.
            black: the ``Black`` tag.
            event: the ``Event`` tag.
        """
        from mcts_agent.pgn import pgn_game

        return pgn_game(self._history, white, black, fen=self._fen, event=event)

    def set_position(self, text: str) -> None:
        """Plays the moves of ``text`` (UCI, SAN or numbers), checking move numbers such as ``1.``.

        A move number must be the next move's, as in PGN: ``12.`` before white's 12th move,
        ``12...`` before black's (python-chess's fullmove number, a FEN's included).

        Raises:
            ValueError: if a move is not legal where it is played, the game ends before
                the last one, or a move number is not the next move's (the message says
                which it should be).
        """
        from mcts_agent.envs.chess import board_of

        played = 0
        for word in text.replace(",", " ").split():
            numbered = _NUMBERED_MOVE.fullmatch(word)
            if numbered is not None:
                number, dots, word = numbered.groups()
                board = board_of(self.state)
                expected = f"{board.fullmove_number}{'.' if board.turn else '...'}"
                if f"{int(number)}{'.' if dots == '.' else '...'}" != expected:
                    raise ValueError(
                        f"move number {number}{dots} in {text!r} is not the next move's: "
                        f"{expected} ({'white' if board.turn else 'black'} to move)"
                    )
                if not word:
                    continue
            played += 1
            self._play_word(word, played, text)

    def render(self) -> str:
        """python-chess's board with ranks and files."""
        return _chess_render(self.env)

    def label(self, action: Any) -> str:
        """The move's SAN in the current position (``Nf3``, ``Qxf7#``)."""
        return _san(self.state, action)

    def line_labels(self, line: Sequence[Any]) -> list[str]:
        """The moves' SAN, each in the position the line has reached."""
        state, names = self.state, []
        for action in line:
            names.append(_san(state, action))
            state, _, _ = self.model.step(state, action)
        return names

    def ending(self) -> str | None:
        """Why the game is over: ``"checkmate, white wins"``, ``"stalemate"``... (None if not).

        PettingZoo's rule (:class:`~mcts_agent.envs.chess.ChessModel`): checkmate, stalemate,
        insufficient material, or a draw that can be claimed (fifty moves, threefold
        repetition), in python-chess's words.
        """
        from mcts_agent.envs.chess import board_of

        if self.legal:
            return None
        outcome = board_of(self.state).outcome(claim_draw=True)
        if outcome is None:  # PettingZoo's rule: a move would repeat the position a third time
            return "threefold repetition can be claimed with the next move, a draw"
        reason = outcome.termination.name.lower().replace("_", " ")
        if outcome.winner is None:
            return f"{reason}, a draw"
        return f"{reason}, {'white' if outcome.winner else 'black'} wins"

    def parse_move(self, text: str) -> Any:
        """Returns the legal action ``text`` names: UCI, SAN, or an action number.

        A move number before the move (``1. e4``, ``12...Nf6``) is skipped, as in
        ``--position``.

        Raises:
            ValueError: if ``text`` names no legal move; the message lists them in SAN.
        """
        import chess

        from mcts_agent.envs.chess import action_of, board_of

        word = _MOVE_NUMBER.sub(" ", text).strip()
        if self.legal:
            board = board_of(self.state)
            for parse in (board.parse_uci, board.parse_san):
                try:
                    move = parse(word)
                except chess.AmbiguousMoveError:
                    names = sorted(
                        board.san(m) for m in board.legal_moves if _san_stem(board, m, word)
                    )
                    raise ValueError(
                        f"{word!r} is ambiguous: it names {' and '.join(names)}; enter one of them"
                    ) from None
                except ValueError:  # python-chess's InvalidMoveError, IllegalMoveError...
                    continue
                if move:  # not the null move ("0000", "--")
                    return action_of(self.state, move)
        return super().parse_move(word)


def _san_stem(board: Any, move: Any, word: str) -> bool:
    """Whether ``move`` is one of the moves the ambiguous SAN ``word`` could mean.

    Its SAN without the file or rank that tells it apart (``Ncb5`` for ``Nb5``) is ``word``.
    """
    san = board.san(move).rstrip("+#")
    target = word.rstrip("+#")
    return len(san) == len(target) + 1 and san[0] == target[0] and san[2:] == target[1:]


def _san(state: Any, action: Any) -> str:
    """The SAN of the legal ``action`` in the chess ``state``."""
    from mcts_agent.envs.chess import board_of, move_of

    return board_of(state).copy(stack=False).san(move_of(state, action))


_MOVE_NUMBER = re.compile(r"(?<!\S)\d+\.+")
"""A move number of a game's text (``1.``, ``12...``, ``1.e4``'s ``1.``)."""

_NUMBERED_MOVE = re.compile(r"(\d+)(\.+)(.*)")
"""A word of a game's text that starts with a move number: ``(number, dots, the rest)``."""


# ------------------------------------------------------------ games' notations


def _number_name(env: Any, action: Any) -> str:
    return str(action)


def _chess_render(env: Any) -> str:
    rows = str(env.unwrapped.board).splitlines()  # python-chess's board, rank 8 first
    return "\n".join(f"{8 - r} {row}" for r, row in enumerate(rows)) + "\n  a b c d e f g h"


def _generic_render(env: Any) -> str:
    inner = env.unwrapped
    name = (getattr(inner, "metadata", None) or {}).get("name", type(inner).__name__)
    if getattr(env, "render_mode", None) == "ansi":  # PettingZoo's text mode
        try:
            return str(env.render())
        except Exception as error:  # e.g. tic-tac-toe accepts "ansi" but draws with pygame
            return (
                f"(no board to show: {name}'s render() in render_mode='ansi' raised "
                f"{type(error).__name__}: {error})"
            )
    return f"(no board to show: {name} does not render as text)"


def _rlcard_action_names(env: Any) -> list[str]:
    """RLCard's names of the env's actions, by action number (``call``, ``raise``...)."""
    names = env.unwrapped.env.actions  # a list (Leduc, limit) or the Action enum (no limit)
    return [name if isinstance(name, str) else name.name.lower() for name in names]


def _rlcard_name(env: Any, action: Any) -> str:
    return _rlcard_action_names(env)[int(action)]


def _rlcard_render(env: Any) -> str:
    """An RLCard poker game as its player to move sees it; every hand once the game is over.

    Own hand, public cards, chips put in by each agent and the legal moves
    named; the other hands stay hidden while the hand is played.
    """
    inner = env.unwrapped
    game = inner.env.game
    agents = list(inner.possible_agents)
    over = all(inner.terminations.values()) or not inner.agents
    names = _rlcard_action_names(env)
    if over:
        states = [game.get_state(i) for i in range(len(agents))]
        state = states[0]
        lines = [
            f"{agent}'s hand: {_cards(s['hand'])}" for agent, s in zip(agents, states, strict=True)
        ]
    else:
        agent = inner.agent_selection
        state = game.get_state(agents.index(agent))
        lines = [f"{agent} to move; your hand: {_cards(state['hand'])}"]
    public = state.get("public_cards", state.get("public_card"))
    lines.append(f"public cards: {_cards(public) or 'none yet'}")
    chips = ", ".join(f"{a} {c}" for a, c in zip(agents, state["all_chips"], strict=True))
    lines.append(f"chips in the pot: {chips}")
    if not over:
        mask = inner.observe(inner.agent_selection)["action_mask"]
        legal = [f"{i} {name}" for i, name in enumerate(names) if i < len(mask) and mask[i]]
        lines.append("moves: " + ", ".join(legal))
    return "\n".join(lines)


def _cards(cards: Any) -> str:
    """RLCard's cards (``'SJ'``: suit then rank), or a list of them, as text."""
    if cards is None:
        return ""
    return " ".join(cards) if isinstance(cards, list) else str(cards)


_RLCARD_GAMES = (
    "pettingzoo.classic.rlcard_envs.leduc_holdem",
    "pettingzoo.classic.rlcard_envs.texas_holdem",
    "pettingzoo.classic.rlcard_envs.texas_holdem_no_limit",
)
_NAMERS: dict[str, Callable[[Any, Any], str]] = {
    **dict.fromkeys(_RLCARD_GAMES, _rlcard_name),
}
_RENDERERS: dict[str, Callable[[Any], str]] = {
    **dict.fromkeys(_RLCARD_GAMES, _rlcard_render),
}
_MOVE_HELP = {
    **dict.fromkeys(_RLCARD_GAMES, "a move's name (call, raise...) or its action number"),
}


# ------------------------------------------------------------ by name


def is_chess_model(model: Any) -> bool:
    """Whether ``model`` is a :class:`~mcts_agent.envs.chess.ChessModel`.

    Without importing python-chess (``pip install 'pettingzoo[classic]'``) when no chess
    model was made: a ``ChessModel`` exists only once its module is loaded.
    """
    module = sys.modules.get("mcts_agent.envs.chess")
    return module is not None and isinstance(model, module.ChessModel)


def board_for(game: Game) -> ModelBoard | EnvBoard:
    """Returns the starting position of ``game`` (:func:`mcts_agent.evaluation.make_game`'s).

    Games on our models (``tictactoe``, ``connect_four``, and PettingZoo's
    ``classic/tictactoe-v3`` and ``classic/connect_four-v3``, which the
    registry plans on them) are :class:`ModelBoard`; PettingZoo's go a
    :class:`GoBoard`, its chess (planned on ``ChessModel``) a :class:`ChessBoard`;
    any other PettingZoo env an :class:`EnvBoard`.

    Raises:
        ValueError, TypeError, ImportError: if the env cannot be made or
            planned (see :class:`EnvBoard`), or the game's model is none of ours.
    """
    from mcts_agent.envs import connect_four, tic_tac_toe

    if isinstance(game.model, tic_tac_toe.TicTacToeModel):
        rules, start, help_ = tic_tac_toe, tic_tac_toe.EMPTY_BOARD, "a cell number 0-8, row by row"
    elif isinstance(game.model, connect_four.ConnectFourModel):
        rules, start, help_ = connect_four, connect_four.EMPTY_BOARD, "a column number 0-6"
    elif isinstance(game, PettingZooGame) and is_chess_model(game.model):
        return ChessBoard(game)
    elif isinstance(game, PettingZooGame) and game.model is None:
        if game.env_id.replace("-", "_").startswith("classic/go_v"):
            return GoBoard(game)
        return EnvBoard(game)
    else:
        raise ValueError(
            f"search and play show games on our tic-tac-toe and connect four models and "
            f"PettingZoo envs; {game.name} is played on {type(game.model).__name__}"
        )
    return ModelBoard(game.name, game.model, start, rules, help_)
