"""Rollout policies beyond the uniformly random one (``MCTS(..., rollout_policy=...)``).

A rollout policy is a ``(state, actions, rng) -> action`` callable
(:data:`~mcts_agent.search.RolloutPolicy`); the search calls it at every move
of a rollout and checks that the action is legal.

:class:`CautiousRolloutPolicy` is for stochastic models with ``outcomes``
(slippery FrozenLake, a dice game): it plays uniformly at random among the
actions least likely to end the episode at once with nothing gained. Random
rollouts in slippery FrozenLake mostly fall into a hole within a few steps,
so the returns they bring back barely tell a safe cell from a doomed one; a
rollout that never steps into a hole when it can avoid it mostly reaches the
goal, and those returns rank the positions (``benchmarks/bench_chance.py``,
``--config cautious``). It looks one step ahead through the model's own
``outcomes``; it does not solve the MDP (no values, no plan beyond one step),
in the spirit of the one-step "decisive move" rollouts of Teytaud & Teytaud
(2010, "On the huge benefit of decisive moves in Monte-Carlo Tree Search
algorithms").
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any

from mcts_agent.chance import checked_outcomes

__all__ = ["CautiousRolloutPolicy"]


class CautiousRolloutPolicy:
    """Uniform among the actions with the least probability of a losing end in one step.

    A *losing end* is an outcome that ends the episode (``terminated``) with a
    reward of at most ``loss_reward`` (default 0.0: a FrozenLake hole). At each
    rollout move the policy asks ``model.outcomes(state, a)`` for every legal
    action ``a``, sums the probabilities of the losing ends, and draws one of
    the actions whose sum is least (within 1e-12), uniformly, with one
    ``rng.random()`` (as the search's own random rollout draws:
    ``safe[int(rng.random() * len(safe))]``). The safe actions of a position
    are kept per ``model.key(state)`` (the state itself without a ``key``), so
    each position's outcomes are asked once per policy. With the compiled
    core, on the toy-text table of the ``GymnasiumModel`` it is built on, the
    compiled chance loop plays it in C, with the same trees
    (:meth:`~mcts_agent.adapters.gymnasium.model.GymnasiumModel.native_chance_for`).

    Args:
        model: a stochastic model with ``outcomes(state, action)``
            (:class:`~mcts_agent.model.StochasticModel`), e.g. a
            ``GymnasiumModel`` of slippery FrozenLake.
        loss_reward: float, the largest reward of a terminal outcome that
            counts as a loss.

    Raises:
        TypeError: if ``model`` has no callable ``outcomes`` (a model that only
            samples steps cannot be looked ahead of this way), or
            ``loss_reward`` is not a real number; when called, as
            :func:`~mcts_agent.chance.checked_outcomes` for a malformed answer.

    Example::

        model = GymnasiumModel(gymnasium.make("FrozenLake-v1", is_slippery=True))
        planner = MCTS(model, iterations=1000, rollout_policy=CautiousRolloutPolicy(model))
    """

    def __init__(self, model: Any, loss_reward: float = 0.0) -> None:
        outcomes = getattr(model, "outcomes", None)
        if not callable(outcomes):
            raise TypeError(
                f"CautiousRolloutPolicy needs a model with outcomes(state, action); "
                f"{type(model).__name__} has none (a model that only samples its steps "
                "cannot be looked ahead of one step)"
            )
        if isinstance(loss_reward, bool) or not isinstance(loss_reward, (int, float)):
            raise TypeError(f"loss_reward must be a real number, got {loss_reward!r}")
        self.model = model
        self.loss_reward = float(loss_reward)
        self._outcomes = outcomes
        self._key = getattr(model, "key", None)
        self._safe: dict[Hashable, tuple[Any, ...]] = {}

    def safe_actions(self, state: Any, actions: Sequence[Any]) -> tuple[Any, ...]:
        """The actions of ``actions`` whose probability of a losing end is least, in their order.

        :meth:`least_risky`, kept per key (asked once per position).
        """
        key = state if self._key is None else self._key(state)
        safe = self._safe.get(key)
        if safe is None:
            safe = self._safe[key] = self.least_risky(state, actions)
        return safe

    def least_risky(self, state: Any, actions: Sequence[Any]) -> tuple[Any, ...]:
        """The actions of ``actions`` whose probability of a losing end is least, uncached.

        Each action's risk is the sum, in the order of ``outcomes``, of the
        probabilities of its outcomes that end the episode with a reward of at
        most ``loss_reward``; the actions within 1e-12 of the least risk are
        returned in the order of ``actions``. The compiled chance loop's table
        rollouts draw from these per cell
        (:meth:`~mcts_agent.adapters.gymnasium.model.GymnasiumModel.native_chance_for`).

        Raises:
            ValueError: if ``actions`` is empty; as
                :func:`~mcts_agent.chance.checked_outcomes` for a malformed answer.
        """
        risks = []
        for action in actions:
            pairs = checked_outcomes(self._outcomes(state, action), state, action)
            risks.append(
                sum(
                    probability
                    for probability, result in pairs
                    if result.terminated and result.reward <= self.loss_reward
                )
            )
        least = min(risks)
        return tuple(
            action for action, risk in zip(actions, risks, strict=True) if risk <= least + 1e-12
        )

    def __call__(self, state: Any, actions: Sequence[Any], rng: random.Random) -> Any:
        """Returns one of the safest actions of ``state``, drawn with one ``rng.random()``."""
        safe = self.safe_actions(state, actions)
        return safe[int(rng.random() * len(safe))]
