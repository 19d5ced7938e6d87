"""The search tree: flat per-node lists for speed, read through :class:`Node` views.

Storage follows mctx's struct-of-arrays layout (``node_visits``,
``children_index``...): node ``i``'s fields live at index ``i`` of one list per
field, the root is node :data:`ROOT` (0), and an action not tried yet has child
index :data:`UNVISITED` (-1). Users read it through :class:`Tree`, a read-only
sequence of :class:`Node` records, root first.

Value convention (negamax, ``docs/concepts/iteration.md``): every node's value is from the point
of view of the player who moved into it, so the player to move at a node
simply prefers the child of highest value. The root has no mover; its
``value_sum`` stays 0 (a root kept from a previous tree by ``reuse_tree``
keeps the W it had as a child, unused).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence
from typing import Any, NamedTuple, overload

__all__ = ["ROOT", "TERMINAL", "UNVISITED", "GuidedTree", "Node", "Tree"]

ROOT = 0
"""Index of the root node in a :class:`Tree`."""

UNVISITED = -1
"""Child index of an action that has not been tried yet."""


class Node(NamedTuple):
    """A read-only snapshot of one node of the search tree.

    Attributes:
        state: the model state the node holds.
        player: the player to move in ``state``; None for a terminal node (the
            model is not asked about finished games).
        reward: float, the reward received by the player who moved into this
            node (0.0 for the root).
        terminated: True if the game is over here (the move into it ended the
            game, or the state has no legal actions).
        actions: tuple of the legal actions, in the model's order, asked once
            when the node was made; empty for a terminal node.
        children: tuple of ints, shape ``[len(actions)]``: the index in the
            tree of the node reached by ``actions[i]``, or ``UNVISITED`` (-1).
        visits: int, N, the number of iterations that passed through the node.
        value_sum: float, W, the sum of the returns backed up through the node,
            from the point of view of the player who moved into it.
        value: float, Q = W / N (0.0 while N = 0).
        proven_value: float or None: the solver's proven value of the node
            (``MCTS(solve=True)``), from the point of view of the player who
            moved into it (the root's: from its player to move's, the best
            child's); None while unproven, and always without the solver.
        chance: True for a chance node (``docs/guides/chance.md``; only in
            the tree of a stochastic model, :mod:`mcts_agent.chance`): the
            node of one action of its parent, holding the parent's state and
            player, reward 0.0; its ``actions`` are the outcomes drawn so far,
            each as its key ``(model.key(next_state), reward, terminated)``,
            and ``children[i]`` the decision node of ``actions[i]``; its value
            is the mean return of the action from the chooser's point of view.
        returns: dict or None: in the tree of a model reporting every player's
            reward (:mod:`mcts_agent.maxn`), every player's mean return through
            the node, ``{player: W_player / N}`` (0.0 while N = 0); ``value``
            is then its mover's entry. None in any other tree.
    """

    state: Any
    player: Hashable | None
    reward: float
    terminated: bool
    actions: tuple
    children: tuple[int, ...]
    visits: int
    value_sum: float
    value: float
    proven_value: float | None
    chance: bool = False
    returns: dict | None = None


TERMINAL = -1
"""``Tree.untried`` of a terminal node (it has no actions to try)."""


class Tree(Sequence[Node]):
    """A search tree stored as one list per field, indexed by node.

    ``tree[i]`` returns a :class:`Node` snapshot of node ``i``; ``tree[0]`` is
    the root; nodes are numbered in the order they were added. The lists are
    public to the search (``mcts_agent.search``) and read-only to everyone
    else.

    The layout is chosen for the search's inner loop (profiled) and for memory:

    * ``children[i]`` holds only the children made so far, in the model's
      order (expansion always takes the first untried action), as a tuple that
      grows by one at each expansion; a node with none shares the empty tuple.
      (The pure loop links the children of a node of more than 64 actions in
      a list and writes their tuple when the node is full or a chunk of
      iterations ends, so that k expansions cost O(k): inside a chunk, the
      Python code the search calls may see it lag.)
      The :class:`Node` view pads it with ``UNVISITED`` up to ``len(actions)``.
    * ``untried[i]`` counts the actions not tried yet, and is :data:`TERMINAL`
      (-1) for a terminal node, so that one test, ``untried[i] == 0``, says
      "selection goes on through this node".
    * ``discounts[i]`` is one of two shared floats, ``+gamma`` or ``-gamma``.

    Attributes:
        states, players, rewards, actions, visits, value_sums: per-node fields
            (see :class:`Node`), each a list of length ``len(tree)``.
        children: per-node tuple of the indices of the children made so far,
            in the order of ``actions``.
        untried: per-node int, ``len(actions) - len(children)``, or
            :data:`TERMINAL` for a terminal node.
        discounts: per-node float, ``+gamma`` if the node's player to move is
            the player who moved into it and ``-gamma`` otherwise (the sign rule
            of the backup); 0.0 for the root.
        values: per-node float, W / N, kept up to date by the backup (0.0
            while N = 0).
    """

    __slots__ = (
        "states",
        "players",
        "rewards",
        "discounts",
        "actions",
        "children",
        "untried",
        "visits",
        "value_sums",
        "values",
    )

    def __init__(self, state: Any, player: Hashable, actions: tuple) -> None:
        """Makes a tree holding only the root.

        Args:
            state: the root's state.
            player: the player to move at the root.
            actions: the root's legal actions (non-empty tuple).
        """
        self.states: list[Any] = [state]
        self.players: list[Hashable | None] = [player]
        self.rewards: list[float] = [0.0]
        self.discounts: list[float] = [0.0]
        self.actions: list[tuple] = [actions]
        self.children: list[tuple[int, ...]] = [()]
        self.untried: list[int] = [len(actions)]
        self.visits: list[int] = [0]
        self.value_sums: list[float] = [0.0]
        self.values: list[float] = [0.0]

    def __len__(self) -> int:
        return len(self.states)

    @overload
    def __getitem__(self, index: int) -> Node: ...

    @overload
    def __getitem__(self, index: slice) -> list[Node]: ...

    def __getitem__(self, index: int | slice) -> Node | list[Node]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"node index {index} out of range for a tree of {len(self)} nodes")
        return Node(
            state=self.states[index],
            player=self.players[index],
            reward=self.rewards[index],
            terminated=self.untried[index] == TERMINAL,
            actions=self.actions[index],
            children=self.children_by_action(index),
            visits=self.visits[index],
            value_sum=self.value_sums[index],
            value=self.values[index],
            proven_value=self._proven_value(index),
            chance=self._is_chance(index),
        )

    def _proven_value(self, index: int) -> float | None:
        """The node's proven value: None in a plain tree (the solver runs the general loop)."""
        return None

    def _is_chance(self, index: int) -> bool:
        """Whether the node is a chance node: never in a plain tree (chance: the general loop)."""
        return False

    def children_by_action(self, index: int) -> tuple[int, ...]:
        """Returns node ``index``'s child per action (model's order), ``UNVISITED`` if untried."""
        children = self.children[index]
        return children + (UNVISITED,) * (len(self.actions[index]) - len(children))

    def robust_child(self, index: int) -> int:
        """Returns the index in ``actions[index]`` of node ``index``'s robust child, -1 if none.

        The robust child (Browne et al., 2012, §5.4) is the tried child of most
        visits, then of highest value (from the point of view of the player
        choosing at node ``index``), then the first in the model's order.
        """
        visits = self.visits
        values = self.values
        best_index = -1
        best_key: tuple[int, float] = (-1, -math.inf)
        for i, child in enumerate(self.children_by_action(index)):
            if child == UNVISITED:
                continue
            key = (visits[child], values[child])
            if key > best_key:
                best_key = key
                best_index = i
        return best_index

    def __iter__(self) -> Iterator[Node]:
        return (self[i] for i in range(len(self)))


class GuidedTree(Tree):
    """The general search loop's tree (``mcts_agent.general_loop``): a :class:`Tree` plus priors.

    Read as a :class:`Tree` (the same :class:`Node` views). It differs where
    the general loop needs it, PUCT trying a node's actions in any order:

    * ``children[i]`` holds the children made so far in the model's order of
      their actions, as in a :class:`Tree`, but they need not be the first
      actions: ``action_indices[child]`` says which action made each one.
    * ``priors[i]``: the node's normalised priors, a tuple of floats of shape
      ``[len(actions)]`` (uniform without an evaluator; the root's include the
      root noise); ``()`` for a terminal node.
    * ``scaled_priors[i]``: ``c * P(a)`` (the exploration times the prior of
      the action ``a`` that made node ``i``), PUCT's first product, worked out
      once when the node is made; 0.0 for the root.
    * ``leaf_values[i]``: the evaluator's value for the node (from the point of
      view of its player to move), or None (no evaluator, the evaluator gave
      None, or a terminal node).
    * ``expansion_orders[i]``: the order in which PUCT tries the node's actions
      (:func:`mcts_agent.selection.expansion_order`); None until the node is
      first selected from.
    * ``proven_values[i]``: the solver's proven value (see :class:`Node`), or
      None (unproven, or no solver).
    * ``chance_records[i]``: for a chance node of a stochastic model
      (:mod:`mcts_agent.chance`), its
      :class:`~mcts_agent.chance.ChanceRecord`; None for a decision node. A
      chance node's ``untried`` is 0 between iterations, its ``discounts``
      entry 1.0, its ``actions`` the keys of the outcomes drawn so far and its
      ``children`` their nodes (``action_indices`` of an outcome node: its
      outcome's index); its ``priors`` are 0.0, one per outcome (unused).

    Attributes:
        action_indices: per-node int, the index in the parent's ``actions`` of
            the action that made the node (-1 for the root).
        priors, scaled_priors, leaf_values, expansion_orders, proven_values,
        chance_records: per-node fields (see above).
        widened: dict, node -> WideningRecord (see above).
    """

    __slots__ = (
        "action_indices",
        "priors",
        "scaled_priors",
        "leaf_values",
        "expansion_orders",
        "proven_values",
        "chance_records",
        "widened",
    )

    def __init__(
        self, state: Any, player: Hashable, actions: tuple, priors: tuple, leaf_value: float | None
    ) -> None:
        """Makes a tree holding only the root.

        Args:
            state: the root's state.
            player: the player to move at the root.
            actions: the root's legal actions (non-empty tuple).
            priors: the root's normalised priors, one per action.
            leaf_value: the evaluator's value of the root (kept, not used), or None.
        """
        super().__init__(state, player, actions)
        self.action_indices: list[int] = [-1]
        self.priors: list[tuple[float, ...]] = [priors]
        self.scaled_priors: list[float] = [0.0]
        self.leaf_values: list[float | None] = [leaf_value]
        self.expansion_orders: list[Sequence[int] | None] = [None]
        self.proven_values: list[float | None] = [None]
        self.chance_records: list[Any] = [None]
        self.widened: dict[int, Any] = {}

    def append_node(
        self,
        state: Any,
        player: Hashable | None,
        reward: float,
        discount: float,
        actions: tuple,
        untried: int,
        action_index: int,
        priors: tuple,
        scaled_prior: float,
        leaf_value: float | None,
        chance_record: Any = None,
    ) -> int:
        """Appends one node's entry to every per-node list; returns its index.

        The node has no children and no visits yet (N = 0, W = 0.0, Q = 0.0,
        no expansion order, unproven); the caller links it into its parent's
        ``children`` and takes one off the parent's ``untried``. The
        arguments are the per-node fields of the same names (see the class
        docstring and :class:`Tree`).
        """
        index = len(self.states)
        self.states.append(state)
        self.players.append(player)
        self.rewards.append(reward)
        self.discounts.append(discount)
        self.actions.append(actions)
        self.children.append(())
        self.untried.append(untried)
        self.visits.append(0)
        self.value_sums.append(0.0)
        self.values.append(0.0)
        self.action_indices.append(action_index)
        self.priors.append(priors)
        self.scaled_priors.append(scaled_prior)
        self.leaf_values.append(leaf_value)
        self.expansion_orders.append(None)
        self.proven_values.append(None)
        self.chance_records.append(chance_record)
        return index

    def _proven_value(self, index: int) -> float | None:
        return self.proven_values[index]

    def _is_chance(self, index: int) -> bool:
        return self.chance_records[index] is not None

    def children_by_action(self, index: int) -> tuple[int, ...]:
        """Returns node ``index``'s child per action (model's order), ``UNVISITED`` if untried."""
        by_action = [UNVISITED] * len(self.actions[index])
        action_indices = self.action_indices
        for child in self.children[index]:
            by_action[action_indices[child]] = child
        return tuple(by_action)
