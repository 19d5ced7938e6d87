"""RAVE and GRAVE selection (``selection="rave"``; ``docs/guides/rave.md``): the reference loop.

Sources: Gelly & Silver (2011), "Monte-Carlo tree search and rapid action
value estimation in computer Go", Artificial Intelligence 175 (RAVE, AMAF,
§5-6; the β of their "minimum MSE schedule", eq. 12, with ``b = rave_bias``);
Cazenave (2015), "Generalized Rapid Action Value Estimation", IJCAI (GRAVE:
the AMAF statistics of the closest ancestor visited ``grave_ref`` times).
Defaults as Ludii's ``UCB1GRAVE`` (ref 100, bias 1e-5, the planner's
exploration added as a UCB1 term).

**AMAF statistics.** Only for a model whose actions mean the same thing in
every position (it says so with ``amaf_actions = True``: a Go point, a
tic-tac-toe cell). Every node s keeps a table keyed by ``(player, action)``
of a count Ñ_s and a value sum W̃_s. An iteration plays the moves m_1..m_K,
each a pair ``(player, action)``: the tree moves (m_j is chosen at the path's
node s_{j-1}, the root being s_0, by its player to move), then the rollout's
moves from the leaf s_D. For each node s_{j-1} of the path (j = 1..D), take
the suffix m_j..m_K; for each action a, its *first* occurrence in that
suffix, played by q, adds 1 to Ñ_s(q, a) and the iteration's return from q's
point of view to W̃_s(q, a); an action of the model's ``amaf_excluded`` (Go's
pass, :func:`amaf_excluded`) is never recorded: its child is scored by UCB1
alone. The return from the point of view of s's mover p
is what the backup adds to W of the child s_j (G after that child's update);
for q != p it is its negation (two players, zero sum; one-player models
always have q == p). The leaf s_D gets the same for the rollout's moves
alone, with the rollout's return G (from the leaf's mover's view); a
terminal leaf, or a leaf with rollouts off, gets nothing. A move played twice
(the same action, by either player) counts once, at its first occurrence.

**Selection** at a node s with mover p, every action tried: the child c of
action a with the highest score (ties: the first in the model's order)::

    n = N(c); Ñ, W̃ = Ñ_r(p, a), W̃_r(p, a)
    Ñ == 0:  score = Q(c) + C * sqrt(log(N(s)) / n)                  (UCB1, as plain UCT)
    else:    beta  = Ñ / ((Ñ + n) + (b * Ñ) * n)
             score = ((1.0 - beta) * Q(c) + beta * (W̃ / Ñ)) + C * sqrt(log(N(s)) / n)

in IEEE doubles, each operation in exactly this order (Ñ and n converted to
double; ``Q(c)`` is the stored ``W(c) / N(c)``). r is the GRAVE reference
node: the deepest node of the path from the root to s (s included) whose
visit count, read as the iteration reaches it, is >= ``grave_ref``; the root
if there is none. ``grave_ref = 0`` is plain RAVE (r = s).

**Expansion** first, as plain UCT, but of the untried action a of largest
Q̃ = W̃_r(p, a) / Ñ_r(p, a) (one double division), r as above: the untried
actions with data (Ñ > 0) before those without, ties and actions without data
in the model's order (the first untried one if none has data).

**Simulation and backup** as plain UCT (the general loop's rule: ``G = r(c) +
d(c) * G``, ``N += 1``, ``W += G``, ``Q = W / N``, leaf first). The AMAF
update is done with the backup, leaf first: first the leaf's table (the
rollout's moves), then for each node c of the path from the leaf up, after
c's own update, the table of c's parent with the suffix starting at the move
into c. Within one iteration each table entry gets at most one update
(``Ñ += 1``, ``W̃ += ret``, one double addition), so the order of the updates
within an iteration changes no value; a new entry starts at ``(1, ret)``.
Entries are made, in a table, in the order of the moves' first occurrences
for the table's first update, later ones in the order their actions were
first met walking the suffix from its end, ending at its first move (a
Python dict's order; nothing reads it but :meth:`RaveTree.amaf`).

The rollout: a model's fused ``rollout`` cannot tell which moves it played,
so such a model must offer ``amaf_rollout(state, rng, limit, gamma) -> (G,
[(player, action), ...])`` (the same playout, the same draws, plus its
moves); without one, a ``rollout_policy`` makes the search play the generic
rollout (recorded here). The generic rollout draws exactly as the plain
loop's (``actions[int(rng.random() * len(actions))]``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

from mcts_agent._validation import (
    checked_actions,
    checked_player,
    checked_return,
    checked_reward,
    checked_terminated,
    describe,
    require_float,
    require_int,
)
from mcts_agent.evaluator import uniform_priors
from mcts_agent.tree import ROOT, TERMINAL, GuidedTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = [
    "DEFAULT_GRAVE_REF",
    "DEFAULT_RAVE_BIAS",
    "RaveTree",
    "amaf_excluded",
    "checked_options",
    "run",
]

DEFAULT_RAVE_BIAS = 1e-5
"""``rave_bias`` b by default: Ludii's ``UCB1GRAVE`` (its constructor's ``bias = 1.0E-5``)."""

DEFAULT_GRAVE_REF = 100
"""``grave_ref`` by default: Ludii's ``UCB1GRAVE`` (``ref = 100``); 0 is plain RAVE."""

