"""See a search: principal variation, tree as DOT and JSON (``docs/guides/seeing-the-search.md``).

What :meth:`MCTS.principal_variation <mcts_agent.search.MCTS.principal_variation>`,
:meth:`~mcts_agent.search.MCTS.to_dot` and :meth:`~mcts_agent.search.MCTS.to_dict`
return (those methods call the functions here), and :func:`from_dict`, the
reader of a saved tree:

* :func:`principal_variation`: the line the search expects, from the root:
  the move played (:meth:`~mcts_agent.search.MCTS.best_action`), then the
  robust child at every node (most visits, then value, then first;
  :meth:`mcts_agent.tree.Tree.robust_child`). It stops at a terminal node, a
  node with no child tried, or after the action that leads into a chance node
  (what follows depends on the draw).
* :func:`to_dot`: a Graphviz ``digraph`` as text (no graphviz needed to make
  it; ``dot -Tsvg tree.dot -o tree.svg`` draws it). Decision nodes are boxes,
  chance nodes ellipses (the influence-diagram convention), terminal nodes
  rounded boxes with a double border; the root is green and the principal
  variation's edges blue and bold. A node's label gives its visits N, its
  value Q (from the point of view of the player who moved into it, so the
  player choosing at its parent prefers the child of highest Q), its proven
  value V (with the solver) and the player to move; an edge's label gives the
  action and, where the tree has priors (the general loop's trees), its prior
  P. As in mctx's ``visualization_demo.py``, but as plain text.
* :func:`to_dict`: the tree as a JSON-serialisable dict, one entry per node
  (fields in :func:`to_dict`), breadth first from the root. A flat list of
  nodes rather than nested dicts, so that a deep tree does not exceed JSON's
  or Python's recursion limits; :func:`from_dict` reads it back as a tuple of
  :class:`SavedNode`, which compare with ``==`` (a golden tree in a test).
"""

from __future__ import annotations

import textwrap
from collections import deque
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from mcts_agent import solver
from mcts_agent._validation import describe, require_int
from mcts_agent.summary import action_text
from mcts_agent.tree import ROOT, UNVISITED, Tree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = [
    "FORMAT",
    "MAX_NESTING",
    "VERSION",
    "Repr",
    "SavedNode",
    "from_dict",
    "principal_path",
    "principal_variation",
    "to_dict",
    "to_dot",
]

FORMAT = "mcts_agent.tree"
"""The ``"format"`` entry of :func:`to_dict`'s dict."""

VERSION = 1
"""The ``"version"`` entry of :func:`to_dict`'s dict (raised when its fields change)."""

LABEL_WIDTH = 24
"""Characters per line of an action (or an outcome's key) in a DOT label (it wraps)."""

LABEL_LINES = 3
"""Most lines of an action in a DOT label; a longer one ends in ``...``."""


class Repr(NamedTuple):
    """An action or player that JSON cannot hold, as :func:`from_dict` reads it: its ``repr``.

    Attributes:
        text: ``repr(value)`` of the value saved.
    """

    text: str


class SavedNode(NamedTuple):
    """One node of a tree saved with :func:`to_dict`, as :func:`from_dict` reads it.

    Attributes:
        index: int, the node's index in the planner's tree (``planner.tree[index]``).
        parent: int or None, the parent's position in the saved nodes (None for the root).
        action: the action from the parent into this node (at a chance
            node's child, the outcome's key); None for the root.
        depth: int, edges from the root (0 for the root).
        player: the player to move in the node; None for a terminal node.
        visits: int, N.
        value_sum: float, W.
        value: float, Q = W / N, from the point of view of the player who
            moved into the node (0.0 for the root).
        reward: float, the reward of the move into the node.
        terminal: bool, the game is over here.
        chance: bool, a chance node (its children are the outcomes drawn).
        prior: float or None, the prior of ``action`` at the parent (trees of
            the general loop; None in a plain UCT tree and below a chance node).
        proven_value: float or None, the solver's proven value.
        num_actions: int, the node's legal actions (outcomes drawn at a
            chance node), tried or not.
        children: tuple of ints, the positions of the saved children, in
            the model's order of their actions (children left out by
            ``max_depth`` or ``min_visits`` are not listed).
    """

    index: int
    parent: int | None
    action: Any
    depth: int
    player: Any
    visits: int
    value_sum: float
    value: float
    reward: float
    terminal: bool
    chance: bool
    prior: float | None
    proven_value: float | None
    num_actions: int
    children: tuple[int, ...]


