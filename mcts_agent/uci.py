"""The Universal Chess Interface (the engine's side): MCTS on :class:`ChessModel` as a UCI engine.

Follows S. Meyer-Kahlen, "Description of the universal chess interface (UCI)", April 2006
(the text shipped with Shredder, https://www.shredderchess.com/download/div/uci.zip): the
GUI writes one command a line to the engine's stdin, the engine answers on stdout. Commands
and tokens the engine does not know are ignored ("try to parse the rest of the string"):
``joho debug on`` is ``debug on``; a line with no known command gets an
``info string unknown command ...`` line rather than nothing, so a person typing sees why.
Moves are in long algebraic notation (``e2e4``, ``e7e8q``, castling ``e1g1``).

The search runs in a background thread, so the engine keeps reading commands while it
thinks: ``isready`` is answered at once and ``stop`` ends the search at its next iteration
(:class:`~mcts_agent.search.MCTS`'s ``on_iteration`` callback returns True once ``stop``
came) and answers ``bestmove`` before the next command is read.

:class:`UCIEngine` takes one command line at a time and writes its lines through a
callback, with no I/O of its own; ``mcts-agent uci`` (:mod:`mcts_agent.cli.uci`) reads the
commands from stdin and writes the lines to stdout.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import chess

from mcts_agent import __version__
from mcts_agent.defaults import CHESS_TIME_LIMIT, chess_defaults
from mcts_agent.envs.chess import ChessModel, ChessState, action_of, board_of, move_of
from mcts_agent.envs.chess_evaluator import (
    CENTIPAWN_SCALE,
    MATERIAL_VALUE_BOUND,
    ChessEvaluator,
    quiescence,
)
from mcts_agent.search import MCTS

__all__ = [
    "COMMANDS",
    "DEFAULT_MOVES_TO_GO",
    "INFO_SECONDS",
    "MAX_SEED",
    "MOVE_OVERHEAD_MS",
    "SCORE_CAP",
    "UCIEngine",
    "centipawns",
    "move_time",
]

COMMANDS = (
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
)
"""The GUI-to-engine commands of the spec (section "GUI to engine"), all of which
:class:`UCIEngine` reads; ``debug``, ``register`` and ``ponderhit`` change nothing
(no debug output, no registration, no pondering: the engine offers no ``Ponder`` option)."""

DEFAULT_MOVES_TO_GO = 30
"""Moves the remaining time is shared over when ``go`` gives clocks without ``movestogo``."""

MOVE_OVERHEAD_MS = 50
"""Milliseconds kept back from the remaining time for the answer to reach the GUI."""

SCORE_CAP = 0.9999
"""Largest ``|Q| / MATERIAL_VALUE_BOUND`` read as centipawns (``atanh(0.9999) / CENTIPAWN_SCALE``:
about 2,690 cp)."""

INFO_SECONDS = 1.0
"""Seconds between the ``info`` lines a running search writes (its last one at its end)."""

MAX_SEED = 2**31 - 1
"""The ``Seed`` option's largest value (a UCI ``spin`` is a 32-bit int in most GUIs)."""

_INFINITE_ITERATIONS = 1 << 62  # go infinite: a budget no search reaches; stop ends it


def move_time(remaining_ms: int, increment_ms: int = 0, moves_to_go: int | None = None) -> float:
    """Returns the milliseconds to think for a move on a clock: ``go wtime/btime/winc/binc``.

    ``remaining / moves + increment`` with ``moves = moves_to_go`` (or
    :data:`DEFAULT_MOVES_TO_GO` if None), capped at ``remaining - MOVE_OVERHEAD_MS`` (never
    more time than the clock holds, with a margin for the answer to travel) and at least
    1 ms (a move must be played even with a flag about to fall).

    Args:
        remaining_ms: int, the mover's clock in ms (may be <= 0 on a GUI with no margin).
        increment_ms: int >= 0, the mover's increment per move in ms.
        moves_to_go: int >= 1 or None, moves until the next time control.

    Raises:
        ValueError: if ``increment_ms`` < 0 or ``moves_to_go`` < 1.
    """
    if increment_ms < 0:
        raise ValueError(f"an increment is >= 0 ms, got {increment_ms}")
    if moves_to_go is not None and moves_to_go < 1:
        raise ValueError(f"movestogo is an int >= 1, got {moves_to_go}")
    moves = DEFAULT_MOVES_TO_GO if moves_to_go is None else moves_to_go
    share = remaining_ms / moves + increment_ms
    return max(1.0, min(share, remaining_ms - MOVE_OVERHEAD_MS))


