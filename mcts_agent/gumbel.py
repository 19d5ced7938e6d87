"""Gumbel root search (``selection="gumbel"``; ``docs/guides/gumbel.md``).

Source: Danihelka, Guez, Schrittwieser & Silver (2022), "Policy improvement by
planning with Gumbel", ICLR (Gumbel-Top-k and Sequential Halving at the root,
§3-4; completed Q-values, §4 and Appendix D; the deterministic interior rule,
§5), as mctx writes it (``gumbel_muzero_policy``,
``seq_halving.get_sequence_of_considered_visits``,
``qtransform_completed_by_mix_value``). ``../shared/SPEC.md``, "Gumbel root
search", is the contract.

**The root.** When the search's tree is made, one ``g(a) ~ Gumbel(0, 1)`` is
drawn per root action from the planner's generator (``-log E``, ``E`` an
``expovariate(1)`` draw), and ``logits = log P`` (``-inf`` for a zero prior).
Of the ``m = min(considered_actions, |A|)`` actions, the iteration of index
``k`` (``k`` = the root's children's visits so far) goes to one whose visit count
equals ``considered_visits(m, n)[k]``, ``n`` the search's iteration budget: the
one of largest ``max(-1e9, g + logits - max(logits) + σ(q̂))``, ties to the first
in the model's order. The schedule is mctx's sequential halving: the budget
is split over ``ceil(log2 m)`` phases; in each, every remaining action gets
``max(1, floor(n / (ceil(log2 m) * remaining)))`` more visits, then the
remaining count halves (never below 2). Since every unvisited action completes
to the same Q, the first phase visits the ``m`` actions of largest
``g + logits`` (Gumbel-Top-k); each later phase keeps the better half by
``g + logits + σ(q̂)``.

**Completed Q.** At a node with visits ``N(a)`` and values ``Q(a)`` (from the
node's mover's view, the values the tree keeps), an unvisited action's Q is
the *mixed value* ``(v + Σ N(b) * Σ_visited P(b) Q(b) / Σ_visited P(b)) / (Σ
N(b) + 1)``, ``v`` the evaluator's value of the node (``leaf_values``); a node
without one mixes the visited Q alone (``Σ_visited P(b) Q(b) / Σ_visited
P(b)``, 0.0 while none is visited). The completed Qs are rescaled to
``q̂ = (q - min q) / max(max q - min q, 1e-8)`` and ``σ(q̂) = (c_visit + max_b
N(b)) * c_scale * q̂``.

**Below the root**, the deterministic rule: the action of largest
``π'(a) - N(a) / (1 + Σ_b N(b))``, ``π' = softmax(logits + σ(q̂))``, first on
ties; an untried winner is expanded as the general loop expands.

**The move played** (:func:`chosen_index`): among the root actions of most
visits, the one of largest ``max(-1e9, g + logits - max(logits) + σ(q̂))``. The
improved policy ``π'`` at the root (:func:`improved_policy`) is the training
target (:mod:`mcts_agent.learning`).

The loop is the general loop (:func:`mcts_agent.general_loop.run`) with this
module's selection; with ``selection != "gumbel"`` nothing here runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from mcts_agent._validation import checked_player, require_float, require_int
from mcts_agent.tree import ROOT, UNVISITED, GuidedTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = [
    "DEFAULT_CONSIDERED_ACTIONS",
    "DEFAULT_C_SCALE",
    "DEFAULT_C_VISIT",
    "GumbelOptions",
    "GumbelTree",
    "checked_options",
    "chosen_index",
    "completed_q",
    "considered_visits",
    "improved_policy",
]

DEFAULT_CONSIDERED_ACTIONS = 16
"""``considered_actions``' default: mctx's ``max_num_considered_actions`` (16)."""

DEFAULT_C_VISIT = 50.0
"""``c_visit``' default (the paper's, mctx's ``maxvisit_init``)."""

DEFAULT_C_SCALE = 0.1
"""``c_scale``' default (the paper's, mctx's ``value_scale``)."""

_LOW_LOGIT = -1e9
"""The floor of a root score, as mctx's ``score_considered`` (a zero prior's ``-inf`` logit)."""

_EPSILON = 1e-8
"""The smallest spread of completed Qs that is rescaled (mctx's ``epsilon``)."""


