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

    Args:
        tree: the tree searched; ``tree.priors[node]`` holds each node's
            normalised priors.
        exploration: c >= 0.
        unvisited_value: Q of an untried action.

    Returns:
        ``select(node) -> i``: the action of highest
        ``Q(a) + c * P(a) * sqrt(max(N(s), 1)) / (1 + N(a))``, first on ties.
    """
    children = tree.children
    priors = tree.priors
    visits = tree.visits
    values = tree.values
    sqrt = math.sqrt
    c = exploration
    q_untried = unvisited_value

    def select(node: int) -> int:
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

    return select
