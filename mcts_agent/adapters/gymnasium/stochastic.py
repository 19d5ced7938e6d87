"""Chance in Gymnasium envs: the outcomes of a toy-text table, or steps sampled on reseeded clones.

How :class:`~mcts_agent.adapters.gymnasium.model.GymnasiumModel` makes a
stochastic env a :class:`~mcts_agent.model.StochasticModel`
(``docs/guides/chance.md``); :attr:`GymnasiumModel.chance` says which:

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

import copy
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from mcts_agent.adapters.env_probe import freeze, generators_at, reseed
from mcts_agent.adapters.gymnasium.known_envs import TaxiEnv
from mcts_agent.chance import PROBABILITY_TOLERANCE
from mcts_agent.compiled_chance import table_rollout
from mcts_agent.model import StepResult

if TYPE_CHECKING:
    import random

    from mcts_agent.adapters.gymnasium.model import GymnasiumModel, GymnasiumState
    from mcts_agent.rollout_policies import CautiousRolloutPolicy

__all__ = ["TableOutcomes", "observation_key", "reseed_from", "sampled_step", "snapshot_key"]


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
        self._native: Any = False  # native_rollout()'s capsule (None: none), made once
        self._policy_native: tuple[Any, float, Any] | None = None  # (policy, its loss, capsule)

    def native_rollout(self, policy: CautiousRolloutPolicy | None = None) -> Any:
        """The compiled core's rollout and records of this table, or None (``compiled-core.md``).

        The search's generic rollout through :meth:`outcomes` (each outcome
        drawn as :func:`mcts_agent.chance.sampler` draws it), and a new chance
        node's outcomes and keys (:func:`snapshot_key`), in C:
        :func:`mcts_agent.compiled_chance.table_rollout`. Its actions are
        uniformly random legal ones without ``policy``; with a
        :class:`~mcts_agent.rollout_policies.CautiousRolloutPolicy` of the
        model, uniformly random among the policy's
        :meth:`~mcts_agent.rollout_policies.CautiousRolloutPolicy.least_risky`
        actions of each cell, asked once per cell for a move that is not the
        episode's last counted step and once for one that is (a cell's outcomes
        depend on nothing else). Made once (per policy and ``loss_reward``).
        None without the core, with the model's own ``action_mask`` function
        (the legal actions are then the env's to say), or a table that is not
        one of cells and actions numbered from 0 (every cell with the same
        actions, each the model's action of that number) whose outcomes'
        probabilities sum to 1 within
        :data:`~mcts_agent.chance.PROBABILITY_TOLERANCE` (the search raises
        there, in Python).
        """
        if policy is None:
            if self._native is False:
                self._native = self._make_native(None)
            return self._native
        made = self._policy_native
        if made is None or made[0] is not policy or made[1] != policy.loss_reward:
            made = self._policy_native = (
                policy,
                policy.loss_reward,
                self._make_native(policy),
            )
        return made[2]

    def _make_native(self, policy: CautiousRolloutPolicy | None) -> Any:
        """:meth:`native_rollout`'s capsule, or None (its docstring says when)."""
        from mcts_agent.adapters.gymnasium.model import GymnasiumState  # it imports this module

        model = self.model
        cells = range(len(self.transitions))
        actions = model._all_actions
        if model._user_mask is not None or list(self.transitions) != list(cells):
            return None
        if actions != tuple(range(len(actions))):
            return None
        table = []
        for s in cells:
            moves = self.transitions[s]
            if list(moves) != list(actions):
                return None
            for outcomes in moves.values():
                running = 0.0
                for probability, *_ in outcomes:
                    running += probability
                if not outcomes or abs(running - 1.0) > PROBABILITY_TOLERANCE:
                    return None
            table.append([moves[a] for a in actions])
        if self.masks is None:
            legal = [actions for _ in cells]
        else:
            legal = [model._legal_actions(self.masks[s]) for s in cells]
        choices = None
        if policy is not None:
            # A probe state of each cell (the rest of a snapshot changes no outcome), with the
            # steps left of a move that is not the last (None) and of one that is (1).
            choices = [
                [
                    policy.least_risky(GymnasiumState((s, None), steps_left, legal[s], s), legal[s])
                    if legal[s]
                    else ()
                    for s in cells
                ]
                for steps_left in (None, 1)
            ]
        return table_rollout(table, legal, GymnasiumState, StepResult, choices)

    def least_reward(self) -> float:
        """The smallest reward of any outcome in the table (a positive probability)."""
        return min(
            reward
            for moves in self.transitions.values()
            for outcomes in moves.values()
            for _, _, reward, _ in outcomes
        )

    def outcomes(self, state: GymnasiumState, action: Any) -> list[tuple[float, StepResult]]:
        """Returns the outcomes of ``action`` in ``state``: ``[(probability, StepResult)]``.

        Raises:
            ValueError: if ``action`` is not legal in ``state``.
        """
        snapshot, steps_left, actions, _ = state
        make_state = state.__class__  # GymnasiumState (its module imports this one)
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
                        # The observation of these envs is the cell (or Taxi's state) index.
                        make_state(next_snapshot, steps_left, next_actions, next_s),
                        reward,
                        ended,
                    ),
                )
            )
        return results


