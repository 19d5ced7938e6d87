"""Value normalisation: MuZero's min-max statistics (``docs/guides/guided-search.md``).

``MCTS(..., value_normalization=True)``: selection reads each tried child's
value as ``Qn = (Q - lo) / (hi - lo)`` in place of Q, ``lo`` and ``hi`` the
smallest and largest node values (``W / N`` just after the node's update, from
its own point of view: the component of the player who moved into it in
max^n; chance nodes included, the root not) met in the backups of the current
search. While ``hi <= lo`` (before two different values were met), ``Qn = Q``.
The exploration term is unchanged, so ``c`` is scale-free: rewards multiplied
by a power of two give the very same tree.

Sources: Schrittwieser et al. (2020), "Mastering Atari, Go, chess and shogi by
planning with a learned model" (MuZero), Appendix B ("min-max
normalisation", ``MinMaxStats``); DeepMind's mctx, ``qtransform_by_min_max``.
As in MuZero's pseudocode, an unvisited child's value (PUCT's
``unvisited_value``) is taken as already normalised.

The planner keeps ``[lo, hi]`` as a two-item list (``MCTS._value_range``),
``[inf, -inf]`` at the start of every search; the loops widen it after each
backup (:func:`widen`) and read it between chunks, so a search run chunk by
chunk (``mcts_agent.budgets``) continues the same statistics. The speed-critical
loops write the scores inline; :func:`normalizer` gives the rest ``(lo, span)``.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["normalizer", "widen"]


def normalizer(value_range: Sequence[float] | None) -> tuple[float, float | None]:
    """Returns ``(lo, span)`` to read Q as ``(Q - lo) / span``; span None while not normalising.

    Args:
        value_range: ``[lo, hi]`` (``value_normalization``), or None. While
            ``hi <= lo`` (no two different values met yet) span is None: Q as it is.
    """
    if value_range is None:
        return 0.0, None
    lo, hi = value_range
    span = hi - lo
    return lo, (span if span > 0.0 else None)


def widen(value_range: list[float], values: Sequence[float], path: Sequence[int]) -> None:
    """Widens ``value_range`` (``[lo, hi]``, in place) by the values of ``path``'s nodes.

    Called after a backup of ``path`` (the iteration's nodes below the root,
    root side first): the nodes are read leaf first, the order of the backup.
    A NaN value (a sum that overflowed, an error the search reports) is passed
    over.

    Args:
        value_range: ``[lo, hi]``, updated in place.
        values: the tree's per-node Q (``W / N``).
        path: node indices.
    """
    lo, hi = value_range
    for node in reversed(path):
        q = values[node]
        if q < lo:
            lo = q
        if q > hi:
            hi = q
    value_range[0] = lo
    value_range[1] = hi
