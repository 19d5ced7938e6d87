"""UCI engines as players of PettingZoo's chess: ``uci:COMMAND[:NAME=VALUE,...]`` player specs.

A :class:`UCIPlayer` plays ``classic/chess_v6`` in the env loop
(:meth:`~mcts_agent.evaluation.PettingZooGame.env_policy`) through a UCI engine (Stockfish...)
it starts for each game with python-chess's own client
(:meth:`chess.engine.SimpleEngine.popen_uci`; the Universal Chess Interface, Huber and
Meyer-Kahlen 2000). At its first move the policy sets the engine's options
(:meth:`~chess.engine.SimpleEngine.configure`); at each of its turns it gives the engine the
env's board (``env.unwrapped.board``, a :class:`chess.Board` whose move stack is the game so
far, sent as ``position startpos moves ...``) and asks for a move within the search limit
(:meth:`~chess.engine.SimpleEngine.play`); the engine's move becomes PettingZoo's action by
:func:`mcts_agent.envs.chess.action_of`. The engine is stopped (``quit``, then killed) when the
game ends, however it ends.

The spec ``uci:COMMAND[:NAME=VALUE,...]``, e.g. ``uci:stockfish:Skill Level=0,movetime=10``
(:func:`parse_uci_spec`): COMMAND is the engine's command line up to the next colon (so it holds
no colon), its program looked up on PATH, then in ``/usr/games`` (Debian's
``apt-get install stockfish`` puts Stockfish there). The options are separated by commas;
``movetime`` (milliseconds), ``depth`` (plies) and ``nodes`` are the search limit of each move
(:data:`LIMITS`; given together, the engine stops at the first reached; none given:
``movetime=100``); every other NAME is a UCI option named as the engine spells it, spaces and
case kept (``Skill Level``, ``Threads``, ``Hash``), its VALUE the text after ``=``, which
python-chess converts to the option's declared type.

A spec is checked when its player is made (:meth:`UCIPlayer.check`): the engine is started,
given its UCI options and stopped, so a program that does not speak UCI or a misspelt option
is a ValueError before any game. In a game, an engine that cannot be started, exits, refuses
an option, answers no move or a move that is not legal in the env stops the game with
:class:`UCIError` naming the engine: never a silent move. UCI engines do not resign; the game
is played to its end by the env's rules. The game's seed is not passed to the engine (UCI has
no command for it); with ``movetime`` an engine's moves may vary from run to run, with
``depth`` or ``nodes`` (and ``Threads=1``) they are repeatable.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.engine

from mcts_agent.evaluation.players import EnvEngine
from mcts_agent.gtp_client import resolve_command

__all__ = ["CHESS_MODULE", "DEFAULT_LIMIT", "LIMITS", "UCIError", "UCIPlayer", "UCIPolicy"]

CHESS_MODULE = "pettingzoo.classic.chess.chess"
"""The module of PettingZoo's chess env (``type(env.unwrapped).__module__``)."""

LIMITS = ("movetime", "depth", "nodes")
"""The spec's option names that are the search limit of each move, not UCI options."""

DEFAULT_LIMIT = {"movetime": 100}
"""The search limit when the spec gives none: 100 ms a move."""

_PACKAGES = {"stockfish": "apt-get install stockfish (Debian, Ubuntu), brew install stockfish"}


class UCIError(RuntimeError):
    """A UCI engine failed: it did not start, exited, refused an option or played no legal move."""


def parse_uci_spec(text: str) -> dict[str, Any]:
    """Reads the part of ``uci:COMMAND[:NAME=VALUE,...]`` after ``uci:``.

    Args:
        text: e.g. ``"stockfish:Skill Level=0,movetime=10"``.

    Returns:
        ``{"command": COMMAND, "options": {NAME: VALUE}}``, names and values stripped, values
        the text as given (the limits of :data:`LIMITS` as ints), in the order given:
        ``{"command": "stockfish", "options": {"Skill Level": "0", "movetime": 10}}``.

    Raises:
        ValueError: if COMMAND is empty, an option is not ``NAME=VALUE`` with a non-empty
            NAME, a NAME is given twice, or a limit is not an integer > 0.
    """
    command, _, rest = text.partition(":")
    command = command.strip()
    if not command:
        raise ValueError(
            f"expected uci:COMMAND[:NAME=VALUE,...] such as 'uci:stockfish:Skill Level=0,"
            f"movetime=10', got uci:{text}"
        )
    options: dict[str, Any] = {}
    for part in rest.split(",") if rest.strip() else ():
        name, equals, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name:
            raise ValueError(
                f"uci:{text}: expected NAME=VALUE options separated by commas, got {part.strip()!r}"
            )
        if name in options:
            raise ValueError(f"uci:{text} gives {name!r} twice")
        if name in LIMITS:
            if not value.isdigit() or int(value) <= 0:
                raise ValueError(f"uci:{text}: {name} is an integer > 0, got {value!r}")
            options[name] = int(value)
        else:
            options[name] = value
    return {"command": command, "options": options}


def _resolve(command: str) -> list[str]:
    """The engine's argv, its program a full path (PATH, then /usr/games).

    Raises:
        FileNotFoundError: if the program is not found; for Stockfish the message names the
            package to install.
    """
    try:
        return resolve_command(command)
    except FileNotFoundError:
        program = command.split()[0]
        install = _PACKAGES.get(os.path.basename(program))
        hint = f"; install it: {install}" if install else ""
        raise FileNotFoundError(
            f"the UCI engine program {program!r} was not found on PATH or in /usr/games{hint}"
        ) from None


