"""The PettingZoo games the adapter knows by heart (PettingZoo 1.27).

The games it refuses (hidden information or chance it cannot re-deal: those it
can are planned with information-set MCTS,
:mod:`~mcts_agent.adapters.pettingzoo.hidden_information`), the games whose
variables it snapshots (tic-tac-toe, connect four, go), and the objects of a
game's library that copies may share (python-chess's position records, go's
positions).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np
from pettingzoo import AECEnv

from mcts_agent.adapters.pettingzoo.hidden_information import planned_game
from mcts_agent.adapters.pettingzoo.reading import game_name

__all__ = [
    "IMPERFECT_INFORMATION_GAMES",
    "KnownGame",
    "ZERO_SUM_GAMES",
    "is_known_zero_sum",
    "known_game",
    "library_globals",
    "never_changed_types",
    "require_perfect_information",
    "restore_library_globals",
]

IMPERFECT_INFORMATION_GAMES: dict[tuple[str, str], str] = {
    ("pettingzoo.classic.rps.rps", "raw_env"): (
        "its moves are simultaneous but stepped in turn, so the planner of the second player "
        "would see the first player's hidden move (hidden information)"
    ),
    ("pettingzoo.classic.rlcard_envs.rlcard_base", "RLCardBase"): (
        "it is an RLCard card game: the planner would see the opponent's hidden cards and, "
        "since the deck is shuffled at reset, the cards still to be dealt (hidden information "
        "and chance)"
    ),
    ("pettingzoo.classic.hanabi.hanabi", "raw_env"): (
        "the planner would see its own hidden hand and the cards still to be drawn (hidden "
        "information and chance), and no world can be re-dealt from Python: the hands and "
        "the deck live in OpenSpiel's C++ hanabi state (through Shimmy), which has no "
        "ResampleFromInfostate, and a re-deal would have to agree with every hint given"
    ),
}
"""PettingZoo classic games (module and class name of a class in ``env.unwrapped``'s
MRO) with hidden information or chance, with the reason planning on a copy of the game
would be wrong. Those of :data:`~mcts_agent.adapters.pettingzoo.hidden_information.PLANNED_GAMES`
(exact classes: rps, Leduc and Texas hold'em) are planned with information-set MCTS; the
others (Hanabi, any other RLCard game or subclass) are refused. Gin rummy (an RLCard game
of older PettingZoo versions, not in 1.27) is covered by ``RLCardBase``."""


def require_perfect_information(env: AECEnv) -> None:
    """Checks that ``env`` is not one of :data:`IMPERFECT_INFORMATION_GAMES` but planned ones.

    By class; the games planned with information-set MCTS
    (``hidden_information.PLANNED_GAMES``, exact classes) pass.

    Needs no reset, so it runs before :func:`require_reset`: resetting such a
    game would not make it plannable. The start-up check of
    :class:`PettingZooModel` also catches other games whose moves draw random
    numbers.

    Args:
        env: a PettingZoo AEC env, wrapped or not.

    Raises:
        ValueError: naming the game and why planning on a copy of it would be wrong.
    """
    if planned_game(env) is not None:
        return
    for cls in type(env.unwrapped).__mro__:
        reason = IMPERFECT_INFORMATION_GAMES.get((cls.__module__, cls.__qualname__))
        if reason is not None:
            raise ValueError(
                f"mcts_agent plans deterministic games of perfect information, and the "
                "hidden-information games it can re-deal (leduc_holdem_v4, texas_holdem_v4, "
                f"texas_holdem_no_limit_v6, rps_v2) with information-set MCTS; "
                f"{game_name(env)} is neither: {reason}. MCTS on a copy of this game would "
                "play with knowledge the player to move does not have."
            )


class KnownGame(NamedTuple):
    """How to read and write one known game's board, and its legal moves.

    ``legal_actions(env, agent)`` is the function the env builds its action
    mask from (valid for the agent to move while the game is on).
    """

    get_board: Callable[[AECEnv], Sequence[int]]
    set_board: Callable[[AECEnv, tuple], None]
    legal_actions: Callable[[AECEnv, Hashable], list[int]]


def _tictactoe_board(env: AECEnv) -> list[int]:
    return env.board.squares


def _set_tictactoe_board(env: AECEnv, board: tuple) -> None:
    env.board.squares = list(board)


def _tictactoe_legal_actions(env: AECEnv, agent: Hashable) -> list[int]:
    return env.board.legal_moves()


def _connect_four_board(env: AECEnv) -> list[int]:
    return env.board


def _set_connect_four_board(env: AECEnv, board: tuple) -> None:
    env.board = list(board)


def _connect_four_legal_actions(env: AECEnv, agent: Hashable) -> list[int]:
    return env._legal_moves()


def _go_board(env: AECEnv) -> tuple:
    # go_base.Position objects are never changed in place (step makes a new one: play_move
    # copies), so the snapshot keeps the env's own; the board history as bytes (comparable).
    return env._go, env.board_history.tobytes(), tuple(_go_legal_actions(env, None))


def _set_go_board(env: AECEnv, board: tuple) -> None:
    position, history, moves = board
    env._go = position
    env.board_history = np.frombuffer(history, dtype=bool).reshape(env._N, env._N, 16)
    env.next_legal_moves = list(moves)


def _go_legal_actions(env: AECEnv, agent: Hashable) -> list[int]:
    return [int(move) for move in env.next_legal_moves]


_KNOWN_GAMES: dict[tuple[str, str], KnownGame] = {
    # classic/tictactoe-v3: board.squares (9 cells, column-major), board.legal_moves()
    ("pettingzoo.classic.tictactoe.tictactoe", "raw_env"): KnownGame(
        _tictactoe_board, _set_tictactoe_board, _tictactoe_legal_actions
    ),
    # classic/connect_four-v3: board (42 cells, top row first), _legal_moves()
    ("pettingzoo.classic.connect_four.connect_four", "raw_env"): KnownGame(
        _connect_four_board, _set_connect_four_board, _connect_four_legal_actions
    ),
    # classic/go-v5: _go (a go_base.Position, replaced by every move, never changed in
    # place), board_history (16 planes of the last 8 boards), next_legal_moves (the mask's)
    ("pettingzoo.classic.go.go", "raw_env"): KnownGame(_go_board, _set_go_board, _go_legal_actions),
}


_NEVER_CHANGED: tuple[tuple[str, str], ...] = (
    # python-chess (classic/chess-v6): a Board's move stack of position records, which
    # chess.Board.copy and __deepcopy__ share between copies and never change once made
    ("chess", "_BoardState"),
    # PettingZoo's go (classic/go-v5): a position, which every move replaces by a new one
    # (Position.play_move copies it, sharing the board_deltas array it then replaces)
    ("pettingzoo.classic.go.go_base", "Position"),
    # RLCard's cards (its poker games): suit and rank, set at construction, never changed
    # (the adapter's copies of a re-dealt game share them: hidden_information)
    ("rlcard.games.base", "Card"),
)


def never_changed_types() -> tuple[type, ...]:
    """Classes whose objects copies of a game may share: never changed once made.

    They come from the libraries behind PettingZoo's games (the ``exempt`` of
    :func:`~mcts_agent.adapters.env_probe.shared_mutable_objects`); those of
    modules not imported are left out (no such object exists then).
    """
    found = []
    for module_name, class_name in _NEVER_CHANGED:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type):
            found.append(cls)
    return tuple(found)


_LIBRARY_GLOBALS: tuple[tuple[str, bool, tuple[str, ...]], ...] = (
    # chess: the tables of moves and actions, filled as the legal moves of positions are
    # read (a worker stepping the root's moves has not read them): merged
    ("pettingzoo.classic.chess.chess_utils", True, ("moves_to_actions", "actions_to_moves")),
    # go: the board size and the tables of the last env made (go_v5.env(board_size=...))
    (
        "pettingzoo.classic.go.go_base",
        False,
        ("N", "ALL_COORDS", "EMPTY_BOARD", "NEIGHBORS", "DIAGONALS"),
    ),
)
"""Module globals of PettingZoo's game libraries that their envs read and that a process
receiving a position (a worker of ``MCTS(workers=...)``) lacks: ``(module, merged, names)``;
merged tables are added to the receiver's, the others replace its values."""


