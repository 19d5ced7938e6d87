"""The learning curve of a training run (matplotlib, the ``plot`` extra).

:func:`plot_learning_curve` draws, against the generation, the network's
evaluation scores (against the previous generation's network and against
plain UCT, from :class:`~mcts_agent.learning.training.GenerationRecord`) and
its training losses (policy cross-entropy, value squared error), as
``mcts-agent train --plot curve.png`` does. matplotlib is imported only
when a curve is drawn; no torch is needed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["plot_learning_curve", "save_learning_curve"]


def _field(record: Any, name: str) -> Any:
    return record[name] if isinstance(record, Mapping) else getattr(record, name)


def plot_learning_curve(history: Sequence[Any], title: str | None = None) -> Any:
    """Returns a figure of a run's scores and losses against the generation.

    Args:
        history: the run's :class:`~mcts_agent.learning.training.GenerationRecord`
            records, or their dicts (a checkpoint's ``history``).
        title: the figure's title, or None for none.

    Returns:
        A ``matplotlib.figure.Figure`` of two panels: the scores in [0, 1]
        (0.5 dashed: as strong as the opponent), and the losses.

    Raises:
        ImportError: if matplotlib is not installed (``pip install 'mcts-agent[plot]'``).
        ValueError: if ``history`` is empty.
    """
    from mcts_agent.evaluation.results import new_figure

    if not history:
        raise ValueError("the run has no generation to plot")
    generations = [_field(r, "generation") for r in history]
    figure = new_figure(figsize=(10, 4))
    score_axes, loss_axes = figure.subplots(1, 2, sharex=True)
    for name, label, style in (
        ("score_vs_uct", "vs plain UCT", "o-"),
        ("score_vs_previous", "vs previous network", "s--"),
    ):
        points = [
            (g, _field(r, name))
            for g, r in zip(generations, history, strict=True)
            if _field(r, name) is not None
        ]
        if points:
            score_axes.plot(*zip(*points, strict=True), style, label=label)
    score_axes.axhline(0.5, color="grey", linestyle=":", linewidth=1)
    score_axes.set_ylim(-0.02, 1.02)
    score_axes.set_ylabel("score (wins + draws / 2) / games")
    for name, label, style in (
        ("policy_loss", "policy cross-entropy", "o-"),
        ("value_loss", "value squared error", "s-"),
    ):
        points = [
            (g, _field(r, name))
            for g, r in zip(generations, history, strict=True)
            if not math.isnan(_field(r, name))
        ]
        if points:
            loss_axes.plot(*zip(*points, strict=True), style, label=label)
    loss_axes.set_ylabel("training loss")
    for axes in (score_axes, loss_axes):
        axes.set_xlabel("generation")
        if axes.lines:
            axes.legend(fontsize="small")
        axes.grid(alpha=0.3)
    if title is not None:
        figure.suptitle(title)
    return figure


def save_learning_curve(
    history: Sequence[Any], path: str | os.PathLike, title: str | None = None
) -> None:
    """Draws :func:`plot_learning_curve` to an image file (format from the extension), atomically.

    Raises:
        ImportError: if matplotlib is not installed.
        ValueError: if ``history`` is empty.
        OSError: if the file cannot be written.
    """
    from mcts_agent.evaluation.results import save_figure

    save_figure(plot_learning_curve(history, title), path)
