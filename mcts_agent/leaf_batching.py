"""Leaf batching with virtual loss: many leaves per evaluator call (``docs/guides/parallel.md``).

``MCTS(..., leaf_batch=k)`` with k > 1 runs the search in rounds of up to k
iterations, in one thread (Silver et al., 2016, "Methods", and 2017: AlphaGo
Zero's virtual loss; OpenSpiel's ``async_mcts``; Chaslot et al., 2008, tree
parallelisation with virtual loss):

1. **Selection and expansion, k times.** Each iteration of the round selects
   from the root with the planner's rule (UCT or PUCT, as the general loop:
   :func:`mcts_agent.selection.puct_select`, or
   :func:`mcts_agent.solver.selection_rule` without proofs) and expands one
   untried action (one ``step``, a new node whose evaluation waits), stopping
   earlier at a terminal node, the horizon (``max_depth``), or a node made
   earlier in the same round (that leaf is then reached twice and evaluated
   once). Its path then gets a *virtual loss*: every node on it, root
   included, gets ``N += virtual_loss`` and ``W -= virtual_loss`` (each
   virtual visit counts as a return of -1 from the mover's view: a loss for
   returns in [-1, 1]) and Q = W / N, so the next selections of the round
   turn away from it.
2. **Evaluation.** The round's new non-terminal nodes are evaluated, each
   once, by one call ``evaluator.batch(states, actions_list)`` if the
   evaluator has a ``batch`` method (see below), else by one
   ``evaluator(state, actions)`` per node; the priors and values are checked
   as the general loop checks them (:func:`mcts_agent.evaluator.checked_evaluation`).
3. **Backup.** The virtual losses are removed (every N, W and Q put back as it
   was before the round, exactly), then each iteration, in the order they
   were selected, backs up its G as the plain loop does: 0 at a terminal
   node, else the leaf's evaluator value, else a rollout from the leaf (drawn
   from the planner's generator, in that order).

With PUCT and the compiled core (:mod:`mcts_agent.compiled`), steps 1 and 3
run in C (``_core.select_leaves``, ``_core.backup_leaves``) on the tree's
lists, expanding with the model's native step where it has one
(:func:`mcts_agent.compiled.native_expansion`; else calling back this
module's expansion) and calling back, off PUCT's fast path,
:func:`~mcts_agent.selection.puct_select`; step 2's checks run in C too
(:func:`mcts_agent.compiled.evaluations_checker`): the same paths, virtual
losses and trees as the Python steps here (``tests/test_compiled.py``).

With ``value_normalization`` the round's selections read Q normalised by the
``[lo, hi]`` the previous rounds' backups left (:mod:`mcts_agent.normalization`;
the virtual losses do not change it), and each path's backup widens it.

So a round is deterministic for a seed, and a search of ``iterations=n`` is
n iterations in ``ceil(n / k)`` rounds (the budget driver's chunks are cut
into rounds, so a time limit can make a round smaller). With ``leaf_batch=1``
this module is not used: the general loop (or the plain one) runs as before.

The batch form of an evaluator: an evaluator (a callable ``(state, actions)
-> Evaluation``, :mod:`mcts_agent.evaluator`) may also have a method
``batch(states, actions_list) -> list[Evaluation]``, given the round's states
(a list) and their legal actions (a list of tuples, ``actions_list[j]`` those
of ``states[j]``); it must return one ``Evaluation`` per state, in order. The
root is evaluated with the plain call.

Not with ``solve=True`` or a stochastic model (their loops are the general
loop's alone): ValueError.
"""

from __future__ import annotations

import bisect
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcts_agent import compiled, solver
from mcts_agent._validation import (
    checked_actions,
    checked_player,
    checked_return,
    checked_reward,
    checked_terminated,
    require_float,
    require_int,
)
from mcts_agent.evaluator import checked_evaluation, uniform_priors
from mcts_agent.normalization import widen
from mcts_agent.selection import SCORE_ALL, puct_select
from mcts_agent.tree import ROOT, TERMINAL, UNVISITED, GuidedTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = ["checked_options", "evaluate", "run"]


