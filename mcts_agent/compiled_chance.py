"""The compiled chance loop: the general loop of a stochastic model in C, with the same trees.

``mcts_agent._core.chance_run`` (``mcts_agent/_chance_loop.c``) runs
:func:`mcts_agent.general_loop.run` for the case that stochastic searches
mostly are (``docs/guides/compiled-core.md``): a model with ``outcomes`` or
``sample_step`` (chance nodes, :mod:`mcts_agent.chance`), ``selection="uct"``
with or without ``value_normalization``, no evaluator, no ``max_depth``, no
solver, one reward (no max^n), one leaf per iteration. It builds the pure
loop's trees bit for bit: the same N, W and values at every node, the nodes in
the same order, the model called in the same order with the same arguments,
the same random numbers drawn from the planner's generator (which ends in the
same state), the same checks (its slow paths are this package's Python
functions). It changes the :class:`~mcts_agent.tree.GuidedTree`'s lists in
place, as the pure loop does. :func:`applies` says when it runs; the pure loop
stays the reference and the fallback (``MCTS_AGENT_PURE_PYTHON=1``, or
:func:`mcts_agent.compiled.pure_python`).

Native chance: a model whose class defines ``native_chance(self)`` returning
a capsule named :data:`NATIVE_CHANCE_CAPSULE` (or None) hands the loop C code
(``docs/guides/compiled-core.md``, "Native chance"):

* its rollout, which draws exactly the random numbers of the Python rollout it
  replaces: where the pure loop calls the model's own ``rollout`` (no
  ``rollout_policy``), only while ``type(model).rollout`` is the ``rollout``
  of the class that defines ``native_chance`` (Pig: :func:`pig_rollout`); where
  the pure loop plays the generic rollout (no ``rollout_policy``, the model
  has no callable ``rollout``), through ``outcomes``, ``actions`` and
  ``player`` (:class:`~mcts_agent.adapters.gymnasium.model.GymnasiumModel` on
  a toy-text table: :func:`table_rollout`);
* with a ``rollout_policy``, the generic rollout played with that policy: a
  model whose class defines ``native_chance_for(self, rollout_policy)`` may
  return such a capsule (or None: the policy's ``__call__`` then runs at every
  move, in Python); :meth:`GymnasiumModel.native_chance_for
  <mcts_agent.adapters.gymnasium.model.GymnasiumModel.native_chance_for>`
  does for a :class:`~mcts_agent.rollout_policies.CautiousRolloutPolicy` of
  the model on a toy-text table;
* its records: a new chance node's outcomes and keys, in place of the model's
  ``outcomes`` and ``key`` (:func:`mcts_agent.chance.new_record`'s results).

The model's ``native_chance`` must return None unless the methods its capsule
fuses (``outcomes``, ``key``, ``actions``, ``player``) are its class's own.
The loop's random numbers then come from a Mersenne Twister that continues the
generator's state (``docs/guides/compiled-core.md``).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from mcts_agent import chance, compiled
from mcts_agent._validation import (
    checked_actions,
    checked_player,
    checked_return,
    checked_reward,
    checked_terminated,
)
from mcts_agent.evaluator import uniform_priors
from mcts_agent.tree import GuidedTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = ["NATIVE_CHANCE_CAPSULE", "applies", "pig_rollout", "run", "table_rollout"]

NATIVE_CHANCE_CAPSULE = "mcts_agent.native_chance"
"""The name of a native chance rollout's capsule (``docs/guides/compiled-core.md``)."""

_HELPERS = (
    chance.new_record,
    chance.ChanceRecord,
    chance.checked_result,
    chance.outcome_key,
    uniform_priors,
    checked_reward,
    checked_terminated,
    checked_actions,
    checked_player,
    checked_return,
)


def applies(planner: MCTS, tree: Any) -> bool:
    """Whether :func:`run` may run ``planner``'s general loop on ``tree`` (see the module).

    True when the core is built (and not switched off), the model is
    stochastic, the selection is UCT, there is no evaluator, ``max_depth``,
    solver, max^n, leaf batching or progressive widening, ``tree`` is a plain
    :class:`~mcts_agent.tree.GuidedTree` and the planner's generator a
    ``random.Random`` (not a subclass).
    """
    return (
        compiled._core is not None
        and planner.stochastic
        and planner.selection == "uct"
        and planner.evaluator is None
        and planner.max_depth is None
        and not planner.solve
        and planner.reward_players is None
        and planner.leaf_batch == 1
        and planner.widening is None
        and planner.state_widening is None
        and type(tree) is GuidedTree
        and type(planner.rng) is random.Random
    )


