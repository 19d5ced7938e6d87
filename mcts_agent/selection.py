"""Selection rules of the general search loop: which action of a node to follow.

Each rule is made for one tree and returns ``select(node) -> i``, the index in
``tree.actions[node]`` of the action to follow from a non-terminal node. The
loop expands that action if it is untried (``tree.children[node][i] ==
UNVISITED``) and descends into its child otherwise.

* :func:`uct_rule`: UCB1 (Kocsis & Szepesvári, 2006) as in the plain loop: the
  first untried action while there is one, then the child of highest
  ``Q + c * sqrt(ln N(node) / N(child))``, ties to the first.
* :func:`puct_rule`: PUCT (Silver et al., 2017, "Methods"; 2018): every
  action, tried or not, scores ``Q(a) + c * P(a) * sqrt(max(N(s), 1)) / (1 +
  N(a))``, with ``unvisited_value`` as the Q of an untried action; ties to the
  first.

Both compute their scores with exactly the operations written above, so a
reference written from ``docs/search.md`` rounds the same way and picks the
same children.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from mcts_agent.tree import UNVISITED, GuidedTree

__all__ = ["SelectionRule", "puct_rule", "uct_rule"]

SelectionRule = Callable[[int], int]
"""``select(node) -> i``: index of the action to follow from a non-terminal ``node``."""


def uct_rule(tree: GuidedTree, exploration: float) -> SelectionRule:
    """Returns UCB1 selection on ``tree`` with ``c = exploration``.

    Args:
        tree: the tree searched.
        exploration: c >= 0.

    Returns:
        ``select(node) -> i``: the first untried action if any (the plain
        loop's expansion order), else the child of highest UCB1 score.
    """
    actions = tree.actions
    children = tree.children
    untried = tree.untried
    visits = tree.visits
    values = tree.values
    log = math.log
    sqrt = math.sqrt
    c = exploration

    def select(node: int) -> int:
        left = untried[node]
        if left:
            return len(actions[node]) - left
        log_n = log(visits[node])
        best_score = -math.inf
        best = 0
        for i, child in enumerate(children[node]):
            score = values[child] + c * sqrt(log_n / visits[child])
            if score > best_score:
                best_score = score
                best = i
        return best

    return select


def puct_rule(tree: GuidedTree, exploration: float, unvisited_value: float) -> SelectionRule:
    """Returns PUCT selection on ``tree`` (``docs/search.md``, "PUCT selection").

    Scores every action as ``Q(a) + c * P(a) * sqrt(max(N(s), 1)) / (1 + N(a))``
    and returns the first of the highest. Fast path, with the same result: all
    untried actions share ``Q = unvisited_value`` and ``N(a) = 0``, so the best
    of them is the one of highest prior, first on ties. At a node's first
    selection its actions are sorted once by prior (highest first, then the
    model's order), and the node's untried actions are kept at the end of
    that list (``tree.expansion_orders``), so a selection scores the tried
    children and one untried action. Where two different priors of a node
    are so close (relative difference below 1e-12) that their scores could
    round to the same float, or c = 0, the node scores every action instead.

    Args:
        tree: the tree searched; ``tree.priors[node]`` holds each node's
            normalised priors.
        exploration: c >= 0.
        unvisited_value: Q of an untried action.

    Returns:
        ``select(node) -> i``: the first action of highest score.
    """
    children = tree.children
    priors = tree.priors
    visits = tree.visits
    values = tree.values
    untried = tree.untried
    orders = tree.expansion_orders
    sqrt = math.sqrt
    inf = math.inf
    c = exploration
    q_untried = unvisited_value

    def score_all(node: int) -> int:
        """The rule as written: every action scored, first of the highest."""
        n = visits[node]
        root_n = sqrt(n if n > 1 else 1)
        best_score = -math.inf
        best = 0
        for i, (child, p) in enumerate(zip(children[node], priors[node], strict=True)):
            if child == UNVISITED:
                score = q_untried + c * p * root_n  # / (1 + 0)
            else:
                score = values[child] + c * p * root_n / (1 + visits[child])
            if score > best_score:
                best_score = score
                best = i
        return best

    def select(node: int) -> int:
        cached = orders[node]
        if cached is None:
            cached = orders[node] = _expansion_order(priors[node], c, children[node])
        if cached is _SCORE_ALL:
            return score_all(node)
        order, scaled = cached  # scaled[i] = c * P(i), the formula's first product
        n = visits[node]
        root_n = sqrt(n if n > 1 else 1)
        kids = children[node]
        left = untried[node]
        best_score = -inf
        best = 0
        if left < len(kids):  # score the tried children, in the model's order
            for i, child in enumerate(kids):
                if child >= 0:
                    score = values[child] + scaled[i] * root_n / (1 + visits[child])
                    if score > best_score:
                        best_score = score
                        best = i
        if left:  # the best untried action: the first untried one in the order
            i = order[len(kids) - left]
            score = q_untried + scaled[i] * root_n  # / (1 + 0)
            if score > best_score or (score == best_score and i < best):
                best = i
        return best

    return select


_SCORE_ALL = ()
"""``expansion_orders[node]`` of a node whose actions are all scored (no fast path)."""


def _expansion_order(
    node_priors: tuple, c: float, kids: tuple
) -> tuple[list[int], tuple[float, ...]] | tuple[()]:
    """The fast path's cache for one node: ``(order, c * priors)``, or :data:`_SCORE_ALL`.

    ``order`` lists the node's action indices, tried first, then untried by
    prior (highest first, then the model's order). :data:`_SCORE_ALL` when
    the fast path could differ from scoring every action: c = 0 (every
    untried action ties), or two different priors within a relative 1e-12 of
    each other.
    """
    if c == 0.0:
        return _SCORE_ALL
    distinct = sorted(set(node_priors))
    for low, high in zip(distinct, distinct[1:], strict=False):
        if high - low <= 1e-12 * high:
            return _SCORE_ALL
    tried = [i for i, child in enumerate(kids) if child != UNVISITED]
    untried = [i for i, child in enumerate(kids) if child == UNVISITED]
    untried.sort(key=node_priors.__getitem__, reverse=True)
    return tried + untried, tuple(c * p for p in node_priors)
