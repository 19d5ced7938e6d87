"""Information-set MCTS: the search of a hidden-information model.

``docs/guides/hidden-information.md``.

SPEC.md, "Hidden information"; Cowling, Powley & Whitehouse (2012),
"Information Set Monte Carlo Tree Search" (single-observer ISMCTS, one node
per information set of the player to move); OpenSpiel's
``algorithms/is_mcts.cc`` (nodes keyed by the mover's information state,
statistics per action, availability counts).

A model with ``information_set(state, player)`` and ``sample_world(state,
player, rng)`` is searched as follows. Each iteration draws ``w =
sample_world(root_state, root_player, rng)`` and walks ``w``. A decision node
is keyed by ``(player to move, information_set(state, player to move))``:
walks through different worlds that the mover cannot tell apart share it, so
the nodes form a graph, and the statistics live on a node's actions: ``N(a)``
(visits), ``W(a)`` (returns from the mover's point of view) and ``A(a)``
(availability: the earlier visits to the node in which ``a`` was legal,
counting the arrival that ended an iteration there, as the plain tree counts
a new leaf's first visit). At a node:

* UCT: the first legal action never tried (model order) is taken, else UCB1
  ``Q(a) + c * sqrt(ln A(a) / N(a))`` over the legal actions (first of the
  highest);
* PUCT: ``Q(a) + c * P(a) * sqrt(max(A(a), 1)) / (1 + N(a))`` over the
  legal actions (``Q = unvisited_value`` for an untried one), ``P(a)`` the
  evaluator's prior of ``a`` from the first evaluation that listed it
  (uniform without an evaluator);

then every legal action gets ``A(a) += 1``. Where every action is always
legal, ``A(a)`` is the plain rule's ``N(s)``.

With ``value_normalization`` a tried action's Q reads ``(Q - lo) / (hi -
lo)`` over the edge values met in this search's backups (as
:mod:`mcts_agent.normalization` does with node values). The iteration stops
after an untried action, on reaching a node not seen before (made then), or
at ``max_depth``; the leaf's return is the evaluator's value in ``w`` if it
gives one, else a rollout in ``w``; the backup is the plain loop's sign rule
(negamax) or, for a model with ``reward_players``, every player's return
(max^n, :mod:`mcts_agent.maxn`), each node's ``W(a)`` its mover's component.
The move played is the root's most visited action.

With every action always legal and ``information_set`` the state itself,
the search is the perfect-information one: the same visits and values as the
plain and general loops (``tests/test_information_sets.py``).

``determinize=True`` runs perfect-information Monte Carlo instead
(:class:`Determinized`), the documented contrast.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from mcts_agent import maxn
from mcts_agent._validation import describe
from mcts_agent.evaluator import checked_evaluation, uniform_priors
from mcts_agent.export import dot_string, json_value, label_lines
from mcts_agent.normalization import normalizer
from mcts_agent.tree import ROOT, UNVISITED, Node

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = [
    "DETERMINIZATIONS",
    "Determinized",
    "InformationSetTree",
    "PerfectInformation",
    "check_composition",
    "is_hidden",
    "root_priors",
    "root_summary",
    "run",
    "to_dict",
    "to_dot",
]


class InformationSetTree:
    """The nodes of an ISMCTS search, keyed by ``(player, information set)``; root first.

    Attributes:
        root_state: the state searched from (the true state; only its
            ``player``'s information is used).
        root_player: the player to move there.
        keys: per node, its key ``(player, information_set)``.
        index: dict, key -> node.
        players: per node, the player to move.
        visits: per node, the iterations through it (as a node walked, not as a leaf).
        actions: per node, the actions seen legal there, in the order first seen.
        edge_visits, edge_values, availability: per node, dicts action -> N(a),
            W(a) (the sum of returns from the node's player's point of view),
            A(a).
        priors: per node, dict action -> P(a), the evaluator's prior from the
            first evaluation that listed ``a`` (empty without an evaluator).
        children: per node, dict action -> the nodes that action led to, in
            the order first reached (one per information set of the next mover).
        searched_nodes: the nodes of the worlds' trees of a ``determinize=True``
            search (this tree then holds their root's sums only), else None.
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
        self.priors: list[dict[Any, float]] = []
        self.children: list[dict[Any, list[int]]] = []
        self.searched_nodes: int | None = None
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
        if node != ROOT:
            raise IndexError("an information-set tree gives a Node view of its root (0) only")
        actions = tuple(self.actions[ROOT])
        total = sum(self.edge_values[ROOT].values())
        return Node(
            state=self.root_state,
            player=self.root_player,
            reward=0.0,
            terminated=False,
            actions=actions,
            children=(UNVISITED,) * len(actions),
            visits=self.visits[ROOT],
            value_sum=total,
            value=total / self.visits[ROOT] if self.visits[ROOT] else 0.0,
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
        self.priors.append({})
        self.children.append({})
        return node

    def most_visited(self, node: int = ROOT) -> Any:
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
    planner: MCTS,
    tree: InformationSetTree,
    iterations: int,
    rollout: Callable[[Any, tuple, Hashable], Any] | None,
) -> int:
    """Runs ``iterations`` ISMCTS iterations on ``tree`` (see the module docstring); returns them.

    Args:
        planner: the planner searching: its model (``actions``, ``step``,
            ``player``, ``information_set``, ``sample_world``) and options
            (``exploration``, ``gamma``, ``selection``, ``unvisited_value``,
            ``evaluator``, ``max_depth``, ``root_noise``,
            ``value_normalization``, ``reward_players``) and its generator.
        tree: the tree to grow (its root from ``root_state``).
        iterations: int >= 1.
        rollout: ``rollout(state, actions, player) -> G`` in the world drawn
            (from ``player``'s point of view; every player's return, a
            vector, with ``reward_players``), or None for G = 0.

    Raises:
        TypeError, ValueError: if the evaluator's answer is malformed
            (:func:`mcts_agent.evaluator.checked_evaluation`).
    """
    model = planner.model
    rng = planner.rng
    actions_of = model.actions
    player_of = model.player
    step = model.step
    information_set = model.information_set
    sample_world = model.sample_world
    c = planner.exploration
    gamma = planner.gamma
    puct = planner.selection == "puct"
    unvisited_value = planner.unvisited_value
    max_depth = planner.max_depth
    value_range = planner._value_range
    players = planner.reward_players
    mover_index = None if players is None else {p: k for k, p in enumerate(players)}
    root_state, root_player = tree.root_state, tree.root_player
    log, sqrt = math.log, math.sqrt
    index = tree.index
    tree_players = tree.players
    edge_visits, edge_values = tree.edge_visits, tree.edge_values
    availability, node_actions, children = tree.availability, tree.actions, tree.children
    for _ in range(iterations):
        state = sample_world(root_state, root_player, rng)
        if tree.visits[ROOT] == 0:  # a search's first world, checked (check_model: all)
            _check_world(model, root_state, root_player, tree.keys[ROOT][1], state)
        node = ROOT
        depth = 0
        path: list[tuple[int, Any, Hashable, Any]] = []  # (node, action, mover, reward)
        g: Any = 0.0 if players is None else (0.0,) * len(players)
        leaf_player = None
        legal = tuple(actions_of(state))
        while legal:
            counts = edge_visits[node]
            available = availability[node]
            if puct:
                node_priors = tree.priors[node]
                if len(node_priors) < len(legal) and any(a not in node_priors for a in legal):
                    _record_priors(planner, tree, node, state, legal)
                action = _puct(
                    legal,
                    counts,
                    edge_values[node],
                    available,
                    node_priors,
                    c,
                    unvisited_value,
                    value_range,
                )
                expanded = action not in counts
            else:
                action = None
                for a in legal:
                    if a not in counts:
                        action = a  # the first untried legal action
                        break
                expanded = action is not None
                if not expanded:
                    values = edge_values[node]
                    lo, span = normalizer(value_range)
                    best = -math.inf
                    for a in legal:
                        n = counts[a]
                        q = values[a] / n if span is None else (values[a] / n - lo) / span
                        score = q + c * sqrt(log(available[a]) / n)
                        if score > best:
                            best, action = score, a
            for a in legal:  # A(a) += 1, after the choice: a new action joins the node's
                if a in available:
                    available[a] += 1
                else:
                    available[a] = 1
                    node_actions[node].append(a)
            previous = state
            state, reward, terminated = step(state, action)
            if players is None:
                reward = float(reward)
            else:
                reward = maxn.reward_vector(reward, players, previous, action)
            path.append((node, action, tree_players[node], reward))
            depth += 1
            if terminated:
                break
            legal = tuple(actions_of(state))
            if not legal:
                break
            player = player_of(state)
            key = (player, information_set(state, player))
            child = index.get(key)
            if child is None:
                child = tree.add_node(player, key)
                expanded = True
            reached = children[node].get(action)
            if reached is None:
                children[node][action] = [child]
            elif child not in reached:
                reached.append(child)
            if expanded or depth == max_depth:  # the leaf: a visit to it, as in the plain tree
                tree.visits[child] += 1
                _count_available(tree, child, legal)
                leaf_player = player
                g = _leaf_return(planner, tree, child, state, legal, player, rollout, g)
                break
            node = child
        if players is None:
            _backup(tree, path, g, leaf_player, gamma, value_range)
        else:
            _backup_vectors(tree, path, g, gamma, value_range, mover_index)
    return iterations


def _check_world(model: Any, state: Any, player: Hashable, key: Hashable, world: Any) -> None:
    """Refuses a world of ``state`` that ``player`` (information set ``key``) could tell apart.

    Its information set and legal actions (in order) must be the root's;
    :func:`mcts_agent.testing.check_model` checks every state's worlds.

    Raises:
        ValueError: naming the world and what differs.
    """
    what = None
    if model.information_set(world, player) != key:
        what = "information set"
    elif tuple(model.actions(world)) != tuple(model.actions(state)):
        what = "legal actions"
    if what is not None:
        raise ValueError(
            f"sample_world({describe(state)}, {player!r}, rng) gave the world "
            f"{describe(world)}, whose {what} for {player!r} differ from the true state's: a "
            "world must agree with everything the player knows "
            "(mcts_agent.testing.check_model finds where)"
        )


def _count_available(tree: InformationSetTree, node: int, legal: tuple) -> None:
    """``A(a) += 1`` at ``node`` for every action of ``legal`` (a new one joins its actions)."""
    available = tree.availability[node]
    for a in legal:
        if a in available:
            available[a] += 1
        else:
            available[a] = 1
            tree.actions[node].append(a)


def _puct(
    legal: tuple,
    counts: dict,
    values: dict,
    available: dict,
    priors: dict,
    c: float,
    unvisited_value: float,
    value_range: list[float] | None,
) -> Any:
    """PUCT's choice among ``legal`` with availability (module docstring); first of the highest."""
    lo, span = normalizer(value_range)
    sqrt = math.sqrt
    best, action = -math.inf, None
    for a in legal:
        n = counts.get(a, 0)
        seen = available.get(a, 0)
        root_n = sqrt(seen if seen > 1 else 1)
        if n == 0:
            score = unvisited_value + c * priors[a] * root_n
        else:
            q = values[a] / n if span is None else (values[a] / n - lo) / span
            score = q + c * priors[a] * root_n / (1 + n)
        if score > best:
            best, action = score, a
    return action


def _evaluate(planner: MCTS, state: Any, legal: tuple) -> tuple[Any, tuple[float, ...]]:
    """The evaluator's ``(value, normalised priors)`` of ``state`` (a vector value with max^n)."""
    result = planner.evaluator(state, legal)
    if planner.reward_players is None:
        return checked_evaluation(result, state, legal)
    return maxn.checked_evaluation(planner.reward_players, result, state, legal)


def _record_priors(
    planner: MCTS, tree: InformationSetTree, node: int, state: Any, legal: tuple
) -> None:
    """Gives ``node`` a prior for each action of ``legal`` it has none for (PUCT).

    The evaluator's priors of ``state`` (uniform without an evaluator); the
    root's first priors get the planner's root noise (AlphaZero's Dirichlet
    noise, drawn from its generator).
    """
    from mcts_agent.general_loop import noised_priors  # general_loop imports the search

    if planner.evaluator is None:
        priors = uniform_priors(len(legal))
    else:
        priors = _evaluate(planner, state, legal)[1]
    node_priors = tree.priors[node]
    if node == ROOT and not node_priors:
        priors = noised_priors(planner, priors)
    for a, p in zip(legal, priors, strict=True):
        node_priors.setdefault(a, p)


def _leaf_return(
    planner: MCTS,
    tree: InformationSetTree,
    node: int,
    state: Any,
    legal: tuple,
    player: Hashable,
    rollout: Callable[[Any, tuple, Hashable], Any] | None,
    zero: Any,
) -> Any:
    """G at the leaf ``node`` (``state`` in the world walked): evaluator value, else a rollout.

    An evaluation also gives the node its priors (those it has none for yet).
    """
    if planner.evaluator is not None:
        value, priors = _evaluate(planner, state, legal)
        node_priors = tree.priors[node]
        for a, p in zip(legal, priors, strict=True):
            node_priors.setdefault(a, p)
        if value is not None:
            return value
    if rollout is None:
        return zero
    return rollout(state, legal, player)


def _backup(
    tree: InformationSetTree,
    path: list,
    g: float,
    leaf_player: Hashable | None,
    gamma: float,
    value_range: list[float] | None,
) -> None:
    """Negamax backup, leaf first: ``G = r +/- gamma * G`` (+ if the mover moves again).

    ``leaf_player`` is the player to move at the leaf (None: the last move
    ended the game). Each edge's ``W(a)`` gets G from its mover's point of view.
    """
    next_player = leaf_player
    for node, action, mover, reward in reversed(path):
        if next_player is not None:
            g = reward + (gamma if next_player == mover else -gamma) * g
        else:
            g = reward  # the move that ended the game
        counts = tree.edge_visits[node]
        values = tree.edge_values[node]
        n = counts[action] = counts.get(action, 0) + 1
        w = values[action] = values.get(action, 0.0) + g
        tree.visits[node] += 1
        if value_range is not None:
            _widen(value_range, w / n)
        next_player = mover


def _backup_vectors(
    tree: InformationSetTree,
    path: list,
    g: Any,
    gamma: float,
    value_range: list[float] | None,
    mover_index: dict[Hashable, int],
) -> None:
    """Max^n backup, leaf first: ``G = r + gamma * G`` componentwise; W(a) the mover's part."""
    for node, action, mover, reward in reversed(path):
        g = tuple(r + gamma * x for r, x in zip(reward, g, strict=True))
        counts = tree.edge_visits[node]
        values = tree.edge_values[node]
        n = counts[action] = counts.get(action, 0) + 1
        w = values[action] = values.get(action, 0.0) + g[mover_index[mover]]
        tree.visits[node] += 1
        if value_range is not None:
            _widen(value_range, w / n)


def _widen(value_range: list[float], q: float) -> None:
    """Widens ``[lo, hi]`` (in place) by the edge value ``q`` (NaN passed over)."""
    if q < value_range[0]:
        value_range[0] = q
    if q > value_range[1]:
        value_range[1] = q


def is_hidden(model: Any) -> bool:
    """True if ``model`` has callable ``information_set`` and ``sample_world`` (ISMCTS)."""
    return callable(getattr(model, "information_set", None)) and callable(
        getattr(model, "sample_world", None)
    )


def check_composition(planner: MCTS) -> None:
    """Refuses, each with its cause, the options a hidden-information search cannot take.

    Raises:
        ValueError: for the solver (a proven value is a state's, and a node
            holds many states), a stochastic model (a world fixes every draw:
            deal the future cards in ``sample_world``), progressive widening,
            leaf batching and workers (one value per node, merged roots: the
            information-set graph has neither), tree reuse (the nodes were
            grown from worlds drawn for the previous root's information), and,
            with ``determinize=True``, ``on_iteration`` (the worlds' searches
            run whole).
    """
    refused = [
        (name, cause)
        for name, on, cause in (
            ("solve=True", planner.solve, "a proven value belongs to a state, a node holds many"),
            (
                "a stochastic model",
                planner.stochastic,
                "a world fixes every draw: sample_world should deal what is still to come",
            ),
            (
                "widening",
                planner.widening is not None,
                "the actions of an information set are listed, not drawn",
            ),
            (
                "leaf_batch > 1",
                planner.leaf_batch > 1,
                "a batch of pending leaves holds one world each, and virtual losses would "
                "straddle worlds",
            ),
            ("workers > 1", planner.workers > 1, "merging roots needs one tree per state"),
            (
                "reuse_tree=True",
                planner.reuse_tree,
                "the nodes were grown from worlds drawn for the previous root's information",
            ),
            (
                "on_iteration with determinize=True",
                planner.determinize and planner.on_iteration is not None,
                "the worlds' searches run in blocks, not one iteration at a time",
            ),
        )
        if on
    ]
    if refused:
        raise ValueError(
            "information-set MCTS (a model with information_set and sample_world) does not "
            "compose with " + "; ".join(f"{name} ({cause})" for name, cause in refused)
        )


def root_summary(tree: InformationSetTree) -> tuple[tuple, tuple[int, ...], tuple[float, ...]]:
    """``(actions, visit_counts, values)`` of the root: its actions in the order first seen."""
    actions = tuple(tree.actions[ROOT])
    visits = tree.edge_visits[ROOT]
    values = tree.edge_values[ROOT]
    counts = tuple(visits.get(a, 0) for a in actions)
    means = tuple(values[a] / n if n else math.nan for a, n in zip(actions, counts, strict=True))
    return actions, counts, means


def root_priors(tree: InformationSetTree) -> tuple[float, ...]:
    """The root's priors in the order of its actions (uniform where none were recorded)."""
    actions = tree.actions[ROOT]
    recorded = tree.priors[ROOT]
    if not actions or any(a not in recorded for a in actions):
        return uniform_priors(max(len(actions), 1))[: len(actions)]
    return tuple(recorded[a] for a in actions)


FORMAT = "mcts_agent.information_sets"
"""The ``format`` field of :func:`to_dict`'s dict."""


def to_dict(tree: InformationSetTree, min_visits: int = 0) -> dict:
    """The information-set graph as a JSON-serialisable dict.

    ``{"format": FORMAT, "version": 1, "nodes": [...]}``: one entry per node
    (root first, in the order made) with ``key`` (its ``(player, information
    set)`` saved as :func:`mcts_agent.export.to_dict` saves actions),
    ``player``, ``visits`` and ``actions``: per action seen legal there (with
    at least ``min_visits`` visits), ``action``, ``visits`` N(a),
    ``value_sum`` W(a), ``value`` Q(a) (null if untried),
    ``availability`` A(a), ``prior`` (null if none) and ``children`` (the
    nodes it led to).

    Args:
        tree: an information-set tree.
        min_visits: int >= 0, actions with fewer visits are left out.
    """
    nodes = []
    for node, key in enumerate(tree.keys):
        counts = tree.edge_visits[node]
        values = tree.edge_values[node]
        entries = []
        for action in tree.actions[node]:
            n = counts.get(action, 0)
            if n < min_visits:
                continue
            w = values.get(action, 0.0)
            entries.append(
                {
                    "action": json_value(action),
                    "visits": n,
                    "value_sum": w,
                    "value": w / n if n else None,
                    "availability": tree.availability[node][action],
                    "prior": tree.priors[node].get(action),
                    "children": list(tree.children[node].get(action, ())),
                }
            )
        nodes.append(
            {
                "key": json_value(key),
                "player": json_value(tree.players[node]),
                "visits": tree.visits[node],
                "actions": entries,
            }
        )
    return {"format": FORMAT, "version": 1, "nodes": nodes}


def to_dot(tree: InformationSetTree, min_visits: int = 1) -> str:
    """The information-set graph as Graphviz DOT text: a box per node, an edge per action and child.

    Boxes show the player to move, N and the information set; an action tried
    at a node draws an edge to each node it led to, labelled with the action,
    N(a) and Q(a). Actions with fewer than ``min_visits`` visits (or none) are
    left out. Labels are wrapped and quoted as :func:`mcts_agent.export.to_dot`'s.
    """
    lines = ["digraph information_sets {", "  node [shape=box, fontname=monospace];"]
    for node, key in enumerate(tree.keys):
        label = [f"player {tree.players[node]!r}  N={tree.visits[node]}", *label_lines(key[1])]
        lines.append(f"  n{node} [label={dot_string(label)}];")
        counts = tree.edge_visits[node]
        values = tree.edge_values[node]
        for action in tree.actions[node]:
            n = counts.get(action, 0)
            if n < min_visits or n == 0:
                continue
            text = dot_string([*label_lines(action), f"N={n}  Q={values[action] / n:.3g}"])
            for child in tree.children[node].get(action, ()):
                lines.append(f"  n{node} -> n{child} [label={text}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


DETERMINIZATIONS = 10
"""Worlds a ``determinize=True`` search draws (perfect-information Monte Carlo)."""


class PerfectInformation:
    """A hidden-information model seen as a perfect-information one (a world is a state).

    Exposes ``actions``, ``step``, ``player`` (and ``rollout`` and
    ``reward_players`` where the model has them), not ``information_set`` or
    ``sample_world``, so that the search of one world is the ordinary one.
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.actions = model.actions
        self.step = model.step
        self.player = model.player
        if callable(getattr(model, "rollout", None)):
            self.rollout = model.rollout
        players = getattr(model, "reward_players", None)
        if players is not None:
            self.reward_players = players


class Determinized:
    """Perfect-information Monte Carlo: one search per sampled world, root visits summed.

    The contrast to ISMCTS (SPEC.md, "Hidden information"; Long et al. 2010,
    "Understanding the success of perfect information Monte Carlo sampling in
    game tree search"). :data:`DETERMINIZATIONS` worlds are drawn from
    ``sample_world(state, player, rng)`` (the planner's generator); each is
    searched by the perfect-information loop with the planner's options (its
    generator too), the iterations dealt to the worlds in turn, so an
    iteration budget of ``n`` gives each world ``n // 10`` or one more, and a
    time budget runs them side by side. :meth:`tree` adds up each root
    action's visits and value sums. Each world's search knows the hidden
    cards, so a move can be credited with a plan only someone who saw them
    could make (strategy fusion).

    Args:
        planner: the planner (``determinize=True``).
        state: the true state searched from.
    """

    def __init__(self, planner: MCTS, state: Any) -> None:
        model = planner.model
        self.state = state
        self.player = model.player(state)
        self.key = (self.player, model.information_set(state, self.player))
        searcher = planner._world_planner()
        if planner.value_normalization:  # this search's backups only, in every world
            searcher._value_range = [math.inf, -math.inf]
        self.searcher = searcher
        self.growths = []
        for _ in range(DETERMINIZATIONS):
            world = model.sample_world(state, self.player, planner.rng)
            _check_world(model, state, self.player, self.key[1], world)
            self.growths.append(searcher._growth(world))
        self.next = 0

    def __len__(self) -> int:
        return sum(len(tree) for tree, _, _ in self.growths)

    def loop(self, iterations: int) -> int:
        """Runs ``iterations`` iterations, dealt to the worlds in turn; returns them."""
        count = len(self.growths)
        share, extra = divmod(iterations, count)
        for k in range(count):
            world = (self.next + k) % count
            n = share + (1 if k < extra else 0)
            if n:
                self.growths[world][1](n)
        self.next = (self.next + extra) % count
        return iterations

    def tree(self) -> InformationSetTree:
        """The sums as an :class:`InformationSetTree` holding only the root."""
        tree = InformationSetTree(self.state, self.player, self.key)
        availability = tree.availability[ROOT]
        visits, values = tree.edge_visits[ROOT], tree.edge_values[ROOT]
        for sub, _, _ in self.growths:
            for action, child in zip(sub.actions[ROOT], sub.children_by_action(ROOT), strict=True):
                if action not in availability:
                    tree.actions[ROOT].append(action)
                    availability[action] = 0
                availability[action] += 1
                if child != UNVISITED:
                    visits[action] = visits.get(action, 0) + sub.visits[child]
                    values[action] = values.get(action, 0.0) + sub.value_sums[child]
            tree.visits[ROOT] += sub.visits[ROOT]
        tree.searched_nodes = len(self)
        return tree

    def value_range(self) -> list[float] | None:
        """``[lo, hi]`` of the values met in the worlds' backups, or None (not normalising)."""
        return self.searcher._value_range
