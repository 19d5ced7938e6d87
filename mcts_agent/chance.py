"""Chance nodes: planning in stochastic models, sampled when the walk crosses chance.

A model with ``sample_step(state, action, rng)`` or ``outcomes(state, action)``
is *stochastic* (:class:`~mcts_agent.model.StochasticModel`); the search then
runs the general loop (:mod:`mcts_agent.general_loop`) and never calls its
``step``. In its tree (``docs/guides/chance.md``):

* every tried action of a decision node leads to a *chance node*
  (``Node.chance`` is True), which holds the state the action was taken in,
  the player who chose it, reward 0.0, and one child per outcome seen so far;
* each iteration that crosses a chance node draws one outcome from the
  planner's generator (by the probabilities of ``outcomes``, asked once when
  the chance node is made: the first outcome whose running sum of
  probabilities exceeds one ``rng.random()``, no draw for a sure outcome;
  or with one ``sample_step``) and goes on to the
  child of that outcome's key, ``(model.key(next_state), reward,
  terminated)``: what the player sees after the move (``key`` defaults to
  the state itself). An outcome not seen before makes a new decision node,
  the iteration's expansion. Two draws that the player cannot tell apart
  share one node however the dice fell; the reward and the flag are part of
  the key because the player sees them too (slippery CliffWalking reaches
  its start both by a plain step, reward -1, and by falling off the cliff,
  reward -100);
* the backup passes a chance node with G unchanged (its reward is 0.0 and its
  discount 1.0), so its value is the mean return of its outcomes from the
  point of view of the player who chose the action: UCT at a decision node
  selects among chance nodes by their expected value. An outcome node backs
  up as any node, its sign decided by the player who chose the action.

Rollouts draw outcomes the same way (:func:`sampler`). Sources: Kocsis &
Szepesvári (2006), UCT for MDPs with sampled transitions; OpenSpiel's chance
nodes (``mcts.py``: one child per outcome); MCTS.jl's state-keyed trees.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from mcts_agent import maxn
from mcts_agent._validation import (
    checked_reward,
    checked_step_result,
    checked_terminated,
    describe,
)
from mcts_agent.model import StepResult
from mcts_agent.tree import UNVISITED, GuidedTree

if TYPE_CHECKING:
    from mcts_agent.search import MCTS

__all__ = [
    "PROBABILITY_TOLERANCE",
    "ChanceRecord",
    "checked_outcomes",
    "crossing",
    "is_stochastic",
    "new_record",
    "outcome_key",
    "sampler",
]

PROBABILITY_TOLERANCE = 1e-9
"""How far from 1 the probabilities of ``outcomes`` may sum."""

Crossing = Callable[[int, int, int], tuple[int, int, int, "StepResult | None"]]
"""``cross(node, child, i) -> (chance, outcome, j, result)``; see :func:`crossing`."""


def is_stochastic(model: Any) -> bool:
    """True if ``model`` has a callable ``sample_step`` or ``outcomes`` (a stochastic model)."""
    return callable(getattr(model, "sample_step", None)) or callable(
        getattr(model, "outcomes", None)
    )


class ChanceRecord:
    """The bookkeeping of one chance node (``GuidedTree.chance_records[node]``).

    Attributes:
        action: the action whose outcomes the node draws.
        index: dict, outcome key -> index of the outcome among the node's
            actions and children (``tree.actions[node]`` lists the keys in
            that order; the index survives tree reuse's renumbering).
        cumulative: for ``outcomes`` models, the tuple of the running sums of
            the outcomes' probabilities (the last set to infinity), else None.
        results: for ``outcomes`` models, the tuple of the outcomes'
            ``StepResult``s (checked), in the model's order, else None.
        keys: for ``outcomes`` models, the tuple of each outcome's key, else None.
        draws: with ``state_widening`` (double progressive widening), the
            times each outcome was drawn, by index (a list); else None.

    The three are tuples: fixed once the node is made, shared by the copies of
    tree reuse, and (their items immutable) left out of the garbage
    collector's walks, which a large tree would otherwise slow.
    """

    __slots__ = ("action", "index", "cumulative", "results", "keys", "draws")

    def __init__(
        self,
        action: Any,
        cumulative: tuple[float, ...] | None = None,
        results: tuple[StepResult, ...] | None = None,
        keys: tuple[Hashable, ...] | None = None,
    ) -> None:
        self.action = action
        self.index: dict[Hashable, int] = {}
        self.cumulative = cumulative
        self.results = results
        self.keys = keys
        self.draws: list[int] | None = None

    def __copy__(self) -> ChanceRecord:
        """A copy whose ``index`` grows apart (tree reuse keeps the previous tree as it was)."""
        record = ChanceRecord(self.action, self.cumulative, self.results, self.keys)
        record.index = dict(self.index)
        if self.draws is not None:
            record.draws = list(self.draws)
        return record


def outcome_key(key: Callable[[Any], Hashable] | None, result: StepResult) -> Hashable:
    """The key of an outcome: ``(key(next_state), reward, terminated)``, checked hashable.

    Args:
        key: the model's ``key`` method, or None (the state itself).
        result: a checked ``StepResult``.

    Raises:
        TypeError: if the key (the state itself, without a ``key`` method) is
            not hashable.
    """
    visible = result.next_state if key is None else key(result.next_state)
    try:
        hash(visible)
    except TypeError:
        source = (
            f"key({describe(result.next_state)})"
            if key is not None
            else f"the state {describe(result.next_state)}"
        )
        raise TypeError(
            f"{source} is not hashable ({type(visible).__name__}); a stochastic model's "
            "outcomes are told apart by key(state): give the model a key(state) method "
            "returning a hashable value (e.g. a tuple), or use hashable states"
        ) from None
    return (visible, result.reward, result.terminated)


def checked_result(
    result: Any, state: Any, action: Any, players: tuple | None = None
) -> StepResult:
    """``result`` as a ``StepResult`` of a float reward and a bool flag; checks the protocol.

    With ``players`` (a model reporting every player's reward, :mod:`mcts_agent.maxn`)
    the reward is a mapping, returned as a tuple of floats in the order of ``players``.

    Raises:
        TypeError: if it is not a 3-tuple, or the reward is not a real number,
            or ``terminated`` is not a bool.
        ValueError: if the reward is NaN or infinite.
    """
    if players is None and result.__class__ is StepResult:
        reward, terminated = result.reward, result.terminated
        if (
            reward.__class__ is float
            and math.isfinite(reward)
            and (terminated is False or terminated is True)
        ):
            return result  # already valid: no copy
    next_state, reward, terminated = checked_step_result(result, state, action)
    if players is not None:
        reward = maxn.reward_vector(reward, players, state, action)
    elif reward.__class__ is not float or not math.isfinite(reward):
        reward = checked_reward(reward, state, action)
    if terminated is not False and terminated is not True:
        terminated = checked_terminated(terminated, state, action)
    return StepResult(next_state, reward, terminated)


def checked_outcomes(
    outcomes: Any, state: Any, action: Any, players: tuple | None = None
) -> list[tuple[float, StepResult]]:
    """The answer of ``outcomes(state, action)``, checked: ``[(probability, StepResult)]``.

    ``players``: as :func:`checked_result`'s.

    Raises:
        TypeError: if it is not a non-empty sequence of ``(probability,
            StepResult)`` pairs of a real probability and a valid result.
        ValueError: if a probability is not positive and finite, or they do not
            sum to 1 within :data:`PROBABILITY_TOLERANCE`, or a reward is not finite.
    """

    def call() -> str:  # only for a message: describing the state is not free
        return f"outcomes({describe(state)}, {describe(action)})"

    try:
        pairs = list(outcomes)
    except TypeError:
        raise TypeError(
            f"{call()} returned {describe(outcomes)} ({type(outcomes).__name__}); expected a "
            "sequence of (probability, StepResult) pairs"
        ) from None
    if not pairs:
        raise ValueError(f"{call()} returned no outcome; expected at least one")
    checked = []
    total = 0.0
    for pair in pairs:
        try:
            probability, result = pair
        except (TypeError, ValueError):
            raise TypeError(
                f"{call()} returned the entry {describe(pair)}; expected a (probability, "
                "StepResult) pair"
            ) from None
        if probability.__class__ is not float:
            if isinstance(probability, bool) or not isinstance(probability, (int, float)):
                try:
                    probability = float(probability)  # numpy scalars
                except (TypeError, ValueError):
                    raise TypeError(
                        f"{call()} gave the probability {describe(probability)} "
                        f"({type(probability).__name__}); expected a real number"
                    ) from None
            probability = float(probability)
        if not (math.isfinite(probability) and probability > 0.0):
            raise ValueError(
                f"{call()} gave the probability {probability}; expected a positive finite "
                "number (leave impossible outcomes out)"
            )
        total += probability
        checked.append((probability, checked_result(result, state, action, players)))
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise ValueError(
            f"{call()} gave probabilities summing to {total!r}; expected 1 within "
            f"{PROBABILITY_TOLERANCE}"
        )
    return checked


def sampler(
    model: Any, rng: random.Random, players: tuple | None = None
) -> Callable[[Any, Any], StepResult]:
    """Returns ``draw(state, action) -> StepResult``: one outcome drawn from ``rng``.

    ``players``: as :func:`checked_result`'s (the rewards drawn are then vectors).

    The rollouts' ``step`` for a stochastic model: ``outcomes`` by their
    probabilities (one ``rng.random()``, none for a sure outcome) when the
    model has it, else
    ``sample_step(state, action, rng)``. A ``sample_step`` result is checked
    as the search's expansions check it. An ``outcomes`` answer that is a list
    or tuple of ``(float, result)`` pairs is read in one pass: each
    probability positive and finite, their sum 1 within
    :data:`PROBABILITY_TOLERANCE`, and only the drawn result checked
    (:func:`checked_result`); any other answer, or one failing these, goes
    through :func:`checked_outcomes` in full (its errors). The draw is the same
    either way. A chance node checks its answer in full once, when made.
    """
    outcomes = getattr(model, "outcomes", None)
    if callable(outcomes):
        random_ = rng.random
        inf = math.inf
        tolerance = PROBABILITY_TOLERANCE

        def draw_outcome(state: Any, action: Any) -> StepResult:
            answer = outcomes(state, action)
            if (answer.__class__ is list or answer.__class__ is tuple) and len(answer) > 1:
                # One pass: every probability a positive finite float, their sum 1 (the same
                # running sum as checked_outcomes'), the first whose running sum passes u drawn;
                # only the drawn result checked. Anything else: the full check below.
                u = random_()
                running = 0.0
                drawn = None
                for pair in answer:
                    if pair.__class__ is not tuple or len(pair) != 2:
                        break
                    probability = pair[0]
                    if probability.__class__ is not float or not 0.0 < probability < inf:
                        break
                    running += probability
                    if drawn is None and u < running:
                        drawn = pair[1]
                else:
                    if abs(running - 1.0) <= tolerance:
                        if drawn is None:  # u within rounding of the sum (as the chance node)
                            drawn = answer[-1][1]
                        return checked_result(drawn, state, action, players)
                return _drawn(checked_outcomes(answer, state, action, players), u)
            pairs = checked_outcomes(answer, state, action, players)
            if len(pairs) == 1:
                return pairs[0][1]  # a sure outcome draws nothing
            return _drawn(pairs, random_())

        return draw_outcome
    sample_step = model.sample_step

    def draw_sample(state: Any, action: Any) -> StepResult:
        return checked_result(sample_step(state, action, rng), state, action, players)

    return draw_sample


def _drawn(pairs: list[tuple[float, StepResult]], u: float) -> StepResult:
    """The result of the first checked pair whose running sum of probabilities passes ``u``."""
    running = 0.0
    for probability, result in pairs:
        running += probability
        if u < running:
            return result
    return pairs[-1][1]  # u within rounding of the sum (as the chance node draws)


def crossing(planner: MCTS, tree: GuidedTree) -> Crossing:
    """Returns the general loop's ``cross(node, child, i)`` for a stochastic model.

    ``cross(node, child, i)``, with ``node`` a decision node and ``child`` the
    chance node of the action selected there (``UNVISITED`` if that action,
    ``actions[node][i]``, is untried), makes the chance node if need be
    (``outcomes`` asked once, here), draws one outcome from the planner's
    generator and returns ``(chance, outcome, j, result)``: the chance node;
    the outcome's node, or ``UNVISITED`` if the outcome is new; the outcome's
    index among the chance node's actions; and, for a new outcome, the drawn
    ``StepResult`` (else None). For a new outcome the loop then adds its node
    as any expansion (``action_indices`` j, appended to
    ``children[chance]``, 1 taken off ``untried[chance]``).

    A chance node's ``untried`` is 0 between iterations: a new outcome adds
    one, its expansion takes it off again. Its outcomes are numbered in the
    order first drawn, so ``children[chance][j]`` is outcome j's node.

    With ``state_widening=(k, alpha)`` (double progressive widening,
    Couëtoux et al., 2011; ``SPEC.md``, "Progressive widening"), a chance
    node visited ``n`` times, this visit included, that already has
    ``ceil(k * n**alpha)`` outcomes draws none: it picks one of them with
    probability proportional to the times it was drawn
    (``ChanceRecord.draws``; one ``rng.random()``); otherwise it draws as
    above, and counts the draw.
    """
    model = planner.model
    key = getattr(model, "key", None)
    outcomes = getattr(model, "outcomes", None)
    if not callable(outcomes):
        outcomes = None
    sample_step = None if outcomes is not None else model.sample_step
    rng = planner.rng
    random_ = rng.random
    c = planner.exploration
    players = planner.reward_players  # rewards as vectors (mcts_agent.maxn), or None
    states = tree.states
    actions = tree.actions
    children = tree.children
    untried = tree.untried
    priors = tree.priors
    records = tree.chance_records
    visits = tree.visits
    state_widening = planner.state_widening
    if state_widening is not None:
        k, alpha = state_widening
        ceil = math.ceil

    def cross(node: int, child: int, i: int) -> tuple[int, int, int, StepResult | None]:
        state = states[node]
        if child == UNVISITED:
            record = new_record(outcomes, key, players, state, actions[node][i])
            if state_widening is not None:
                record.draws = []
            child = _add_chance_node(tree, node, i, c * priors[node][i], record)
        record = records[child]
        if state_widening is not None:
            draws = record.draws
            if len(draws) >= ceil(k * (visits[child] + 1) ** alpha):  # pick a drawn outcome
                running = list(itertools.accumulate(draws))
                j = bisect.bisect_right(running, random_() * running[-1])  # u < running[j]
                draws[j] += 1
                return child, children[child][j], j, None
        if sample_step is None:
            cumulative = record.cumulative
            drawn = 0 if len(cumulative) == 1 else bisect.bisect_right(cumulative, random_())
            result = record.results[drawn]
            outcome = record.keys[drawn]
        else:
            result = checked_result(
                sample_step(state, record.action, rng), state, record.action, players
            )
            outcome = outcome_key(key, result)
        j = record.index.get(outcome)
        if j is not None:
            if state_widening is not None:
                record.draws[j] += 1
            return child, children[child][j], j, None
        if state_widening is not None:
            record.draws.append(1)
        j = record.index[outcome] = len(actions[child])
        actions[child] += (outcome,)
        priors[child] += (0.0,)
        untried[child] += 1
        return child, UNVISITED, j, result

    return cross


def new_record(
    outcomes: Callable[[Any, Any], Any] | None,
    key: Callable[[Any], Hashable] | None,
    players: tuple | None,
    state: Any,
    action: Any,
) -> ChanceRecord:
    """The :class:`ChanceRecord` of a new chance node: ``action`` taken in ``state``.

    With ``outcomes`` (the model's method; None for a ``sample_step`` model)
    it is asked once, here, and its answer checked in full
    (:func:`checked_outcomes`): the record keeps the outcomes' results, their
    keys (:func:`outcome_key`) and the running sums of their probabilities,
    the last set to infinity (every ``u < 1`` falls in some outcome), as tuples.
    ``players``: as :func:`checked_result`'s. Also called by the compiled
    chance loop (``mcts_agent/_chance_loop.c``) when it makes a chance node.

    Raises:
        TypeError, ValueError: as :func:`checked_outcomes` and :func:`outcome_key`.
    """
    record = ChanceRecord(action)
    if outcomes is not None:
        pairs = checked_outcomes(outcomes(state, action), state, action, players)
        running = 0.0
        cumulative = []
        for probability, _ in pairs:
            running += probability
            cumulative.append(running)
        cumulative[-1] = math.inf  # every u < 1 falls in some outcome
        record.cumulative = tuple(cumulative)
        record.results = tuple(result for _, result in pairs)
        record.keys = tuple(outcome_key(key, result) for result in record.results)
    return record


def _add_chance_node(
    tree: GuidedTree, parent: int, i: int, scaled_prior: float, record: ChanceRecord
) -> int:
    """Appends the chance node of action ``i`` at ``parent``; returns its index.

    Its state and player are the parent's (the state the action is taken
    in, the player who chose it), its reward 0.0 and discount 1.0 (the
    backup passes G through unchanged), no outcome yet. It joins the
    parent's children in the model's order of their actions, and the
    parent has one untried action less.
    """
    chance = tree.append_node(
        tree.states[parent],
        tree.players[parent],
        0.0,
        1.0,
        (),
        0,
        i,
        (),
        scaled_prior,
        None,
        record,
    )
    kids = tree.children[parent]
    action_indices = tree.action_indices
    at = bisect.bisect(kids, i, key=action_indices.__getitem__)  # the model's order
    tree.children[parent] = kids[:at] + (chance,) + kids[at:]
    tree.untried[parent] -= 1
    return chance
