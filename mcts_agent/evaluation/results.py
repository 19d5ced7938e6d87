"""Results of matches and sweeps: tallies, game records, tables, JSON, CSV and plots.

Files are written so that no result is lost: :class:`GameLog` appends each game
to a JSON Lines file as it finishes, and the final files (``save_json``,
``save_csv``, ``plot``) are written to a temporary file in the same directory
and then renamed over the target (:func:`write_atomically`), so an interrupted
or failed write leaves the previous file as it was.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import json
import math
import os
import secrets
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, Literal, NamedTuple

import numpy as np

from mcts_agent.evaluation.match_spec import MatchSpec
from mcts_agent.evaluation.players import _label
from mcts_agent.evaluation.rlcard_players import PAYOFF_UNITS, HandsPayoff
from mcts_agent.evaluation.specs import display_value

__all__ = [
    "GameLog",
    "GameRecord",
    "MatchResult",
    "SweepResult",
    "Tally",
    "new_figure",
    "save_figure",
    "write_atomically",
]


@contextlib.contextmanager
def write_atomically(path: str | os.PathLike, binary: bool = False) -> Iterator[IO[Any]]:
    """Opens a temporary file beside ``path`` for writing; renames it to ``path`` on success.

    The temporary file is created in the directory of ``path`` (after following
    symbolic links, so a link keeps pointing to the new file), with the
    permissions of the file it replaces (a 0o600 file stays 0o600), or for a
    new file the usual ones (0o666 less the umask); on leaving the block it is
    flushed, synced to disk and renamed over ``path`` with :func:`os.replace` (atomic on
    POSIX and Windows). If the block raises (a full disk, Ctrl-C), the
    temporary file is removed and ``path`` keeps its previous content.

    Args:
        path: the file to write.
        binary: open in binary mode; else text (UTF-8, universal newlines off).

    Yields:
        The open temporary file.

    Raises:
        OSError: if the temporary file cannot be created, written or renamed.
    """
    target = os.path.realpath(path)
    directory, name = os.path.split(target)
    temporary = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        permissions = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        permissions = None  # a new file: 0o666 less the umask
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        mode = "wb" if binary else "w"
        encoding = None if binary else "utf-8"
        with open(descriptor, mode, encoding=encoding, newline=None if binary else "") as f:
            if permissions is not None:
                os.chmod(temporary, permissions)
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def new_figure(**options: Any) -> Any:
    """Returns a ``matplotlib.figure.Figure(layout="constrained", **options)`` (no pyplot).

    Raises:
        ImportError: if matplotlib is not installed (``pip install 'mcts-agent[plot]'``).
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(
            "plotting needs matplotlib: pip install 'mcts-agent[plot]' (or matplotlib)"
        ) from error
    return Figure(layout="constrained", **options)


def save_figure(figure: Any, path: str | os.PathLike) -> None:
    """Draws ``figure`` to ``path`` in the format of its extension, atomically (100 dpi).

    Raises:
        OSError: if the file cannot be written (``path`` is then left as it was).
    """
    image_format = os.path.splitext(path)[1].removeprefix(".").lower() or None
    image = io.BytesIO()
    figure.savefig(image, format=image_format, dpi=100)
    with write_atomically(path, binary=True) as f:
        f.write(image.getbuffer())


