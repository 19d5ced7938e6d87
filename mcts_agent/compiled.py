"""The optional compiled core: the plain UCT loop in C, with the very same trees.

``mcts_agent._core`` (``mcts_agent/_core.c``, built by ``pip install`` when a C
compiler is there) runs the plain loop of ``docs/concepts/iteration.md`` exactly as
:meth:`mcts_agent.search.MCTS._run` does, statement for statement: the same IEEE
operations in the same order, floating-point contraction off, the model's
Python methods called in the same order with the same arguments, and the same
checks (the slow paths are this package's Python functions). The tree's nodes
are C records; :class:`~mcts_agent.tree.Tree` reads them through
``_core.Column`` views (read-only sequences that compare equal to the lists
of the pure loop), and keeps its ``states``, ``players`` and ``actions`` as
Python lists.

The pure-Python loop stays, unchanged, as the reference and the fallback:
:func:`core_backend` says which one runs; ``MCTS_AGENT_PURE_PYTHON=1`` in the
environment (read at import) forces Python.

Native rollouts (``docs/guides/compiled-core.md``): a model whose class
defines ``native_rollout(self)`` returning a capsule named
``"mcts_agent.native_rollout"`` (or None) hands the core a rollout in C; the
core uses it only where the pure loop would call the model's own ``rollout``
(no ``rollout_policy``, rollouts on) and only while ``type(model).rollout`` is
the ``rollout`` of the class that defines ``native_rollout`` (a subclass that
overrides ``rollout`` loses it), and the planner's generator is a
``random.Random`` (not a subclass). The core then draws the rollouts' random
numbers with a Mersenne Twister that continues the generator's state
(``getstate``/``setstate`` around each chunk of iterations), exactly as
``random.Random.random`` would, so the generator ends where the pure loop
leaves it.

Leaf batching with PUCT (:mod:`mcts_agent.leaf_batching`) runs its rounds'
selection and backup here too (:func:`leaf_selector`, :func:`leaf_backup`),
the batch's evaluation checks (:func:`evaluations_checker`), and its
expansions with a model's native step (``native_step(self)`` returning a
capsule named ``"mcts_agent.native_step"``; :func:`native_expansion` says
when the core may use it): the same trees as the Python steps.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
from collections.abc import Iterator
from typing import Any

from mcts_agent._validation import (
    checked_actions,
    checked_player,
    checked_return,
    checked_reward,
    checked_terminated,
)
from mcts_agent.evaluator import Evaluation, checked_evaluation, uniform_priors
from mcts_agent.tree import GuidedTree, Tree

__all__ = [
    "NATIVE_ROLLOUT_CAPSULE",
    "NATIVE_STEP_CAPSULE",
    "PURE_PYTHON_VARIABLE",
    "CoreSearch",
    "core_backend",
    "native_expansion",
    "native_rollout",
    "native_step",
    "pure_python",
]

PURE_PYTHON_VARIABLE = "MCTS_AGENT_PURE_PYTHON"
"""The environment variable that forces the pure-Python loop when set to ``1``."""

NATIVE_ROLLOUT_CAPSULE = "mcts_agent.native_rollout"
"""The name of a native rollout's capsule (``docs/guides/compiled-core.md``)."""

NATIVE_STEP_CAPSULE = "mcts_agent.native_step"
"""The name of a native step's capsule (``docs/guides/compiled-core.md``)."""

_NUMERIC_FIELDS = ("rewards", "discounts", "children", "untried", "visits", "value_sums", "values")
"""The Tree fields held as C records and read through ``_core.Column`` views."""

_core: Any
try:
    from mcts_agent import _core
except ImportError:  # built without a compiler, or the build failed: the pure loop runs
    _core = None
_core_module = _core
"""The extension module if it was built (even while ``_core`` is off): its views stay views."""
if os.environ.get(PURE_PYTHON_VARIABLE) == "1":
    _core = None


def core_backend() -> str:
    """Returns ``"compiled"`` if the plain loop runs in C, else ``"python"``.

    ``"python"`` when ``mcts_agent._core`` was not built (no C compiler at
    install) or ``MCTS_AGENT_PURE_PYTHON=1`` was set when ``mcts_agent`` was
    imported. With ``"compiled"``, leaf batching's rounds and a stochastic
    model's UCT loop (:mod:`mcts_agent.compiled_chance`) run in C too; the rest
    of the general loop (PUCT, evaluators, the solver...) is Python either way
    (``docs/guides/compiled-core.md``).
    """
    return "python" if _core is None else "compiled"


