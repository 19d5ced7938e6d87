"""Chess games as PGN (Portable Game Notation): the CLI's ``--pgn`` files.

PettingZoo's chess (``classic/chess-v6``) records a game as its env actions (AlphaZero's
encoding, :mod:`mcts_agent.envs.chess`); :func:`pgn_game` replays them on
:class:`~mcts_agent.envs.chess.ChessModel` into a python-chess ``chess.pgn.Game`` with the
Seven Tag Roster (Event, Site, Date, Round, White, Black, Result; S. J. Edwards, "Standard:
Portable Game Notation Specification and Implementation Guide", 1994, section 8.1.1).
:class:`PGNLog` appends each game of a run to a file as it finishes (``evaluate --pgn``,
``tournament --pgn``).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Sequence
from typing import Any

import chess
import chess.pgn

from mcts_agent.envs.chess import ChessModel, board_of, move_of

__all__ = ["PGNLog", "pgn_game"]


def pgn_game(
    actions: Sequence[Any],
    white: str,
    black: str,
    *,
    fen: str | None = None,
    event: str = "?",
    round: str = "?",
) -> chess.pgn.Game:
    """Returns the chess game of ``actions`` (env actions, in order) as a ``chess.pgn.Game``.

    The moves are replayed on :class:`ChessModel` from ``fen`` (the standard start if
    None). ``Result`` is the game's as PettingZoo scores it (``1-0`` or ``0-1`` for a
    checkmate; ``1/2-1/2`` for stalemate, insufficient material, or a draw the player to
    move could claim) if the moves end it, else ``*`` (a game left unfinished).
    ``Date`` is today's (``YYYY.MM.DD``), ``Site`` ``?``; a ``fen`` adds the
    ``SetUp`` and ``FEN`` tags.

    Args:
        actions: PettingZoo's actions (ints ``0..4671``) played one after the other.
        white: the ``White`` tag: the first player's name.
        black: the ``Black`` tag.
        fen: the starting position, a FEN; None for the standard start.
        event: the ``Event`` tag.
        round: the ``Round`` tag.

    Raises:
        ValueError: if an action is not legal where it is played (the message names it and
            the position), or ``fen`` is not a FEN.
    """
    model = ChessModel()
    start = chess.Board() if fen is None else chess.Board(fen)
    state = model.state_of_board(start)
    game = chess.pgn.Game()
    if fen is not None:
        game.setup(start)
    game.headers["Event"] = event
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = round
    game.headers["White"] = white
    game.headers["Black"] = black
    node: chess.pgn.GameNode = game
    for k, action in enumerate(actions):
        try:
            move = move_of(state, action)
        except ValueError as error:
            raise ValueError(f"move {k + 1} of the game: {error}") from None
        node = node.add_variation(move)
        state, _, _ = model.step(state, action)
    game.headers["Result"] = _result(model, state)
    return game


def _result(model: ChessModel, state: Any) -> str:
    """PGN's result of ``state``: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` if not over."""
    if model.actions(state):
        return "*"
    board = board_of(state)  # no move stack: repetitions are in the state, not the board
    if board.is_checkmate():
        return "0-1" if board.turn == chess.WHITE else "1-0"
    return "1/2-1/2"


class PGNLog:
    """Appends each finished chess game of a run to a PGN file, numbered by ``Round``.

    Give :meth:`write` as ``on_game`` (with :class:`~mcts_agent.evaluation.GameLog`'s,
    :func:`mcts_agent.cli.runs._run_logged` does): each game is written, flushed and the
    file closed as soon as this process hears of it, so Ctrl-C or a failure keeps every
    finished game. ``White`` and ``Black`` are the players' labels (the match's agent is
    white in the games where its seat is 0); ``Round`` counts the games in the order they
    finish, from 1. The file is created (or emptied) at the first game.

    Args:
        path: the file.
        event: the ``Event`` tag of every game (e.g. ``"mcts-agent evaluate"``).

    Attributes:
        kept: number of games written so far.
    """

    def __init__(self, path: str | os.PathLike, event: str) -> None:
        self.path = os.fspath(path)
        self.event = event
        self.kept = 0

    def write(self, spec: Any, record: Any) -> None:
        """Appends ``record`` (a :class:`~mcts_agent.evaluation.GameRecord` of ``spec``).

        Raises:
            OSError: if the file cannot be written.
            ValueError: if the record's moves are not a chess game's.
        """
        from mcts_agent.evaluation.players import _label

        agent, opponent = _label(spec.agent), _label(spec.opponent)
        white, black = (agent, opponent) if record.agent_seat == 0 else (opponent, agent)
        game = pgn_game(record.moves, white, black, event=self.event, round=str(self.kept + 1))
        with open(self.path, "a" if self.kept else "w", encoding="utf-8") as f:
            print(game, file=f, end="\n\n")
        self.kept += 1