class GumbelOptions(NamedTuple):
    """The Gumbel search's settings (defaults: :data:`DEFAULT_CONSIDERED_ACTIONS` and the others).

    Attributes:
        considered_actions: int >= 1, the most root actions sampled (``m``'s cap).
        c_visit: float >= 0, σ's visit offset.
        c_scale: float > 0, σ's scale.
    """

    considered_actions: int
    c_visit: float
    c_scale: float


class GumbelTree(GuidedTree):
    """The general loop's tree (:class:`~mcts_agent.tree.GuidedTree`) with the root's Gumbel draw.

    Attributes:
        root_gumbel: tuple of floats, shape ``[len(actions[ROOT])]``: ``g(a)``.
        schedule: tuple of ints, shape ``[simulations]``: the visit count an
            action must have to get iteration ``k`` (:func:`considered_visits`).
    """

    __slots__ = ("root_gumbel", "schedule")

    def __init__(
        self,
        state: Any,
        player: Any,
        actions: tuple,
        priors: tuple,
        leaf_value: float | None,
        root_gumbel: tuple[float, ...],
        schedule: tuple[int, ...],
    ) -> None:
        """Makes a tree holding only the root (arguments: :class:`GuidedTree`'s and the above)."""
        super().__init__(state, player, actions, priors, leaf_value)
        self.root_gumbel = root_gumbel
        self.schedule = schedule


def checked_options(
    planner: MCTS, considered_actions: Any, c_visit: Any, c_scale: Any
) -> GumbelOptions | None:
    """Returns the Gumbel settings for ``selection="gumbel"`` (defaults filled), else None.

    Called by :class:`~mcts_agent.search.MCTS` once its other options are set.
    Options that compose: ``iterations`` (required: sequential halving divides a
    known budget), ``time_limit`` and ``max_nodes`` (they may end a search
    early), ``on_iteration``, ``evaluator``, ``max_depth``, ``exploration``
    (unused), ``gamma``, ``rollout_limit``, ``rollout_policy`` and ``seed``.

    Raises:
        ValueError: a Gumbel setting with another selection; ``considered_actions``
            < 1, ``c_visit`` < 0 or ``c_scale`` <= 0 (TypeError for a wrong type);
            no ``iterations``; or an option the Gumbel search does not compose
            with (each named, with why).
    """
    given = {"considered_actions": considered_actions, "c_visit": c_visit, "c_scale": c_scale}
    if planner.selection != "gumbel":
        named = [f"{name}={value!r}" for name, value in given.items() if value is not None]
        if named:
            raise ValueError(
                f"{' and '.join(named)} tune selection='gumbel' (Gumbel root search); with "
                f"selection={planner.selection!r} pass None (or selection='gumbel')"
            )
        return None
    m = require_int(
        "considered_actions",
        DEFAULT_CONSIDERED_ACTIONS if considered_actions is None else considered_actions,
        1,
    )
    visit = require_float("c_visit", DEFAULT_C_VISIT if c_visit is None else c_visit, 0.0)
    scale = require_float("c_scale", DEFAULT_C_SCALE if c_scale is None else c_scale, 0.0)
    if scale == 0.0:
        raise ValueError("c_scale must be > 0 (σ's scale of the completed Q), got 0.0")
    if planner.iterations is None:
        raise ValueError(
            "selection='gumbel' divides the search's iterations between the sampled root "
            "actions (sequential halving), so it needs iterations (time_limit alone gives no "
            "count to divide); give iterations=n (time_limit may still end a search early)"
        )
    name = type(planner.model).__name__
    refused = [
        (
            planner.reward_players is not None,
            "a model reporting every player's reward (reward_players: max^n)",
            "completed Q is one value per action",
        ),
        (
            planner.stochastic,
            f"a stochastic model ({name} has sample_step or outcomes)",
            "the Gumbel loop has no chance nodes",
        ),
        (
            planner.hidden,
            f"a hidden-information model ({name} has information_set and sample_world)",
            "the Gumbel loop searches one perfect-information tree",
        ),
        (
            planner.widening is not None,
            "progressive widening (widening, or a model without actions)",
            "Gumbel-Top-k samples from the listed actions",
        ),
        (
            planner.root_noise is not None,
            f"root_noise={planner.root_noise!r}",
            "the Gumbel draw is the root's exploration (use root_noise with selection='puct')",
        ),
        (planner.solve, "solve=True", "the solver's rules are UCT's and PUCT's"),
        (
            planner.value_normalization,
            "value_normalization=True",
            "completed Qs are rescaled to [0, 1] already",
        ),
        (
            planner.reuse_tree,
            "reuse_tree=True",
            "a re-rooted tree has no Gumbel draw and its visits would not follow the schedule",
        ),
        (
            planner.leaf_batch > 1,
            f"leaf_batch={planner.leaf_batch}",
            "the Gumbel loop runs one iteration at a time",
        ),
        (
            planner.workers > 1,
            f"workers={planner.workers}",
            "merging workers' roots by visits would not give the Gumbel move",
        ),
    ]
    for refused_here, what, why in refused:
        if refused_here:
            raise ValueError(f"selection='gumbel' does not compose with {what}: {why}")
    return GumbelOptions(m, visit, scale)


