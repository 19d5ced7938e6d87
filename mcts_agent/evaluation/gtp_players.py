"""GTP engines as players of PettingZoo's go: ``gtp:COMMAND`` player specs (GNU Go...).

A :class:`GTPPlayer` plays ``classic/go_v5`` in the env loop
(:meth:`~mcts_agent.evaluation.PettingZooGame.env_policy`) through a GTP engine it starts
for each game (:class:`~mcts_agent.gtp_client.GTPClient`): at the game's first move it
sends ``boardsize N``, ``clear_board`` and ``komi K`` (the env's), then, at each of its
turns, ``play`` for every move played in the env since its last turn (read from the env's
move history, minigo's ``Position.recent``; passes as ``pass``) and ``genmove``, whose vertex
is the env's action (:func:`~mcts_agent.gtp.action_of`: GTP's ``A1`` is the bottom-left
point, PettingZoo's action ``row * N + column`` has row 0 on top). The engine is stopped
(``quit``, then killed if it lingers) when the game ends, however it ends.

A ``resign`` answer ends the game: the policy raises
:class:`~mcts_agent.evaluation.games.Resigned`, and
:meth:`~mcts_agent.evaluation.PettingZooGame.play` scores the game as lost by the engine's
seat (-1) and won by the other (+1), the moves played so far kept. GNU Go resigns hopeless
games by default (``--resign-allowed``); add ``--never-resign`` to its command to have it play
on. A ``?`` answer, an engine that exits or that does not answer within ``timeout`` seconds
stops the game with :class:`~mcts_agent.gtp_client.GTPError`: never a silent move.

The game's seed is not passed to the engine (GTP has no command for it): give the engine's
own option for a fixed seed (GNU Go: ``--seed N``) to have it play the same way each run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcts_agent.evaluation.games import Resigned
from mcts_agent.evaluation.players import EnvEngine
from mcts_agent.gtp import action_of, vertex_of
from mcts_agent.gtp_client import DEFAULT_TIMEOUT, GTPClient, GTPError, resolve_command

__all__ = ["GO_MODULE", "GTPPlayer", "GTPPolicy"]

GO_MODULE = "pettingzoo.classic.go.go"
"""The module of PettingZoo's go env (``type(env.unwrapped).__module__``)."""


def _is_go_id(env_id: str) -> bool:
    """True for PettingZoo go's ids (``classic/go_v5``, ``classic/go-v5``)."""
    return env_id.replace("-", "_").startswith("classic/go_v")


@dataclass(frozen=True)
class GTPPlayer(EnvEngine):
    """Makes :class:`GTPPolicy`: a GTP engine playing PettingZoo's go (module docstring).

    Picklable (each worker process starts its own engines).

    Attributes:
        command: the engine's command line, e.g. ``"gnugo --mode gtp --level 1"``; its
            program is looked up on PATH, then in ``/usr/games``.
        timeout: float > 0, most seconds to wait for one answer (``genmove`` included).

    Raises:
        FileNotFoundError: (on construction) if the program is not found (the message
            names the package to install).
        TypeError, ValueError: (on construction) if ``command`` is not a non-empty
            command line or ``timeout`` not a number > 0.
    """

    command: str
    timeout: float = DEFAULT_TIMEOUT

    def __post_init__(self) -> None:
        resolve_command(self.command)
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, int | float):
            raise ValueError(f"timeout is a number of seconds > 0, got {self.timeout!r}")
        if not self.timeout > 0:
            raise ValueError(f"timeout is a number of seconds > 0, got {self.timeout!r}")

    @property
    def label(self) -> str:
        """Its spec, e.g. ``gtp:gnugo --mode gtp --level 1``."""
        return f"gtp:{self.command}"

    def check(self, env_id: str) -> None:
        """Checks that ``env_id`` is PettingZoo's go (``classic/go_v5``).

        Raises:
            ValueError: for any other game.
        """
        if not _is_go_id(str(env_id)):
            raise ValueError(
                f"{self.label} plays Go: PettingZoo's classic/go_v5 (e.g. "
                f"classic/go_v5:board_size=9), not {env_id!r}"
            )

    game = "classic/go_v5"
    game_module = GO_MODULE

    def _policy(self) -> GTPPolicy:
        """The policy of one game (:class:`GTPPolicy`)."""
        return GTPPolicy(self.command, self.timeout)

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {"kind": "gtp", "command": self.command, "timeout": self.timeout}


class GTPPolicy:
    """``policy(env) -> action``: one game of a GTP engine in a PettingZoo go env.

    Call :meth:`close` at the end of the game (:meth:`PettingZooGame.play
    <mcts_agent.evaluation.PettingZooGame.play>` does); a policy is for one game.

    Args:
        command: the engine's command line.
        timeout: float > 0, most seconds for one answer.
    """

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.command = command
        self.timeout = timeout
        self.client: GTPClient | None = None
        """The engine, from the first move on."""
        self._sent = 0  # moves of the env's history the engine knows
        self._size = 0

    def __call__(self, env: Any) -> int:
        """Returns the engine's move for the player to move in ``env``, as the env's action.

        Raises:
            Resigned: if the engine answers ``resign``.
            GTPError: if the engine fails (``?`` answer, exit, timeout), answers a vertex off
                the board or a move the env does not allow, or the env's history does not
                continue the moves the engine was told.
        """
        raw = env.unwrapped
        position = raw._go
        size = position.board.shape[0]
        if self.client is None:
            self.client = GTPClient(self.command, self.timeout)
            self._size = size
            self.client.boardsize(size)
            self.client.clear_board()
            self.client.komi(position.komi)
        history = position.recent
        if len(history) < self._sent:
            raise GTPError(
                f"the env's history has {len(history)} moves, the engine was told {self._sent}: "
                "a GTPPolicy plays one game, from its start"
            )
        for move in history[self._sent :]:
            self.client.play(_colour(move.color), _vertex(move.move, size))
        colour = _colour(position.to_play)
        answer = self.client.genmove(colour)
        self._sent = len(history) + 1  # the engine's own move, which the env plays next
        if answer == "resign":
            raise Resigned(env.agent_selection, f"{self.command!r} resigned")
        try:
            action = action_of(answer, size)
        except ValueError as error:
            raise GTPError(
                f"{self.command!r} answered genmove {colour} with {answer!r}, which is not a "
                f"move on the {size}x{size} board: {error}"
            ) from None
        if not env.last()[0]["action_mask"][action]:
            raise GTPError(
                f"{self.command!r} answered genmove {colour} with {answer!r} (action {action}), "
                "which is not legal in the env (occupied, the ko point or a suicide)"
            )
        return action

    def close(self) -> None:
        """Stops the engine (``quit``, then kill); safe to call more than once."""
        if self.client is not None:
            self.client.close()


def _colour(color: int) -> str:
    """GTP's colour of minigo's ``1`` (black) or ``-1`` (white)."""
    return "b" if color == 1 else "w"


def _vertex(move: tuple[int, int] | None, size: int) -> str:
    """GTP's vertex of minigo's ``(row, column)`` (row 0 on top), or ``pass`` for None."""
    return "pass" if move is None else vertex_of(move[0] * size + move[1], size)
