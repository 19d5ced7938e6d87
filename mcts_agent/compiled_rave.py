"""The compiled RAVE/GRAVE loop of Go: :func:`mcts_agent.rave.run` on GoModel in C, the same trees.

``mcts_agent._core.go_rave_search_run`` (``mcts_agent/_rave_loop.c``) runs
:func:`mcts_agent.rave.run` on :class:`~mcts_agent.envs.go.GoModel`
(``docs/guides/compiled-core.md``, "RAVE on Go") when nothing needs Python
during the search: ``selection="rave"`` with any ``rave_bias``,
``grave_ref``, ``exploration``, ``gamma`` and ``rollout_limit``, the model's
own light playout (no ``rollout_policy``), no ``on_iteration`` (the callback
reads the tree during the search), boards up to 19x19. The board, its moves,
the legal actions and the playouts (:meth:`GoModel.amaf_rollout
<mcts_agent.envs.go.GoModel.amaf_rollout>`, the same draws from a Mersenne
Twister that continues the planner's generator) are C; so are the nodes and
their AMAF tables, dense (a count and a value sum per player and action).

The tree grown is the pure loop's :class:`~mcts_agent.rave.RaveTree` exactly:
the nodes in the same order, every per-node list equal (states, players,
rewards, discounts, actions, children, untried, visits, value sums and values
bit for bit, action indices, priors, AMAF keys), the same AMAF tables, and the
generator left in the same state. It is written into the tree once, when the
search ends (:meth:`CompiledSearch.write`); the AMAF tables stay in C and are
read on demand (:class:`AmafTables`), since a search of 10^5 nodes holds some
10^7 entries. :func:`search` says when it runs; the pure loop stays the
reference and the fallback (``MCTS_AGENT_PURE_PYTHON=1``,
:func:`mcts_agent.compiled.pure_python`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcts_agent import compiled
from mcts_agent.envs import go
from mcts_agent.evaluator import uniform_priors
from mcts_agent.rave import RaveTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = ["AmafTables", "CompiledSearch", "search"]

_GO_METHODS = ("step", "actions", "player", "rollout", "amaf_rollout", "score", "amaf_excluded")
"""GoModel's methods the C loop stands for (one replaced on the class or an instance: pure loop)."""

_ORIGINALS = {name: getattr(go.GoModel, name) for name in _GO_METHODS}


def search(planner: MCTS, tree: RaveTree) -> CompiledSearch | None:
    """The compiled search of ``planner`` growing ``tree``, or None where the pure loop runs.

    Not None when the core is built (and not switched off), the model is a
    :class:`~mcts_agent.envs.go.GoModel` (the class itself, none of its
    rules' methods replaced on the class or the instance) of a board up to
    19x19, the planner searches with ``selection="rave"``, no
    ``rollout_policy`` and no ``on_iteration``, its generator is a
    ``random.Random`` (not a subclass), and ``tree`` is a fresh
    :class:`~mcts_agent.rave.RaveTree` (its root only).
    """
    model = planner.model
    if not (
        compiled._core is not None
        and type(model) is go.GoModel
        and all(getattr(go.GoModel, name) is _ORIGINALS[name] for name in _GO_METHODS)
        and not any(name in vars(model) for name in _GO_METHODS)
        and model.board_size <= 19
        and planner.grave_ref < 2**63  # the C side counts visits in 64 bits
        and planner.selection == "rave"
        and planner.rollout_policy is None
        and planner.on_iteration is None
        and type(planner.rng) is random.Random
        and type(tree) is RaveTree
        and len(tree) == 1
    ):
        return None
    return CompiledSearch(planner, tree)


class AmafTables(Sequence):
    """A compiled search's AMAF tables (``RaveTree.amaf_tables``): a dict per node, made when read.

    ``tables[i]`` is node ``i``'s table as the pure loop keeps it,
    ``{(player, action): [count, value_sum]}`` (a new dict each time: changing
    it changes nothing).

    Args:
        core_search: the ``_core.go_rave_search`` capsule (kept alive here).
        count: the nodes of the tree.
    """

    def __init__(self, core_search: Any, count: int) -> None:
        self._search = core_search
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if not -self._count <= index < self._count:
            raise IndexError(f"node index {index} out of range for a tree of {self._count} nodes")
        return compiled._core_module.go_rave_amaf(self._search, index % self._count)


class CompiledSearch(compiled.CoreSearch):
    """A RAVE/GRAVE search of Go in C (see the module docstring), written into its tree at the end.

    Args:
        planner: the planner (its generator, ``exploration``, ``gamma``,
            ``rollout_limit``, ``rave_bias``, ``grave_ref``), of a case
            :func:`search` accepts.
        tree: the fresh tree to write the nodes into.

    Raises:
        ValueError: if the tree's root is not a GoState of a game not over.
    """

    def __init__(self, planner: MCTS, tree: RaveTree) -> None:
        search = compiled._core.go_rave_search(
            tree.states[0],
            planner.model.komi,
            planner.model.capture_heuristic,
            planner.rave_bias,
            planner.grave_ref,
        )
        super().__init__(planner, tree, search, "go_rave_search_size", "go_rave_search_run")

    def write(self) -> None:
        """Writes the nodes grown into the tree (once, after the last chunk)."""
        tree = self.tree
        compiled._core_module.go_rave_search_write(self._search, tree, go.GoState, uniform_priors)
        tree.amaf_tables = AmafTables(self._search, len(tree))