def considered_visits(max_considered: int, simulations: int) -> tuple[int, ...]:
    """Returns sequential halving's schedule: iteration k's visit count, shape ``[simulations]``.

    mctx's ``get_sequence_of_considered_visits``: with ``m = max_considered``
    actions, ``range(simulations)`` if ``m <= 1``; otherwise phases in which
    every remaining action gets ``max(1, floor(simulations / (ceil(log2 m) *
    remaining)))`` more visits (each visit's count listed once per action,
    in order), the remaining count then halving (never below 2), cut at
    ``simulations`` entries. E.g. ``considered_visits(4, 8) == (0, 0, 0, 0, 1,
    1, 2, 2)``.

    Args:
        max_considered: int >= 1, the actions sampled at the root.
        simulations: int >= 1, the search's iterations.
    """
    if max_considered <= 1:
        return tuple(range(simulations))
    log2max = math.ceil(math.log2(max_considered))
    sequence: list[int] = []
    visits = [0] * max_considered
    considered = max_considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:simulations])


def new_tree(
    planner: MCTS, state: Any, actions: tuple, simulations: int, evaluation: tuple
) -> GumbelTree:
    """Returns the one-node tree of a Gumbel search: the root's priors and its Gumbel draw.

    Args:
        planner: the planner (its generator draws ``g``; its options give ``m``).
        state: the root's state.
        actions: its legal actions (non-empty tuple).
        simulations: int >= 1, this search's iteration budget (the schedule's length).
        evaluation: ``(value, priors)`` of the root, checked.
    """
    value, priors = evaluation
    expovariate = planner.rng.expovariate
    draws = []
    for _ in actions:
        e = expovariate(1.0)
        while e == 0.0:  # -log(0): drawn again (probability 2**-53)
            e = expovariate(1.0)
        draws.append(-math.log(e))
    m = min(planner.gumbel.considered_actions, len(actions))
    player = checked_player(planner.model.player(state), state)
    return GumbelTree(
        state, player, actions, priors, value, tuple(draws), considered_visits(m, simulations)
    )


def _logits(priors: Sequence[float]) -> list[float]:
    """``log P`` per action, ``-inf`` for a zero prior."""
    return [math.log(p) if p > 0.0 else -math.inf for p in priors]


def completed_q(tree: GuidedTree, node: int, c_visit: float, c_scale: float) -> list[float]:
    """Returns ``σ(q̂)`` per action of ``node`` (model's order), shape ``[len(actions)]``.

    The completed Q (an unvisited action's is the mixed value), rescaled to
    [0, 1] and scaled by ``(c_visit + max_b N(b)) * c_scale``, as the module
    docstring says (mctx's ``qtransform_completed_by_mix_value``).

    Args:
        tree: the tree searched.
        node: a non-terminal decision node.
        c_visit: σ's visit offset.
        c_scale: σ's scale.
    """
    by_action = tree.children_by_action(node)
    return _sigma(tree, node, by_action, _counts(tree, by_action), c_visit, c_scale)


def _counts(tree: GuidedTree, by_action: Sequence[int]) -> list[int]:
    """``N(a)`` per action, of the node whose children by action are ``by_action``."""
    visits = tree.visits
    return [visits[c] if c != UNVISITED else 0 for c in by_action]


