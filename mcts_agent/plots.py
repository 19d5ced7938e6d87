"""Plots of a search (matplotlib, the ``plot`` extra): the root's statistics and its convergence.

* :func:`plot_root`: each root action's visits and value, as two heat maps
  over the board for grid games (a :class:`BoardLayout`: tic-tac-toe's
  cells, connect four's columns) and as two bar charts otherwise.
* :func:`plot_convergence`: each root action's share of the visits and its
  value against the iterations (a log scale), from a
  :class:`~mcts_agent.trace.RootTrace`; the move played drawn thick.

Both return a ``matplotlib.figure.Figure`` (no pyplot, so no display is
needed); ``figure.savefig("root.png")`` writes it. matplotlib is imported
only when a plot is made.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from mcts_agent.search import SearchSummary
from mcts_agent.trace import RootTrace

__all__ = ["BAR_ACTIONS", "CONVERGENCE_ACTIONS", "BoardLayout", "plot_convergence", "plot_root"]

BAR_ACTIONS = 20
"""The most actions (most visited first) :func:`plot_root` draws as bars."""

CONVERGENCE_ACTIONS = 8
"""The most actions (most visited at the end) :func:`plot_convergence` draws."""


class BoardLayout(NamedTuple):
    """Where a grid game's actions are on its board, for :func:`plot_root`'s heat maps.

    Attributes:
        shape: ``(rows, columns)`` of the board; row 0 is drawn at the top.
        cells: ``action -> tuple of (row, column)``: the cells an action's
            colour fills; its figures are written in the first (tic-tac-toe:
            the cell itself; connect four: the column's free cells, the one a
            disc would land in first).
        marks: ``(row, column) -> text`` of the occupied cells (``"X"``, ``"O"``).
    """

    shape: tuple[int, int]
    cells: Mapping[Any, tuple[tuple[int, int], ...]]
    marks: Mapping[tuple[int, int], str]


def _new_figure(**options: Any) -> Any:
    """The arena's figure maker (:func:`mcts_agent.evaluation.results.new_figure`), imported late.

    Late, so that :class:`BoardLayout` (which the game modules import) does
    not pull in the arena.
    """
    from mcts_agent.evaluation.results import new_figure as make

    return make(**options)


def _value_limit(values: list[float]) -> float:
    """The colour scale's half-width: 1 for values in [-1, 1], else the largest |Q|."""
    finite = [abs(v) for v in values if math.isfinite(v)]
    largest = max(finite, default=1.0)
    return 1.0 if largest <= 1.0 else largest


def _title(summary: SearchSummary, label: Callable[[Any], str], player: str) -> str:
    title = f"{player} to move: {summary.iterations:,} iterations, played {label(summary.action)}"
    if summary.proven_value is not None:
        title += f" (proven {summary.proven_value:+g})"
    return title