# ------------------------------------------------------------ principal variation


def principal_path(planner: MCTS, max_length: int | None = None) -> list[tuple[int, int]]:
    """Returns the principal variation as ``(parent node, action index)`` pairs, root first.

    The first pair is the move :meth:`~mcts_agent.search.MCTS.best_action`
    plays (with the solver, :func:`mcts_agent.solver.best_child_index`); each
    next one the robust child of the node reached. The walk stops at a
    terminal node, a node with no child tried, after entering a chance node,
    or after ``max_length`` pairs.

    Args:
        planner: a planner that has searched.
        max_length: int >= 0, most moves, or None for no limit.

    Raises:
        RuntimeError: if no search has run yet.
        TypeError, ValueError: if ``max_length`` is not None or an int >= 0.
    """
    if max_length is not None:
        max_length = require_int("max_length", max_length, 0)
    tree = planner.tree
    if planner.solve:
        index = solver.best_child_index(tree, planner.value_bounds)
    else:
        index = tree.robust_child(ROOT)
    path: list[tuple[int, int]] = []
    node = ROOT
    while index >= 0 and (max_length is None or len(path) < max_length):
        path.append((node, index))
        node = tree.children_by_action(node)[index]
        if _is_chance(tree, node):
            break
        index = tree.robust_child(node)  # -1 at a terminal node or one with no child tried
    return path


def principal_variation(planner: MCTS, max_length: int | None = None) -> list:
    """Returns the actions of the principal variation, from the root (see :func:`principal_path`).

    Args:
        planner: a planner that has searched.
        max_length: int >= 0, most moves, or None for no limit.

    Returns:
        A list of actions; its first is ``planner.best_action()``, and played
        one after the other from the root's state they are legal moves.

    Raises:
        RuntimeError: if no search has run yet.
        TypeError, ValueError: if ``max_length`` is not None or an int >= 0.
    """
    actions = planner.tree.actions
    return [actions[node][index] for node, index in principal_path(planner, max_length)]


# ------------------------------------------------------------ walking the tree


def _is_chance(tree: Tree, node: int) -> bool:
    """True for a chance node (``Node.chance``)."""
    return tree[node].chance


def _walk(
    tree: Tree, max_depth: int | None, min_visits: int
) -> list[tuple[int, int | None, int, int]]:
    """The nodes kept, breadth first: ``(node, parent position, action index, depth)``.

    A child is kept if its depth is at most ``max_depth`` and its visits at
    least ``min_visits``; the root always.
    """
    kept: list[tuple[int, int | None, int, int]] = [(ROOT, None, -1, 0)]
    queue = deque([(ROOT, 0, 0)])  # (node, its position in kept, depth)
    visits = tree.visits
    while queue:
        node, position, depth = queue.popleft()
        if max_depth is not None and depth >= max_depth:
            continue
        for i, child in enumerate(tree.children_by_action(node)):
            if child == UNVISITED or visits[child] < min_visits:
                continue
            queue.append((child, len(kept), depth + 1))
            kept.append((child, position, i, depth + 1))
    return kept


def check_limits(max_depth: Any, min_visits: Any) -> tuple[int | None, int]:
    """``(max_depth, min_visits)`` checked: an int >= 0 (or None) and an int >= 0.

    Raises:
        TypeError, ValueError: if one is not.
    """
    if max_depth is not None:
        max_depth = require_int("max_depth", max_depth, 0)
    return max_depth, require_int("min_visits", min_visits, 0)


