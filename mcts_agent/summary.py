"""A search's summary as text: the root's table, the principal variation, what the search did.

``str(summary)`` of a :class:`~mcts_agent.search.SearchSummary` (``planner.summary()``, an
``MCTSAgent``'s ``last_summary``) and ``mcts-agent search`` print the same text, made by
:func:`format_summary`::

    visits and value for player 1 of each move:
    move  visits  share   value
    2        965  96.5%  +1.000
    5         16   1.6%  +0.188
    6          8   0.8%  -0.250
    7          7   0.7%  -0.286
    8          4   0.4%  -0.750
    principal variation: 2
    1000 iterations in 0.000212 s (4,710,000 iterations/s), 32 nodes, stopped on iterations

(tic-tac-toe after X 0, O 3, X 1, O 4: X, player 1, wins at 2). A prior column is added
where the priors differ (an evaluator gave them), a proven column with the solver, and a
last line ``values normalised by the range [lo, hi] met in the backups`` with
``value_normalization=True``.

Times are written with three significant digits (:func:`format_seconds`), so a short search
never reads ``0.000 s``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from mcts_agent._validation import values_equal

if TYPE_CHECKING:
    from mcts_agent.search import SearchSummary

__all__ = [
    "ROOT_TABLE_MOVES",
    "action_text",
    "format_root_table",
    "format_seconds",
    "format_summary",
    "search_line",
    "short_float",
]

ROOT_TABLE_MOVES = 15
"""The most moves (the move played, then the most visited) the root's table lists."""


def format_seconds(seconds: float) -> str:
    """Returns a duration with three significant digits and its unit, e.g. ``"0.00112 s"``.

    Args:
        seconds: float >= 0 (or ``inf``, ``nan``), the duration in seconds.

    Returns:
        ``"0.00112 s"``, ``"1.23 s"``, ``"12.3 s"``; from 100 s on, whole seconds
        (``"1234 s"``); ``"0 s"`` for 0.

    Raises:
        TypeError: if ``seconds`` is not a real number.
    """
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        raise TypeError(f"seconds must be a real number, got {seconds!r}")
    if math.isfinite(seconds) and seconds >= 100:
        return f"{seconds:.0f} s"
    return f"{seconds:.3g} s"


def search_line(summary: SearchSummary) -> str:
    """Returns what a search did: iterations, seconds, rate, nodes, why it stopped, what it proved.

    E.g. ``"50 iterations in 0.00112 s (44,700 iterations/s), 28 nodes, stopped on
    iterations"``, then ``", 120 visits reused"`` and ``"; proven value +1"`` where they apply.
    The rate is left out when the clock measured no time.

    Args:
        summary: ``planner.summary()`` after the search.
    """
    rate = ""
    if summary.elapsed > 0:
        per_second = summary.iterations / summary.elapsed
        shown = f"{float(f'{per_second:.3g}'):,.0f}" if per_second >= 1000 else f"{per_second:.3g}"
        rate = f" ({shown} iterations/s)"
    line = (
        f"{summary.iterations} iteration{'' if summary.iterations == 1 else 's'} in "
        f"{format_seconds(summary.elapsed)}{rate}, "
        f"{summary.nodes} nodes, stopped on {summary.stop_reason}"
    )
    if summary.reused_visits:
        line += f", {summary.reused_visits} visits reused"
    if summary.proven_value is not None:
        line += f"; proven value {summary.proven_value:+g}"
    return line


def short_float(value: float) -> str:
    """A float to at most 4 significant digits (``2.828``), or as ``repr`` if it has no more."""
    short = f"{value:.4g}"
    return repr(value) if float(short) == value else short


def action_text(action: Any) -> str:
    """An action as tables and tree drawings name it: floats to 4 significant digits.

    ``str(action)``, except that floats (Python's or numpy's), also inside
    tuples, lists and dicts, are written by :func:`short_float`: a continuous
    action ``(0.30331272607892745, -1.5)`` reads ``(0.3033, -1.5)``. Only for
    display: the tree, the summary and saved trees keep the exact action.
    """
    if isinstance(action, (float, np.floating)):
        return short_float(float(action))
    if isinstance(action, tuple) and any(_has_float(a) for a in action):
        inner = ", ".join(action_text(a) for a in action)
        return f"({inner},)" if len(action) == 1 else f"({inner})"
    if isinstance(action, list) and any(_has_float(a) for a in action):
        return "[" + ", ".join(action_text(a) for a in action) + "]"
    if isinstance(action, dict) and any(_has_float(a) for a in action.values()):
        return "{" + ", ".join(f"{k!r}: {action_text(v)}" for k, v in action.items()) + "}"
    if isinstance(action, np.ndarray) and action.dtype.kind == "f":
        return action_text(action.tolist())
    return str(action)