@contextlib.contextmanager
def pure_python() -> Iterator[None]:
    """Runs the pure-Python loop inside the ``with`` block, as if the core were not built.

    For comparisons in one process (the benchmarks, the identity tests); not
    thread-safe (it switches the module's core off and back on). Trees are the
    same either way.
    """
    global _core
    saved = _core
    _core = None
    try:
        yield
    finally:
        _core = saved


def native_rollout(game: str) -> Any:
    """Returns the core's native rollout capsule for ``game``, or None without the core.

    Args:
        game: ``"tic_tac_toe"`` or ``"connect_four"``.

    Raises:
        ValueError: if the core has no native rollout for ``game``.
    """
    return None if _core is None else _core.native_rollout(game)


def native_step(game: str) -> Any:
    """Returns the core's native step capsule for ``game``, or None without the core.

    Args:
        game: ``"connect_four"``.

    Raises:
        ValueError: if the core has no native step for ``game``.
    """
    return None if _core is None else _core.native_step(game)


def native_expansion(model: Any, tree: Any) -> Any:
    """Returns the model's native step capsule if leaf batching may expand ``tree`` with it.

    ``docs/guides/compiled-core.md`` (native steps): the class that
    defines ``native_step`` must also define ``step``, ``actions`` and
    ``player``, and neither a subclass nor the instance may replace them;
    the tree must be a :class:`~mcts_agent.tree.GuidedTree` whose
    ``append_node`` is GuidedTree's (the core appends to its lists as that
    method does). None otherwise, and without the core.
    """
    if _core is None or type(tree).append_node is not GuidedTree.append_node:
        return None
    owner = _defining_class(model, "native_step")
    if owner is None:
        return None
    for name in ("step", "actions", "player"):
        own = owner.__dict__.get(name)
        if own is None or getattr(getattr(model, name), "__func__", None) is not own:
            return None  # a subclass (or the instance) replaced a method the capsule fuses
    return model.native_step()


def leaf_selector() -> Any:
    """Returns ``_core.select_leaves`` (a round of leaf batching's PUCT selection in C), or None.

    None without the core (or with ``MCTS_AGENT_PURE_PYTHON=1``): the round's
    selection then runs in Python (:mod:`mcts_agent.leaf_batching`). Both give
    the same paths, virtual losses and trees.
    """
    return None if _core is None else _core.select_leaves


def leaf_backup() -> Any:
    """Returns ``_core.backup_leaves`` (a round of leaf batching's backup in C), or None.

    None without the core: the backup then runs in Python
    (:mod:`mcts_agent.leaf_batching`), to the same trees.
    """
    return None if _core is None else _core.backup_leaves


def leaf_bookkeeping() -> Any:
    """Returns ``(pending_leaves, store_evaluations, leaf_returns)`` in C, or None without the core.

    A leaf batching round's bookkeeping (:mod:`mcts_agent.leaf_batching`): the
    same results as its Python functions of the same names.
    """
    if _core is None:
        return None
    return _core.pending_leaves, _core.store_evaluations, _core.leaf_returns


def evaluations_checker() -> Any:
    """Returns ``check(answers, states, actions_list) -> list of (value, priors)`` in C, or None.

    ``[checked_evaluation(a, s, acts) for each]``
    (:func:`mcts_agent.evaluator.checked_evaluation`), its common cases in C
    (``_core.checked_evaluations``) with the same results, the rest (and
    every error) by the Python function. None without the core.
    """
    return None if _core is None else _checked_evaluations


def _checked_evaluations(answers: Any, states: list, actions_list: list) -> list:
    return _core.checked_evaluations(
        answers, states, actions_list, checked_evaluation, Evaluation, uniform_priors, math.fsum
    )


def is_column(values: Any) -> bool:
    """Whether ``values`` is a compiled tree's per-node view (``_core.Column``), not a list."""
    return _core_module is not None and values.__class__ is _core_module.Column


