"""PUCT selection's helpers for the general search loop (``docs/guides/guided-search.md``).

The general loop (:func:`mcts_agent.general_loop.run`) computes both of its
selection rules inline, for speed:

* UCT: UCB1 (Kocsis & Szepesvári, 2006) as in the plain loop: the first
  untried action while there is one, then the child of highest
  ``Q + c * sqrt(ln N(node) / N(child))``, ties to the first.
* PUCT (Silver et al., 2017, "Methods"; 2018): every action, tried or not,
  scores ``Q(a) + c * P(a) * sqrt(max(N(s), 1)) / (1 + N(a))``, with
  ``unvisited_value`` as the Q of an untried action; ties to the first in the
  model's order.

PUCT's fast path gives the same choice as scoring every action: all untried
actions of a node share ``Q = unvisited_value`` and ``N(a) = 0``, so the best
of them is the one of highest prior, first on ties. A node's untried actions
are therefore tried in one fixed order (:func:`expansion_order`), and a
selection scores the node's tried children and only the next action of that
order. Where the fast path could differ (c = 0, or two different priors so
close that their scores could round to the same float), the node scores every
action (:func:`puct_score_all`).

With ``value_normalization`` (MuZero's min-max statistics, Schrittwieser et
al., 2020, Appendix B) a tried child's Q is read as ``(Q - lo) / (hi - lo)``
while ``hi > lo``, ``[lo, hi]`` the planner's range of the values met in the
search's backups; ``unvisited_value`` is taken as already normalised.

``unvisited_value="parent"`` (:data:`PARENT_VALUE`) gives an untried action the
value of the node it leaves instead of a constant: :func:`parent_value`, the
mean of the node's own evaluation and every return backed up through its
tried children, from the point of view of its player to move (first-play
urgency from the parent: Leela Chess Zero's ``FpuStrategy`` "reduction" with an
``FpuValue`` of 0; mctx's ``qtransform_by_parent_and_siblings`` completes
unvisited Q from the parent and its siblings too). A constant 0 is optimistic
for the side that stands worse (every untried move looks better than the tried
ones, so the search tries them all before it looks deeper) and pessimistic for
the side that stands better; the parent's value is neither. With
``value_normalization`` it is normalised as a child's Q is.

Scores are computed with exactly the operations written above (``c * P(a)``
first, kept per node as ``GuidedTree.scaled_priors``), so a reference written
from ``docs/concepts/iteration.md`` rounds the same way and picks the same children.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mcts_agent._validation import require_float
from mcts_agent.normalization import normalizer
from mcts_agent.tree import TERMINAL, UNVISITED, GuidedTree

__all__ = [
    "PARENT_VALUE",
    "SCORE_ALL",
    "check_parent_value_composition",
    "checked_unvisited_value",
    "expansion_order",
    "parent_value",
    "puct_score_all",
    "puct_select",
]

SCORE_ALL = ()
"""``expansion_order`` of a node whose actions are all scored (no fast path)."""

PARENT_VALUE = "parent"
"""``MCTS(unvisited_value="parent")``: an untried action's Q is :func:`parent_value` of its node."""


def checked_unvisited_value(value: object, selection: str) -> float | str:
    """Returns ``MCTS``'s ``unvisited_value`` checked: a finite float, or :data:`PARENT_VALUE`.

    Args:
        value: the argument: a real number, or the string ``"parent"``.
        selection: the planner's selection rule; only ``"puct"`` has untried
            actions to score, so any other needs the default 0.0.

    Raises:
        TypeError: if ``value`` is neither a real number nor a string.
        ValueError: if it is another string, NaN or infinite, or not 0.0 with a
            selection other than ``"puct"``.
    """
    if isinstance(value, str):
        if value != PARENT_VALUE:
            raise ValueError(
                f"unvisited_value must be a real number or {PARENT_VALUE!r} (the value of the "
                f"node the action leaves), got {value!r}"
            )
        checked: float | str = value
    else:
        checked = require_float("unvisited_value", value, -math.inf, math.inf, rule="(any real)")
    if selection != "puct" and checked != 0.0:
        raise ValueError(
            f"unvisited_value is PUCT's value of an untried action; with selection="
            f"{selection!r} every action is tried first, so it must stay 0.0, got {value!r}"
        )
    return checked


