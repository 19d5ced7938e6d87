"""Progressive widening: planning with actions that are sampled, not listed (continuous actions).

``MCTS(widening=(k, alpha))`` (``docs/guides/continuous-actions.md``;
``SPEC.md``, "Progressive widening"). A decision node visited ``N`` times,
this visit included, may have at most ``ceil(k * N**alpha)`` children. While
it has fewer, the iteration draws an action (:func:`selection`'s order:
the planner's ``action_sampler``, else the model's ``sample_action(state,
rng)``, else a uniformly random legal action); a new one is stepped once, as
any expansion. An action equal to an existing child's is that child: it
adds nothing, and, as when the node has all its children, selection
chooses among the children by the search's rule (as MCTS.jl's
``DPWSolver`` does; descending into the drawn child instead would leave a
node whose few actions are all drawn to uniform draws for ever): UCB1, or
PUCT with the prior of each child normalised over the children (the
evaluator's prior of its action for a model that lists its actions, else
1 for every child: the samples' empirical distribution, the
sampled-action view of Hubert et al., 2021, "Learning and planning in
complex action spaces", §3), each child's Q normalised where
``value_normalization`` is on.

In the tree (:class:`~mcts_agent.tree.GuidedTree`), a widened decision node's
``actions`` are the distinct actions drawn there so far, in the order first
drawn, each with its child (``children[node][j]`` is the child of
``actions[node][j]``); its ``untried`` is 0 between iterations (TERMINAL
once terminal); its ``priors`` hold each drawn action's weight (above); and
``tree.widened[node]`` is its :class:`WideningRecord`. A model without
``actions`` ends an episode only by ``terminated=True``; a model with
``actions`` also at a state without legal actions.

Sources: Coulom (2007) and Chaslot et al. (2008) for progressive widening;
Couëtoux et al. (2011), "Continuous upper confidence trees" (the rule
``ceil(k N^alpha)``, double progressive widening for sampled outcomes:
:func:`mcts_agent.chance.crossing`); MCTS.jl's ``DPWSolver`` (defaults
``k = 10``, ``alpha = 0.5``, :data:`DEFAULT_WIDENING`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from mcts_agent._validation import (
    checked_actions,
    checked_player,
    describe,
    require_float,
)
from mcts_agent.evaluator import checked_evaluation
from mcts_agent.tree import UNVISITED, GuidedTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = [
    "DEFAULT_WIDENING",
    "ActionSampler",
    "WideningRecord",
    "checked_widening",
    "children_allowed",
    "expansion",
    "lists_actions",
    "new_tree",
    "selection",
]

DEFAULT_WIDENING = (10.0, 0.5)
"""``(k, alpha)`` of ``widening`` for a model without ``actions`` (MCTS.jl's ``DPWSolver``)."""

ActionSampler = Callable[[Any, Any, tuple], Any]
"""``action_sampler(state, rng, tried) -> action``: a new action to try at a widened node.

``tried`` is a tuple of ``(action, visits, value)`` of the node's children so
far (the value from the point of view of the player choosing), in the order
first drawn; ``rng`` the planner's ``random.Random``. See
:mod:`mcts_agent.action_samplers`.
"""


def lists_actions(model: Any) -> bool:
    """True if ``model`` has a callable ``actions`` (its actions can be listed)."""
    return callable(getattr(model, "actions", None))


def checked_widening(name: str, value: Any) -> tuple[float, float] | None:
    """``value`` as ``(k, alpha)`` with ``k > 0`` and ``alpha`` in [0, 1], or None.

    Raises:
        TypeError: if it is not None or a pair of real numbers.
        ValueError: if ``k <= 0``, ``alpha`` is outside [0, 1], or either is not finite.
    """
    if value is None:
        return None
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        raise TypeError(
            f"{name} must be None or a pair (k, alpha): at most ceil(k * N**alpha) children "
            f"at a node visited N times; got {value!r}"
        )
    k = require_float(f"{name}'s k", value[0], 0.0, rule="> 0 (at least one child)")
    if k == 0.0:
        raise ValueError(f"{name}'s k must be a finite number > 0 (at least one child), got 0.0")
    alpha = require_float(f"{name}'s alpha", value[1], 0.0, 1.0)
    return k, alpha


def children_allowed(widening: tuple[float, float], visits: int) -> int:
    """``ceil(k * visits**alpha)``: the most children of a node visited ``visits`` times."""
    k, alpha = widening
    return math.ceil(k * visits**alpha)


class WideningRecord:
    """The bookkeeping of one widened decision node (``GuidedTree.widened[node]``).

    Attributes:
        index: dict, drawn action -> its index in the node's ``actions`` (and
            children); grows as actions are drawn.
        legal: the model's legal actions in the node's state (a tuple), or
            None for a model without ``actions``.
        weights: dict, legal action -> the evaluator's prior of it (a model
            with ``actions`` and an evaluator), or None (every weight 1.0).
    """

    __slots__ = ("index", "legal", "weights")

    def __init__(self, legal: tuple | None, weights: dict | None) -> None:
        self.index: dict[Hashable, int] = {}
        self.legal = legal
        self.weights = weights

    def __copy__(self) -> WideningRecord:
        """A copy whose ``index`` grows apart (tree reuse keeps the previous tree as it was)."""
        record = WideningRecord(self.legal, self.weights)
        record.index = dict(self.index)
        return record


def expansion(planner: MCTS) -> Callable[[Any], tuple[Any, float | None, WideningRecord | None]]:
    """Returns ``expand(state) -> (player, value, record)`` for a state a move reached.

    For a state the move did not end (``terminated`` False): ``record`` is its
    :class:`WideningRecord` (None if the model lists no legal action there:
    the state is terminal), ``player`` the player to move (None if
    terminal), ``value`` the evaluator's (None without one). A model with
    ``actions`` gives its evaluator the legal actions and keeps the priors
    as the actions' weights; a model without gets ``evaluator(state, ())``,
    whose priors must be None or empty.

    Raises:
        TypeError, ValueError: as the protocol checks of ``actions``,
            ``player`` and the evaluator's answer.
    """
    model = planner.model
    listed = lists_actions(model)
    model_actions = model.actions if listed else None
    model_player = model.player
    evaluator = planner.evaluator

    def expand(state: Any) -> tuple[Any, float | None, WideningRecord | None]:
        legal = None
        if listed:
            legal = model_actions(state)
            if legal.__class__ is not tuple:
                legal = checked_actions(legal, state)
            if not legal:
                return None, None, None
        player = model_player(state)
        if player.__class__ is not int:
            checked_player(player, state)
        if evaluator is None:
            return player, None, WideningRecord(legal, None)
        value, weights = _evaluated(evaluator, state, legal)
        return player, value, WideningRecord(legal, weights)

    return expand


def _evaluated(evaluator: Any, state: Any, legal: tuple | None) -> tuple[float | None, dict | None]:
    """``(value, weights)`` of a widened node: the evaluator's value and priors by action.

    A model with actions (``legal`` a tuple) gives its evaluator the legal
    actions, and the priors become the actions' weights; a model without
    (``legal`` None) gets ``evaluator(state, ())``, whose priors must be None
    or empty (weights None: every weight 1.0).
    """
    if legal is None:
        return _unlisted_value(evaluator(state, ()), state), None
    value, priors = checked_evaluation(evaluator(state, legal), state, legal)
    return value, dict(zip(legal, priors, strict=True))


def _unlisted_value(result: Any, state: Any) -> float | None:
    """The value of an evaluator's answer for a state whose actions are not listed.

    Raises:
        TypeError, ValueError: as :func:`~mcts_agent.evaluator.checked_evaluation`,
            and if the priors are not None or empty (there is no list to match).
    """
    if isinstance(result, tuple) and len(result) == 2 and result[1] is not None:
        if len(result[1]) != 0:
            raise ValueError(
                f"the evaluator gave {len(result[1])} priors for a state of a model without "
                "actions (it was called with actions=()); expected None or (): the priors of "
                "sampled actions are their sampler's (pass action_sampler)"
            )
        result = (result[0], None)
    value, _ = checked_evaluation(result, state, (None,))
    return value


def new_tree(planner: MCTS, state: Any, legal: tuple | None) -> GuidedTree:
    """Returns the one-node tree of a widened search from ``state`` (no action drawn yet).

    Args:
        planner: the planner searching.
        state: the root's state.
        legal: its legal actions (non-empty tuple) for a model with ``actions``, else None.
    """
    player = checked_player(planner.model.player(state), state)
    value, weights = None, None
    if planner.evaluator is not None:
        value, weights = _evaluated(planner.evaluator, state, legal)
    tree = GuidedTree(state, player, (), (), value)
    tree.widened[0] = WideningRecord(legal, weights)
    return tree


def selection(planner: MCTS, tree: GuidedTree) -> Callable[[int, float, float | None], tuple]:
    """Returns ``select(node, lo, span) -> (i, child)`` for a widened decision node.

    ``lo, span``: value normalisation's (:func:`mcts_agent.normalization.normalizer`;
    ``span`` None when off or while the range is empty). Returns the index
    ``i`` in ``actions[node]`` of the action selected and its child, or
    ``UNVISITED`` for an action drawn now for the first time (then
    appended to ``actions[node]``, its weight to ``priors[node]``, and
    ``untried[node]`` is 1 until its expansion).

    Raises:
        TypeError: if a drawn action is not hashable.
        ValueError: if a drawn action is not legal (a model with ``actions``).
    """
    widening = planner.widening
    k, alpha = widening
    model = planner.model
    rng = planner.rng
    sampler = planner.action_sampler
    sample_action = getattr(model, "sample_action", None)
    random_ = rng.random
    puct = planner.selection == "puct"
    c = planner.exploration
    ceil = math.ceil
    log = math.log
    sqrt = math.sqrt
    inf = math.inf
    states = tree.states
    actions = tree.actions
    children = tree.children
    untried = tree.untried
    visits = tree.visits
    values = tree.values
    priors = tree.priors
    scaled_priors = tree.scaled_priors
    widened = tree.widened

    def draw(node: int, record: WideningRecord) -> Any:
        state = states[node]
        if sampler is not None:
            kids = children[node]
            tried = tuple(
                (action, visits[kid], values[kid])
                for action, kid in zip(actions[node], kids, strict=False)
            )
            action = sampler(state, rng, tried)
            source = "action_sampler"
        elif sample_action is not None:
            action = sample_action(state, rng)
            source = "sample_action"
        else:  # a model with actions and no sampler: a uniformly random legal action
            legal = record.legal
            return legal[int(random_() * len(legal))]
        if record.legal is not None and action not in record.legal:
            raise ValueError(
                f"{source} returned {describe(action)}, which is not one of the legal actions "
                f"{describe(list(record.legal))} of {describe(state)}"
            )
        return action

    def select(node: int, lo: float, span: float | None) -> tuple[int, int]:
        kids = children[node]
        n = visits[node] + 1
        if len(kids) < ceil(k * n**alpha):  # widen: draw an action
            record = widened[node]
            action = draw(node, record)
            try:
                j = record.index.get(action)
            except TypeError:
                raise TypeError(
                    f"a drawn action must be hashable (the tree keeps the actions drawn at a "
                    f"node to join equal ones), got {describe(action)} "
                    f"({type(action).__name__}); return a tuple, e.g. tuple(array.tolist())"
                ) from None
            if j is None:  # a new action: expanded in this iteration
                j = record.index[action] = len(actions[node])
                actions[node] += (action,)
                weights = record.weights
                priors[node] += (1.0 if weights is None else weights[action],)
                untried[node] += 1
                return j, UNVISITED
            # An action drawn before adds nothing: the rule selects among the children.
        best_score = -inf
        best = 0
        if puct:  # Q + c * (w / sum w) * sqrt(max(N, 1)) / (1 + N(a))
            total = sum(priors[node])
            root_n = sqrt(n - 1 if n > 2 else 1) / total
            for j, kid in enumerate(kids):
                q = values[kid] if span is None else (values[kid] - lo) / span
                score = q + scaled_priors[kid] * root_n / (1 + visits[kid])
                if score > best_score:
                    best_score = score
                    best = j
        else:  # UCB1
            log_n = log(n - 1)
            for j, kid in enumerate(kids):
                q = values[kid] if span is None else (values[kid] - lo) / span
                score = q + c * sqrt(log_n / visits[kid])
                if score > best_score:
                    best_score = score
                    best = j
        return best, kids[best]

    return select


def check_composition(planner: MCTS) -> None:
    """Refuses the options progressive widening does not compose with, each with its cause.

    Raises:
        ValueError: for ``solve`` (a proof over the actions drawn so far
            proves nothing of the others), ``root_noise`` (it noises a list of
            priors; pass an ``action_sampler`` that explores instead),
            ``leaf_batch > 1``, a model reporting every player's reward
            (max^n), or a ``rollout_policy`` with a model without
            ``actions`` (a rollout policy picks among listed actions; such a
            model's rollouts play ``sample_action``).
    """
    refusals = []
    if planner.solve:
        refusals.append(
            "solve=True (a proof over the actions drawn so far proves nothing of the others)"
        )
    if planner.root_noise is not None:
        refusals.append(
            "root_noise (it noises a list of priors; an action_sampler can explore instead)"
        )
    if planner.leaf_batch > 1:
        refusals.append(f"leaf_batch={planner.leaf_batch} (leaf batching lists its actions)")
    if planner.reward_players is not None:
        refusals.append("a model reporting every player's reward (max^n)")
    if planner.rollout_policy is not None and not planner.listed:
        refusals.append(
            "a rollout_policy for a model without actions (it picks among listed actions; "
            "such a model's rollouts play sample_action)"
        )
    if refusals:
        raise ValueError(
            f"progressive widening (widening={planner.widening!r}) is not built for "
            + "; nor for ".join(refusals)
        )