def plain_loop(planner: Any) -> Any:
    """Returns ``loop(tree, iterations)`` running the plain UCT loop for ``planner``.

    The compiled loop when the core is there, else ``planner._run``; also
    ``planner._run`` for a subclass of :class:`~mcts_agent.search.MCTS` that
    overrides ``_run`` (the core runs ``MCTS._run``'s loop only). Either
    continues ``tree`` and the planner's generator; both build the same tree.
    """
    from mcts_agent.search import MCTS  # search imports this module

    if _core is None or type(planner)._run is not MCTS._run:
        return planner._run
    return lambda tree, iterations: _run(planner, tree, iterations)


def _store(tree: Tree) -> Any:
    """Returns the ``_core.Store`` behind ``tree``, first moving its lists into one if need be.

    A tree made by :class:`~mcts_agent.tree.Tree` (or copied by
    :func:`mcts_agent.reuse.reroot`) holds lists; its numeric fields become
    C records and its fields ``Column`` views of them (``states``,
    ``players``, ``actions`` stay the same lists).
    """
    visits = tree.visits
    if visits.__class__ is _core.Column:
        return visits.store
    store = _core.Store(
        tree.states,
        tree.players,
        tree.actions,
        tree.rewards,
        tree.discounts,
        tree.children,
        tree.untried,
        tree.visits,
        tree.value_sums,
        tree.values,
    )
    for field in _NUMERIC_FIELDS:
        setattr(tree, field, _core.Column(store, field))
    return store


def _defining_class(model: Any, name: str) -> type | None:
    """Returns the first class in ``type(model)``'s MRO that defines ``name``, or None."""
    return next((owner for owner in type(model).__mro__ if name in owner.__dict__), None)


def _native(planner: Any, fused: Any) -> Any:
    """Returns the model's native rollout capsule if the core may replace ``fused`` by it."""
    model = planner.model
    if fused is None or type(planner.rng) is not random.Random:
        return None
    owner = _defining_class(model, "native_rollout")
    if owner is None:
        return None
    own = owner.__dict__.get("rollout")
    if own is None or getattr(fused, "__func__", None) is not own:
        return None  # a subclass (or the instance) replaced the rollout the capsule fuses
    if getattr(fused, "__self__", None) is not model:
        return None
    return model.native_rollout()


def _run(planner: Any, tree: Tree, iterations: int) -> None:
    """``iterations`` of the plain loop on ``tree`` in C (what ``planner._run`` does)."""
    from mcts_agent import search  # the slow paths; search imports this module

    fused, generic = planner._rollouts()
    native = _native(planner, fused)
    _core.run(
        _store(tree),
        tree,
        planner.model,
        None if native is not None else fused,
        generic,
        native,
        planner.rng,
        planner.exploration,
        planner.gamma,
        planner.rollout_limit,
        iterations,
        (
            checked_reward,
            checked_terminated,
            checked_actions,
            checked_player,
            checked_return,
            search._check_step,
            search._backup_error,
        ),
        planner._value_range,
    )


class CoreSearch:
    """A search grown by one of the core's own loops, written into its tree when it ends.

    The base of :class:`mcts_agent.compiled_information_sets.CompiledSearch`
    (Leduc's ISMCTS) and :class:`mcts_agent.compiled_rave.CompiledSearch`
    (GRAVE on Go): ``search`` is the core's capsule of the search, ``size`` and
    ``run`` name the core's functions ``size(search) -> int`` and ``run(search,
    rng, c, gamma, rollout_limit, iterations)``. A subclass writes the tree
    (``write``), once, after the last chunk of iterations.

    Args:
        planner: the planner (its generator, ``exploration``, ``gamma``,
            ``rollout_limit``).
        tree: the fresh tree the search is written into.
        search: the core's capsule.
        size, run: the names of the core's functions for this search.
    """

    def __init__(self, planner: Any, tree: Any, search: Any, size: str, run: str) -> None:
        self.planner = planner
        self.tree = tree
        self._search = search
        self._size = getattr(_core_module, size)
        self._run = getattr(_core_module, run)

    def __len__(self) -> int:
        """The nodes grown so far (the tree's size for ``max_nodes``)."""
        return self._size(self._search)

    def loop(self, iterations: int) -> int:
        """Runs ``iterations`` iterations (the planner's generator continued); returns them."""
        planner = self.planner
        self._run(
            self._search,
            planner.rng,
            planner.exploration,
            planner.gamma,
            planner.rollout_limit,
            iterations,
        )
        return iterations