def snapshot_key(state: GymnasiumState) -> Hashable:
    """The key of a state whose snapshot tells its position: its values, the steps left.

    The snapshot's values as nested tuples of Python numbers (:func:`by_value`),
    so the same position compares equal however the env holds it: CartPole's
    live ``state`` is an array, a clone stepped by the model holds a tuple.
    """
    return by_value(state.snapshot), state.steps_left


def by_value(value: Any) -> Hashable:
    """``value`` as nested tuples of Python scalars: arrays by ``tolist``, dicts by sorted items."""
    cls = value.__class__
    if cls is int or cls is float or cls is bool or value is None:
        return value  # the common case first: toy-text snapshots are tuples of ints
    if cls is tuple and all(v.__class__ is int for v in value):
        return value
    if isinstance(value, np.ndarray):
        return by_value(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return tuple((key, by_value(value[key])) for key in sorted(value, key=repr))
    if isinstance(value, (tuple, list)):
        return tuple(by_value(v) for v in value)
    return value


def observation_key(state: GymnasiumState) -> Hashable:
    """The key of a ``"deepcopy"`` state: the observation that reached it frozen, the steps left."""
    return freeze(state.observation), state.steps_left


def sampled_step(
    model: GymnasiumModel, state: GymnasiumState, action: Any, rng: random.Random
) -> StepResult:
    """One step of a clone of ``state`` with its generators reseeded from ``rng``.

    Every generator of the clone (where
    :func:`~mcts_agent.adapters.env_probe.random_generator_paths` found them
    in the live env when the model was built: its ``np_random`` and any
    ``random.Random`` or numpy ``Generator`` / ``RandomState`` / bit generator it holds) gets
    a new state drawn from ``rng``
    (:func:`reseed_from`), so the outcome depends on the position, the
    action and the planner's generator only: never on the generator state
    the clone copied from the live env.

    Returns:
        The step's ``StepResult``; its state carries the observation (the
        ``"deepcopy"`` clone's key is made from it).

    A sampled action space's action (``Box``, ``Dict``, ``Tuple``) is checked
    and converted as :meth:`GymnasiumModel.step` does.

    Raises:
        ValueError: if ``action`` is not legal in ``state`` (sampled: not of
            the space's form, or out of its bounds).
    """
    from mcts_agent.adapters.gymnasium.model import GymnasiumState

    snapshot, steps_left, actions, _ = state
    if actions is not None and action not in actions:  # sampled: checked by the conversion
        raise ValueError(f"action {action!r} is not legal here; legal actions: {list(actions)!r}")
    inner = model._inner_actions[action]
    env = model._checkout(snapshot)
    for generator in generators_at(env, model._generator_paths):
        reseed_from(generator, rng)
    observation, reward, terminated, truncated, info = env.step(inner)
    if steps_left is not None:
        steps_left -= 1
    ended = terminated or truncated or steps_left == 0
    if ended:
        next_actions: tuple | None = ()
    elif actions is None:  # a sampled action space: no list (GymnasiumState.actions)
        next_actions = None
    else:
        next_actions = model._next_actions(env, info)
    if model._copies_observations:  # the scratch env stepped again may change the array
        observation = copy.deepcopy(observation)
    next_state = GymnasiumState(model._commit(env), steps_left, next_actions, observation)
    return StepResult(next_state, float(reward), bool(ended))


def reseed_from(generator: Any, rng: random.Random) -> None:
    """Gives ``generator`` a new state drawn from ``rng`` (in place).

    A numpy ``Generator`` on ``PCG64`` gets a random 128-bit state and odd
    increment (two ``getrandbits(128)``: no new object); any other
    generator is reseeded (:func:`~mcts_agent.adapters.env_probe.reseed`)
    with ``rng.getrandbits(64)`` (``getrandbits(32)`` for a ``RandomState``,
    whose seeds are 32-bit).
    """
    if isinstance(generator, np.random.Generator):
        bit_generator = generator.bit_generator
        if isinstance(bit_generator, np.random.PCG64):
            bit_generator.state = {
                "bit_generator": "PCG64",
                "state": {"state": rng.getrandbits(128), "inc": rng.getrandbits(128) | 1},
                "has_uint32": 0,
                "uinteger": 0,
            }
            return
    reseed(generator, rng.getrandbits(32 if isinstance(generator, np.random.RandomState) else 64))