def centipawns(value: float) -> int:
    """Returns a value in [-1, 1] as centipawns: ``atanh(value / 0.6) / CENTIPAWN_SCALE``, rounded.

    The inverse of :class:`~mcts_agent.envs.chess_evaluator.ChessEvaluator`'s squashing
    ``MATERIAL_VALUE_BOUND * tanh(CENTIPAWN_SCALE * cp)`` (Lichess's winning chances, in
    (-0.6, 0.6)), so a searched value reads in the evaluator's centipawns; ``|value /
    MATERIAL_VALUE_BOUND|`` is capped at :data:`SCORE_CAP`, so a mating ending (values
    from 0.6 to 1) and a mate the search has seen but not proven read as about 2,690 cp,
    not as infinity.

    Raises:
        ValueError: if ``value`` is NaN or outside [-1, 1].
    """
    if not -1.0 <= value <= 1.0:
        raise ValueError(f"a value is in [-1, 1], got {value}")
    ratio = max(-SCORE_CAP, min(SCORE_CAP, value / MATERIAL_VALUE_BOUND))
    return round(math.atanh(ratio) / CENTIPAWN_SCALE)


_GO_KEYWORDS = frozenset(
    (
        "searchmoves",
        "ponder",
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "depth",
        "nodes",
        "mate",
        "movetime",
        "infinite",
    )
)


def _without_search_moves(arguments: list[str]) -> tuple[list[str], list[str] | None]:
    """Splits ``go``'s arguments: the rest, and ``searchmoves``' moves (None if not given).

    The moves run from ``searchmoves`` to the next keyword of ``go`` (UCI's spec puts
    ``searchmoves`` last, but GUIs differ).
    """
    if "searchmoves" not in arguments:
        return list(arguments), None
    at = arguments.index("searchmoves")
    end = at + 1
    while end < len(arguments) and arguments[end] not in _GO_KEYWORDS:
        end += 1
    return [*arguments[:at], *arguments[end:]], list(arguments[at + 1 : end])


class _Refusal(Exception):
    """A command the engine will not carry out: its message goes out as ``info string``."""