def run(planner: MCTS, tree: GuidedTree, iterations: int) -> int:
    """Runs ``iterations`` iterations of the general loop on ``tree`` in C; returns ``iterations``.

    What :func:`mcts_agent.general_loop.run` does, for a planner and tree of
    :func:`applies`.

    Raises:
        What the pure loop raises, from the same model calls and checks.
    """
    model = planner.model
    outcomes = getattr(model, "outcomes", None)
    if not callable(outcomes):
        outcomes = None
    fused, generic = planner._rollouts()
    native = None
    if compiled._defining_class(model, "native_chance") is not None:
        native = model.native_chance()
    compiled._core.chance_run(
        tree,
        (
            model.actions,
            model.player,
            outcomes,
            None if outcomes is not None else model.sample_step,
            getattr(model, "key", None),
        ),
        (fused, generic, _rollout(planner, native, fused, generic), native),
        planner.rng,
        planner.exploration,
        planner.gamma,
        planner.rollout_limit,
        iterations,
        planner._value_range,
        _HELPERS,
    )
    return iterations


def _rollout(planner: MCTS, native: Any, fused: Any, generic: Any) -> Any:
    """The capsule whose rollout may replace the planner's rollout, else None.

    With a ``rollout_policy``: the model's ``native_chance_for(policy)``, if its
    class defines it (the generic rollout plays the policy); without:
    ``native`` (the model's ``native_chance()``).
    """
    model = planner.model
    if fused is None and generic is None:
        return None
    policy = planner.rollout_policy
    if policy is not None:
        if compiled._defining_class(model, "native_chance_for") is None:
            return None
        return model.native_chance_for(policy)
    if native is None:
        return None
    if fused is not None:  # the model's own rollout, while it is the capsule's class's
        own = compiled._defining_class(model, "native_chance").__dict__.get("rollout")
        if own is None or getattr(fused, "__func__", None) is not own:
            return None
        if getattr(fused, "__self__", None) is not model:
            return None
    return native


def table_rollout(
    table: list, legal: list, state_type: type, result_type: type, choices: list | None = None
) -> Any:
    """Returns the native chance rollout of a toy-text table, or None without the core.

    The generic rollout of a one-player model whose ``outcomes`` read the
    table (:class:`~mcts_agent.adapters.gymnasium.stochastic.TableOutcomes`):
    each move an action drawn uniformly (``drawn[int(rng.random() *
    len(drawn))]``) from the legal actions, or from ``choices``' actions of the
    cell, then its outcome drawn as :func:`mcts_agent.chance.sampler` draws
    it, the steps left counted down. With ``choices`` the rollout takes only
    states whose actions are the table's legal actions of their cell.

    Args:
        table: ``table[s][a]``, a tuple of ``(probability, next_cell, reward,
            terminated)`` (float, int, float, bool) with positive probabilities
            summing to 1 within :data:`~mcts_agent.chance.PROBABILITY_TOLERANCE`,
            in the order of ``outcomes``; cells and actions numbered from 0.
        legal: ``legal[s]``, the tuple of legal actions after a move into cell
            ``s`` that does not end the episode.
        state_type: ``GymnasiumState``, the NamedTuple of the records' states,
            made as ``outcomes`` makes them (keys as ``snapshot_key`` makes them).
        result_type: ``StepResult``, the NamedTuple of the records' results.
        choices: None (uniformly random legal actions), or two lists of a
            tuple per cell: ``choices[0][s]`` the actions drawn from in cell
            ``s`` by a move that is not the last of the episode's counted
            steps (steps left None or not 1), ``choices[1][s]`` by one that is;
            each a non-empty subset of ``legal[s]`` (empty where it is). The
            ``rollout_policy`` they play: a
            :class:`~mcts_agent.rollout_policies.CautiousRolloutPolicy`.

    Raises:
        TypeError, ValueError: if the table or the choices are not of that form.
    """
    if compiled._core is None:
        return None
    return compiled._core.table_rollout(table, legal, state_type, result_type, choices)


def pig_rollout(goal: int, state_type: type, result_type: type) -> Any:
    """Returns the native chance rollout and records of Pig, or None without the core.

    :meth:`mcts_agent.envs.pig.PigModel.rollout`, step for step, and a new
    chance node's record from :meth:`~mcts_agent.envs.pig.PigModel.outcomes`
    (keys: the outcomes themselves, Pig has no ``key``).

    Args:
        goal: the points that win (an int in [1, 2**40]).
        state_type: ``PigState``.
        result_type: ``StepResult``.
    """
    if compiled._core is None:
        return None
    return compiled._core.pig_rollout(goal, state_type, result_type)