def check_parent_value_composition(planner: Any) -> None:
    """Refuses the options ``unvisited_value="parent"`` does not compose with, each with its reason.

    The general loop's PUCT and the solver's (one process, or root-parallel
    workers, each running it) read :func:`parent_value`; leaf batching's
    selection (in C too), progressive widening's and the information-set
    search's rules score untried actions by a constant.

    Args:
        planner: an ``MCTS`` with ``unvisited_value="parent"``, its other options set.

    Raises:
        ValueError: with ``leaf_batch > 1``, progressive widening or a
            hidden-information model.
    """
    refused = [
        (planner.leaf_batch > 1, f"leaf_batch={planner.leaf_batch} (leaf batching's rule)"),
        (planner.widening is not None, "progressive widening (its own rule)"),
        (planner.hidden, "a hidden-information model (the information-set rule)"),
    ]
    at_fault = [text for refuse, text in refused if refuse]
    if at_fault:
        raise ValueError(
            f"unvisited_value={PARENT_VALUE!r} is read by the general loop's PUCT and the "
            f"solver's, and {' and '.join(at_fault)} scores untried actions by a constant: "
            "pass a number as unvisited_value, or leave that option out"
        )


def parent_value(tree: GuidedTree, node: int) -> float:
    """The value of ``node`` for its player to move: ``unvisited_value="parent"``'s Q.

    ``(v + sum W(child)) / (1 + sum N(child))`` over the node's tried
    children, with ``v`` the evaluator's value of the node (its
    ``leaf_values`` entry); without one, ``sum W / sum N``. Each child's W is
    from the point of view of the player who moved into it, the node's player
    to move, so the result is the mean of every return that the search has
    backed up from the node, its first evaluation included. 0.0 for a node
    with neither (every action untried: they then share this Q, and their
    priors alone order them).

    Args:
        tree: the tree searched.
        node: a non-terminal node of ``tree``.

    Returns:
        float, in the units of the returns.
    """
    value_sums = tree.value_sums
    visits = tree.visits
    leaf_value = tree.leaf_values[node]
    total, count = (0.0, 0) if leaf_value is None else (leaf_value, 1)
    for kid in tree.children[node]:
        total += value_sums[kid]
        count += visits[kid]
    return total / count if count else 0.0


def expansion_order(node_priors: Sequence[float], c: float) -> Sequence[int]:
    """Returns the order in which PUCT tries a node's actions, or :data:`SCORE_ALL`.

    Args:
        node_priors: the node's normalised priors, shape ``[num_actions]``.
        c: the exploration, >= 0.

    Returns:
        The action indices by prior, highest first, then in the model's order
        (``range(num_actions)`` when every prior is equal); :data:`SCORE_ALL`
        when the fast path could differ from scoring every action: c = 0
        (every untried action ties), or two different priors within a
        relative 1e-12 of each other.
    """
    if c == 0.0:
        return SCORE_ALL
    distinct = sorted(set(node_priors))
    if len(distinct) == 1:
        return range(len(node_priors))
    for low, high in zip(distinct, distinct[1:], strict=False):
        if high - low <= 1e-12 * high:
            return SCORE_ALL
    return sorted(range(len(node_priors)), key=node_priors.__getitem__, reverse=True)