def plot_root(
    summary: SearchSummary,
    layout: BoardLayout | None = None,
    *,
    labels: Callable[[Any], str] = str,
    player: str | None = None,
    title: str | None = None,
) -> Any:
    """Draws each root action's visits and value (for the player to move) after a search.

    With a ``layout``: two heat maps over the board, the share of the root's
    visits (white 0 to blue at the largest share) and Q (red -1 to blue +1,
    or the largest |Q| when values leave [-1, 1]); each action's cell shows
    its label (small, top left), N and Q (``-`` if never tried), occupied
    cells their mark, and the move played is outlined in orange.
    Without one: two bar charts of the :data:`BAR_ACTIONS` most visited
    actions (N and Q), the move played in a darker colour.

    Args:
        summary: ``planner.summary()`` (or an ``MCTSAgent``'s ``last_summary``).
        layout: where each action is on the board, or None for bars.
        labels: ``action -> str`` for the bars and the title (e.g. a chess
            move's UCI text); ``str`` by default.
        player: the name of the player to move (``"X"``, ``"white"``);
            default ``player <summary.player>``.
        title: the figure's title; default: the player to move, iterations,
            the move played and the proven value.

    Returns:
        A ``matplotlib.figure.Figure``.

    Raises:
        ImportError: if matplotlib is not installed.
        ValueError: if ``layout`` has no cell for one of the root's actions.
    """
    total = sum(summary.visit_counts) or 1
    player = f"player {summary.player}" if player is None else player
    title = _title(summary, labels, player) if title is None else title
    limit = _value_limit(list(summary.values))
    if layout is None:
        return _bars(summary, labels, title, limit, player)
    missing = [a for a in summary.actions if a not in layout.cells]
    if missing:
        raise ValueError(
            f"the board layout has no cell for the actions {missing!r}; it places "
            f"{sorted(layout.cells, key=repr)!r}"
        )
    import numpy as np

    rows, columns = layout.shape
    share = np.full(layout.shape, np.nan)
    value = np.full(layout.shape, np.nan)
    for action, n, q in zip(summary.actions, summary.visit_counts, summary.values, strict=True):
        for cell in layout.cells[action]:
            share[cell] = n / total
            value[cell] = q if n else np.nan
    figure = _new_figure(figsize=(4.2 + 1.05 * columns, 0.9 + 0.62 * rows))
    axes = figure.subplots(1, 2)
    most = max(summary.visit_counts) / total or 1.0
    maps = (
        ("share of visits", share, "Blues", 0.0, most),
        (f"value Q for {player}", value, "RdBu", -limit, limit),
    )
    for ax, (name, grid, colours, low, high) in zip(axes, maps, strict=True):
        ax.set_title(name)
        ax.set_facecolor("#f2f2f2")  # occupied cells and cells of no action
        image = ax.imshow(grid, cmap=colours, vmin=low, vmax=high)
        figure.colorbar(image, ax=ax, shrink=0.8)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xticks([x - 0.5 for x in range(1, columns)], minor=True)
        ax.set_yticks([y - 0.5 for y in range(1, rows)], minor=True)
        ax.grid(which="minor", color="white", linewidth=2)
        ax.tick_params(which="both", length=0)
        for (row, column), mark in layout.marks.items():
            ax.text(column, row, mark, ha="center", va="center", fontsize=16, color="#444444")
        for action, n, q in zip(summary.actions, summary.visit_counts, summary.values, strict=True):
            row, column = layout.cells[action][0]
            text = f"{n}\n{q:+.2f}" if n else "0\n-"
            # White ink on the dark ends of the colour map (Blues is light at 0, RdBu at 0.5).
            light = 0.0 if low == 0.0 else 0.5
            dark = n and abs(float(image.norm(grid[row, column])) - light) > 0.6 * (1 - light)
            ink = "white" if dark else "black"
            ax.text(column, row + 0.05, text, ha="center", va="center", fontsize=8, color=ink)
            ax.text(
                column - 0.44,
                row - 0.42,
                labels(action),
                ha="left",
                va="top",
                fontsize=6,
                color=ink,
            )
        ax.add_patch(_outline(layout.cells[summary.action]))
    figure.suptitle(title, fontsize=10)
    return figure


def _outline(cells: tuple[tuple[int, int], ...]) -> Any:
    """An orange rectangle around ``cells`` (the move played)."""
    from matplotlib.patches import Rectangle

    rows = [row for row, _ in cells]
    columns = [column for _, column in cells]
    low_row, low_column = min(rows) - 0.46, min(columns) - 0.46
    return Rectangle(
        (low_column, low_row),
        max(columns) + 0.46 - low_column,
        max(rows) + 0.46 - low_row,
        fill=False,
        edgecolor="#e08000",
        linewidth=2.5,
    )


