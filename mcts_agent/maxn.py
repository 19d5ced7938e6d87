"""Every player's reward: max^n search for general-sum and n-player games.

``docs/guides/every-players-reward.md``. A model *reports every
player's reward* when it has the attribute ``reward_players``: a tuple of the
ids of every player of the game, in a fixed order. Its ``step`` then returns
``StepResult(next_state, {player: reward, ...}, terminated)``: the reward of
the move to each player (a player left out of the mapping gets 0.0; a key
that is not one of ``reward_players`` is an error). A model without the
attribute (or with ``reward_players = None``) reports the mover's reward as a
float, as before, and is planned by the negamax backup.

That attribute is how the planner knows, before its first step: ``MCTS``
reads it once, when it is made, and then runs the general loop
(:mod:`mcts_agent.general_loop`) with this module's parts; a model reporting
floats keeps the plain loop, its trees and its speed. (The first step's type
could not choose: the plain loop would already be running.)

In the search (Sturtevant, 2008, "An analysis of UCT in multi-player games";
OpenSpiel's ``mcts.py`` backs up ``returns[player]`` the same way):

* every node keeps one sum of returns per player (:class:`MaxnTree`'s
  ``return_sums``); its ``value_sum`` and ``value`` are the component of the
  player who moved into it, so selection (UCT, PUCT, the solver's) maximises
  the component of the player to move, and the move played, summaries and
  exports read the tree as before;
* the backup adds ``G = r + gamma * G`` componentwise at every node (no change
  of sign; a chance node passes G unchanged);
* rollouts return every player's discounted return (:func:`rollouts`; a
  model's fused ``rollout`` must then return a mapping ``{player: return}``);
* an evaluator's ``Evaluation.value`` is a mapping ``{player: value}`` (or
  None), every player's expected return from the state;
* the solver proves a node's vector of values: ``V = r + gamma * V(best
  child)``, the best child being the one of highest proven value for the player
  to move (ties: the first in the model's order); ``proven_values`` holds its
  mover's component, as for the solver's negamax form.

For a two-player zero-sum game reported as ``{p: r, q: -r}`` the tree is the
negamax tree visit for visit (and value for value: IEEE arithmetic is
symmetric under negation, so the sums of the two forms are bit for bit equal;
``tests/test_maxn.py``). Vector returns cost time: ``benchmarks/bench_maxn.py``.

The brute-force max^n value of a small game (:func:`maxn_values`) is the
oracle of the tests and of the benchmark.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcts_agent import chance, solver
from mcts_agent._validation import describe
from mcts_agent.evaluator import checked_evaluation as checked_scalar_evaluation
from mcts_agent.tree import ROOT, UNVISITED, GuidedTree, Node

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = [
    "MaxnLoop",
    "MaxnTree",
    "checked_evaluation",
    "checked_reward_players",
    "checked_vector",
    "maxn_values",
    "rollouts",
]


def checked_reward_players(model: Any) -> tuple | None:
    """Returns ``model.reward_players`` as a tuple, or None if the model reports floats.

    Raises:
        TypeError: if it is neither None nor a sequence (not a str) of hashable ids.
        ValueError: if it is empty or lists a player twice.
    """
    players = getattr(model, "reward_players", None)
    if players is None:
        return None
    if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
        raise TypeError(
            f"model.reward_players must be a sequence of every player's id (or None for a "
            f"model whose step reports the mover's reward), got {describe(players)}"
        )
    players = tuple(players)
    for player in players:
        try:
            hash(player)
        except TypeError:
            raise TypeError(
                f"model.reward_players must hold hashable player ids, got {describe(player)}"
            ) from None
    if not players:
        raise ValueError("model.reward_players is empty; list every player's id")
    if len(set(players)) != len(players):
        raise ValueError(f"model.reward_players lists a player twice: {players!r}")
    return players


def checked_vector(
    mapping: Any, players: tuple, index_of: Mapping[Hashable, int], what: Callable[[], str]
) -> tuple[float, ...]:
    """Returns ``mapping`` ``{player: number}`` as a tuple of floats in the order of ``players``.

    A player missing from the mapping gets 0.0.

    Args:
        mapping: what the model (or evaluator) gave.
        players: the model's ``reward_players``.
        index_of: ``{player: its index in players}``.
        what: ``() -> str`` naming where ``mapping`` came from, for the messages
            (e.g. ``"step(s, a) returned the reward"``).

    Raises:
        TypeError: if it is not a mapping, or a value is not a real number.
        ValueError: if a key is not one of ``players`` or a value is NaN or infinite.
    """
    if not isinstance(mapping, Mapping):
        raise TypeError(
            f"{what()} {describe(mapping)} ({type(mapping).__name__}); the model reports "
            f"every player's reward (model.reward_players = {players!r}), so expected a "
            "mapping {player: number}"
        )
    vector = [0.0] * len(players)
    for player, value in mapping.items():
        k = index_of.get(player)
        if k is None:
            raise ValueError(
                f"{what()} {describe(dict(mapping))}, whose key {player!r} is not one of the "
                f"model's reward_players {players!r}"
            )
        if not isinstance(value, numbers.Real):  # a bool is 0 or 1, as a float reward
            raise TypeError(
                f"{what()} {describe(dict(mapping))}: the value of {player!r} is "
                f"{describe(value)} ({type(value).__name__}); expected a real number"
            )
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(
                f"{what()} {describe(dict(mapping))}: the value of {player!r} is {value}; "
                "expected a finite number"
            )
        vector[k] = value
    return tuple(vector)


def _fast_vector(
    mapping: Any, players: tuple, index_of: Mapping[Hashable, int], what: Callable[[], str]
) -> tuple[float, ...]:
    """:func:`checked_vector`, one test per entry when it is a dict of every player's float."""
    if mapping.__class__ is dict and len(mapping) == len(players):
        try:
            vector = tuple([mapping[player] for player in players])
        except KeyError:
            return checked_vector(mapping, players, index_of, what)
        for value in vector:
            if value.__class__ is not float:
                return checked_vector(mapping, players, index_of, what)
        if math.isfinite(sum(vector)):
            return vector
    return checked_vector(mapping, players, index_of, what)