def puct_score_all(
    tree: GuidedTree,
    node: int,
    c: float,
    unvisited_value: float,
    proven_values: Sequence[float | None] | None = None,
    value_range: Sequence[float] | None = None,
) -> int:
    """Returns the index of the action PUCT selects at ``node``, every action scored.

    The rule as written: ``Q(a) + c * P(a) * sqrt(max(N(s), 1)) / (1 + N(a))``
    over the node's actions, ``Q = unvisited_value`` and ``N(a) = 0`` for an
    untried one; the first of the highest.

    Args:
        tree: the tree searched.
        node: a non-terminal node of ``tree``.
        c: the exploration, >= 0.
        unvisited_value: Q of an untried action.
        proven_values: the solver's per-node proven values (:mod:`mcts_agent.solver`):
            a tried child proven at V scores exactly V; None for the plain rule.
        value_range: ``[lo, hi]``, the values met in the search's backups
            (``value_normalization``), or None: while ``hi > lo`` a tried
            child's Q (and a proven V) scores as ``(Q - lo) / (hi - lo)``.
    """
    visits = tree.visits
    values = tree.values
    lo, span = normalizer(value_range)
    n = visits[node]
    root_n = math.sqrt(n if n > 1 else 1)
    best_score = -math.inf
    best = 0
    by_action = tree.children_by_action(node)
    for i, (child, p) in enumerate(zip(by_action, tree.priors[node], strict=True)):
        if child == UNVISITED:
            score = unvisited_value + c * p * root_n  # / (1 + 0)
        elif proven_values is not None and proven_values[child] is not None:
            score = proven_values[child]
            if span is not None:
                score = (score - lo) / span
        else:
            q = values[child] if span is None else (values[child] - lo) / span
            score = q + c * p * root_n / (1 + visits[child])
        if score > best_score:
            best_score = score
            best = i
    return best


def puct_select(
    tree: GuidedTree,
    node: int,
    c: float,
    unvisited_value: float,
    value_range: Sequence[float] | None = None,
) -> tuple[int, int]:
    """Returns ``(i, child)``: the action PUCT selects at ``node`` by the fast path, and its child.

    The general loop's PUCT step (:func:`mcts_agent.general_loop.run` has it
    inline, for speed) as a function, for loops that select outside it
    (:mod:`mcts_agent.leaf_batching`): the node's tried children are scored,
    then the next action of its :func:`expansion_order` (every action with
    :func:`puct_score_all` where the fast path could differ); ties to the
    first in the model's order. ``child`` is ``UNVISITED`` if action ``i`` is
    untried. The node's expansion order is worked out on its first selection
    and kept in ``tree.expansion_orders``.

    Args:
        tree: the tree searched.
        node: a non-terminal node of ``tree``.
        c: the exploration, >= 0.
        unvisited_value: Q of an untried action.
        value_range: ``[lo, hi]`` of ``value_normalization``, or None
            (:func:`puct_score_all`).
    """
    assert tree.untried[node] != TERMINAL
    visits = tree.visits
    values = tree.values
    scaled_priors = tree.scaled_priors
    lo, span = normalizer(value_range)
    n = visits[node]
    root_n = math.sqrt(n if n > 1 else 1)
    best_score = -math.inf
    child = UNVISITED
    kids = tree.children[node]
    for kid in kids:
        q = values[kid] if span is None else (values[kid] - lo) / span
        score = q + scaled_priors[kid] * root_n / (1 + visits[kid])
        if score > best_score:
            best_score = score
            child = kid
    if tree.untried[node]:
        order = tree.expansion_orders[node]
        if order is None:
            order = tree.expansion_orders[node] = expansion_order(tree.priors[node], c)
        if order is SCORE_ALL:
            i = puct_score_all(tree, node, c, unvisited_value, None, value_range)
            return i, tree.children_by_action(node)[i]
        i = order[len(kids)]
        score = unvisited_value + c * tree.priors[node][i] * root_n  # / (1 + 0)
        if score > best_score or (score == best_score and i < tree.action_indices[child]):
            return i, UNVISITED
    elif child == UNVISITED:  # every score NaN or -inf (a W overflowed)
        child = kids[0]
    return tree.action_indices[child], child