def _bars(
    summary: SearchSummary, labels: Callable[[Any], str], title: str, limit: float, player: str
) -> Any:
    order = sorted(range(len(summary.actions)), key=lambda i: -summary.visit_counts[i])
    shown = order[:BAR_ACTIONS]
    names = [labels(summary.actions[i]) for i in shown]
    played = [summary.actions[i] == summary.action for i in shown]
    figure = _new_figure(figsize=(max(6.0, 0.45 * len(shown) + 2.0), 5.0))
    top, bottom = figure.subplots(2, 1, sharex=True)
    positions = range(len(shown))
    top.bar(
        positions,
        [summary.visit_counts[i] for i in shown],
        color=["#1f4e99" if p else "#8fb0e0" for p in played],
    )
    top.set_ylabel("visits N")
    values = [summary.values[i] if summary.visit_counts[i] else 0.0 for i in shown]
    bottom.bar(positions, values, color=["#b03020" if p else "#e8a090" for p in played])
    bottom.axhline(0.0, color="#888888", linewidth=0.8)
    bottom.set_ylim(-limit * 1.05, limit * 1.05)
    bottom.set_ylabel(f"value Q for {player}")
    bottom.set_xticks(list(positions), names, rotation=60 if len(shown) > 8 else 0)
    bottom.set_xlabel("action")
    hidden = len(order) - len(shown)
    note = f" ({hidden} fewer visited actions not shown)" if hidden else ""
    figure.suptitle(title + note, fontsize=10)
    return figure


def plot_convergence(
    trace: RootTrace,
    *,
    labels: Callable[[Any], str] = str,
    title: str | None = None,
) -> Any:
    """Draws each root action's share of the visits and its value against the iterations.

    One line per action, for the :data:`CONVERGENCE_ACTIONS` most visited at
    the end, on a log scale of iterations; the move played (``trace.action``,
    after :meth:`~mcts_agent.trace.RootTrace.finish`) is drawn thick and
    black and named in the legend. The share of an action is its N over the
    sum of the root's children's N at that iteration; Q is from the point of
    view of the player to move at the root (not drawn before the action is
    tried).

    Args:
        trace: a trace that recorded a search.
        labels: ``action -> str`` for the legend; ``str`` by default.
        title: the figure's title; default: the iterations and the move played.

    Returns:
        A ``matplotlib.figure.Figure``.

    Raises:
        ImportError: if matplotlib is not installed.
        ValueError: if the trace recorded nothing.
    """
    if not trace.iterations:
        raise ValueError("the trace recorded no iteration: nothing to plot")
    final = trace.visit_counts[-1]
    order = sorted(range(len(trace.actions)), key=lambda i: -final[i])
    shown = order[:CONVERGENCE_ACTIONS]
    played = trace.actions.index(trace.action) if trace.action in trace.actions else None
    if played is not None and played not in shown:
        shown[-1] = played
    figure = _new_figure(figsize=(8.0, 6.0))
    top, bottom = figure.subplots(2, 1, sharex=True)
    totals = [sum(counts) or 1 for counts in trace.visit_counts]
    palette = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"
    ]  # fmt: skip
    for k, i in enumerate(shown):
        share = [counts[i] / t for counts, t in zip(trace.visit_counts, totals, strict=True)]
        value = [values[i] for values in trace.values]
        name = labels(trace.actions[i])
        style: dict[str, Any] = {"color": palette[k % len(palette)], "linewidth": 1.2}
        if i == played:
            name += " (played)"
            style = {"color": "black", "linewidth": 2.8, "zorder": 3}
        top.plot(trace.iterations, share, label=name, **style)
        bottom.plot(trace.iterations, value, **style)
    top.set_xscale("log")
    top.set_ylabel("share of the root's visits")
    top.set_ylim(0.0, 1.0)
    bottom.set_ylabel("value Q (player to move)")
    bottom.set_xlabel("iterations")
    hidden = len(order) - len(shown)
    top.legend(
        title=f"action ({hidden} others not shown)" if hidden else "action",
        fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
    )
    if title is None:
        title = f"convergence over {trace.iterations[-1]:,} iterations"
        if trace.action is not None:
            title += f", played {labels(trace.action)}"
    figure.suptitle(title, fontsize=10)
    return figure
