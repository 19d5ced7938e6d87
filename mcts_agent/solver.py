"""MCTS-Solver: proven values in the search (``docs/guides/anytime-and-solver.md``, "Solver").

Winands, Björnsson & Saito (2008), "Monte-Carlo Tree Search Solver", in the
negamax form of our backup, and OpenSpiel's ``mcts.py`` (``solve=True``).

A node's proven value V is from the point of view of the player who moved
into it (as its Q). A terminal node is proven when it is made: V = r. A
non-terminal node is proven when every action has a proven child, with
``V = r + d * max over children of V(child)`` (d the node's ``+gamma`` or
``-gamma`` of the backup); with ``value_bounds=(lo, hi)`` one child proven at
``hi`` already proves it. The root is proven in the same way, with V = the
best child's V, from its player to move's point of view; the search then
stops. In selection a proven child scores exactly V, with no exploration
term; an iteration that reaches a proven node stops there and backs up as if
the node's subtree returned the best child's V (0 at a terminal node).

The general loop (:mod:`mcts_agent.general_loop`) selects with
:func:`selection_rule`, calls :func:`prove_up` after an expansion that made a
terminal node (the only event that can prove a node: a node is proven only
by its children), and reads :func:`subtree_return` for the backup.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from mcts_agent._validation import describe, require_float
from mcts_agent.normalization import normalizer
from mcts_agent.selection import PARENT_VALUE, parent_value, puct_score_all
from mcts_agent.tree import ROOT, TERMINAL, UNVISITED, GuidedTree

__all__ = [
    "best_child_index",
    "check_bounded",
    "checked_value_bounds",
    "prove_up",
    "selection_rule",
    "subtree_return",
]


def checked_value_bounds(value_bounds: Any, solve: bool) -> tuple[float, float] | None:
    """Returns ``value_bounds`` as ``(lo, hi)`` floats, or None; checks it.

    Raises:
        TypeError: if it is not None or a pair of real numbers.
        ValueError: if lo >= hi, a bound is not finite, or ``solve`` is off.
    """
    if value_bounds is None:
        return None
    if not (isinstance(value_bounds, Sequence) and len(value_bounds) == 2):
        raise TypeError(f"value_bounds must be a pair (lo, hi) or None, got {value_bounds!r}")
    if not solve:
        raise ValueError(
            "value_bounds bound the solver's proven values; without solve=True they are not "
            f"read, so they must be None, got {value_bounds!r}"
        )
    rule = "(any real)"
    lo = require_float("value_bounds' lo", value_bounds[0], -math.inf, math.inf, rule=rule)
    hi = require_float("value_bounds' hi", value_bounds[1], -math.inf, math.inf, rule=rule)
    if not lo < hi:
        raise ValueError(f"value_bounds must have lo < hi, got ({lo}, {hi})")
    return lo, hi


def selection_rule(
    tree: GuidedTree,
    selection: str,
    exploration: float,
    unvisited_value: float | str,
    value_range: Sequence[float] | None = None,
) -> Callable[[int], tuple[int, int]]:
    """Returns the solver's form of the UCT or PUCT rule on ``tree``: a proven child scores V.

    The rules of the general loop (:mod:`mcts_agent.general_loop`), written out
    plainly (every action scored, first of the highest, in the model's order),
    with one change: a tried child whose ``tree.proven_values`` entry is not
    None scores exactly that value, with no exploration term. UCT tries a
    node's untried actions first, in order; PUCT scores them
    ``unvisited_value + c * P * sqrt(max(N, 1))``. Leaf batching selects with
    this rule too: with ``virtual_loss=0`` a child added in the current round
    has no visits until the round's backup, and UCT then takes the first such
    child, as UCB1 pulls an arm never pulled before the others.

    Args:
        tree: the tree searched.
        selection: ``"uct"`` or ``"puct"``.
        exploration: c >= 0.
        unvisited_value: PUCT's Q of an untried action, or ``"parent"``
            (:func:`mcts_agent.selection.parent_value` of the node).
        value_range: ``[lo, hi]``, the values met in the search's backups
            (``value_normalization``; read at every call, as the loop updates
            it), or None: while ``hi > lo`` a child's Q and a proven child's V
            both score as ``(x - lo) / (hi - lo)``
            (:func:`mcts_agent.normalization.normalizer`).

    Returns:
        ``select(node) -> (i, child)``: the index of the action to follow and
        its child, ``UNVISITED`` if the action is untried.
    """
    children = tree.children
    untried = tree.untried
    visits = tree.visits
    values = tree.values
    action_indices = tree.action_indices
    proven_values = tree.proven_values
    log = math.log
    sqrt = math.sqrt
    c = exploration

    def select_uct(node: int) -> tuple[int, int]:
        kids = children[node]
        if untried[node]:
            return len(kids), UNVISITED  # UCT tries the actions in order
        n_node = visits[node]  # 0 only in a leaf-batching round's first visits (no backup yet)
        log_n = log(n_node) if n_node else 0.0
        lo, span = normalizer(value_range)
        best_score = -math.inf
        best = kids[0]
        for kid in kids:
            score = proven_values[kid]
            if score is None:
                n = visits[kid]
                if not n:  # a leaf of this leaf-batching round (virtual_loss=0): pulled first
                    return action_indices[kid], kid
                q = values[kid] if span is None else (values[kid] - lo) / span
                score = q + c * sqrt(log_n / n)
            elif span is not None:
                score = (score - lo) / span
            if score > best_score:
                best_score = score
                best = kid
        return action_indices[best], best

    def select_puct(node: int) -> tuple[int, int]:
        q_untried = unvisited_value
        if q_untried == PARENT_VALUE:  # the node's own value, normalised as a Q is
            q_untried = parent_value(tree, node)
            lo, span = normalizer(value_range)
            if span is not None:
                q_untried = (q_untried - lo) / span
        i = puct_score_all(tree, node, c, q_untried, proven_values, value_range)
        return i, tree.children_by_action(node)[i]

    return select_puct if selection == "puct" else select_uct


def _best_proven(tree: GuidedTree, node: int) -> tuple[float, bool]:
    """``(max V over the node's proven children, every action has a proven child)``."""
    proven_values = tree.proven_values
    best = -math.inf
    every = tree.untried[node] == 0
    for child in tree.children[node]:
        if child == UNVISITED:
            every = False
            continue
        value = proven_values[child]
        if value is None:
            every = False
        elif value > best:
            best = value
    return best, every


def check_bounded(
    tree: GuidedTree,
    path: list[int],
    depth: int,
    values: Sequence[float],
    value_bounds: tuple[float, float],
) -> None:
    """Checks that the values just proven at ``path[depth]`` lie within ``value_bounds``.

    A bound the game breaks would prove wrong values (one child "proven at
    ``hi``" proves its parent, whatever its siblings pay), so it is an error,
    raised when the value is proven: a terminal node's reward as it is
    reached, an inner node's value as its children prove it.

    Args:
        tree: the tree.
        path: the iteration's nodes below the root, root side first.
        depth: the index in ``path`` of the node just proven.
        values: its proven value (one, or one per player in max^n).
        value_bounds: ``(lo, hi)``.

    Raises:
        ValueError: if a value is below ``lo`` or above ``hi``; the message
            names the value, the move into the node (state and action) and
            the bounds.
    """
    lo, hi = value_bounds
    for value in values:
        if not lo <= value <= hi:
            node = path[depth]
            parent = path[depth - 1] if depth else ROOT
            move = (
                f"step({describe(tree.states[parent])}, "
                f"{describe(tree.actions[parent][tree.action_indices[node]])})"
            )
            what = (
                f"the game pays the reward {value!r} at the end of {move}"
                if tree.untried[node] == TERMINAL
                else f"the solver proved the value {value!r} for the move {move}"
            )
            raise ValueError(
                f"value_bounds=({lo!r}, {hi!r}) must bound every node's value, but {what}: "
                f"give bounds that hold every value the game can reach (e.g. (-1, 1) for a "
                f"win/loss game paying +1 and -1), or value_bounds=None"
            )


def prove_up(tree: GuidedTree, path: list[int], value_bounds: tuple[float, float] | None) -> None:
    """Proves the ancestors of ``path[-1]`` (just proven) that its proof proves.

    Walks up from the parent of ``path[-1]`` (``path`` lists the iteration's
    nodes below the root, root side first): each node whose children now prove
    it gets its proven value; the walk stops at the first node still unproven.
    With ``value_bounds``, ``path[-1]``'s value and each value proven on the
    way are checked against them (:func:`check_bounded`).

    Args:
        tree: the tree.
        path: the iteration's nodes below the root; ``path[-1]`` is proven.
        value_bounds: ``(lo, hi)``, or None.

    Raises:
        ValueError: if a proven value is out of ``value_bounds``.
    """
    proven_values = tree.proven_values
    hi = None
    if value_bounds is not None:
        hi = value_bounds[1]
        check_bounded(tree, path, len(path) - 1, (proven_values[path[-1]],), value_bounds)
    for depth in range(len(path) - 2, -2, -1):
        node = path[depth] if depth >= 0 else ROOT
        best, every = _best_proven(tree, node)
        if not (every or (hi is not None and best >= hi)):
            return
        if node == ROOT:
            proven_values[ROOT] = best  # a child's value, checked when it was proven
        else:
            value = proven_values[node] = tree.rewards[node] + tree.discounts[node] * best
            if value_bounds is not None:
                check_bounded(tree, path, depth, (value,), value_bounds)


def subtree_return(tree: GuidedTree, node: int) -> float:
    """G of an iteration stopped at the proven ``node``: its best child's V, 0 if terminal."""
    if not tree.children[node]:
        return 0.0
    return _best_proven(tree, node)[0]


def best_child_index(tree: GuidedTree, value_bounds: tuple[float, float] | None) -> int:
    """The index of the root action to play under the solver's rule.

    If the root is proven: the child of highest proven value, ties to the most
    visits, then the first. Otherwise the robust child (most visits, then
    higher value, then first) among the tried children not proven worse than
    another proven child and, with bounds, not proven at ``lo`` unless every
    tried child is.
    """
    children = tree.children_by_action(ROOT)
    visits = tree.visits
    values = tree.values
    proven_values = tree.proven_values
    tried = [(i, child) for i, child in enumerate(children) if child != UNVISITED]
    proven = [proven_values[child] for _, child in tried if proven_values[child] is not None]
    if proven_values[ROOT] is not None:
        best_index, best_key = -1, None
        for i, child in tried:
            value = proven_values[child]
            if value is None:
                continue
            key = (value, visits[child])
            if best_key is None or key > best_key:
                best_index, best_key = i, key
        return best_index
    best_proven = max(proven, default=-math.inf)
    lo = None if value_bounds is None else value_bounds[0]
    all_at_lo = lo is not None and len(proven) == len(tried) and all(v <= lo for v in proven)

    def eligible(child: int) -> bool:
        value = proven_values[child]
        if value is None:
            return True
        if value < best_proven:
            return False
        return all_at_lo or lo is None or value > lo

    candidates = [(i, child) for i, child in tried if eligible(child)] or tried
    best_index, best_key2 = -1, (-1, -math.inf)
    for i, child in candidates:
        key2 = (visits[child], values[child])
        if key2 > best_key2:
            best_index, best_key2 = i, key2
    return best_index
