"""Tree reuse between searches (``docs/guides/anytime-and-solver.md``, "Tree reuse").

With ``MCTS(reuse_tree=True)``, a search first looks in the previous tree,
nearest the root first (breadth first, then in the order the nodes were
made), for a node other than the root whose state is the new root's: equal
by ``model.key(state)`` when the model has ``key``, else by ``==``. If one is
found, its subtree becomes the new tree, every node's statistics kept (N, W,
Q, priors, evaluations, proven values), renumbered in the order the nodes
were made, so the new root is node 0; the search then adds its own
iterations to it. Ludii and OpenSpiel's C++ bots reuse trees the same way; in
a game loop the agent need not be told the opponents' replies: the position
after them is looked up.

The new root keeps its N and W (so N(root) = the reused visits + the new
iterations); it has no mover, so its reward and discount become 0.0 and its
proven value (if any) is recomputed from its children (the root's form: the
best child's). The general loop then gives it fresh root noise
(:func:`mcts_agent.general_loop.renew_root`).
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from mcts_agent import compiled
from mcts_agent._validation import describe
from mcts_agent.tree import ROOT, TERMINAL, Tree

__all__ = ["find_node", "node_fields", "reroot", "subtree_at"]


def subtree_at(tree: Tree, state: Any, key: Callable[[Any], Hashable] | None) -> Tree | None:
    """Returns ``tree``'s subtree at ``state`` as a new tree, or None if ``state`` is not in it.

    Args:
        tree: the previous search's tree (not changed).
        state: the new root's state.
        key: the model's ``key(state) -> Hashable``, or None to compare states with ``==``.

    Raises:
        TypeError: if comparing two states gives something else than a bool
            (numpy arrays compare element-wise: give the model a ``key``).
    """
    node = find_node(tree, state, key)
    return None if node is None else reroot(tree, node)


def find_node(tree: Tree, state: Any, key: Callable[[Any], Hashable] | None) -> int | None:
    """Returns the non-root, non-terminal node of ``tree`` nearest the root holding ``state``.

    Breadth first from the root's children; None if no node holds it. Chance
    nodes (which hold their parent's state) are passed through, never returned.

    Raises:
        TypeError: as :func:`subtree_at`.
    """
    target = state if key is None else key(state)
    states = tree.states
    children = tree.children
    untried = tree.untried
    chance_records = getattr(tree, "chance_records", None)  # a chance node holds no position
    queue = deque(child for child in children[ROOT] if child >= 0)
    while queue:
        node = queue.popleft()
        if untried[node] == TERMINAL:
            continue
        if chance_records is not None and chance_records[node] is not None:
            queue.extend(children[node])
            continue
        candidate = states[node] if key is None else key(states[node])
        if _equal(candidate, target):
            return node
        queue.extend(child for child in children[node] if child >= 0)
    return None


def reroot(tree: Tree, node: int) -> Tree:
    """Returns a new tree of ``tree``'s class holding ``node``'s subtree, ``node`` as its root.

    Every per-node field is copied for the subtree's nodes, in the order they
    were made (a child is always made after its parent, so ``node`` comes
    first); child indices are renumbered. ``tree`` is not changed.

    Args:
        tree: the tree.
        node: a non-terminal node of ``tree``, not its root.
    """
    kept = [node]
    stack = [node]
    children = tree.children
    while stack:
        for child in children[stack.pop()]:
            if child >= 0:
                kept.append(child)
                stack.append(child)
    kept.sort()
    new_index = {old: new for new, old in enumerate(kept)}
    new = object.__new__(type(tree))
    for field in node_fields(type(tree)):
        values = getattr(tree, field)  # a per-node list (or view), or a field of the whole tree
        per_node = isinstance(values, list) or compiled.is_column(values)
        setattr(new, field, [values[i] for i in kept] if per_node else values)
    new.children = [
        tuple(new_index[child] if child >= 0 else child for child in children[i]) for i in kept
    ]
    if getattr(new, "chance_records", None) is not None:  # their outcome indexes grow
        new.chance_records = [None if r is None else copy.copy(r) for r in new.chance_records]
    widened = getattr(tree, "widened", None)
    if widened:  # progressive widening's records, renumbered; their indexes grow
        new.widened = {new_index[n]: copy.copy(r) for n, r in widened.items() if n in new_index}
    new.rewards[ROOT] = 0.0
    new.discounts[ROOT] = 0.0
    proven_values = getattr(new, "proven_values", None)
    if proven_values is not None and proven_values[ROOT] is not None:
        proven_values[ROOT] = max(
            proven_values[child]
            for child in new.children[ROOT]
            if child >= 0 and proven_values[child] is not None
        )
    return new


def node_fields(cls: type) -> list[str]:
    """The fields of a tree class: every ``__slots__`` entry up its bases.

    Most hold one entry per node; a field of the whole tree (not a list) is kept as is.
    """
    return [field for base in cls.__mro__ for field in getattr(base, "__slots__", ())]


def _equal(a: Any, b: Any) -> bool:
    """``a == b`` as a bool; TypeError if ``==`` gives something else (an array...)."""
    result = a == b
    if result is True or result is False or isinstance(result, np.bool_):
        return bool(result)
    raise TypeError(
        f"reuse_tree looks for the new root's state in the previous tree with ==, but "
        f"{describe(a)} == {describe(b)} gave {describe(result)}, not a bool; give the model "
        "a key(state) -> hashable (e.g. the state's bytes or a tuple) to compare states by"
    )