def checked_options(
    leaf_batch: Any, virtual_loss: Any, stochastic: bool, solve: bool, on_iteration: bool = False
) -> tuple[int, float]:
    """Returns ``(leaf_batch, virtual_loss)`` checked.

    ``on_iteration``: whether the planner has an ``on_iteration`` callback.

    Raises:
        TypeError: if ``leaf_batch`` is not an int or ``virtual_loss`` not a real number.
        ValueError: if ``leaf_batch < 1``, ``virtual_loss`` is negative or not
            finite, or ``leaf_batch > 1`` with the solver, a stochastic model or
            an ``on_iteration`` callback.
    """
    leaf_batch = require_int("leaf_batch", leaf_batch, 1)
    virtual_loss = require_float("virtual_loss", virtual_loss, 0.0)
    if leaf_batch > 1 and on_iteration:
        raise ValueError(
            f"leaf_batch={leaf_batch} runs the search in rounds of {leaf_batch} iterations, "
            "but on_iteration is called after every single one, which would make every round "
            "a round of one; pass leaf_batch=1 or on_iteration=None"
        )
    if leaf_batch > 1 and (solve or stochastic):
        what = "solve=True" if solve else "a stochastic model (chance nodes)"
        raise ValueError(
            f"leaf_batch={leaf_batch} batches the general loop's leaves, but {what} runs a "
            "loop of its own; pass leaf_batch=1"
        )
    return leaf_batch, virtual_loss


def evaluate(evaluator: Any, states: list, actions_list: list) -> list[tuple]:
    """Evaluates ``states`` once each: one ``evaluator.batch`` call, or one call per state.

    Args:
        evaluator: the planner's evaluator (with or without ``batch``).
        states: the states to evaluate, non-terminal.
        actions_list: their legal actions, ``actions_list[j]`` of ``states[j]``.

    Returns:
        ``(value, priors)`` per state, checked (:func:`checked_evaluation`).

    Raises:
        TypeError: if ``batch`` returns something else than a sequence, or a
            malformed evaluation (as :func:`checked_evaluation`).
        ValueError: if ``batch`` returns the wrong number of evaluations, changes
            the length of its arguments, or returns a bad value or priors.
    """
    batch = getattr(evaluator, "batch", None)
    if callable(batch):
        n = len(states)
        answers = batch(states, actions_list)
        if len(states) != n or len(actions_list) != n:
            raise ValueError(
                f"evaluator.batch(states, actions_list) must leave its arguments as they "
                f"were (it was given {n} states and {n} action lists); it left "
                f"{len(states)} states and {len(actions_list)} action lists"
            )
        if not isinstance(answers, Sequence):
            raise TypeError(
                "evaluator.batch(states, actions_list) must return a list of Evaluation, "
                f"one per state; got {type(answers).__name__}"
            )
        if len(answers) != n:
            raise ValueError(
                f"evaluator.batch returned {len(answers)} evaluations for {n} "
                "states; expected one per state, in their order"
            )
        answers = list(answers)  # read once, by iteration, whatever the sequence
    else:
        answers = [evaluator(s, a) for s, a in zip(states, actions_list, strict=True)]
    check_all = compiled.evaluations_checker()
    if check_all is not None and len(answers) == len(states) == len(actions_list):
        return check_all(answers, states, actions_list)  # the same checks, common cases in C
    return [
        checked_evaluation(answer, s, a)
        for answer, s, a in zip(answers, states, actions_list, strict=True)
    ]


def pending_leaves(first_new: int, untried: list, states: list, actions: list) -> tuple:
    """Returns the round's new non-terminal nodes (from ``first_new``), their states and actions."""
    pending = [n for n in range(first_new, len(states)) if untried[n] != TERMINAL]
    return pending, [states[n] for n in pending], [actions[n] for n in pending]