def _has_float(value: Any) -> bool:
    """Whether ``value`` is or holds (in tuples, lists, dicts, arrays) a float."""
    if isinstance(value, (float, np.floating)):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_float(v) for v in value)
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


def format_root_table(summary: SearchSummary, label: Callable[[Any], str] = action_text) -> str:
    """Returns the root's moves as a table: the move played, then the most visited.

    At most :data:`ROOT_TABLE_MOVES` rows (the move played is the first, also
    when the solver chose it over more visited ones), then a line saying how
    many moves were left out.

    Columns: the move (``label(action)``), its visits, share of the visits,
    value for the player to move (``-`` if never tried), its prior where the
    priors differ (an evaluator's; uniform priors are left out) and, with the
    solver, its proven value (``-`` where unproven).

    Args:
        summary: ``planner.summary()`` after the search.
        label: ``action -> str``, the move's name (default:
            :func:`action_text`, ``str`` with floats shortened).

    Returns:
        The table's lines joined by newlines, columns separated by two spaces.
    """
    total = sum(summary.visit_counts) or 1
    played = next(  # env actions may be arrays (MCTSAgent's summary of a Box env)
        i for i, action in enumerate(summary.actions) if values_equal(action, summary.action)
    )
    order = sorted(
        range(len(summary.actions)), key=lambda i: (i != played, -summary.visit_counts[i])
    )
    priors = len(set(summary.priors)) > 1
    proven = any(v is not None for v in summary.proven)
    rows = [
        ["move", "visits", "share", "value"]
        + (["prior"] if priors else [])
        + (["proven"] if proven else [])
    ]
    for i in order[:ROOT_TABLE_MOVES]:
        n = summary.visit_counts[i]
        row = [label(summary.actions[i]), str(n), f"{n / total:.1%}"]
        row.append(_value_text(summary.values[i]) if n else "-")
        if priors:
            row.append(f"{summary.priors[i]:.3f}")
        if proven:
            row.append("-" if summary.proven[i] is None else f"{summary.proven[i]:+g}")
        rows.append(row)
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.ljust(w) if k == 0 else cell.rjust(w)
            for k, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]
    if len(order) > ROOT_TABLE_MOVES:
        lines.append(f"... {len(order) - ROOT_TABLE_MOVES} fewer visited moves")
    return "\n".join(lines)


def _value_text(value: float) -> str:
    """A value with 3 decimals, or 4 significant digits where decimals would hide it.

    Values of 1e-6 would all read +0.000, and values of 1e300 would take 300 digits.
    """
    if value == 0.0 or 1e-3 <= abs(value) < 1e6:
        return f"{value:+.3f}"
    return f"{value:+.4g}"


def format_summary(
    summary: SearchSummary,
    label: Callable[[Any], str] = action_text,
    *,
    player: str | None = None,
    line: Sequence[str] | None = None,
    table: str | None = None,
) -> str:
    """Returns a search's summary as text: the root's table, the principal variation, the search.

    What ``str(summary)`` and ``mcts-agent search`` print: a line naming the
    player the values are for, :func:`format_root_table` (or ``table``), the
    principal variation and :func:`search_line`; with ``summary.value_range``
    (``value_normalization=True``), a last line giving it.

    Args:
        summary: ``planner.summary()`` after the search.
        label: ``action -> str``, a move's name (default: :func:`action_text`).
        player: the player to move's name (default: ``"player "`` and
            ``repr(summary.player)``).
        line: the principal variation's moves as text (default: ``label`` of
            each of ``summary.principal_variation``).
        table: the root's statistics laid out otherwise, printed in place of
            :func:`format_root_table`'s (``search`` lays tic-tac-toe's out on the board).

    Returns:
        The lines joined by newlines, no newline at the end.
    """
    if player is None:
        player = f"player {summary.player!r}"
    if line is None:
        line = [label(action) for action in summary.principal_variation]
    lines = [
        f"visits and value for {player} of each move:",
        format_root_table(summary, label) if table is None else table,
        f"principal variation: {' '.join(line)}",
        search_line(summary),
    ]
    if summary.value_range is not None:
        lo, hi = summary.value_range
        if hi > lo:
            lines.append(
                f"values normalised by the range [{lo:+.6g}, {hi:+.6g}] met in the backups"
            )
        elif hi == lo:  # Qn = Q while hi <= lo
            lines.append(f"values not normalised: every value met in the backups was {lo:+.6g}")
        else:
            lines.append("values not normalised: no backup met a value")
    return "\n".join(lines)
