"""Information-set MCTS (work in progress, issue 32): the search of a hidden-information model.

SPEC.md, "Hidden information"; Cowling, Powley & Whitehouse (2012),
"Information Set Monte Carlo Tree Search" (SO-ISMCTS with nodes per mover);
OpenSpiel's ``algorithms/is_mcts.cc`` (nodes keyed by the current player's
information state, statistics per action, availability counts).

A model with ``information_set(state, player)`` and ``sample_world(state,
player, rng)`` is searched as follows. Each iteration draws ``w =
sample_world(root_state, root_player, rng)`` and walks ``w``. A decision node
is keyed by ``(player to move, information_set(state, player to move))``:
walks through different worlds that the mover cannot tell apart share it, so
the nodes form a graph, and the statistics live on a node's actions: ``N(a)``
(visits), ``W(a)`` (returns from the mover's point of view) and ``A(a)``
(availability: the visits to the node in which ``a`` was legal). At a node,
every legal action gets ``A(a) += 1``; the first legal action never tried
(model order) is taken, else UCB1 ``Q(a) + c * sqrt(ln A(a) / N(a))`` over
the legal actions (first of the highest). The iteration stops after an
untried action or on reaching a node not seen before (made then), rolls out
in ``w``, and backs up with the plain loop's sign rule. The move played is
the root's most visited action.

Not wired into :class:`~mcts_agent.search.MCTS` yet: :func:`run` is the loop.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable
from typing import Any

from mcts_agent.tree import UNVISITED, Node

__all__ = ["InformationSetTree", "run"]


class InformationSetTree:
    """The nodes of an ISMCTS search, keyed by ``(player, information set)``; root first.

    Attributes:
        root_state: the state searched from (the true state; only its
            ``player``'s information is used).
        root_player: the player to move there.
        keys: per node, its key ``(player, information_set)``.
        index: dict, key -> node.
        players: per node, the player to move.
        visits: per node, the iterations through it.
        actions: per node, the actions seen legal there, in the order first seen.
        edge_visits, edge_values, availability: per node, dicts action -> N(a),
            W(a) (the sum of returns from the node's player's point of view),
            A(a).
    """

    def __init__(self, root_state: Any, root_player: Hashable, root_key: Hashable) -> None:
        self.root_state = root_state
        self.root_player = root_player
        self.keys: list[Hashable] = []
        self.index: dict[Hashable, int] = {}
        self.players: list[Hashable] = []
        self.visits: list[int] = []
        self.actions: list[list[Any]] = []
        self.edge_visits: list[dict[Any, int]] = []
        self.edge_values: list[dict[Any, float]] = []
        self.availability: list[dict[Any, int]] = []
        self.add_node(root_player, root_key)

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, node: int) -> Node:
        """A :class:`~mcts_agent.tree.Node` view of the root (``node`` 0), for ``MCTS.search``.

        Its ``children`` are all ``UNVISITED``: an action leads to a node per
        information set of the next mover, which differs from world to world
        (the root's statistics per action are in :meth:`MCTS.summary`).

        Raises:
            IndexError: for any node but the root (the graph has no single child per action).
        """
        if node != 0:
            raise IndexError("an information-set tree gives a Node view of its root (0) only")
        actions = tuple(self.actions[0])
        return Node(
            state=self.root_state,
            player=self.root_player,
            reward=0.0,
            terminated=False,
            actions=actions,
            children=(UNVISITED,) * len(actions),
            visits=self.visits[0],
            value_sum=0.0,
            value=0.0,
            proven_value=None,
        )

    def add_node(self, player: Hashable, key: Hashable) -> int:
        """Adds the node of ``key`` (player to move ``player``), no statistics yet; its index."""
        node = len(self.keys)
        self.keys.append(key)
        self.index[key] = node
        self.players.append(player)
        self.visits.append(0)
        self.actions.append([])
        self.edge_visits.append({})
        self.edge_values.append({})
        self.availability.append({})
        return node

    def most_visited(self, node: int = 0) -> Any:
        """The action of most visits at ``node`` (then highest mean value, then first seen)."""
        visits = self.edge_visits[node]
        values = self.edge_values[node]
        best, best_key = None, (-1, -math.inf)
        for action in self.actions[node]:
            n = visits.get(action, 0)
            key = (n, values.get(action, 0.0) / n if n else -math.inf)
            if key > best_key:
                best, best_key = action, key
        return best


def run(
    model: Any,
    tree: InformationSetTree,
    iterations: int,
    rng: random.Random,
    exploration: float,
    rollout: Callable[[Any, tuple, Hashable], float] | None,
    gamma: float = 1.0,
) -> None:
    """Runs ``iterations`` ISMCTS iterations on ``tree`` (see the module docstring).

    Args:
        model: the model (``actions``, ``step``, ``player``, ``information_set``,
            ``sample_world``).
        tree: the tree to grow (its root from ``root_state``).
        iterations: int >= 1.
        rng: the planner's generator (worlds and rollouts).
        exploration: UCB1's c.
        rollout: ``rollout(state, actions, player) -> G`` (the search's generic
            rollout, from ``player``'s point of view), or None for G = 0.
        gamma: the discount.
    """
    actions_of = model.actions
    player_of = model.player
    step = model.step
    information_set = model.information_set
    sample_world = model.sample_world
    root_state, root_player = tree.root_state, tree.root_player
    log, sqrt = math.log, math.sqrt
    index = tree.index
    for _ in range(iterations):
        state = sample_world(root_state, root_player, rng)
        node = 0
        path: list[tuple[int, Any, Hashable, float]] = []  # (node, action, mover, reward)
        g = 0.0
        leaf_player = None
        while True:
            legal = tuple(actions_of(state))
            if not legal:
                break  # terminal: G = 0
            mover = tree.players[node]
            counts = tree.edge_visits[node]
            values = tree.edge_values[node]
            available = tree.availability[node]
            seen = tree.actions[node]
            action = None
            for a in legal:
                if a not in available:
                    available[a] = 0
                    seen.append(a)
                available[a] += 1
                if action is None and counts.get(a, 0) == 0:
                    action = a  # the first untried legal action
            expanded = action is not None
            if not expanded:
                best = -math.inf
                for a in legal:
                    n = counts[a]
                    score = values[a] / n + exploration * sqrt(log(available[a]) / n)
                    if score > best:
                        best, action = score, a
            state, reward, terminated = step(state, action)
            path.append((node, action, mover, float(reward)))
            if terminated or not actions_of(state):
                break
            player = player_of(state)
            key = (player, information_set(state, player))
            child = index.get(key)
            if child is None:
                child = tree.add_node(player, key)
                expanded = True
            if expanded:
                leaf_player = player
                if rollout is not None:
                    g = rollout(state, tuple(actions_of(state)), player)
                break
            node = child
        # Backup, leaf first: G = r + gamma * G if the mover moves again, else r - gamma * G.
        next_player = leaf_player
        for node, action, mover, reward in reversed(path):
            if next_player is not None:
                g = reward + (gamma if next_player == mover else -gamma) * g
            else:
                g = reward  # the move that ended the game
            tree.edge_visits[node][action] = tree.edge_visits[node].get(action, 0) + 1
            tree.edge_values[node][action] = tree.edge_values[node].get(action, 0.0) + g
            tree.visits[node] += 1
            next_player = mover


def is_hidden(model: Any) -> bool:
    """True if ``model`` has callable ``information_set`` and ``sample_world`` (ISMCTS)."""
    return callable(getattr(model, "information_set", None)) and callable(
        getattr(model, "sample_world", None)
    )


def check_composition(planner: Any) -> None:
    """Refuses, each with its cause, what this version of ISMCTS does not compose with yet.

    Raises:
        ValueError: for an evaluator, PUCT, ``max_depth``, root noise, the
            solver, a stochastic model (the world fixes the chance),
            progressive widening, leaf batching, workers, tree reuse, value
            normalisation or a model reporting every player's reward.
    """
    refused = [
        name
        for name, on in (
            ("an evaluator", planner.evaluator is not None),
            ('selection="puct"', planner.selection != "uct"),
            ("max_depth", planner.max_depth is not None),
            ("root_noise", planner.root_noise is not None),
            ("solve=True", planner.solve),
            ("a stochastic model (a world fixes every draw)", planner.stochastic),
            ("widening", planner.widening is not None),
            ("leaf_batch > 1", planner.leaf_batch > 1),
            ("workers > 1", planner.workers > 1),
            ("reuse_tree=True", planner.reuse_tree),
            ("value_normalization=True", planner.value_normalization),
            ("a model reporting every player's reward", planner.reward_players is not None),
        )
        if on
    ]
    if refused:
        raise ValueError(
            "information-set MCTS (a model with information_set and sample_world) is not "
            "built yet for " + ", ".join(refused)
        )


def root_summary(tree: InformationSetTree) -> tuple[tuple, tuple[int, ...], tuple[float, ...]]:
    """``(actions, visit_counts, values)`` of the root: its actions in the order first seen."""
    actions = tuple(tree.actions[0])
    visits = tree.edge_visits[0]
    values = tree.edge_values[0]
    counts = tuple(visits.get(a, 0) for a in actions)
    means = tuple(values[a] / n if n else math.nan for a, n in zip(actions, counts, strict=True))
    return actions, counts, means


DETERMINIZATIONS = 10
"""Worlds a ``determinize=True`` search draws (perfect-information Monte Carlo)."""


class PerfectInformation:
    """A hidden-information model seen as a perfect-information one (a world is a state).

    Exposes ``actions``, ``step``, ``player`` (and ``rollout`` where the model
    has it), not ``information_set`` or ``sample_world``, so that the search
    of one world is the ordinary one.
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.actions = model.actions
        self.step = model.step
        self.player = model.player
        if callable(getattr(model, "rollout", None)):
            self.rollout = model.rollout


def determinized(planner: Any, state: Any, iterations: int) -> InformationSetTree:
    """Perfect-information Monte Carlo: one search per sampled world, root visits summed.

    The contrast to ISMCTS (SPEC.md, "Hidden information"; Long et al. 2010,
    "Understanding the success of perfect information Monte Carlo sampling in
    game tree search"): :data:`DETERMINIZATIONS` worlds are drawn from
    ``sample_world(state, player, rng)``; each is searched with
    ``ceil(iterations / DETERMINIZATIONS)`` iterations of the plain loop (the
    planner's exploration, discount and rollout limit, a seed drawn from its
    generator), and each root action's visits and value sums are added up.
    Each world's search knows the hidden cards, so a move can be credited with
    a plan only someone who saw them could make (strategy fusion).

    Returns:
        An :class:`InformationSetTree` holding only the root, its statistics the sums.
    """
    from mcts_agent.search import MCTS

    model = planner.model
    player = model.player(state)
    tree = InformationSetTree(state, player, (player, model.information_set(state, player)))
    per_world = math.ceil(iterations / DETERMINIZATIONS)
    view = PerfectInformation(model)
    for _ in range(DETERMINIZATIONS):
        world = model.sample_world(state, player, planner.rng)
        search = MCTS(
            view,
            per_world,
            exploration=planner.exploration,
            gamma=planner.gamma,
            rollout_limit=planner.rollout_limit,
            seed=planner.rng.getrandbits(63),
        )
        search.search(world)
        sub = search.tree
        for action, child in zip(sub.actions[0], sub.children_by_action(0), strict=True):
            if action not in tree.availability[0]:
                tree.actions[0].append(action)
                tree.availability[0][action] = 0
            tree.availability[0][action] += 1
            if child >= 0:
                visits = tree.edge_visits[0]
                values = tree.edge_values[0]
                visits[action] = visits.get(action, 0) + sub.visits[child]
                values[action] = values.get(action, 0.0) + sub.value_sums[child]
        tree.visits[0] += sub.visits[0]
    return tree