def _index_of(players: tuple) -> dict[Hashable, int]:
    return {player: k for k, player in enumerate(players)}


def reward_vector(reward: Any, players: tuple, state: Any, action: Any) -> tuple[float, ...]:
    """The reward mapping of ``step(state, action)`` as a vector in the order of ``players``.

    Raises:
        TypeError, ValueError: as :func:`checked_vector`.
    """
    return _fast_vector(
        reward,
        players,
        _index_of(players),
        lambda: f"step({describe(state)}, {describe(action)}) returned the reward",
    )


def _mover_index(index_of: Mapping[Hashable, int], player: Hashable, players: tuple) -> int:
    """The index of ``player`` (a player to move) in the model's ``reward_players``."""
    k = index_of.get(player)
    if k is None:
        raise ValueError(
            f"the player to move {player!r} is not one of the model's reward_players "
            f"{players!r}; list every player who moves there"
        )
    return k


class MaxnTree(GuidedTree):
    """The tree of a search whose model reports every player's reward (a :class:`GuidedTree`).

    Read as any tree; its :class:`~mcts_agent.tree.Node` views also carry
    ``returns``, every player's mean return through the node. ``rewards``,
    ``value_sums``, ``values`` and ``proven_values`` hold the component of
    the player who moved into each node (the root: 0.0, unused).

    Attributes:
        reward_players: tuple, the model's players; vectors follow its order.
        reward_vectors: per-node tuple of floats, shape ``[num_players]``: the
            reward of the move into the node to every player (zeros for the
            root and chance nodes).
        return_sums: per-node list of floats, shape ``[num_players]``: every
            player's sum of the returns backed up through the node (the root's:
            of the returns from it; its ``value_sum`` stays 0.0, as in any tree).
        movers: per-node int: the index in ``reward_players`` of the player
            who moved into the node (a chance node's and its outcomes': the
            player who chose the action); -1 for the root.
        proven_vectors: per-node tuple of floats or None: the solver's proven
            vector of values (None while unproven, and without the solver).
    """

    __slots__ = ("reward_vectors", "return_sums", "movers", "proven_vectors", "reward_players")

    def __init__(
        self,
        state: Any,
        player: Hashable,
        actions: tuple,
        priors: tuple,
        leaf_value: Any,
        reward_players: tuple,
    ) -> None:
        """Makes a tree holding only the root.

        Args:
            state: the root's state.
            player: the player to move at the root.
            actions: the root's legal actions (non-empty tuple).
            priors: the root's normalised priors, one per action.
            leaf_value: the evaluator's value vector of the root (kept, not used), or None.
            reward_players: the model's players.
        """
        super().__init__(state, player, actions, priors, leaf_value)
        self.reward_players = reward_players
        zeros = (0.0,) * len(reward_players)
        self.reward_vectors: list[tuple[float, ...]] = [zeros]
        self.return_sums: list[list[float]] = [[0.0] * len(reward_players)]
        self.movers: list[int] = [-1]
        self.proven_vectors: list[tuple[float, ...] | None] = [None]

    def __getitem__(self, index: Any) -> Any:
        node = super().__getitem__(index)
        if isinstance(node, Node):
            i = index + len(self) if index < 0 else index
            n = self.visits[i]
            sums = self.return_sums[i]
            pairs = zip(self.reward_players, sums, strict=True)
            node = node._replace(returns={p: (w / n if n else 0.0) for p, w in pairs})
        return node