class UCIEngine:
    """A UCI engine: chess played by MCTS on :class:`~mcts_agent.envs.chess.ChessModel`.

    :meth:`respond` reads one command line; every line the engine writes goes to
    ``output`` (one line, no newline), from the reading thread or the search's.

    Commands (:data:`COMMANDS`):

    * ``uci``: ``id name mcts_agent <version>``, ``id author``, ``option name Seed type spin``,
      ``uciok``. ``isready``: ``readyok``, at once, even while searching.
    * ``setoption name Seed value N``: the seed of the searches (0..:data:`MAX_SEED`).
    * ``ucinewgame``: the starting position.
    * ``position startpos [moves m1 m2 ...]`` and ``position fen <FEN> [moves ...]``: the
      position; a bad FEN or an illegal move is refused with an ``info string`` and the
      previous position is kept whole (the command is all or nothing).
    * ``go``: searches the position and answers an ``info`` line (``nodes`` the iterations
      run, ``time`` in ms, ``nps``, ``score``, ``pv``) and ``bestmove``; a search writes
      such a line every :data:`INFO_SECONDS` too, for a GUI's display. The budget:
      ``movetime T`` (ms); ``wtime``/``btime``/``winc``/``binc``/``movestogo``, the mover's
      clock turned into a time by :func:`move_time`; ``nodes N`` (iterations); ``infinite``
      (until ``stop``: ``bestmove`` only then). Given together, the search stops at the
      first reached. ``searchmoves m1 m2 ...`` restricts the root to those moves (the
      root state lists only their actions; a move not legal there refuses the ``go``).
      ``depth``, ``mate`` and ``ponder`` are not supported by this search: each is
      ignored with an ``info string`` saying so. With none of these, the engine's own
      budget (``iterations`` / ``time_limit``).
    * ``stop``: ends the running search at its next iteration; ``bestmove`` is written
      before :meth:`respond` returns. ``quit``: stops any search, sets :attr:`quit`;
      nothing more is written.

    ``score``: ``mate 1`` when the best move checkmates; otherwise, when the search is
    guided by :class:`~mcts_agent.envs.chess_evaluator.ChessEvaluator` (the defaults),
    ``cp`` of the best move's mean value ``Q`` (for the mover, in [-1, 1]), by
    :func:`centipawns`, the inverse of that evaluator's scale; with another evaluator or
    random rollouts no ``score`` is given (UCI makes it optional), since their values have
    no known scale in centipawns. Mates further ahead are not proven by this search, so
    they show as large ``cp``. On
    checkmate, stalemate or insufficient material ``go`` answers an ``info string`` with
    the reason and ``bestmove (none)`` (Stockfish's answer; python-chess reads it as no
    move). Where a draw can be claimed (fifty-move rule, threefold repetition)
    :class:`ChessModel` has no action, since PettingZoo's chess ends the game there, but
    under UCI the game goes on unless the GUI claims it: ``go`` then says so in an ``info
    string`` and answers the legal move that the capture search
    (:func:`~mcts_agent.envs.chess_evaluator.quiescence`) values best after one ply.

    Each ``go`` searches with a new planner (a new tree, the seed from the start), so with
    an iteration budget a move depends only on the position, the budget and the seed.
    The search is PUCT with :class:`~mcts_agent.envs.chess_evaluator.ChessEvaluator`, the
    options of :func:`~mcts_agent.defaults.chess_defaults`, as ``MCTSAgent`` plays chess.

    Args:
        output: ``(line) -> None``, called with each line the engine writes (no newline);
            calls are serialised by a lock.
        iterations: int >= 1, MCTS iterations for a ``go`` with no budget, or None.
        time_limit: float > 0, seconds for a ``go`` with no budget, or None; neither
            given: :data:`~mcts_agent.defaults.CHESS_TIME_LIMIT` (1 s).
        seed: int in 0..MAX_SEED, the searches' seed until ``setoption name Seed``.
        options: further :class:`~mcts_agent.search.MCTS` keywords (``exploration``,
            ``selection``, ``evaluator``...), over :func:`chess_defaults`'s, or None.

    Raises:
        TypeError, ValueError: if ``output`` is not callable, or MCTS refuses the options
            or the budget (MCTS's messages; checked here by making a planner).
    """

    def __init__(
        self,
        output: Callable[[str], None],
        *,
        iterations: int | None = None,
        time_limit: float | None = None,
        seed: int = 0,
        options: dict[str, Any] | None = None,
    ):
        if not callable(output):
            raise TypeError(f"output must be a callable (line) -> None, got {output!r}")
        if iterations is None and time_limit is None:
            time_limit = CHESS_TIME_LIMIT
        given = dict(options or {})
        own = sorted(set(given) & {"iterations", "time_limit", "seed", "on_iteration"})
        if own:
            raise ValueError(
                f"options {own} are the engine's own (iterations, time_limit and seed are "
                "arguments; on_iteration is how stop ends a search); got them in options"
            )
        self._options = {
            **chess_defaults(given),
            **given,
            "iterations": iterations,
            "time_limit": time_limit,
        }
        self._seed = _checked_seed(seed)
        self._output = output
        self._lock = threading.Lock()  # one line at a time, from either thread
        self._stop_requested = threading.Event()
        self._thread: threading.Thread | None = None
        self._infinite = False  # the running search is go infinite (bestmove after stop)
        self._searching = False
        self._model = ChessModel()
        self._board = chess.Board()
        self._planner(lambda planner, iteration: None)  # MCTS checks the options now
        self.quit = False
        """True once ``quit`` was read: nothing more is written."""

    @property
    def board(self) -> chess.Board:
        """A copy of the current position, its move stack the moves since the FEN."""
        return self._board.copy()

    @property
    def searching(self) -> bool:
        """Whether a ``go`` is running (``bestmove`` not yet written)."""
        return self._searching

    def respond(self, line: str) -> None:
        """Reads one command line; its answers (if any) go to ``output``.

        Raises:
            TypeError: if ``line`` is not a str.
        """
        if not isinstance(line, str):
            raise TypeError(f"a UCI command line is a str, got {line!r}")
        words = line.split()
        if not words or self.quit:
            return
        start = next((i for i, word in enumerate(words) if word in COMMANDS), None)
        if start is None:
            self._write(f"info string unknown command {line.strip()!r}; ignored")
            return
        name, arguments = words[start], words[start + 1 :]
        try:
            getattr(self, "_" + name)(arguments)
        except _Refusal as refusal:
            self._write(f"info string {refusal}")

    def finish(self) -> None:
        """At the end of the GUI's input: lets a running search end, then :meth:`close`.

        The search ends on its budget and writes ``bestmove`` (``go infinite`` is stopped at
        once, as by ``stop``).
        """
        thread = self._thread
        if thread is not None:
            if self._infinite:
                self._stop_requested.set()
            thread.join()
            self._thread = None
        self.close()

    def close(self) -> None:
        """Stops a running search, waits for its thread and writes nothing more."""
        self.quit = True
        self._stop_search()

    def _write(self, line: str) -> None:
        with self._lock:
            if not self.quit:
                self._output(line)

    def _planner(self, on_iteration: Callable[[MCTS, int], bool]) -> MCTS:
        """A new planner calling ``on_iteration`` after each iteration (``stop`` ends it)."""
        return MCTS(self._model, **self._options, seed=self._seed, on_iteration=on_iteration)

    def _refuse_while_searching(self, name: str) -> None:
        if self.searching:
            raise _Refusal(f"{name} refused: a search is running; send stop first")

    def _uci(self, arguments: list[str]) -> None:
        self._write(f"id name mcts_agent {__version__}")
        self._write("id author the mcts_agent authors")
        self._write(f"option name Seed type spin default {self._seed} min 0 max {MAX_SEED}")
        self._write("uciok")

    def _debug(self, arguments: list[str]) -> None:
        pass  # no debug output to turn on

    def _isready(self, arguments: list[str]) -> None:
        self._write("readyok")

    def _setoption(self, arguments: list[str]) -> None:
        self._refuse_while_searching("setoption")
        text = " ".join(arguments)
        if not arguments or arguments[0] != "name":
            raise _Refusal(f"setoption expects 'name <id> [value <x>]', got {text!r}")
        name, _, value = " ".join(arguments[1:]).partition(" value ")
        if name.strip().lower() != "seed":
            raise _Refusal(f"no option {name.strip()!r} (options: Seed)")
        try:
            self._seed = _checked_seed(int(value.strip()))
        except ValueError:
            raise _Refusal(
                f"option Seed is an int in 0..{MAX_SEED}, got {value.strip()!r}"
            ) from None

    def _register(self, arguments: list[str]) -> None:
        pass  # nothing to register

    def _ucinewgame(self, arguments: list[str]) -> None:
        self._refuse_while_searching("ucinewgame")
        self._board = chess.Board()

    def _position(self, arguments: list[str]) -> None:
        self._refuse_while_searching("position")
        if "moves" in arguments:
            split = arguments.index("moves")
            setup, moves = arguments[:split], arguments[split + 1 :]
        else:
            setup, moves = arguments, []
        if setup == ["startpos"]:
            board = chess.Board()
        elif setup[:1] == ["fen"] and len(setup) > 1:
            fen = " ".join(setup[1:])
            try:
                board = chess.Board(fen)
            except ValueError as error:
                raise _Refusal(f"position refused: bad FEN {fen!r} ({error})") from None
            if not board.is_valid():
                raise _Refusal(f"position refused: FEN {fen!r} is not a legal position")
        else:
            raise _Refusal(
                "position expects 'startpos' or 'fen <FEN>', then 'moves ...'; got "
                f"{' '.join(arguments)!r}"
            )
        for text in moves:
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                move = None
            if move is None or not board.is_legal(move):
                raise _Refusal(
                    f"position refused: move {text!r} is not legal in {board.fen()}; "
                    "the previous position is kept"
                )
            board.push(move)
        self._board = board

    def _go(self, arguments: list[str]) -> None:
        self._refuse_while_searching("go")
        arguments, search_moves = _without_search_moves(arguments)
        budget = self._budget(arguments)
        state = self._model.state_of_board(self._board)
        if search_moves is not None and state.actions:
            # the root searches these moves only: its state lists them as its actions
            state = dataclasses.replace(state, actions=self._root_actions(search_moves))
        self._infinite = budget[2]
        self._stop_requested.clear()
        self._searching = True
        self._thread = threading.Thread(
            target=self._search, args=(state, *budget), name="uci-search", daemon=True
        )
        self._thread.start()

    def _root_actions(self, search_moves: list[str]) -> tuple[int, ...]:
        """The actions of ``go searchmoves``' moves in the current position, in action order.

        Raises:
            _Refusal: if a move is not legal there, or none is given.
        """
        state = self._model.state_of_board(self._board)
        actions = set()
        for text in search_moves:
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                move = None
            if move is None or not self._board.is_legal(move):
                raise _Refusal(
                    f"go refused: searchmoves' {text!r} is not legal in {self._board.fen()}"
                )
            actions.add(action_of(state, move))
        if not actions:
            raise _Refusal("go refused: searchmoves names no move")
        return tuple(sorted(actions))

    def _budget(self, arguments: list[str]) -> tuple[int | None, float | None, bool]:
        """``(iterations, time_limit, infinite)`` of ``go``'s arguments; unknown tokens noted.

        ``arguments`` come without ``searchmoves`` and its moves (:meth:`_go` takes them out,
        :func:`_without_search_moves`).
        """
        values: dict[str, int] = {}
        infinite = False
        ignored = []
        numbers = ("movetime", "wtime", "btime", "winc", "binc", "movestogo", "nodes")
        tokens = iter(arguments)
        for token in tokens:
            if token in numbers:
                text = next(tokens, "")
                try:
                    values[token] = int(text)
                except ValueError:
                    raise _Refusal(f"go refused: {token} takes an integer, got {text!r}") from None
            elif token == "infinite":
                infinite = True
            elif token in ("depth", "mate"):
                ignored.append(f"{token} {next(tokens, '')}".strip())
            else:
                ignored.append(token)
        if ignored:
            self._write(
                f"info string go: {', '.join(ignored)} not supported by this MCTS engine "
                "(no fixed depth, no pondering); ignored"
            )
        for name in ("movetime", "nodes", "movestogo"):
            if name in values and values[name] < 1:
                raise _Refusal(f"go refused: {name} is an int >= 1, got {values[name]}")
        times = []
        if "movetime" in values:
            times.append(float(values["movetime"]))
        clock, increment = (
            ("wtime", "winc") if self._board.turn == chess.WHITE else ("btime", "binc")
        )
        if clock in values:
            if values.get(increment, 0) < 0:
                raise _Refusal(f"go refused: {increment} is >= 0, got {values[increment]}")
            times.append(
                move_time(values[clock], values.get(increment, 0), values.get("movestogo"))
            )
        iterations = values.get("nodes")
        time_limit = min(times) / 1000 if times else None
        if infinite:
            iterations, time_limit = _INFINITE_ITERATIONS, None
        elif iterations is None and time_limit is None:
            iterations, time_limit = self._options["iterations"], self._options["time_limit"]
        return iterations, time_limit, infinite

    def _search(
        self, state: ChessState, iterations: int | None, time_limit: float | None, infinite: bool
    ) -> None:
        """The search thread: searches ``state`` and writes ``info`` and ``bestmove``."""
        start = time.perf_counter()
        next_info = start + INFO_SECONDS

        def on_iteration(planner: MCTS, iteration: int) -> bool:
            nonlocal next_info
            if self._stop_requested.is_set():
                return True
            now = time.perf_counter()
            if now >= next_info:  # the search so far, for a GUI's display
                self._write(self._info(planner, state, now - start))
                next_info = now + INFO_SECONDS
            return False

        board = board_of(state) if not state.actions else None
        if board is not None and (
            board.is_insufficient_material() or not any(board.generate_legal_moves())
        ):
            self._write(f"info string the game is over: {_game_over(board)}")
            bestmove = "bestmove (none)"
        elif board is not None:  # over for PettingZoo (a claimable draw), not for a UCI GUI
            self._write(
                "info string a draw can be claimed here (fifty-move rule or threefold "
                "repetition), which ends PettingZoo's game, so there is no tree to search; "
                "the move is the capture search's best after one ply"
            )
            bestmove = f"bestmove {_one_ply_move(board).uci()}"
        else:
            try:
                planner = self._planner(on_iteration)
                planner.search(state, iterations=iterations, time_limit=time_limit)
                info = self._info(planner, state, time.perf_counter() - start)
            except Exception as error:  # the GUI waits for bestmove: say why there is none
                info = f"info string the search failed: {error!r}"
                bestmove = "bestmove (none)"
            else:
                bestmove = f"bestmove {move_of(state, planner.best_action()).uci()}"
            self._write(info)
        if infinite:  # the spec: bestmove only after stop, even if the search ended first
            self._stop_requested.wait()
        with self._lock:  # over once bestmove is out: the GUI's next command may come at once
            self._searching = False
            if not self.quit:
                self._output(bestmove)

    def _info(self, planner: MCTS, root: ChessState, seconds: float) -> str:
        """The ``info`` line of the search from ``root`` so far, ``seconds`` after its start."""
        summary = planner.summary()
        pv = []
        state = root
        for action in summary.principal_variation:
            pv.append(move_of(state, action).uci())
            state = self._model.step(state, action).next_state
        best = summary.actions.index(summary.action)
        board = board_of(root).copy(stack=False)
        board.push(chess.Move.from_uci(pv[0]))
        if board.is_checkmate():
            score = " score mate 1"
        elif isinstance(planner.evaluator, ChessEvaluator):
            score = f" score cp {centipawns(summary.values[best])}"
        else:  # another evaluator's values, or rollouts': no known scale in centipawns
            score = ""
        ms = max(1, round(seconds * 1000))
        nodes = summary.iterations
        return (
            f"info nodes {nodes} time {ms} nps {round(nodes * 1000 / ms)}{score} pv {' '.join(pv)}"
        )

    def _stop_search(self) -> None:
        """Ends the running search, if any, and waits until it has written ``bestmove``."""
        thread = self._thread
        if thread is not None:
            self._stop_requested.set()
            thread.join()
            self._thread = None

    def _stop(self, arguments: list[str]) -> None:
        self._stop_search()

    def _ponderhit(self, arguments: list[str]) -> None:
        pass  # never pondering: no Ponder option

    def _quit(self, arguments: list[str]) -> None:
        self.close()


def _checked_seed(seed: Any) -> int:
    """``seed`` if it is an int in 0..MAX_SEED; else ValueError."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed is an int in 0..{MAX_SEED}, got {seed!r}")
    return seed


def _one_ply_move(board: chess.Board) -> chess.Move:
    """The legal move whose position :func:`quiescence` values best for the mover (ties: first)."""
    best, best_value = None, -math.inf
    for move in board.legal_moves:
        board.push(move)
        value = -quiescence(board)
        board.pop()
        if value > best_value:
            best, best_value = move, value
    return best


def _game_over(board: chess.Board) -> str:
    """Why the game is over on ``board``: checkmate, stalemate or insufficient material.

    The last with its moves still legal: neither side can mate, which ends PettingZoo's game
    (and FIDE's), so there is no move to search.
    """
    if board.is_checkmate():
        return "checkmate, no legal move"
    if board.is_stalemate():
        return "stalemate, no legal move"
    return "insufficient material (neither side can mate), a draw"