def _sigma(
    tree: GuidedTree,
    node: int,
    by_action: Sequence[int],
    counts: Sequence[int],
    c_visit: float,
    c_scale: float,
) -> list[float]:
    """:func:`completed_q` of ``node`` whose children by action and visits are already read."""
    values = tree.values
    priors = tree.priors[node]
    total = sum(counts)
    mass = 0.0
    weighted = 0.0
    for child, n, p in zip(by_action, counts, priors, strict=True):
        if n:
            p = max(p, 2.2250738585072014e-308)  # mctx: a visited zero prior still counts
            mass += p
            weighted += p * values[child]
    raw = tree.leaf_values[node]
    if mass == 0.0:
        mixed = 0.0 if raw is None else raw
    else:
        weighted /= mass
        mixed = weighted if raw is None else (raw + total * weighted) / (total + 1)
    completed = [values[c] if n else mixed for c, n in zip(by_action, counts, strict=True)]
    lo = min(completed)
    spread = max(max(completed) - lo, _EPSILON)
    scale = (c_visit + max(counts)) * c_scale
    return [scale * ((q - lo) / spread) for q in completed]


def _softmax(logits: Sequence[float]) -> list[float]:
    """``exp(x - max) / Σ exp(x - max)`` (``-inf`` entries give 0.0)."""
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = math.fsum(exps)
    return [e / total for e in exps]


def improved_policy(tree: GuidedTree, node: int, c_visit: float, c_scale: float) -> tuple:
    """Returns ``π' = softmax(logits + σ(q̂))`` at ``node``, shape ``[len(actions)]``.

    The Gumbel search's policy improvement (Danihelka et al. 2022, §4): the
    training target at the root. Zero-prior actions get 0.0.
    """
    return tuple(_policy(tree, node, completed_q(tree, node, c_visit, c_scale)))


def _policy(tree: GuidedTree, node: int, sigma: Sequence[float]) -> list[float]:
    """``softmax(logits + σ)`` at ``node``."""
    logits = _logits(tree.priors[node])
    return _softmax([x + s for x, s in zip(logits, sigma, strict=True)])


def _root_scores(tree: GumbelTree, considered_visit: int, options: GumbelOptions) -> list[float]:
    """The root's scores (mctx's ``score_considered``): ``-inf`` off the visit count given."""
    by_action = tree.children_by_action(ROOT)
    counts = _counts(tree, by_action)
    sigma = _sigma(tree, ROOT, by_action, counts, options.c_visit, options.c_scale)
    logits = _logits(tree.priors[ROOT])
    top = max(logits)
    return [
        max(_LOW_LOGIT, g + (x - top) + s) if n == considered_visit else -math.inf
        for n, g, x, s in zip(counts, tree.root_gumbel, logits, sigma, strict=True)
    ]


def _first_best(scores: Sequence[float]) -> int:
    """The index of the first largest score."""
    best = 0
    for i, score in enumerate(scores):
        if score > scores[best]:
            best = i
    return best


def chosen_index(tree: GumbelTree, options: GumbelOptions) -> int:
    """Returns the index of the root action the Gumbel search plays (the module's rule)."""
    visits = tree.visits
    most = max(visits[c] for c in tree.children[ROOT])
    return _first_best(_root_scores(tree, most, options))


def selection(planner: MCTS, tree: GumbelTree) -> Callable[[int], tuple[int, int]]:
    """Returns ``select(node) -> (i, child)``, the Gumbel rule (``child`` UNVISITED if untried).

    At the root, sequential halving's next action; below it, the
    deterministic rule (the module docstring).
    """
    options = planner.gumbel
    c_visit = options.c_visit
    c_scale = options.c_scale
    visits = tree.visits
    schedule = tree.schedule
    last = len(schedule) - 1

    def select(node: int) -> tuple[int, int]:
        if node == ROOT:
            k = sum(visits[c] for c in tree.children[ROOT])
            i = _first_best(_root_scores(tree, schedule[min(k, last)], options))
            return i, tree.children_by_action(ROOT)[i]
        by_action = tree.children_by_action(node)
        counts = _counts(tree, by_action)
        policy = _policy(tree, node, _sigma(tree, node, by_action, counts, c_visit, c_scale))
        denominator = 1 + sum(counts)
        i = _first_best([p - n / denominator for p, n in zip(policy, counts, strict=True)])
        return i, by_action[i]

    return select