Move = tuple[Hashable, Any]
"""One move of an iteration, ``(player, action)``: the AMAF tables' key."""


class RaveTree(GuidedTree):
    """The tree of a RAVE/GRAVE search: a :class:`~mcts_agent.tree.GuidedTree` plus AMAF tables.

    Read as any tree (the same :class:`~mcts_agent.tree.Node` views; uniform
    priors, no evaluations). Per node:

    * ``amaf_tables[i]``: dict ``{(player, action): [count, value_sum]}``,
      node ``i``'s AMAF statistics Ñ and W̃ (see :mod:`mcts_agent.rave`);
      read them with :meth:`amaf`.
    * ``amaf_keys[i]``: ``(player to move at the parent, action into i)``,
      the key selection reads for child ``i`` (None for the root).

    Attributes:
        amaf_tables, amaf_keys: per-node lists (above).
    """

    __slots__ = ("amaf_tables", "amaf_keys")

    def __init__(self, state: Any, player: Hashable, actions: tuple) -> None:
        """Makes a tree holding only the root (uniform priors, no evaluation)."""
        super().__init__(state, player, actions, uniform_priors(len(actions)), None)
        self.amaf_tables: list[dict[Move, list]] = [{}]
        self.amaf_keys: list[Move | None] = [None]

    def amaf(self, node: int) -> dict[Move, tuple[int, float]]:
        """Returns node ``node``'s AMAF statistics, ``{(player, action): (count, value_sum)}``.

        ``count`` is Ñ (an int), ``value_sum`` W̃ (a float, from ``player``'s
        point of view); Q̃ = W̃ / Ñ. A copy: changing it changes nothing.

        Raises:
            IndexError: if ``node`` is not a node of the tree.
        """
        if not -len(self) <= node < len(self):
            raise IndexError(f"node index {node} out of range for a tree of {len(self)} nodes")
        return {key: (entry[0], entry[1]) for key, entry in self.amaf_tables[node].items()}


