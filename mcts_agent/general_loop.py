"""The general loop: the plain loop's four steps with options (``docs/guides/guided-search.md``).

:class:`~mcts_agent.search.MCTS` runs its plain UCT loop (``MCTS._run``, the
reference and the fast path) unless an option needs this one: an
``evaluator``, ``selection="puct"``, a ``max_depth`` or ``root_noise``, the
solver, a stochastic model (chance nodes, :mod:`mcts_agent.chance`), or a
model reporting every player's reward (max^n: :mod:`mcts_agent.maxn`'s
:class:`~mcts_agent.maxn.MaxnLoop` then gives the rewards, rollouts,
evaluations, proofs and the backup their vector form). With
every option off this loop builds the plain loop's trees bit for bit (same
seed, same N and W at every node; ``tests/test_guided_search.py`` forces it
to prove so).

One iteration, readable form (the code does exactly this)::

    node, depth, path = ROOT, 0, []
    while not terminal(node) and depth < max_depth:                   # 1. selection
        i = select(node)               # UCT: first untried, else UCB1; PUCT: every action
        depth += 1
        if stochastic: node = chance node of i (made if untried); path.append(node)
                       i = the outcome drawn there (mcts_agent.chance)
        if action i of node is untried:                               # 2. expansion
            node = add_child(node, i)  # one step (or the drawn outcome); evaluator if not terminal
            path.append(node); break
        node = child i of node; path.append(node)
    G = 0 if terminal(node) else                                      # 3. simulation
        leaf_value(node) if the evaluator gave one else rollout(node)
    back up G along path, leaf first (the plain loop's rule)          # 4. backup
    value_normalization: lo, hi = min, max of lo, hi and each Q(node) on path

With ``value_normalization`` (while hi > lo) selection reads ``Qn = (Q - lo) / (hi - lo)``
in place of each tried child's Q (UCT, PUCT, the solver's proven values; PUCT's
``unvisited_value`` is taken as already normalised, ``"parent"``'s value normalised as a
Q), with lo and hi as the previous iterations' backups left them (kept on the planner
between chunks). ``unvisited_value="parent"``: PUCT scores an untried action with
:func:`~mcts_agent.selection.parent_value` of its node, worked out at each selection.

Sources: Silver et al. (2017, 2018) for PUCT, root noise and the evaluator's
(value, priors); OpenSpiel's ``mcts.py`` for the evaluator interface.

This loop is where later options go (a time budget, a solver, chance nodes,
max^n backups): a new per-node field in :class:`~mcts_agent.tree.GuidedTree`,
a new branch here. Its selection rules are written inline, for speed (a call per
step cost PUCT about a tenth of its time); :mod:`mcts_agent.selection` holds PUCT's
fast-path helpers and the rule as written.
"""

from __future__ import annotations

import bisect
import math
import sys
from typing import TYPE_CHECKING, Any

from mcts_agent import chance, compiled_chance, gumbel, maxn, solver, widening
from mcts_agent._validation import (
    checked_actions,
    checked_player,
    checked_return,
    checked_reward,
    checked_terminated,
)
from mcts_agent.evaluator import checked_evaluation, uniform_priors
from mcts_agent.normalization import normalizer, widen
from mcts_agent.selection import (
    PARENT_VALUE,
    SCORE_ALL,
    expansion_order,
    parent_value,
    puct_score_all,
)
from mcts_agent.tree import ROOT, TERMINAL, UNVISITED, GuidedTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = ["new_tree", "renew_root", "run"]


def new_tree(
    planner: MCTS, state: Any, actions: tuple, iterations: int | None = None
) -> GuidedTree:
    """Returns the one-node tree of a search from ``state``: the root evaluated and noised.

    The evaluator (if any) is asked once for the root; its priors (uniform
    without one) then get the root noise, if any: ``eta ~ Dirichlet(alpha,
    ..., alpha)`` drawn from the planner's generator (each ``eta_i`` a
    ``gammavariate(alpha, 1)`` divided by their sum), and the root's priors
    become ``(1 - fraction) * P + fraction * eta``.

    Args:
        planner: the planner searching (its model, evaluator, noise and generator).
        state: the root's state.
        actions: its legal actions (non-empty tuple); None for a model
            without ``actions`` (progressive widening, :mod:`mcts_agent.widening`).
        iterations: the search's iteration budget, or None; a Gumbel search
            (``selection="gumbel"``) makes a :class:`~mcts_agent.gumbel.GumbelTree`
            whose schedule spans it.

    Raises:
        TypeError, ValueError: if the evaluator's answer is malformed
            (:func:`~mcts_agent.evaluator.checked_evaluation`).
    """
    if planner.widening is not None:  # actions drawn as the node is visited
        return widening.new_tree(planner, state, actions)
    evaluator = planner.evaluator
    players = planner.reward_players  # every player's reward: mcts_agent.maxn
    if evaluator is None:
        value, priors = None, uniform_priors(len(actions))
    elif players is not None:
        result = evaluator(state, actions)
        value, priors = maxn.checked_evaluation(players, result, state, actions)
    else:
        value, priors = checked_evaluation(evaluator(state, actions), state, actions)
    if players is not None:
        return maxn.new_tree(planner, state, actions, noised_priors(planner, priors), value)
    if planner.gumbel is not None:  # no root noise: the Gumbel draw explores
        return gumbel.new_tree(planner, state, actions, iterations, (value, priors))
    return GuidedTree(
        state, planner.model.player(state), actions, noised_priors(planner, priors), value
    )


