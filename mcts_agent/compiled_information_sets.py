"""The compiled ISMCTS loop of Leduc Hold'em: information-set MCTS in C, with the same graphs.

``mcts_agent._core.leduc_search_run`` (``mcts_agent/_information_set_loop.c``)
runs :func:`mcts_agent.information_sets.run` on
:class:`~mcts_agent.envs.leduc.LeducModel` for the plain case
(``docs/guides/compiled-core.md``, "Hidden information"): ``selection="uct"``,
no evaluator, no ``max_depth``, no ``value_normalization``, one reward (no
``reward_players``), the generic random rollout (no ``rollout_policy``), any
``exploration``, ``gamma`` and ``rollout_limit``, no ``on_iteration`` (the
callback reads the graph during the search). It builds the pure loop's
:class:`~mcts_agent.information_sets.InformationSetTree` exactly: the nodes in
the same order with the same keys, ``visits``, ``actions``, ``edge_visits``,
``edge_values`` (bit for bit), ``availability`` and ``children`` (dicts in the
same insertion orders), ``priors`` empty; and it draws the same random numbers
(the worlds' cards as ``random.Random.randrange``, the rollouts' moves as
``random.Random.random``) from a Mersenne Twister that continues the planner's
generator, which ends in the same state.

Leduc's information sets are few and dense, so the C side numbers them
(betting position, own card, public card or none) and keeps its nodes in flat
arrays; the graph is written into the Python tree once, when the search ends
(:meth:`CompiledSearch.write`), not after every chunk of a timed search.
:func:`search` says when it runs; the pure loop stays the reference and the
fallback (``MCTS_AGENT_PURE_PYTHON=1``, :func:`mcts_agent.compiled.pure_python`).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from mcts_agent import compiled
from mcts_agent.envs import leduc
from mcts_agent.information_sets import InformationSetTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = ["CompiledSearch", "search"]

_table: Any = None
"""The ``_core.leduc_table`` capsule of ``leduc._NODES`` (made when first needed)."""
_rows: dict[tuple[int, tuple[int, ...]], int] = {}
"""``(first, history)`` -> the row of that betting position in :data:`_table`."""


def search(planner: MCTS, tree: InformationSetTree) -> CompiledSearch | None:
    """The compiled search of ``planner`` growing ``tree``, or None where the pure loop runs.

    Not None when the core is built (and not switched off), the model is a
    :class:`~mcts_agent.envs.leduc.LeducModel` (the class itself, no
    attribute of its own on the instance), the options are the plain case of
    the module docstring, the planner's generator is a ``random.Random`` (not
    a subclass), ``planner`` does not override ``_rollouts`` or
    ``_hidden_rollout``, ``tree`` is a fresh
    :class:`~mcts_agent.information_sets.InformationSetTree` (its root only)
    and its root a Leduc deal with ints (where it is not, the pure loop runs
    and raises what it raises).
    """
    from mcts_agent.search import MCTS  # search imports this module

    model = planner.model
    if not (
        compiled._core is not None
        and type(model) is leduc.LeducModel
        and not vars(model)
        and planner.selection == "uct"
        and planner.evaluator is None
        and planner.max_depth is None
        and not planner.value_normalization
        and planner.reward_players is None
        and planner.rollout_policy is None
        and planner.on_iteration is None
        and not planner.determinize
        and type(planner.rng) is random.Random
        and type(planner)._rollouts is MCTS._rollouts
        and type(planner)._hidden_rollout is MCTS._hidden_rollout
        and type(tree) is InformationSetTree
        and len(tree) == 1
    ):
        return None
    row = _root_row(tree.root_state)
    if row is None:
        return None
    return CompiledSearch(planner, tree, row)


def _root_row(state: Any) -> int | None:
    """The betting row of ``state`` if it is a Leduc deal of exact ints, else None."""
    if type(state) is not leduc.LeducState:
        return None
    hands, public, first, history = state
    if (
        type(hands) is not tuple
        or type(history) is not tuple
        or any(type(x) is not int for x in (*hands, public, first, *history))
        or (hands, public) not in leduc._DEALS
    ):
        return None
    _ensure_table()
    return _rows.get((first, history))


def _ensure_table() -> None:
    """Makes :data:`_table` and :data:`_rows` from ``leduc._NODES`` (once)."""
    global _table
    if _table is not None:
        return
    positions = [
        (first, history, node)
        for first, nodes in enumerate(leduc._NODES)
        for history, node in nodes.items()
    ]
    rows = {(first, history): k for k, (first, history, _) in enumerate(positions)}
    table = []
    for first, history, node in positions:
        after = tuple(
            rows[first, history + (a,)] if a in node.actions else -1
            for a in (leduc.CALL, leduc.RAISE, leduc.FOLD, leduc.CHECK)
        )
        folded = -1 if node.folded is None else node.folded
        table.append(
            (history, node.player, node.actions, after, node.chips, folded, int(node.revealed))
        )
    _rows.update(rows)
    _table = compiled._core.leduc_table(table)


class CompiledSearch(compiled.CoreSearch):
    """An ISMCTS search of Leduc in C (see the module docstring), written into its tree at the end.

    Args:
        planner: the planner (its generator, ``exploration``, ``gamma``,
            ``rollout_limit``), of a case :func:`search` accepts.
        tree: the fresh tree to write the graph into.
        row: the root's betting row.
    """

    def __init__(self, planner: MCTS, tree: InformationSetTree, row: int) -> None:
        root = tree.root_state
        search = compiled._core.leduc_search(
            _table, root.hands, root.public, root.first, row, tree.root_player
        )
        super().__init__(planner, tree, search, "leduc_search_size", "leduc_search_run")

    def write(self) -> None:
        """Writes the graph grown into the tree (once, after the last chunk)."""
        compiled._core_module.leduc_search_write(self._search, self.tree)