def _prior(tree: Tree, parent: int, index: int) -> float | None:
    """The prior of ``parent``'s action ``index``, or None (a plain tree, a chance node's child)."""
    priors = getattr(tree, "priors", None)
    if priors is None or _is_chance(tree, parent):
        return None
    row = priors[parent]
    return float(row[index]) if len(row) == len(tree.actions[parent]) else None


# ------------------------------------------------------------ DOT


def label_lines(value: Any) -> list[str]:
    """``action_text(value)`` wrapped to :data:`LABEL_WIDTH`, at most :data:`LABEL_LINES` lines.

    Floats are shortened to 4 significant digits (:func:`mcts_agent.summary.action_text`).
    """
    text = action_text(value)
    if len(text) <= LABEL_WIDTH:
        return [text]
    return textwrap.wrap(text, LABEL_WIDTH, max_lines=LABEL_LINES, placeholder=" ...")


def dot_string(lines: list[str]) -> str:
    """A DOT double-quoted string of ``lines``, joined by DOT's newline escape."""
    escaped = (line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)
    return '"' + "\\n".join(escaped) + '"'


def to_dot(planner: MCTS, max_depth: int | None = 3, min_visits: int = 1) -> str:
    """Returns the last search's tree as a Graphviz ``digraph`` (DOT text).

    Nodes are named ``n<index>`` after their index in ``planner.tree``. Labels
    (see the module docstring): the root shows ``root``, the player to move
    and N; every other node N, Q (``+.3f``), V where proven, and the player to
    move (``terminal r=<reward>`` at a terminal node); edges show the action
    (wrapped at :data:`LABEL_WIDTH` characters, :data:`LABEL_LINES` lines at
    most) and P where the tree has priors.

    Args:
        planner: a planner that has searched.
        max_depth: int >= 0, the deepest nodes drawn (the root is at depth
            0; a chance node counts as a level), or None for every depth.
        min_visits: int >= 0, children with fewer visits are left out, with
            their subtrees.

    Returns:
        The DOT text, ending in a newline.

    Raises:
        RuntimeError: if no search has run yet.
        TypeError, ValueError: if ``max_depth`` or ``min_visits`` is not an
            int >= 0 (``max_depth`` may be None).
    """
    max_depth, min_visits = check_limits(max_depth, min_visits)
    tree = planner.tree
    pv_edges = {tree.children_by_action(parent)[index] for parent, index in principal_path(planner)}
    lines = [
        "digraph mcts {",
        "  // mcts_agent search tree: N visits; Q mean return for the player who moved into the",
        "  // node; V proven value (solver); P prior of the action; principal variation in blue.",
        '  node [shape=box, fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    kept = _walk(tree, max_depth, min_visits)
    for node, parent_position, index, _ in kept:
        view = tree[node]
        attributes = []
        if node == ROOT:
            label = ["root", f"to move: {view.player}", f"N={view.visits}"]
            attributes.append("color=green, penwidth=2")
        else:
            label = [f"N={view.visits}", f"Q={view.value:+.3f}"]
        if view.proven_value is not None:
            label.append(f"V={view.proven_value:+g}")
        if view.chance:
            label.insert(0, "chance")
            attributes.append("shape=ellipse")
        elif view.terminated:
            if node != ROOT:
                label.append(f"terminal r={view.reward:+g}")
            attributes.append("style=rounded, peripheries=2")
        elif node != ROOT:
            label.append(f"to move: {view.player}")
        lines.append(f"  n{node} [{', '.join([f'label={dot_string(label)}', *attributes])}];")
        if parent_position is None:
            continue
        parent = kept[parent_position][0]
        edge_label = label_lines(tree.actions[parent][index])
        prior = _prior(tree, parent, index)
        if prior is not None:
            edge_label.append(f"P={prior:.3f}")
        edge = [f"label={dot_string(edge_label)}"]
        if node in pv_edges:
            edge.append("color=blue, penwidth=2.5")
        lines.append(f"  n{parent} -> n{node} [{', '.join(edge)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------ JSON


def json_value(value: Any) -> Any:
    """``value`` as JSON holds it: a number, str, bool or None; a tuple as a list; else a repr."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)  # an IntEnum as its int
    if isinstance(value, float):
        return float(value)
    if isinstance(value, np.generic):
        return json_value(value.item())
    if isinstance(value, tuple):
        return [json_value(item) for item in value]
    return {"repr": repr(value)}


MAX_NESTING = 100
"""Most levels of lists in a saved action or player that :func:`from_dict` reads."""


def _decode(value: Any, depth: int = 0) -> Any:
    """A saved action or player back: lists as tuples, ``{"repr": text}`` as :class:`Repr`.

    Raises:
        ValueError: if it is nested more than :data:`MAX_NESTING` lists deep,
            or holds a dict other than ``{"repr": str}``.
    """
    if isinstance(value, list):
        if depth == MAX_NESTING:
            raise ValueError(
                f"expected an action or player nested at most {MAX_NESTING} lists deep; got "
                "one nested deeper"
            )
        return tuple(_decode(item, depth + 1) for item in value)
    if isinstance(value, dict):
        if set(value) != {"repr"} or not isinstance(value["repr"], str):
            raise ValueError(f'expected an action or player, or {{"repr": str}}; got {value!r}')
        return Repr(value["repr"])
    return value


def to_dict(planner: MCTS, max_depth: int | None = None, min_visits: int = 0) -> dict:
    """Returns the last search's tree as a JSON-serialisable dict (``json.dump`` writes it).

    The dict::

        {"format": "mcts_agent.tree", "version": 1, "max_depth": ..., "min_visits": ...,
         "nodes": [node, ...]}

    ``nodes`` lists the nodes kept breadth first from the root (the root at
    position 0, a parent before its children, siblings in the model's order
    of their actions), each a dict with the fields of :class:`SavedNode`:
    ``index`` (in ``planner.tree``), ``parent`` (its position in ``nodes``,
    null for the root), ``action`` (into the node; null for the root),
    ``depth``, ``player``, ``visits``, ``value_sum``, ``value`` (Q, for the
    player who moved into the node), ``reward``, ``terminal``, ``chance``,
    ``prior`` (null in a plain UCT tree), ``proven_value`` (null unless
    proven), ``num_actions`` and ``children`` (positions in ``nodes``).
    States are not saved (a model's states need not be JSON).

    Actions and players are saved as themselves when they are ints, floats,
    strs, bools or None, numpy scalars as the Python scalar (equal to it), a
    tuple as a list of its items so saved; anything else as ``{"repr":
    repr(value)}``. Floats are saved exactly (JSON writes ``repr(float)``).

    Args:
        planner: a planner that has searched.
        max_depth: int >= 0, the deepest nodes kept (root at 0), or None for all.
        min_visits: int >= 0, children with fewer visits are left out, with
            their subtrees.

    Raises:
        RuntimeError: if no search has run yet.
        TypeError, ValueError: if ``max_depth`` or ``min_visits`` is not an
            int >= 0 (``max_depth`` may be None).
    """
    max_depth, min_visits = check_limits(max_depth, min_visits)
    tree = planner.tree
    kept = _walk(tree, max_depth, min_visits)
    nodes = []
    for node, parent_position, index, depth in kept:
        view = tree[node]
        parent = None if parent_position is None else kept[parent_position][0]
        nodes.append(
            {
                "index": node,
                "parent": parent_position,
                "action": None if parent is None else json_value(tree.actions[parent][index]),
                "depth": depth,
                "player": json_value(view.player),
                "visits": view.visits,
                "value_sum": view.value_sum,
                "value": view.value,
                "reward": float(view.reward),
                "terminal": view.terminated,
                "chance": view.chance,
                "prior": None if parent is None else _prior(tree, parent, index),
                "proven_value": view.proven_value,
                "num_actions": len(view.actions),
                "children": [],
            }
        )
        if parent_position is not None:
            nodes[parent_position]["children"].append(len(nodes) - 1)
    return {
        "format": FORMAT,
        "version": VERSION,
        "max_depth": max_depth,
        "min_visits": min_visits,
        "nodes": nodes,
    }


_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "index": (int,),
    "parent": (int, type(None)),
    "depth": (int,),
    "visits": (int,),
    "value_sum": (float, int),
    "value": (float, int),
    "reward": (float, int),
    "terminal": (bool,),
    "chance": (bool,),
    "prior": (float, int, type(None)),
    "proven_value": (float, int, type(None)),
    "num_actions": (int,),
    "children": (list,),
}


def from_dict(data: dict) -> tuple[SavedNode, ...]:
    """Reads a tree saved by :func:`to_dict` (after ``json.load``): its nodes, root first.

    Lists saved for tuples come back as tuples, ``{"repr": text}`` as
    :class:`Repr`; so ``from_dict(json.loads(json.dumps(planner.to_dict())))
    == from_dict(planner.to_dict())``.

    Args:
        data: the dict.

    Returns:
        A tuple of :class:`SavedNode`, in the saved order (the root first).

    Raises:
        ValueError: if ``data`` is not such a dict (another format or
            version, a missing or extra field, a field of the wrong type, a
            parent or child position out of range, a child listed twice or
            by a node that is not its ``parent``, a node its parent does not
            list, an action or player nested more than :data:`MAX_NESTING`
            lists deep); the message names the node and the field.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(
            f'expected a dict with "format": {FORMAT!r} (from mcts_agent.export.to_dict), '
            f"got {describe(data)}"
        )
    version = data.get("version")
    if version.__class__ is not int or version != VERSION:  # true == 1, but is no version
        raise ValueError(
            f"expected a saved tree of version {VERSION}, got version {data.get('version')!r}"
        )
    nodes = data.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        raise ValueError(f'expected "nodes" to be a non-empty list, got {describe(nodes)}')
    expected = set(SavedNode._fields)
    saved = []
    for position, entry in enumerate(nodes):
        if not isinstance(entry, dict) or set(entry) != expected:
            keys = sorted(entry) if isinstance(entry, dict) else describe(entry)
            raise ValueError(
                f"node {position}: expected a dict with the keys {sorted(expected)}, got {keys}"
            )
        for field, types in _FIELD_TYPES.items():
            value = entry[field]
            if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                raise ValueError(
                    f"node {position}: {field} must be of type "
                    f"{' or '.join(t.__name__ for t in types)}, got {describe(value)}"
                )
        parent, children = entry["parent"], entry["children"]
        if (position == 0) != (parent is None) or (
            parent is not None and not 0 <= parent < position
        ):
            raise ValueError(
                f"node {position}: parent must be null for the root (position 0) and an "
                f"earlier position otherwise, got {parent!r}"
            )
        if not all(c.__class__ is int and position < c < len(nodes) for c in children):
            raise ValueError(
                f"node {position}: children must be later positions in nodes (< {len(nodes)}), "
                f"got {describe(children)}"
            )
        values = {}
        for field in ("action", "player"):
            try:
                values[field] = _decode(entry[field])
            except ValueError as error:
                raise ValueError(f"node {position}: {field}: {error}") from None
        saved.append(SavedNode(**{**entry, **values, "children": tuple(children)}))
    # Each node but the root listed once, by its parent, among its parent's children.
    listed_by: list[int | None] = [None] * len(saved)
    for position, node in enumerate(saved):
        for child in node.children:
            if listed_by[child] is not None:
                raise ValueError(
                    f"node {position}: children list node {child}, which node "
                    f"{listed_by[child]} lists already; expected each node once"
                )
            listed_by[child] = position
            if saved[child].parent != position:
                raise ValueError(
                    f"node {position}: children list node {child}, whose parent is "
                    f"{saved[child].parent}; expected {position}"
                )
    for position in range(1, len(saved)):
        if listed_by[position] is None:
            raise ValueError(
                f"node {position}: its parent, node {saved[position].parent}, does not list it "
                "among its children"
            )
    return tuple(saved)