class MaxnLoop:
    """The general loop's max^n parts for one search of ``planner`` on ``tree``.

    :func:`mcts_agent.general_loop.run` calls them where a scalar search
    computes inline: the reward of a new node (:meth:`add_node`), the nodes
    chance adds (:meth:`add_chance_nodes`), the backup (:meth:`backup`), and
    the solver's proofs (:meth:`prove_terminal`, :meth:`subtree_return`).
    """

    def __init__(self, planner: MCTS, tree: MaxnTree) -> None:
        self.tree = tree
        self.players = players = tree.reward_players
        self.index_of = _index_of(players)
        self.zeros = (0.0,) * len(players)
        self.gamma = planner.gamma
        self.rollouts = rollouts(planner)

    def reward(self, reward: Any, state: Any, action: Any, stepped: bool) -> tuple[float, ...]:
        """The reward vector of the move ``action`` in ``state``, checked.

        ``stepped``: True if ``reward`` came from ``step`` (a mapping), False if
        from a chance node's draw (already a vector, checked by :mod:`mcts_agent.chance`).
        """
        if not stepped:
            return reward
        return _fast_vector(
            reward,
            self.players,
            self.index_of,
            lambda: f"step({describe(state)}, {describe(action)}) returned the reward",
        )

    def mover(self, node: int) -> int:
        """The index of the player to move at ``node`` (the mover into its children)."""
        tree = self.tree
        return _mover_index(self.index_of, tree.players[node], self.players)

    def add_node(self, child: int, vector: tuple[float, ...], mover: int) -> None:
        """Appends the max^n entries of the new node ``child`` (its other entries appended)."""
        tree = self.tree
        tree.reward_vectors.append(vector)
        tree.return_sums.append([0.0] * len(vector))
        tree.movers.append(mover)
        tree.proven_vectors.append(None)
        tree.discounts[child] = self.gamma  # no change of sign

    def add_chance_nodes(self) -> None:
        """Appends the entries of the chance nodes made since (reward 0, G passed unchanged)."""
        tree = self.tree
        movers = tree.movers
        while len(movers) < len(tree.states):
            chance = len(movers)
            movers.append(self.mover(chance))  # its player is the chooser
            tree.reward_vectors.append(self.zeros)
            tree.return_sums.append([0.0] * len(self.zeros))
            tree.proven_vectors.append(None)

    def backup(self, path: list[int], g: Any) -> None:
        """Backs up the vector ``g`` (or 0.0) along ``path``, leaf first: ``G = r + d * G``."""
        tree = self.tree
        reward_vectors = tree.reward_vectors
        return_sums = tree.return_sums
        discounts = tree.discounts
        movers = tree.movers
        visits = tree.visits
        value_sums = tree.value_sums
        values = tree.values
        if g.__class__ is float:
            g = self.zeros
        for node in reversed(path):
            d = discounts[node]
            g = [r + d * x for r, x in zip(reward_vectors[node], g, strict=True)]
            sums = return_sums[node]
            for k, x in enumerate(g):
                sums[k] += x
            n = visits[node] + 1
            visits[node] = n
            w = sums[movers[node]]
            value_sums[node] = w
            values[node] = w / n
        visits[ROOT] += 1
        sums = return_sums[ROOT]  # the root's: every player's return from it
        for k, x in enumerate(g):
            sums[k] += x

    def check_evaluation(
        self, result: Any, state: Any, actions: Sequence[Any]
    ) -> tuple[tuple[float, ...] | None, tuple[float, ...]]:
        """:func:`checked_evaluation` for this search's players."""
        return checked_evaluation(self.players, result, state, actions)

    def prove_terminal(self, path: list[int], value_bounds: tuple[float, float] | None) -> None:
        """Proves the new terminal node ``path[-1]`` (V = r) and the ancestors it proves.

        With ``value_bounds``, every player's reward and proven value is
        checked against them (:func:`mcts_agent.solver.check_bounded`:
        ValueError if out).
        """
        tree = self.tree
        node = path[-1]
        tree.proven_values[node] = tree.rewards[node]
        tree.proven_vectors[node] = tree.reward_vectors[node]
        proven_values = tree.proven_values
        hi = None
        if value_bounds is not None:
            hi = value_bounds[1]
            solver.check_bounded(tree, path, len(path) - 1, tree.reward_vectors[node], value_bounds)
        for depth in range(len(path) - 2, -2, -1):
            node = path[depth] if depth >= 0 else ROOT
            best, every = solver._best_proven(tree, node)
            if not (every or (hi is not None and best >= hi)):
                return
            vector = self._best_proven_vector(node, best)
            if node == ROOT:
                proven_values[ROOT] = best
                tree.proven_vectors[ROOT] = vector
            else:
                d = tree.discounts[node]
                pairs = zip(tree.reward_vectors[node], vector, strict=True)
                vector = tuple(r + d * x for r, x in pairs)
                tree.proven_vectors[node] = vector
                proven_values[node] = vector[tree.movers[node]]
                if value_bounds is not None:
                    solver.check_bounded(tree, path, depth, vector, value_bounds)

    def _best_proven_vector(self, node: int, best: float) -> tuple[float, ...]:
        """The proven vector of ``node``'s first child proven at ``best`` (its player's value)."""
        tree = self.tree
        for child in tree.children[node]:
            if child != UNVISITED and tree.proven_values[child] == best:
                return tree.proven_vectors[child]
        raise AssertionError(f"no child of node {node} is proven at {best}")  # pragma: no cover

    def subtree_return(self, tree: MaxnTree, node: int) -> tuple[float, ...]:
        """G of an iteration stopped at the proven ``node``: its best child's V, 0 if terminal."""
        if not tree.children[node]:
            return self.zeros
        return self._best_proven_vector(node, solver._best_proven(tree, node)[0])