def checked_options(planner: MCTS, rave_bias: Any, grave_ref: Any) -> tuple[float, int] | None:
    """Returns ``(rave_bias, grave_ref)`` for ``selection="rave"`` (defaults filled), else None.

    Called by :class:`~mcts_agent.search.MCTS` once its other options are
    set. Options that compose: budgets (``iterations``, ``time_limit``,
    ``max_nodes``), ``on_iteration``, ``exploration``, ``gamma``,
    ``rollout_limit``, ``rollout_policy`` and ``seed``.

    Raises:
        ValueError: ``rave_bias`` or ``grave_ref`` with another selection; a
            ``rave_bias`` that is not a finite number >= 0 or a ``grave_ref``
            that is not an int >= 0 (TypeError for a wrong type); a model
            without ``amaf_actions = True``; a model with a fused ``rollout``
            but no ``amaf_rollout`` (and no ``rollout_policy``); or an option
            RAVE does not compose with (each named, with why).
    """
    if planner.selection != "rave":
        given = [
            f"{name}={value!r}"
            for name, value in (("rave_bias", rave_bias), ("grave_ref", grave_ref))
            if value is not None
        ]
        if given:
            raise ValueError(
                f"{' and '.join(given)} tune selection='rave' (RAVE/GRAVE); with selection="
                f"{planner.selection!r} pass None (or selection='rave')"
            )
        return None
    bias = DEFAULT_RAVE_BIAS if rave_bias is None else rave_bias
    bias = require_float("rave_bias", bias, 0.0)
    ref = require_int("grave_ref", DEFAULT_GRAVE_REF if grave_ref is None else grave_ref, 0)
    model = planner.model
    name = type(model).__name__
    if getattr(model, "amaf_actions", False) is not True:
        raise ValueError(
            f"selection='rave' shares statistics between positions by action (AMAF: an action "
            f"is scored by the returns of every iteration that played it later), which assumes "
            f"an action means the same thing in every position (a Go point, a board cell); a "
            f"model says so with amaf_actions = True, and {name} does not (amaf_actions="
            f"{getattr(model, 'amaf_actions', None)!r})"
        )
    refused = [
        (planner.reward_players is not None, "a model reporting every player's reward "
         "(reward_players: max^n)", "the AMAF return of another player is the negation of "
         "the mover's (two players, zero sum, or one player)"),
        (planner.stochastic, f"a stochastic model ({name} has sample_step or outcomes)",
         "chance nodes are not implemented in the RAVE loop"),
        (planner.hidden, f"a hidden-information model ({name} has information_set and "
         "sample_world)", "the RAVE loop searches one perfect-information tree"),
        (planner.widening is not None, "progressive widening (widening, or a model "
         "without actions)", "AMAF needs the listed actions of every node"),
        (planner.evaluator is not None, "evaluator", "RAVE's values come from rollouts; "
         "use selection='puct' with an evaluator"),
        (planner.max_depth is not None, "max_depth", "the RAVE loop has no horizon"),
        (planner.solve, "solve=True", "the solver's rules are UCT's and PUCT's"),
        (planner.value_normalization, "value_normalization=True", "Q̃ and Q would be "
         "on different scales"),
        (planner.reuse_tree, "reuse_tree=True", "a re-rooted tree's AMAF tables are "
         "not carried over"),
        (planner.leaf_batch > 1, f"leaf_batch={planner.leaf_batch}", "the RAVE loop "
         "runs one iteration at a time"),
        (planner.workers > 1, f"workers={planner.workers}", "merging workers' roots "
         "keeps no AMAF tables"),
    ]  # fmt: skip
    for at_fault, what, why in refused:
        if at_fault:
            raise ValueError(f"selection='rave' does not work with {what}: {why}")
    if planner.rollout_limit > 0 and planner.rollout_policy is None:
        fused = getattr(model, "rollout", None)
        if callable(fused) and not callable(getattr(model, "amaf_rollout", None)):
            raise ValueError(
                f"selection='rave' needs the moves of every rollout; {name} has a fused "
                f"rollout(state, rng, limit, gamma), which returns only G: give it "
                f"amaf_rollout(state, rng, limit, gamma) -> (G, [(player, action), ...]) (the "
                f"same playout plus its moves), or pass a rollout_policy (the generic rollout, "
                f"recorded), or rollout_limit=0"
            )
    return bias, ref


def amaf_excluded(model: Any) -> frozenset:
    """The actions a model keeps out of the AMAF statistics (``model.amaf_excluded``), or none.

    Go's pass (:attr:`GoModel.amaf_excluded <mcts_agent.envs.go.GoModel.amaf_excluded>`):
    it ends games, and its value depends on the whole position, not on where it is played.

    Raises:
        TypeError: if ``model.amaf_excluded`` is not a collection of hashable actions.
    """
    excluded = getattr(model, "amaf_excluded", ())
    try:
        return frozenset(excluded)
    except TypeError:
        raise TypeError(
            f"{type(model).__name__}.amaf_excluded must be a collection of hashable actions "
            f"(e.g. a tuple), got {describe(excluded)}"
        ) from None


def new_tree(planner: MCTS, state: Any, actions: tuple) -> RaveTree:
    """Returns the one-node :class:`RaveTree` of a search from ``state`` (its legal ``actions``)."""
    return RaveTree(state, checked_player(planner.model.player(state), state), actions)