def library_globals() -> tuple[tuple[str, dict[str, Any]], ...]:
    """The :data:`_LIBRARY_GLOBALS` of the game libraries imported in this process.

    What a pickled :class:`~mcts_agent.adapters.pettingzoo.model.PettingZooState`
    carries, so that the process unpickling it steps its position as this one
    would (:func:`restore_library_globals`).

    Returns:
        ``((module name, {name: value}), ...)``, the values themselves (not copies).
    """
    saved = []
    for module_name, _, names in _LIBRARY_GLOBALS:
        module = sys.modules.get(module_name)
        if module is not None:
            saved.append((module_name, {name: getattr(module, name) for name in names}))
    return tuple(saved)


def restore_library_globals(saved: tuple[tuple[str, dict[str, Any]], ...]) -> None:
    """Puts the globals :func:`library_globals` read into this process's modules.

    Tables filled as moves are met (chess's) are merged into this process's;
    the other values (go's board size and tables) replace its own.

    Args:
        saved: what :func:`library_globals` returned, in another process maybe.
    """
    merged = {module_name: merge for module_name, merge, _ in _LIBRARY_GLOBALS}
    for module_name, values in saved:
        module = importlib.import_module(module_name)
        for name, value in values.items():
            if merged.get(module_name):
                getattr(module, name).update(value)
            else:
                setattr(module, name, value)


def known_game(env: AECEnv) -> KnownGame | None:
    """How to snapshot ``env``'s game if it is one we know (exact class), else None."""
    cls = type(env.unwrapped)
    return _KNOWN_GAMES.get((cls.__module__, cls.__qualname__))


ZERO_SUM_GAMES: frozenset[tuple[str, str]] = frozenset(
    {
        ("pettingzoo.classic.tictactoe.tictactoe", "raw_env"),
        ("pettingzoo.classic.connect_four.connect_four", "raw_env"),
        ("pettingzoo.classic.chess.chess", "raw_env"),
        ("pettingzoo.classic.go.go", "raw_env"),
    }
)
"""The PettingZoo classic games (module and class name of ``env.unwrapped``) known to be
two-player zero-sum (every step's rewards are ``{p: r, q: -r}``): ``PettingZooModel``
plans them with the mover's reward and the negamax backup by default."""


def is_known_zero_sum(env: AECEnv) -> bool:
    """True if ``env`` is a known two-player zero-sum game.

    The exact class of ``env.unwrapped`` is one of :data:`ZERO_SUM_GAMES`, or
    it is a hidden-information game planned with ISMCTS
    (``hidden_information.PLANNED_GAMES``: poker and rps, zero-sum) with two players.
    """
    cls = type(env.unwrapped)
    if planned_game(env) is not None:
        return len(env.unwrapped.possible_agents) == 2
    return (cls.__module__, cls.__qualname__) in ZERO_SUM_GAMES