def checked_evaluation(
    players: tuple, result: Any, state: Any, actions: Sequence[Any]
) -> tuple[tuple[float, ...] | None, tuple[float, ...]]:
    """An evaluator's answer as ``(value vector or None, normalised priors)``, checked.

    Args:
        players: the model's ``reward_players``.
        result: ``Evaluation(value, priors)`` with ``value`` a mapping
            ``{player: expected return}`` (a player left out: 0.0) or None.
        state: the state evaluated.
        actions: its legal actions.

    Raises:
        TypeError: if the value is not None or a mapping ``{player: value}``, or
            the answer is malformed (:func:`mcts_agent.evaluator.checked_evaluation`).
        ValueError: as :func:`mcts_agent.evaluator.checked_evaluation` for the
            priors, or a key is not a player or a value is not finite.
    """
    if not (isinstance(result, tuple) and len(result) == 2):
        return checked_scalar_evaluation(result, state, actions)  # its TypeError
    value, priors = result
    _, priors = checked_scalar_evaluation((None, priors), state, actions)
    if value is None:
        return None, priors
    vector = checked_vector(
        value, players, _index_of(players), lambda: f"the evaluator gave state {state!r} the value"
    )
    return vector, priors


def new_tree(planner: MCTS, state: Any, actions: tuple, priors: tuple, value: Any) -> MaxnTree:
    """The one-node :class:`MaxnTree` of a search from ``state`` (its player checked)."""
    players = planner.reward_players
    player = planner.model.player(state)
    _mover_index(_index_of(players), player, players)
    return MaxnTree(state, player, actions, priors, value, players)


def renew_root(tree: MaxnTree) -> None:
    """A re-rooted tree's root: no reward, no mover (:mod:`mcts_agent.reuse`)."""
    tree.reward_vectors[ROOT] = (0.0,) * len(tree.reward_players)
    tree.movers[ROOT] = -1
    if tree.proven_values[ROOT] is not None:
        best = tree.proven_values[ROOT]
        for child in tree.children[ROOT]:
            if tree.proven_values[child] == best:
                tree.proven_vectors[ROOT] = tree.proven_vectors[child]
                break