def recorded_rollout(planner: MCTS) -> Callable[[Any, tuple, Hashable, list], float] | None:
    """Returns ``rollout(state, actions, player, moves) -> G``, or None with rollouts off.

    It plays as the planner's rollout would (the model's ``amaf_rollout``
    when it has a fused ``rollout`` and no ``rollout_policy`` is given, else
    the generic rollout: uniform draws ``actions[int(rng.random() *
    len(actions))]``, or the ``rollout_policy``) and appends each move
    ``(player, action)`` to ``moves``. G is from ``player``'s point of view,
    accumulated forwards as :meth:`mcts_agent.search.MCTS._rollouts`
    documents.

    Raises (from the returned rollout):
        TypeError: if ``amaf_rollout`` returns no pair ``(G, moves)``.
        ValueError: if the ``rollout_policy`` returns an action not legal.
    """
    limit = planner.rollout_limit
    if limit == 0:
        return None
    model = planner.model
    rng = planner.rng
    gamma = planner.gamma
    policy = planner.rollout_policy
    if policy is None and callable(getattr(model, "rollout", None)):
        amaf_rollout = model.amaf_rollout

        def fused(state: Any, actions: tuple, player: Hashable, moves: list) -> float:
            result = amaf_rollout(state, rng, limit, gamma)
            if not (isinstance(result, tuple) and len(result) == 2):
                raise TypeError(
                    f"amaf_rollout(state, rng, limit, gamma) must return a pair (G, [(player, "
                    f"action), ...]), got {describe(result)}"
                )
            g, played = result
            moves.extend(played)
            return g

        return fused
    step = model.step
    model_actions = model.actions
    model_player = model.player
    random_ = rng.random

    def generic(state: Any, actions: Sequence, player: Hashable, moves: list) -> float:
        g = 0.0
        coef = 1.0
        moves_left = limit
        while True:
            if policy is None:
                action = actions[int(random_() * len(actions))]
            else:
                action = policy(state, actions, rng)
                if action not in actions:
                    raise ValueError(
                        f"rollout_policy returned {describe(action)}, which is not one of "
                        f"the legal actions {describe(list(actions))}"
                    )
            moves.append((player, action))
            state, reward, terminated = step(state, action)
            g += coef * reward
            moves_left -= 1
            if terminated or moves_left == 0:
                return g
            actions = model_actions(state)
            if not actions:
                return g
            mover = player
            player = model_player(state)
            coef *= gamma if player == mover else -gamma

    return generic


def _add(table: dict, first: dict, mover: Hashable, ret: float) -> None:
    """Adds one iteration to ``table``: each move of ``first``, ``ret`` from ``mover``'s view."""
    minus = -ret
    for key in first.values():
        entry = table.get(key)
        value = ret if key[0] == mover else minus
        if entry is None:
            table[key] = [1, value]
        else:
            entry[0] += 1
            entry[1] += value


