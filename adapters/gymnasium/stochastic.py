"""Chance in Gymnasium envs: the outcomes of a toy-text table, or steps sampled on reseeded clones.

How :class:`~mcts_agent.adapters.gymnasium.model.GymnasiumModel` makes a
stochastic env a :class:`~mcts_agent.model.StochasticModel`
(``docs/search.md``, "Chance"); :attr:`GymnasiumModel.chance` says which:

``"outcomes"``     FrozenLake and CliffWalking with ``is_slippery=True``, Taxi
                   with ``is_rainy=True`` (exact classes): every outcome of
                   ``P[s][a]`` with a positive probability, as the env's
                   ``step`` would draw it (:class:`TableOutcomes`); no clone is
                   stepped, no generator drawn from.
``"sample_step"``  any other env whose ``step`` draws from its own generators
                   (``np_random``, and the ``random.Random`` and numpy
                   ``Generator``/``RandomState`` objects found in it, e.g.
                   Taxi with ``fickle_passenger=True``): the clone's
                   generators are reseeded from the planner's generator before
                   every sampled step (:func:`sampled_step`), so the plan
                   never depends on the live env's generator state.
``None``           a deterministic env: ``step`` as before.

Keys (``model.key``): the position snapshot of the clone (its attributes
frozen into tuples), with the steps left; for the ``"deepcopy"`` clone, which
has no snapshot to compare, the observation of the step that reached the
position, which must then be Markov (two positions with the same observation
are planned as one).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from mcts_agent.adapters.env_probe import freeze, random_generators, reseed
from mcts_agent.adapters.gymnasium.known_envs import TaxiEnv
from mcts_agent.model import StepResult

if TYPE_CHECKING:
    import random

    from mcts_agent.adapters.gymnasium.model import GymnasiumModel, GymnasiumState

__all__ = ["TableOutcomes", "observation_key", "reseed_all", "sampled_step", "snapshot_key"]


class TableOutcomes:
    """The ``outcomes`` of a stochastic toy-text env, read from its transition table ``P``.

    FrozenLake, CliffWalking and Taxi step by drawing one entry ``(probability,
    next_s, reward, terminated)`` of ``P[s][a]`` with ``np_random`` and then
    setting ``s`` and ``lastaction`` (Gymnasium 1.4). The outcomes here are
    those entries with a positive probability, in ``P``'s order (entries
    reaching the same cell are merged by the search's keys), each a
    :class:`~mcts_agent.model.StepResult` of the model's states.

    Args:
        env: the live unwrapped env (``P`` and Taxi's masks are read once).
        model: the model (its masks and states).
    """

    def __init__(self, env: Any, model: GymnasiumModel) -> None:
        self.model = model
        self.transitions = {
            s: {
                a: tuple((float(p), int(n), float(r), bool(t)) for p, n, r, t in outcomes if p > 0)
                for a, outcomes in moves.items()
            }
            for s, moves in env.P.items()
        }
        self.masks = None
        if isinstance(env, TaxiEnv):
            self.masks = {s: env.action_mask(s) for s in self.transitions}

    def outcomes(self, state: GymnasiumState, action: Any) -> list[tuple[float, StepResult]]:
        """Returns the outcomes of ``action`` in ``state``: ``[(probability, StepResult)]``.

        Raises:
            ValueError: if ``action`` is not legal in ``state``.
        """
        from mcts_agent.adapters.gymnasium.model import GymnasiumState

        snapshot, steps_left, actions, _ = state
        if action not in actions:
            raise ValueError(
                f"action {action!r} is not legal here; legal actions: {list(actions)!r}"
            )
        model = self.model
        rest = snapshot[2:]  # Taxi's fickle_step and taxi_orientation: unchanged by a step
        if steps_left is not None:
            steps_left -= 1
        results = []
        for probability, next_s, reward, terminated in self.transitions[int(snapshot[0])][action]:
            next_snapshot = (next_s, action, *rest)
            ended = terminated or steps_left == 0
            if ended:
                next_actions: tuple = ()
            elif model._user_mask is not None:
                next_actions = model._legal_actions(
                    model._user_mask(model._checkout(next_snapshot))
                )
            elif self.masks is not None:
                next_actions = model._legal_actions(self.masks[next_s])
            else:
                next_actions = model._all_actions
            results.append(
                (
                    probability,
                    StepResult(
                        GymnasiumState(next_snapshot, steps_left, next_actions), reward, ended
                    ),
                )
            )
        return results


def snapshot_key(state: GymnasiumState) -> Hashable:
    """The key of a state whose snapshot tells its position: the snapshot frozen, the steps left."""
    return freeze(state.snapshot), state.steps_left


def observation_key(state: GymnasiumState) -> Hashable:
    """The key of a ``"deepcopy"`` state: the observation that reached it, the steps left."""
    return state.observation, state.steps_left


def sampled_step(
    model: GymnasiumModel, state: GymnasiumState, action: Any, rng: random.Random
) -> tuple[StepResult, Any]:
    """One step of a clone of ``state`` with its generators reseeded from ``rng``.

    Every generator of the clone (its ``np_random`` and those
    :func:`~mcts_agent.adapters.env_probe.random_generators` finds) gets a
    seed drawn from ``rng`` (one ``rng.getrandbits(64)``), so the outcome
    depends on the position, the action and the planner's generator only.

    Returns:
        ``(StepResult, observation)``: the step's result and the observation
        the env returned (the ``"deepcopy"`` clone's key).

    Raises:
        ValueError: if ``action`` is not legal in ``state``.
    """
    from mcts_agent.adapters.gymnasium.model import GymnasiumState

    snapshot, steps_left, actions, _ = state
    if action not in actions:
        raise ValueError(f"action {action!r} is not legal here; legal actions: {list(actions)!r}")
    env = model._checkout(snapshot)
    reseed_all(env, rng.getrandbits(64))
    observation, reward, terminated, truncated, info = env.step(model._inner_actions[action])
    if steps_left is not None:
        steps_left -= 1
    ended = terminated or truncated or steps_left == 0
    next_actions = () if ended else model._next_actions(env, info)
    observation = freeze(observation)
    next_state = GymnasiumState(model._commit(env), steps_left, next_actions, observation)
    return StepResult(next_state, float(reward), bool(ended)), observation


def reseed_all(env: Any, seed: int) -> None:
    """Seeds ``env``'s ``np_random`` and every other generator found in it with ``seed``."""
    import numpy as np

    env.np_random = np.random.default_rng(seed)
    for generator in random_generators(env, frozenset({id(env.np_random)})):
        reseed(generator, seed)