def store_evaluations(pending: list, checked: list, leaf_values: list, priors: list) -> None:
    """Stores each pending node's checked ``(value, priors)``."""
    for n, (value, node_priors) in zip(pending, checked, strict=True):
        leaf_values[n] = value
        priors[n] = node_priors


def leaf_returns(paths: list, untried: list, leaf_values: list) -> list:
    """Returns each path's G where no rollout is needed (0.0 at a terminal leaf, else its value)."""
    return [
        0.0 if untried[leaf] == TERMINAL else leaf_values[leaf]
        for leaf in [path[-1] for path in paths]
    ]


def run(planner: MCTS, tree: GuidedTree, iterations: int) -> int:
    """Runs ``iterations`` iterations on ``tree`` in rounds of ``planner.leaf_batch``; returns them.

    See the module docstring. It continues ``tree`` (made by
    :func:`mcts_agent.general_loop.new_tree`, or re-rooted) and the planner's
    generator, as :func:`mcts_agent.general_loop.run` does.

    Raises:
        ValueError, TypeError: as the general loop, for a model or evaluator
            that breaks the protocol.
    """
    model = planner.model
    step = model.step
    model_actions = model.actions
    model_player = model.player
    evaluator = planner.evaluator
    gamma = planner.gamma
    minus_gamma = -gamma
    c = planner.exploration
    limit = planner.rollout_limit
    rng = planner.rng
    fused_rollout, generic_rollout = planner._rollouts()
    horizon = sys.maxsize if planner.max_depth is None else planner.max_depth
    # value_normalization: [lo, hi] of the values met in this search's backups, or None.
    value_range = planner._value_range
    if planner.selection == "puct":
        q_untried = planner.unvisited_value

        def select(node: int) -> tuple[int, int]:
            return puct_select(tree, node, c, q_untried, value_range)

    else:  # with no proofs: plain UCT
        select = solver.selection_rule(tree, "uct", c, 0.0, value_range)
    batch_size = planner.leaf_batch
    loss = planner.virtual_loss
    isfinite = math.isfinite

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
    leaf_values = tree.leaf_values

    def expand(node: int, i: int) -> int:
        """Adds the child of action ``i`` of ``node`` (one step), its evaluation pending."""
        state = states[node]
        action = node_actions[node][i]
        next_state, reward, terminated = step(state, action)
        if reward.__class__ is not float or not isfinite(reward):
            reward = checked_reward(reward, state, action)
        if terminated is not False and terminated is not True:
            terminated = checked_terminated(terminated, state, action)
        child_actions: tuple = ()
        child_player = None
        child_priors: tuple = ()
        if not terminated:
            child_actions = model_actions(next_state)
            if child_actions.__class__ is not tuple:
                child_actions = checked_actions(child_actions, next_state)
            if child_actions:
                child_player = model_player(next_state)
                if child_player.__class__ is not int:
                    checked_player(child_player, next_state)
                child_priors = uniform_priors(len(child_actions))  # the evaluator's after the round
        child = tree.append_node(
            next_state,
            child_player,
            reward,
            gamma if child_player == players[node] else minus_gamma,
            child_actions,
            len(child_actions) or TERMINAL,
            i,
            child_priors,
            c * priors[node][i],
            None,
        )
        kids = children[node]
        at = bisect.bisect(kids, i, key=action_indices.__getitem__)  # the model's order
        children[node] = kids[:at] + (child,) + kids[at:]
        untried[node] -= 1
        return child

    def select_round(size: int, first_new: int) -> tuple[list[list[int]], dict]:
        """Step 1: ``size`` selections and expansions, a virtual loss on each path taken.

        Returns the paths (root excluded, leaf last) and the nodes' (N, W, Q)
        before the round, by node.
        """
        paths: list[list[int]] = []
        saved: dict[int, tuple[Any, float, float]] = {}
        for _ in range(size):
            node = ROOT
            depth = 0
            path: list[int] = []
            while untried[node] != TERMINAL and depth < horizon and node < first_new:
                depth += 1
                i, child = select(node)
                if child == UNVISITED:
                    child = expand(node, i)
                    path.append(child)
                    break
                node = child
                path.append(node)
            paths.append(path)
            if loss:
                for node in (ROOT, *path):
                    if node not in saved:
                        saved[node] = (visits[node], value_sums[node], values[node])
                    n = visits[node] + loss
                    w = value_sums[node] - loss
                    visits[node] = n
                    value_sums[node] = w
                    values[node] = w / n
        return paths, saved

    def backup_round(
        paths: list[list[int]],
        returns: list[float],
        saved: dict,
        rewards: list,
        discounts: list,
        visits: list,
        value_sums: list,
        values: list,
        value_range: list[float] | None,
    ) -> None:
        """Step 3: the saved (N, W, Q) put back, then each path backs up its return, in order.

        With ``value_normalization``, each path's backup then widens ``[lo, hi]``
        by the values it left, leaf first (as the general loop).
        """
        for node, (n, w, q) in saved.items():
            visits[node] = n
            value_sums[node] = w
            values[node] = q
        for path, g in zip(paths, returns, strict=True):
            for node in reversed(path):  # leaf first: the plain loop's rule
                g = rewards[node] + discounts[node] * g
                n = visits[node] + 1
                visits[node] = n
                w = value_sums[node] + g
                value_sums[node] = w
                values[node] = w / n
            visits[ROOT] += 1
            if value_range is not None:
                widen(value_range, values, path)

    # Steps 1 and 3 in C (mcts_agent._core) when the core is built (step 1 for PUCT only).
    backup = compiled.leaf_backup() or backup_round
    find_pending, store, find_returns = compiled.leaf_bookkeeping() or (
        pending_leaves,
        store_evaluations,
        leaf_returns,
    )
    select_leaves = compiled.leaf_selector() if planner.selection == "puct" else None
    if select_leaves is not None:
        capsule = compiled.native_expansion(model, tree)
        native = None  # with the model's native step, the expansions in C too
        if capsule is not None:
            native = (capsule, uniform_priors, gamma, states, players, rewards, discounts)
            native += (node_actions, leaf_values, tree.proven_values, tree.chance_records)
        puct_lists = (
            lambda node: puct_select(tree, node, c, q_untried, value_range),  # off the fast path
            c,
            q_untried,
            SCORE_ALL,
            untried,
            children,
            visits,
            value_sums,
            values,
            tree.scaled_priors,
            priors,
            action_indices,
            tree.expansion_orders,
            native,
            value_range,
        )

    done = 0
    while done < iterations:
        size = min(batch_size, iterations - done)
        first_new = len(states)  # the nodes made in this round are numbered from here
        # 1. Selection and expansion, with a virtual loss on each path taken.
        if select_leaves is not None:
            paths, saved = select_leaves(size, first_new, horizon, loss, expand, *puct_lists)
        else:
            paths, saved = select_round(size, first_new)
        # 2. Evaluation of the round's new non-terminal nodes, once each.
        if evaluator is not None:
            pending, pending_states, pending_actions = find_pending(
                first_new, untried, states, node_actions
            )
            if pending:
                answers = evaluate(evaluator, pending_states, pending_actions)
                store(pending, answers, leaf_values, priors)
        # 3. The virtual losses removed (the saved figures put back), then each backup.
        returns = find_returns(paths, untried, leaf_values)
        if None in returns:  # no value: a rollout from the leaf, in the order of the paths
            for j, path in enumerate(paths):
                leaf = path[-1]
                if returns[j] is not None:
                    continue
                if fused_rollout is not None:
                    g = fused_rollout(states[leaf], rng, limit, gamma)
                elif generic_rollout is not None:
                    g = generic_rollout(states[leaf], node_actions[leaf], players[leaf])
                else:
                    g = 0.0
                # A float, checked (a numpy number, an int: converted), on both backends.
                returns[j] = g if g.__class__ is float else checked_return(g, states[leaf])
        backup(paths, returns, saved, rewards, discounts, visits, value_sums, values, value_range)
        done += size
    return iterations