def renew_root(planner: MCTS, tree: GuidedTree) -> None:
    """Makes a re-rooted tree's root a search root (:mod:`mcts_agent.reuse`): fresh root noise.

    The new root's priors are its own (the evaluator's, without noise: it was
    not the root); they get the root noise anew, and its children's
    ``scaled_priors`` (``c * P``) are worked out again from them. PUCT's
    order of the root's actions is made anew too: the actions already tried
    first (PUCT's fast path takes the next untried action from that order),
    then the untried ones by their new priors (:func:`expansion_order`).
    """
    priors = tree.priors[ROOT] = noised_priors(planner, tree.priors[ROOT])
    c = planner.exploration
    action_indices = tree.action_indices
    tried = [action_indices[child] for child in tree.children[ROOT]]
    for child in tree.children[ROOT]:
        tree.scaled_priors[child] = c * priors[action_indices[child]]
    order = expansion_order(priors, c)
    if order is not SCORE_ALL:
        order = tried + [i for i in order if i not in tried]
    tree.expansion_orders[ROOT] = order
    action_indices[ROOT] = -1  # a root was made by no action
    tree.scaled_priors[ROOT] = 0.0
    if isinstance(tree, maxn.MaxnTree):
        maxn.renew_root(tree)


def noised_priors(planner: MCTS, priors: tuple) -> tuple:
    """``priors`` with the planner's root noise, if any, drawn from its generator."""
    if planner.root_noise is None:
        return priors
    alpha, fraction = planner.root_noise
    gammavariate = planner.rng.gammavariate
    draws = [gammavariate(alpha, 1.0) for _ in priors]
    total = sum(draws)
    pairs = zip(priors, draws, strict=True)
    return tuple((1.0 - fraction) * p + fraction * (eta / total) for p, eta in pairs)