def run(planner: MCTS, tree: RaveTree, iterations: int) -> int:
    """Runs ``iterations`` RAVE/GRAVE iterations on ``tree`` (see the module docstring).

    Args:
        planner: the planner searching (``selection="rave"``: its model,
            ``exploration``, ``rave_bias``, ``grave_ref``, rollouts, generator).
        tree: the tree to grow, made by :func:`new_tree` (or grown before).
        iterations: int >= 1.

    Returns:
        ``iterations`` (a RAVE search never stops early).

    Raises:
        ValueError: if ``step`` returns a non-finite reward or a rollout a
            non-finite return; TypeError for a model breaking the protocol.
    """
    model = planner.model
    step = model.step
    model_actions = model.actions
    model_player = model.player
    gamma = planner.gamma
    minus_gamma = -gamma
    c = planner.exploration
    bias, grave_ref = planner.rave_bias, planner.grave_ref
    rollout = recorded_rollout(planner)
    excluded = amaf_excluded(model)
    log = math.log
    sqrt = math.sqrt
    isfinite = math.isfinite
    minus_inf = -math.inf

    states = tree.states
    players = tree.players
    rewards = tree.rewards
    discounts = tree.discounts
    node_actions = tree.actions
    children = tree.children
    untried = tree.untried
    visits = tree.visits
    value_sums = tree.value_sums
    values = tree.values
    action_indices = tree.action_indices
    tables = tree.amaf_tables
    keys = tree.amaf_keys
    append_node = tree.append_node

    path: list[int] = []
    moves: list[Move] = []
    for _ in range(iterations):
        node = ROOT
        ref = ROOT
        path.clear()
        moves.clear()
        # 1. Selection (with GRAVE's reference node r: the deepest node on the path with
        # N >= grave_ref, the root if none) until a terminal node or an untried action.
        while True:
            left = untried[node]
            if left == TERMINAL:
                break
            if visits[node] >= grave_ref:
                ref = node
            table = tables[ref]
            mover = players[node]
            kids = children[node]
            if left:
                break
            log_n = log(visits[node])
            best_score = minus_inf
            child = kids[0]
            for kid in kids:
                n = visits[kid]
                entry = table.get(keys[kid])
                if entry is None:
                    score = values[kid] + c * sqrt(log_n / n)
                else:
                    n_amaf = float(entry[0])
                    n_float = float(n)
                    beta = n_amaf / (n_amaf + n_float + bias * n_amaf * n_float)
                    score = (
                        (1.0 - beta) * values[kid]
                        + beta * (entry[1] / n_amaf)
                        + c * sqrt(log_n / n)
                    )
                if score > best_score:
                    best_score = score
                    child = kid
            node = child
            path.append(node)

        # 2. Expansion of the untried action of largest Q~ (data first; ties: model order).
        if left > 0:
            actions = node_actions[node]
            tried = {action_indices[kid] for kid in kids}
            i = -1
            best_amaf = minus_inf
            first_untried = -1
            for j, action in enumerate(actions):
                if j in tried:
                    continue
                if first_untried < 0:
                    first_untried = j
                entry = table.get((mover, action))
                if entry is not None:
                    q_amaf = entry[1] / entry[0]
                    if q_amaf > best_amaf or i < 0:
                        best_amaf = q_amaf
                        i = j
            if i < 0:
                i = first_untried
            node = _expand(
                tree, node, i, step, model_actions, model_player, gamma, minus_gamma, append_node
            )
            path.append(node)

        # 3. Simulation, its moves recorded.
        if untried[node] == TERMINAL or rollout is None:
            g = 0.0
        else:
            g = rollout(states[node], node_actions[node], players[node], moves)
            if g.__class__ is not float:
                g = checked_return(g, states[node])
            elif not isfinite(g):
                checked_return(g, states[node])

        # 4. Backup and AMAF updates, leaf first.
        first: dict[Any, Move] = {}
        for move in moves:  # the rollout's first occurrence of each action
            if move[1] not in first and move[1] not in excluded:
                first[move[1]] = move
        if first:
            _add(tables[node], first, players[node], g)
        for k in range(len(path) - 1, -1, -1):
            node = path[k]
            g = rewards[node] + discounts[node] * g
            n = visits[node] + 1
            visits[node] = n
            w = value_sums[node] + g
            value_sums[node] = w
            values[node] = w / n
            key = keys[node]
            if key[1] not in excluded:
                first[key[1]] = key  # the move into node comes before every later one
            _add(tables[path[k - 1] if k else ROOT], first, key[0], g)
        visits[ROOT] += 1
        if not isfinite(g):
            raise ValueError(
                f"a backed-up return is not finite ({g}): the rewards are too large for sums "
                "of returns to stay within the float range; scale them down"
            )
    return iterations


def _expand(
    tree: RaveTree,
    node: int,
    i: int,
    step: Callable,
    model_actions: Callable,
    model_player: Callable,
    gamma: float,
    minus_gamma: float,
    append_node: Callable,
) -> int:
    """Adds the child of ``node``'s action ``i`` (one ``step``, its answers checked); returns it."""
    state = tree.states[node]
    action = tree.actions[node][i]
    next_state, reward, terminated = step(state, action)
    if reward.__class__ is not float or not math.isfinite(reward):
        reward = checked_reward(reward, state, action)
    if terminated is not False and terminated is not True:
        terminated = checked_terminated(terminated, state, action)
    child_actions: tuple = ()
    child_player = None
    if not terminated:
        child_actions = model_actions(next_state)
        if child_actions.__class__ is not tuple:
            child_actions = checked_actions(child_actions, next_state)
        if child_actions:
            child_player = model_player(next_state)
            if child_player.__class__ is not int:
                checked_player(child_player, next_state)
    mover = tree.players[node]
    child = append_node(
        next_state,
        child_player,
        reward,
        gamma if child_player == mover else minus_gamma,
        child_actions,
        len(child_actions) or TERMINAL,
        i,
        uniform_priors(len(child_actions)) if child_actions else (),
        0.0,
        None,
    )
    tree.amaf_tables.append({})
    tree.amaf_keys.append((mover, action))
    kids = tree.children[node]
    action_indices = tree.action_indices
    at = len(kids)
    while at and action_indices[kids[at - 1]] > i:  # keep the model's order of actions
        at -= 1
    tree.children[node] = kids[:at] + (child,) + kids[at:]
    tree.untried[node] -= 1
    return child