class Tally(NamedTuple):
    """Wins, draws and losses of the agent."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """Number of games counted."""
        return self.wins + self.draws + self.losses


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


@dataclass(frozen=True)
class GameRecord:
    """One game of a match.

    Attributes:
        index: the game's index in its match (0-based); its seeds come from it.
        agent_seat: 0 if the agent moved first, 1 if second.
        seeds: ``(agent's seed, opponent's seed, env's seed)``.
        moves: every action played, in order (model actions, or env actions
            for a PettingZoo game).
        returns: ``(agent's return, opponent's return)``: the sum of the rewards
            each received.
        seconds: wall-clock seconds the game took (the only field that varies
            between runs).
    """

    index: int
    agent_seat: int
    seeds: tuple[int, int, int]
    moves: tuple
    returns: tuple[float, float]
    seconds: float

    @property
    def outcome(self) -> Literal["win", "draw", "loss"]:
        """``"win"``, ``"draw"`` or ``"loss"`` for the agent (higher return wins)."""
        agent, opponent = self.returns
        return "win" if agent > opponent else "loss" if agent < opponent else "draw"

    @property
    def length(self) -> int:
        """Number of moves played."""
        return len(self.moves)

    def to_dict(self) -> dict[str, Any]:
        """Returns the record as a JSON-ready dict (with its outcome and length)."""
        return {
            "index": self.index,
            "agent_seat": self.agent_seat,
            "seeds": list(self.seeds),
            "outcome": self.outcome,
            "length": self.length,
            "returns": list(self.returns),
            "moves": _jsonable(self.moves),
            "seconds": self.seconds,
        }


def _describe(player: Any) -> dict[str, Any]:
    describe = getattr(player, "describe", None)
    return describe() if callable(describe) else {"kind": _label(player)}


def _spec_dict(spec: MatchSpec) -> dict[str, Any]:
    return {
        "game": spec.game.name,
        "agent": _describe(spec.agent),
        "opponent": _describe(spec.opponent),
        "seed": spec.seed,
        "seats": spec.seats,
        "games_per_seat": spec.games_per_seat,
        **({"opening_plies": spec.opening_plies} if spec.opening_plies else {}),
    }


class GameLog:
    """Writes each finished game as one line of JSON (JSON Lines) at once.

    Give :meth:`write` as ``on_game`` to :func:`~mcts_agent.evaluation.sweep`
    (or ``run_matches``, ``play_match``): every game is then handed to the
    operating system (unbuffered) as soon as this process hears of it, and
    survives Ctrl-C, a killed process, a dead worker or a failed final write.
    Each line is one self-contained JSON object: the match's settings
    (``game``, ``agent``, ``opponent``, ``seed``, ``seats``,
    ``games_per_seat``, as in ``MatchResult.to_dict``), the agent's seat name
    ``seat``, and the game's fields of :meth:`GameRecord.to_dict` (``index``,
    ``agent_seat``, ``seeds``, ``outcome``, ``length``, ``returns``,
    ``moves``, ``seconds``). Lines come in the order games finish. The file is
    created (or emptied) at the first game, so a run that plays none leaves an
    existing file as it was.

    Args:
        path: the file to write, or None for a new temporary file
            (``mcts-agent-*.jsonl`` in :func:`tempfile.gettempdir`).

    Attributes:
        path: the file's path (for a temporary file, known once created).
        kept: number of games written so far.
    """

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = None if path is None else os.fspath(path)
        self.kept = 0
        self._size = 0
        self._file: IO[bytes] | None = None

    def write(self, spec: MatchSpec, record: GameRecord) -> None:
        """Appends ``record`` (a game of ``spec``) as one line, written through to the OS.

        The file and :attr:`kept` always agree: if the write fails or is
        interrupted (a full disk, Ctrl-C), a partial line is cut off again and
        the game is not counted.

        Raises:
            OSError: if the file cannot be created or written (e.g. a full disk).
        """
        self.write_line(
            {
                **_spec_dict(spec),
                "seat": spec.game.seat_names[record.agent_seat],
                **record.to_dict(),
            }
        )

    def write_line(self, line: dict[str, Any]) -> None:
        """Appends ``line`` (a JSON-ready dict: one game or episode) as :meth:`write` does.

        Raises:
            OSError: if the file cannot be created or written (e.g. a full disk).
        """
        if self._file is None:
            if self.path is None:
                descriptor, self.path = tempfile.mkstemp(prefix="mcts-agent-", suffix=".jsonl")
                self._file = open(descriptor, "wb", buffering=0)
            else:
                self._file = open(self.path, "wb", buffering=0)
        encoded = (json.dumps(line) + "\n").encode()
        size, kept = self._size, self.kept
        try:
            data = memoryview(encoded)
            while data:  # unbuffered: a short write is followed by the next
                data = data[self._file.write(data) :]
            self._size, self.kept = size + len(encoded), kept + 1
        except BaseException as error:
            self._file.truncate(size)
            self._size, self.kept = size, kept
            if isinstance(error, OSError) and error.filename is None:
                raise OSError(error.errno, error.strerror, self.path) from error
            raise

    def close(self) -> None:
        """Closes the file (if a game was written)."""
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass(frozen=True)
class MatchResult:
    """The games of one match and their counts.

    Attributes:
        spec: what was played.
        records: every game, in index order.
    """

    spec: MatchSpec
    records: tuple[GameRecord, ...]

    def tally(self, seat: int | None = None) -> Tally:
        """Returns the agent's wins, draws and losses in ``seat`` (0, 1) or all seats."""
        outcomes = [r.outcome for r in self.records if seat is None or r.agent_seat == seat]
        return Tally(outcomes.count("win"), outcomes.count("draw"), outcomes.count("loss"))

    @property
    def seat_names(self) -> tuple[str, str]:
        """Names of seat 0 and seat 1 (``("X", "O")`` for tic-tac-toe)."""
        return self.spec.game.seat_names

    @property
    def mean_length(self) -> float:
        """Mean number of moves per game."""
        return sum(r.length for r in self.records) / len(self.records)

    @property
    def moves_per_second(self) -> float:
        """Moves played per second of game time (both players' thinking included)."""
        seconds = sum(r.seconds for r in self.records)
        return sum(r.length for r in self.records) / seconds if seconds > 0 else math.inf

    @property
    def payoff_unit(self) -> str | None:
        """The unit of a card game's payoffs (``"big blinds"``), None for other games.

        :data:`~mcts_agent.evaluation.rlcard_players.PAYOFF_UNITS` of the game's
        ``env_id``: the games whose results are a mean payoff per hand.
        """
        return PAYOFF_UNITS.get(getattr(self.spec.game, "env_id", None))

    def payoff(self) -> HandsPayoff:
        """Returns the agent's mean return per game and its 95% interval, seats pooled.

        In a card game (:attr:`payoff_unit`) a game is a hand, so this is the
        payoff per hand (big blinds in Leduc and Limit Hold'em), over the
        seats the match played (both, ``seats="alternate"``).

        Raises:
            ValueError: if the match has fewer than 2 games.
        """
        return HandsPayoff.of([r.returns[0] for r in self.records])

    def summary(self) -> str:
        """Returns a few lines: the players, the W/D/L of the agent per seat, a card game's payoff.

        In a card game (:attr:`payoff_unit`), a line more: the agent's payoff
        per hand with its 95% interval (:meth:`payoff`).
        """
        spec = self.spec
        lines = [
            f"{spec.game.name}: {_label(spec.agent)} vs {_label(spec.opponent)}, "
            f"seed {spec.seed}, {len(self.records)} games"
        ]
        for seat, name in enumerate(self.seat_names):
            tally = self.tally(seat)
            if tally.games:
                lines.append(
                    f"  as {name}: {tally.wins} won, {tally.draws} drawn, {tally.losses} lost"
                )
        if self.payoff_unit is not None and len(self.records) >= 2:
            lines.append(f"  payoff {self.payoff()} ({self.payoff_unit} per hand)")
        lines.append(
            f"  mean length {self.mean_length:.2f} moves, {self.moves_per_second:,.0f} moves/s"
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Returns the match as a JSON-ready dict, every game included.

        A card game's (:attr:`payoff_unit`) has ``payoff``: ``mean``,
        ``half_width`` (95%), ``hands`` and ``unit`` (:meth:`payoff`).
        """
        payoff = (
            {"payoff": {**dataclasses.asdict(self.payoff()), "unit": self.payoff_unit}}
            if self.payoff_unit is not None and len(self.records) >= 2
            else {}
        )
        return {
            **_spec_dict(self.spec),
            "tally": {
                name: self.tally(seat)._asdict() for seat, name in enumerate(self.seat_names)
            },
            **payoff,
            "mean_length": self.mean_length,
            "moves_per_second": self.moves_per_second,
            "games": [r.to_dict() for r in self.records],
        }

    def save_json(self, path: str | os.PathLike) -> None:
        """Writes :meth:`to_dict` to ``path`` as JSON (atomically: see :func:`write_atomically`)."""
        with write_atomically(path) as f:
            json.dump(self.to_dict(), f, indent=1)

    def save_csv(self, path: str | os.PathLike) -> None:
        """Writes one row per game to ``path``.

        Columns: ``index, agent_seat, seat, outcome, length, agent_return,
        opponent_return, seconds, moves`` (moves separated by spaces). Written
        atomically (see :func:`write_atomically`).
        """
        with write_atomically(path) as f:
            writer = csv.writer(f)
            writer.writerow(
                [
                    "index",
                    "agent_seat",
                    "seat",
                    "outcome",
                    "length",
                    "agent_return",
                    "opponent_return",
                    "seconds",
                    "moves",
                ]
            )
            for r in self.records:
                writer.writerow(
                    [
                        r.index,
                        r.agent_seat,
                        self.seat_names[r.agent_seat],
                        r.outcome,
                        r.length,
                        r.returns[0],
                        r.returns[1],
                        f"{r.seconds:.6f}",
                        " ".join(str(_jsonable(m)) for m in r.moves),
                    ]
                )


_SUMMARY_COLUMNS = (
    "game",
    "opponent",
    "iterations",
    "exploration",
    "seed",
    "seat",
    "games",
    "wins",
    "draws",
    "losses",
    "mean_length",
    "moves_per_second",
)


@dataclass(frozen=True)
class SweepResult:
    """The matches of a sweep: an MCTS agent at several settings against opponents.

    Attributes:
        matches: one :class:`MatchResult` per (opponent, exploration, seed,
            swept options, iterations), in that nesting order; every agent is
            an :class:`MCTSPlayer`.
    """

    matches: tuple[MatchResult, ...]

    def _varies(self, attribute: str) -> bool:
        if attribute == "seed":
            return len({m.spec.seed for m in self.matches}) > 1
        return len({getattr(m.spec.agent, attribute) for m in self.matches}) > 1

    def swept_options(self) -> list[str]:
        """Returns the agent's options other than iterations and exploration that vary."""
        names: dict[str, None] = {}
        for match in self.matches:
            names.update(dict.fromkeys(match.spec.agent.options))
        return [
            name
            for name in names
            if name not in ("iterations", "exploration")
            and len({repr(m.spec.agent.options.get(name)) for m in self.matches}) > 1
        ]

    def _option_text(self, match: MatchResult, name: str) -> str:
        value = match.spec.agent.options.get(name)
        return _label(value) if callable(value) else display_value(value)

    def rows(self) -> list[dict[str, Any]]:
        """Returns one dict per match and agent seat (seats the agent never took are left out).

        Returns:
            A list of dicts with the keys ``game`` (name), ``opponent`` (label),
            ``iterations``, ``exploration`` (c) and ``seed`` (the match's
            master seed) of the match, ``seat`` (the agent's seat name),
            ``games``, ``wins``, ``draws`` and ``losses`` (the agent's, in that
            seat), ``mean_length`` (moves per game) and ``moves_per_second``
            (both over the whole match). :meth:`save_csv` writes these columns
            in this order, then one column per swept option
            (:meth:`swept_options`), named after it.
        """
        swept = self.swept_options()
        rows = []
        for match in self.matches:
            spec = match.spec
            for seat, name in enumerate(match.seat_names):
                tally = match.tally(seat)
                if not tally.games:
                    continue
                rows.append(
                    {
                        "game": spec.game.name,
                        "opponent": _label(spec.opponent),
                        "iterations": spec.agent.iterations,
                        "exploration": spec.agent.exploration,
                        "seed": spec.seed,
                        "seat": name,
                        "games": tally.games,
                        "wins": tally.wins,
                        "draws": tally.draws,
                        "losses": tally.losses,
                        "mean_length": match.mean_length,
                        "moves_per_second": match.moves_per_second,
                        **{name: spec.agent.options.get(name) for name in swept},
                    }
                )
        return rows

    def table(self) -> str:
        """Returns the W/D/L table: one line per opponent and setting, one column group per seat.

        The columns ``c`` and ``seed`` appear when the sweep varies them; in a
        card game (:attr:`MatchResult.payoff_unit`), a last column gives the
        agent's payoff per hand with its 95% interval, both seats pooled
        (:meth:`MatchResult.payoff`).
        """
        first = self.matches[0]
        seat_names = first.seat_names
        key_names = ["opponent", "iterations"]
        if self._varies("exploration"):
            key_names.insert(1, "c")
        if self._varies("seed"):
            key_names.insert(-1, "seed")
        swept = self.swept_options()
        key_names[-1:-1] = swept
        keys = []
        for match in self.matches:
            spec = match.spec
            values = {
                "opponent": _label(spec.opponent),
                "c": f"{spec.agent.exploration:.3g}",
                "seed": str(spec.seed),
                "iterations": str(spec.agent.iterations),
                **{name: self._option_text(match, name) for name in swept},
            }
            cells = []
            for seat in range(2):
                tally = match.tally(seat)
                cells.extend(
                    [str(tally.wins), str(tally.draws), str(tally.losses)]
                    if tally.games
                    else ["-", "-", "-"]
                )
            keys.append([values[k] for k in key_names] + cells)
        header = key_names + ["W", "D", "L"] * 2
        widths = [max(len(h), *(len(row[i]) for row in keys)) for i, h in enumerate(header)]
        num_keys = len(key_names)

        def line(cells: Sequence[str]) -> str:
            text = "  ".join(
                cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                for i, cell in enumerate(cells[:num_keys])
            )
            for group in (cells[num_keys : num_keys + 3], cells[num_keys + 3 :]):
                text += "   " + "  ".join(
                    cell.rjust(widths[num_keys + j]) for j, cell in enumerate(group)
                )
            return text

        lines = [line(header), *(line(k) for k in keys)]
        group_widths = (sum(widths[num_keys : num_keys + 3]) + 4, sum(widths[num_keys + 3 :]) + 4)
        groups = " " * (len(lines[0]) - sum(group_widths) - 6)
        for name, width in zip(seat_names, group_widths, strict=True):
            groups += "   " + f"as {name}".center(width)
        unit = first.payoff_unit
        if unit is not None:  # a card game: the agent's payoff per hand, seats pooled
            cells = [f"{unit} per hand (95%)"] + [
                f"{m.payoff().mean:+.3f} ± {m.payoff().half_width:.3f}"
                if len(m.records) >= 2
                else "-"
                for m in self.matches
            ]
            width = max(map(len, cells))
            lines = [
                f"{text}   {cell.rjust(width)}" for text, cell in zip(lines, cells, strict=True)
            ]
        spec = first.spec
        title = (
            f"{spec.game.name}: MCTS vs each opponent, {spec.games_per_seat} games per seat"
            + ("" if self._varies("exploration") else f", c = {spec.agent.exploration:.3g}")
            + ("" if self._varies("seed") else f", seed {spec.seed}")
            + "".join(
                f", {name} = {self._option_text(first, name)}"
                for name in spec.agent.options
                if name not in ("iterations", "exploration", "rollout_limit", *swept)
            )
            + " (W/D/L of MCTS)"
        )
        return "\n".join([title, groups.rstrip(), *lines])

    def to_dict(self) -> dict[str, Any]:
        """Returns the sweep as a JSON-ready dict: summary rows and every match."""
        return {"rows": self.rows(), "matches": [m.to_dict() for m in self.matches]}

    def save_json(self, path: str | os.PathLike) -> None:
        """Writes :meth:`to_dict` to ``path`` as JSON (every game's moves included).

        Written atomically (see :func:`write_atomically`).
        """
        with write_atomically(path) as f:
            json.dump(self.to_dict(), f, indent=1)

    def save_csv(self, path: str | os.PathLike) -> None:
        """Writes :meth:`rows` to ``path``: one row per match and agent seat (atomically)."""
        with write_atomically(path) as f:
            writer = csv.DictWriter(f, fieldnames=[*_SUMMARY_COLUMNS, *self.swept_options()])
            writer.writeheader()
            writer.writerows(self.rows())

    def plot(self, path: str | os.PathLike) -> None:
        """Draws win and loss rates against iterations (log scale) to an image file.

        One line per opponent, seat (and exploration constant and swept
        option, if they vary); seeds are pooled. The format follows the extension of ``path``
        (``.png``, ``.svg``, ``.pdf``...); the file is written atomically (see
        :func:`write_atomically`).

        Raises:
            ImportError: if matplotlib is not installed (``pip install
                'mcts-agent[plot]'``).
        """
        series: dict[tuple[str, str, str], dict[int, list[int]]] = {}
        show_c = self._varies("exploration")
        swept = self.swept_options()
        for row in self.rows():
            c = f", c={row['exploration']:.3g}" if show_c else ""
            c += "".join(f", {name}={row[name]}" for name in swept)
            key = (row["opponent"], row["seat"], c)
            counts = series.setdefault(key, {}).setdefault(row["iterations"], [0, 0, 0])
            counts[0] += row["wins"]
            counts[1] += row["losses"]
            counts[2] += row["games"]
        figure = new_figure(figsize=(10, 4))
        win_axes, loss_axes = figure.subplots(1, 2, sharex=True)
        seat_names = self.matches[0].seat_names
        colours: dict[tuple[str, str], str] = {}
        for (opponent, seat, c), by_iterations in series.items():
            xs = sorted(by_iterations)
            style = {
                "color": colours.setdefault((opponent, c), f"C{len(colours) % 10}"),
                "linestyle": "-" if seat == seat_names[0] else "--",
                "marker": "o" if seat == seat_names[0] else "s",
                "label": f"vs {opponent}, as {seat}{c}",
            }
            win_axes.plot(xs, [by_iterations[x][0] / by_iterations[x][2] for x in xs], **style)
            loss_axes.plot(xs, [by_iterations[x][1] / by_iterations[x][2] for x in xs], **style)
        for axes, what in ((win_axes, "win rate"), (loss_axes, "loss rate")):
            axes.set_xscale("log")
            axes.set_xlabel("MCTS iterations per move")
            axes.set_ylabel(what)
            axes.set_ylim(-0.03, 1.03)
            axes.grid(True, alpha=0.3)
        loss_axes.legend(fontsize="small")
        figure.suptitle(f"{self.matches[0].spec.game.name}: MCTS against each opponent")
        save_figure(figure, path)