def run(planner: MCTS, tree: GuidedTree, iterations: int) -> int:
    """Runs ``iterations`` iterations of the general loop on ``tree``; returns how many ran.

    It continues ``tree`` (the budget driver, :func:`mcts_agent.budgets.run`,
    calls it chunk by chunk). Fewer than ``iterations`` run only when the
    solver proves the root.

    Written for speed as the plain loop is (profiled; ``benchmarks/bench_guided.py
    --sections cost``): the tree's lists bound to locals, both selection rules
    inline (see :mod:`mcts_agent.selection` for PUCT's fast path), and a new
    node's entries appended once, the children tuple of its parent growing by
    one (kept in the model's order of their actions).

    Args:
        planner: the planner searching (its model and options).
        tree: the tree to grow, made by :func:`new_tree` (or re-rooted by
            :mod:`mcts_agent.reuse` and renewed by :func:`renew_root`).
        iterations: int >= 1.

    Raises:
        ValueError: if ``step`` returns a non-finite reward, or the evaluator
            a malformed answer (TypeError for a wrong type).
    """
    if planner.stochastic and compiled_chance.applies(planner, tree):  # the same loop in C
        return compiled_chance.run(planner, tree, iterations)
    model = planner.model
    step = getattr(model, "step", None)  # never called on a stochastic model
    model_actions = model.actions if planner.listed else None
    model_player = model.player
    evaluator = planner.evaluator
    gamma = planner.gamma
    minus_gamma = -gamma
    limit = planner.rollout_limit
    rng = planner.rng
    # Every player's reward (mcts_agent.maxn): vector rewards, rollouts, evaluations, backup.
    vector = None if planner.reward_players is None else maxn.MaxnLoop(planner, tree)
    if vector is None:
        fused_rollout, generic_rollout = planner._rollouts()
        check_evaluation = checked_evaluation
    else:
        fused_rollout, generic_rollout = vector.rollouts
        check_evaluation = vector.check_evaluation
    horizon = sys.maxsize if planner.max_depth is None else planner.max_depth
    puct = planner.selection == "puct"
    # Gumbel root search (mcts_agent.gumbel): sequential halving at the root, its rule below.
    gumbel_select = None if planner.gumbel is None else gumbel.selection(planner, tree)
    solving = planner.solve
    value_bounds = planner.value_bounds
    # value_normalization: [lo, hi] of the values met in this search's backups, or None.
    value_range = planner._value_range
    lo, span = normalizer(value_range)
    scaled = span is not None
    if solving:
        solver_select = solver.selection_rule(
            tree, planner.selection, planner.exploration, planner.unvisited_value, value_range
        )
    c = planner.exploration
    # unvisited_value="parent": an untried action's Q is its node's value (parent_value).
    q_parent = planner.unvisited_value == PARENT_VALUE
    q_untried = 0.0 if q_parent else planner.unvisited_value
    log = math.log
    sqrt = math.sqrt
    isfinite = math.isfinite
    inf = math.inf

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
    priors = tree.priors
    scaled_priors = tree.scaled_priors
    leaf_values = tree.leaf_values
    expansion_orders = tree.expansion_orders
    proven_values = tree.proven_values
    append_node = tree.append_node
    # A stochastic model: each action leads through its chance node (mcts_agent.chance).
    cross = chance.crossing(planner, tree) if planner.stochastic else None
    # Progressive widening (mcts_agent.widening): actions drawn at every decision node.
    widened = None
    if planner.widening is not None:
        widened = tree.widened
        widen_select = widening.selection(planner, tree)
        widen_expand = widening.expansion(planner)
    result = None

    path: list[int] = []
    path_append = path.append
    for done in range(iterations):
        node = ROOT
        depth = 0
        path.clear()
        # 1. Selection, down to a terminal node, the horizon, or an untried action i
        # (child = UNVISITED); the node's tried children are kids, in the model's order.
        while untried[node] != TERMINAL and depth < horizon:
            depth += 1
            kids = children[node]
            left = untried[node]
            if widened is not None:  # draw an action, or select among those drawn
                i, child = widen_select(node, lo, span)
                left = untried[node]
            elif solving:  # the solver's rules: a proven child scores its proven value
                i, child = solver_select(node)
            elif gumbel_select is not None:
                i, child = gumbel_select(node)
            elif puct:
                # Q + c * P * sqrt(max(N, 1)) / (1 + N(a)) over the tried children, first
                # of the highest; then, if any, the next untried action, whose score is the
                # highest of the untried ones (the fast path of mcts_agent.selection).
                n = visits[node]
                root_n = sqrt(n if n > 1 else 1)
                best_score = -inf
                child = UNVISITED
                if scaled:  # value_normalization: Qn = (Q - lo) / (hi - lo)
                    for kid in kids:
                        score = (values[kid] - lo) / span + scaled_priors[kid] * root_n / (
                            1 + visits[kid]
                        )
                        if score > best_score:
                            best_score = score
                            child = kid
                else:
                    for kid in kids:
                        score = values[kid] + scaled_priors[kid] * root_n / (1 + visits[kid])
                        if score > best_score:
                            best_score = score
                            child = kid
                if left:
                    if q_parent:
                        q_untried = parent_value(tree, node)
                        if scaled:
                            q_untried = (q_untried - lo) / span
                    order = expansion_orders[node]
                    if order is None:
                        order = expansion_orders[node] = expansion_order(priors[node], c)
                    if order is SCORE_ALL:
                        i = puct_score_all(tree, node, c, q_untried, None, value_range)
                        child = tree.children_by_action(node)[i]
                    else:
                        i = order[len(kids)]
                        score = q_untried + c * priors[node][i] * root_n  # / (1 + 0)
                        if score > best_score or (
                            score == best_score and i < action_indices[child]
                        ):
                            child = UNVISITED
                elif child == UNVISITED:  # every score NaN or -inf (a W overflowed)
                    child = kids[0]
            elif left:  # UCT: the first untried action
                i = len(kids)
                child = UNVISITED
            else:  # UCT: UCB1, the first of the highest
                log_n = log(visits[node])
                best_score = -inf
                child = kids[0]
                if scaled:  # value_normalization: Qn = (Q - lo) / (hi - lo)
                    for kid in kids:
                        score = (values[kid] - lo) / span + c * sqrt(log_n / visits[kid])
                        if score > best_score:
                            best_score = score
                            child = kid
                else:
                    for kid in kids:
                        score = values[kid] + c * sqrt(log_n / visits[kid])
                        if score > best_score:
                            best_score = score
                            child = kid
            if cross is not None:  # on to the action's chance node and one outcome drawn there
                node, child, i, result = cross(node, child, i if child == UNVISITED else -1)
                path_append(node)
                if vector is not None:
                    vector.add_chance_nodes()
                kids = children[node]
                left = untried[node]
            if child != UNVISITED:
                node = child
                path_append(node)
                if solving and proven_values[node] is not None:
                    break  # the solver stops at a proven node
                continue
            # 2. Expansion of the untried action i: one step, once for ever (or of the
            # new outcome i drawn at a chance node).
            state = states[node]
            action = node_actions[node][i]
            if result is None:
                next_state, reward, terminated = step(state, action)
            else:
                next_state, reward, terminated = result
            if vector is not None:  # the move's reward to every player, and to its mover
                reward_vector = vector.reward(reward, state, action, result is None)
                mover = vector.mover(node)
                reward = reward_vector[mover]
            elif reward.__class__ is not float or not isfinite(reward):
                reward = checked_reward(reward, state, action)  # a float, or raises
            child_actions: tuple = ()
            child_player = None
            value: float | None = None
            child_priors: tuple = ()
            record = None
            if terminated is not False and terminated is not True:
                terminated = checked_terminated(terminated, state, action)
            if widened is not None:  # a widened node: its actions are drawn when visited
                if not terminated:
                    child_player, value, record = widen_expand(next_state)
            elif not terminated:
                child_actions = model_actions(next_state)
                if child_actions.__class__ is not tuple:
                    child_actions = checked_actions(child_actions, next_state)
                if child_actions:
                    child_player = model_player(next_state)
                    if child_player.__class__ is not int:
                        checked_player(child_player, next_state)
                    if evaluator is None:
                        child_priors = uniform_priors(len(child_actions))
                    else:
                        value, child_priors = check_evaluation(
                            evaluator(next_state, child_actions), next_state, child_actions
                        )
            child = append_node(
                next_state,
                child_player,
                reward,
                gamma if child_player == players[node] else minus_gamma,
                child_actions,
                len(child_actions) or (TERMINAL if record is None else 0),
                i,
                child_priors,
                c * priors[node][i],
                value,
            )
            if vector is not None:
                vector.add_node(child, reward_vector, mover)
            if record is not None:
                widened[child] = record
            if not kids or action_indices[kids[-1]] < i:
                children[node] = kids + (child,)
            else:  # PUCT tried a later action first: keep the model's order
                at = bisect.bisect(kids, i, key=action_indices.__getitem__)
                children[node] = kids[:at] + (child,) + kids[at:]
            untried[node] = left - 1
            node = child
            path_append(node)
            if solving and not child_actions:  # a terminal node is proven: V = r
                if vector is None:
                    proven_values[node] = reward
                    solver.prove_up(tree, path, value_bounds)  # checks the bounds too
                else:
                    vector.prove_terminal(path, value_bounds)
            break

        # 3. Simulation: 0 at a terminal node, else the evaluator's value or a rollout.
        if untried[node] == TERMINAL:
            g = 0.0
        elif solving and proven_values[node] is not None:
            g = (solver if vector is None else vector).subtree_return(tree, node)
        elif leaf_values[node] is not None:
            g = leaf_values[node]
        elif fused_rollout is not None:
            g = fused_rollout(states[node], rng, limit, gamma)
            if g.__class__ is not float and vector is None:  # a numpy G: backed up as a float
                g = checked_return(g, states[node])
        elif generic_rollout is not None:
            legal = node_actions[node] if widened is None else widened[node].legal
            g = generic_rollout(states[node], legal, players[node])
            if g.__class__ is not float and vector is None:
                g = checked_return(g, states[node])
        else:
            g = 0.0

        # 4. Backup, leaf first: G = r + gamma*G if the mover moves again, else r - gamma*G
        # (every player's G, no change of sign, in max^n: mcts_agent.maxn).
        if vector is not None:
            vector.backup(path, g)
        else:
            for node in reversed(path):
                g = rewards[node] + discounts[node] * g
                n = visits[node] + 1
                visits[node] = n
                w = value_sums[node] + g
                value_sums[node] = w
                values[node] = w / n
            visits[ROOT] += 1
        if value_range is not None:  # the values the backup left (chance nodes' too), leaf first
            widen(value_range, values, path)  # (read by the solver's rule too)
            lo, span = normalizer(value_range)
            scaled = span is not None
        if solving and proven_values[ROOT] is not None:
            return done + 1
    return iterations