@dataclass(frozen=True)
class UCIPlayer(EnvEngine):
    """Makes :class:`UCIPolicy`: a UCI engine playing PettingZoo's chess (module docstring).

    Picklable (each worker process starts its own engines).

    Attributes:
        command: the engine's command line, e.g. ``"stockfish"``; its program is looked up on
            PATH, then in ``/usr/games``.
        options: ``{NAME: VALUE}``: the search limit (:data:`LIMITS`: ``movetime`` in ms,
            ``depth`` in plies, ``nodes``; :data:`DEFAULT_LIMIT` if none) and UCI options.

    Raises:
        FileNotFoundError: (on construction) if the program is not found.
        TypeError, ValueError: (on construction) if ``command`` is not a non-empty command line
            or a limit is not an integer > 0.
    """

    command: str
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _resolve(self.command)
        for name in LIMITS:
            value = self.options.get(name)
            if value is not None and (type(value) is not int or value <= 0):
                raise ValueError(f"{name} is an integer > 0, got {value!r}")

    @property
    def label(self) -> str:
        """Its spec, e.g. ``uci:stockfish:Skill Level=0,movetime=10``."""
        options = ",".join(f"{name}={value}" for name, value in self.options.items())
        return f"uci:{self.command}" + (f":{options}" if options else "")

    def check(self, env_id: str) -> None:
        """Checks that ``env_id`` is PettingZoo's chess and that the engine takes the options.

        The engine is started once (the UCI handshake), given the spec's UCI options
        (python-chess checks each against the options the engine declares) and stopped, so
        a misspelt option or a program that does not speak UCI is refused here, before any
        game, not at the first move of the first game.

        Raises:
            ValueError: for any other game, if the engine does not start and answer the
                handshake, or refuses an option (the message names it).
        """
        if not str(env_id).replace("-", "_").startswith("classic/chess_v"):
            raise ValueError(
                f"{self.label} plays chess: PettingZoo's classic/chess_v6, not {env_id!r}"
            )
        policy = UCIPolicy(self.command, self.options)
        try:
            policy.start()
        except UCIError as error:
            raise ValueError(str(error)) from None
        finally:
            policy.close()

    game = "classic/chess_v6"
    game_module = CHESS_MODULE

    def _policy(self) -> UCIPolicy:
        """The policy of one game (:class:`UCIPolicy`)."""
        return UCIPolicy(self.command, self.options)

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {"kind": "uci", "command": self.command, "options": dict(self.options)}


class UCIPolicy:
    """``policy(env) -> action``: one game of a UCI engine in a PettingZoo chess env.

    Call :meth:`close` at the end of the game (:meth:`PettingZooGame.play
    <mcts_agent.evaluation.PettingZooGame.play>` does); a policy is for one game.

    Args:
        command: the engine's command line.
        options: the search limit and UCI options (:class:`UCIPlayer`).
    """

    def __init__(self, command: str, options: dict[str, Any] | None = None) -> None:
        self.command = command
        options = dict(options or {})
        limits = {name: options.pop(name) for name in LIMITS if name in options}
        limits = limits or dict(DEFAULT_LIMIT)
        self.limit = chess.engine.Limit(
            time=limits["movetime"] / 1000 if "movetime" in limits else None,
            depth=limits.get("depth"),
            nodes=limits.get("nodes"),
        )
        """The search limit of each move."""
        self.uci_options = options
        """The UCI options set at the engine's start."""
        self.engine: chess.engine.SimpleEngine | None = None
        """The engine, from the first move on."""

    def __call__(self, env: Any) -> int:
        """Returns the engine's move for the side to move in ``env``, as the env's action.

        Raises:
            UCIError: if the engine cannot start, refuses an option, exits, answers no move or
                a move that is not legal in the env.
        """
        from mcts_agent.envs.chess import ChessModel, action_of

        if self.engine is None:
            self.start()
        board = env.unwrapped.board.copy()
        try:
            result = self.engine.play(board, self.limit)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as error:
            raise UCIError(
                f"the UCI engine {self.command!r} failed in {board.fen()}: {error!r}"
            ) from None
        if result.move is None:
            raise UCIError(f"the UCI engine {self.command!r} answered no move in {board.fen()}")
        try:
            return action_of(ChessModel().state_of(env), result.move)
        except ValueError as error:
            raise UCIError(
                f"the UCI engine {self.command!r} played an illegal move: {error}"
            ) from None

    def start(self) -> None:
        """Starts the engine (the UCI handshake) and sets its UCI options.

        Raises:
            UCIError: if the engine cannot start, does not answer the handshake, or refuses
                an option (python-chess checks the names and values against the options
                the engine declares); the engine is then stopped.
        """
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(_resolve(self.command))
        except (chess.engine.EngineError, OSError, TimeoutError) as error:
            self.close()
            raise UCIError(f"the UCI engine {self.command!r} failed to start: {error}") from None
        try:
            self.engine.configure(self.uci_options)
        except (chess.engine.EngineError, OSError, TimeoutError) as error:
            self.close()
            raise UCIError(
                f"the UCI engine {self.command!r} refuses its options: {error}"
            ) from None

    def close(self) -> None:
        """Stops the engine (``quit``, then kill); safe to call more than once."""
        engine, self.engine = self.engine, None
        if engine is not None:
            try:
                engine.quit()
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
                pass  # already gone or hung: close() kills it
            finally:
                engine.close()