def rollouts(
    planner: MCTS,
) -> tuple[Callable[..., tuple[float, ...]] | None, Callable[..., list[float]] | None]:
    """Returns ``(fused, generic)`` rollouts that give every player's return (a vector).

    As :meth:`MCTS._rollouts <mcts_agent.search.MCTS>`, with vectors: the
    generic rollout plays the same moves from the same draws and returns
    ``G = sum_t gamma^t * r_t`` componentwise (no change of sign); ``fused``
    wraps the model's ``rollout(state, rng, limit, gamma)``, which must return
    a mapping ``{player: return}``. Both None when ``rollout_limit`` is 0.
    """
    limit = planner.rollout_limit
    if limit == 0:
        return None, None
    model = planner.model
    rng = planner.rng
    gamma = planner.gamma
    policy = planner.rollout_policy
    players = planner.reward_players
    index_of = _index_of(players)
    fused = getattr(model, "rollout", None)
    if policy is None and callable(fused):

        def fused_rollout(state: Any, rng: Any, limit: int, gamma: float) -> tuple[float, ...]:
            return _fast_vector(
                fused(state, rng, limit, gamma),
                players,
                index_of,
                lambda: f"rollout({describe(state)}, ...) returned",
            )

        return fused_rollout, None

    stochastic = planner.stochastic
    step = chance.sampler(model, rng, players) if stochastic else model.step
    model_actions = model.actions
    random_ = rng.random
    size = len(players)
    player_set = set(players)

    def rollout(state: Any, actions: Sequence[Any], player: Hashable) -> list[float]:
        g = [0.0] * size
        coef = 1.0
        moves_left = limit
        while True:
            if policy is None:
                action = actions[int(random_() * len(actions))]
            else:
                action = policy(state, actions, rng)
                if action not in actions:
                    raise ValueError(
                        f"rollout_policy returned {describe(action)}, which is not one "
                        f"of the legal actions {describe(list(actions))}"
                    )
            previous = state
            state, reward, terminated = step(state, action)
            if stochastic:  # a draw is checked (and made a vector) by the sampler
                for k, r in enumerate(reward):
                    if r:
                        g[k] += coef * r
            # Nothing to add: a dict of every player's zero (most moves of most games); else
            # the mapping checked and added.
            elif (
                reward.__class__ is not dict or reward.keys() != player_set or any(reward.values())
            ):
                vector = _fast_vector(
                    reward,
                    players,
                    index_of,
                    lambda s=previous, a=action: (
                        f"step({describe(s)}, {describe(a)}) returned the reward"
                    ),
                )
                for k, r in enumerate(vector):
                    if r:
                        g[k] += coef * r
            moves_left -= 1
            if terminated or moves_left == 0:
                return g
            actions = model_actions(state)
            if not actions:
                return g
            coef *= gamma

    return None, rollout


def maxn_values(model: Any, state: Any, gamma: float = 1.0) -> tuple[float, ...]:
    """The brute-force max^n value of ``state``: every player's return under max^n play.

    Every move is searched to the end of the game (no depth limit, no
    pruning): at each state the player to move takes the move
    of highest ``r[mover] + gamma * V(next)[mover]``, ties to the first in the
    model's order (Luckhardt & Irani, 1986). Positions are memoised by
    ``model.key(state)``, else by the state when it is hashable. For the small
    games of the tests and the benchmark.

    Args:
        model: a deterministic model reporting every player's reward.
        state: any state of it.
        gamma: the discount.

    Returns:
        Shape ``[len(model.reward_players)]``: each player's value (zeros at a
        state with no legal actions).
    """
    return maxn_moves(model, state, gamma)[0]


def maxn_moves(model: Any, state: Any, gamma: float = 1.0) -> tuple[tuple[float, ...], tuple]:
    """``(max^n value of state, the actions of highest value for its player to move)``.

    As :func:`maxn_values`; the second item lists every action whose value to
    the player to move equals the best (within 1e-12), in the model's order.
    """
    players = checked_reward_players(model)
    if players is None:
        raise TypeError("maxn_values needs a model with reward_players (every player's reward)")
    index_of = _index_of(players)
    key = getattr(model, "key", None)
    memo: dict[Hashable, tuple[float, ...]] = {}
    zeros = (0.0,) * len(players)

    def child_value(state: Any, action: Any) -> tuple[float, ...]:
        next_state, reward, terminated = model.step(state, action)
        vector = checked_vector(reward, players, index_of, lambda: "step returned the reward")
        rest = zeros if terminated else value(next_state)
        return tuple(r + gamma * x for r, x in zip(vector, rest, strict=True))

    def value(state: Any) -> tuple[float, ...]:
        k = state if key is None else key(state)
        if k.__hash__ is None:  # an unhashable state (and no key): searched again each time
            k = object()
        elif k in memo:
            return memo[k]
        actions = model.actions(state)
        if not actions:
            memo[k] = zeros
            return zeros
        mover = _mover_index(index_of, model.player(state), players)
        best = None
        for action in actions:
            candidate = child_value(state, action)
            if best is None or candidate[mover] > best[mover]:
                best = candidate
        memo[k] = best
        return best

    actions = model.actions(state)
    if not actions:
        return zeros, ()
    mover = _mover_index(index_of, model.player(state), players)
    children = [child_value(state, action) for action in actions]
    top = max(v[mover] for v in children)
    best = next(v for v in children if v[mover] == top)
    return best, tuple(a for a, v in zip(actions, children, strict=True) if v[mover] >= top - 1e-12)
