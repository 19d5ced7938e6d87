"""A Gymnasium env as a one-player model the search can plan in.

:class:`GymnasiumModel` wraps a cloneable Gymnasium env
(``gymnasium.Env``, Gymnasium >= 1.0 API: ``step`` returns ``(observation,
reward, terminated, truncated, info)``) as a :class:`~mcts_agent.model.Model`
with a single player, 0, so the backup of ``docs/concepts/iteration.md`` is plain discounted
Monte Carlo (Sutton & Barto, 2018, §8.11)::

    env = gymnasium.make("FrozenLake-v1", is_slippery=False)
    env.reset(seed=0)
    model = GymnasiumModel(env)
    planner = MCTS(model, iterations=200, seed=0)
    action = model.to_env_action(planner(model.state_of(env)))
    env.step(action)

How a position is cloned, fastest first (:attr:`GymnasiumModel.clone_method`):

========================  ====================================================
``"snapshot"``            Gymnasium envs we know: their inner state is a few
                          attributes (toy-text ``s`` and ``lastaction``, Taxi's
                          ``fickle_step``; classic-control ``state`` and
                          CartPole's ``steps_beyond_terminated``), copied into
                          a tuple and restored into one scratch copy of the
                          env. FrozenLake, CliffWalking and Taxi are stepped
                          through their transition table ``P``, CartPole by a
                          bit-exact replica of its ``step`` on Python floats
                          (both checked against the env's own ``step``).
``"user"``                ``get_state(env) -> snapshot`` and
                          ``set_state(env, snapshot)`` passed by the user.
``"env_methods"``         the env's own ``get_state()`` and ``set_state(state)``
                          methods (how :mod:`mcts_agent.envs.grid_maze` does it).
``"deepcopy"``            anything else: every state holds a
                          ``copy.deepcopy`` of ``env.unwrapped``.
========================  ====================================================

Rendering: the deep copies (the ``"deepcopy"`` states, the scratch env of
``"user"`` and ``"env_methods"``, the reference of the start-up check) leave
the env's pygame objects out (its window or screen, surfaces, ``clock``: a
pygame ``Clock`` cannot be copied), so an env that has already rendered is
planned on like any other; the copies are only stepped, never drawn, and the
live env's renderer is not touched.

Making your own env plannable: keep everything ``step`` reads in a few
attributes and give the env ``get_state()`` (returns a snapshot that later
steps of the env cannot change, e.g. a tuple of ints and immutable objects)
and ``set_state(state)``; if it has action masks, give it ``action_mask()``
(the mask of the current position, 1 = legal); ``is_terminal()`` (True
once the episode has terminated; the name OpenSpiel's states use), so that
the model refuses to plan from a finished episode; and, for networks that
evaluate observations, ``_get_obs()`` (the observation of the current
position, the name Gymnasium's envs and its custom-env tutorial use). The
adapter checks the clone and the determinism when it starts (below).

Finished episodes: :meth:`GymnasiumModel.state_of` raises ``ValueError``
once the live env's ``TimeLimit`` has truncated the episode or its position
is terminal, for the envs that can tell: the Gymnasium envs we know
(FrozenLake and CliffWalking at a hole or the goal, Taxi once the passenger
is delivered, CartPole once the pole has fallen, MountainCar and Acrobot at
their goal) and envs with ``is_terminal()``. A Gymnasium env in general does
not record that its episode has terminated, so for any other env the model
cannot tell: do not plan from a terminal position (every value would be
meaningless).

Checks at start-up, each failing with a ``ValueError`` that names the cause
(:class:`~mcts_agent.adapters.CloneCheckError`, a ``ValueError``, for the
clone):

* sharing, before anything is stepped: the deep copy of the env (and, for
  the ``"user"`` and ``"env_methods"`` clones, the snapshot and the scratch
  env) shares no mutable object with the live env
  (:func:`~mcts_agent.adapters.env_probe.shared_mutable_objects`: a handle
  to an external simulator whose ``__deepcopy__`` returns itself would let
  a clone's step change the live env);
* the clone: from the live env's position, the clone steps to the same
  observations, rewards and flags as a deep copy of the env along a random
  sequence of actions (the scratch env is moved elsewhere before every
  restore), and stepping clones leaves the live env unchanged;
* ``copy.deepcopy(env.unwrapped)`` works (it recurses forever on classes whose
  ``__getattr__`` forwards every look-up, and hits the recursion limit on an
  attribute nested thousands of levels deep: the error names which);
* determinism: two clones of the same position whose random generators
  (``np_random`` and the env's own ``random.Random``, numpy generators and
  bit generators, found in its attributes, slots, containers and bound methods:
  :func:`~mcts_agent.adapters.env_probe.random_generators`)
  are reseeded differently give the same outcome for the same actions; if
  not, the env is *stochastic* and planned with chance nodes (below). Every
  step of the clone check is taken with the generators of both sides seeded
  alike, so that a stochastic env's clone compares alike too; and when the
  clone and the deep copy disagree, two deep copies are compared: if they
  disagree too, the env draws from outside itself (Python's ``random``,
  numpy's global ``np.random``...) and is refused as not deterministic, not
  as badly cloned. A generator a deep copy carries where the planner cannot
  reseed it (in a set, under a dict's key, under an object whose
  ``__deepcopy__`` starts a fresh memo, past the first
  :data:`~mcts_agent.adapters.env_probe.MAX_OBJECTS_SEARCHED` objects) is
  refused if the env draws from it (a deep copy and 16 deep copies with
  those generators perturbed differently do not all agree), and so is any
  generator a deep copy carries that ignores reseeding (a ``seed()`` that
  does nothing): every clone would draw what the live env will draw.
  Python's and numpy's global generators are put back as they were however
  the checks end.

Chance (``docs/guides/chance.md``; :attr:`GymnasiumModel.chance`): a
stochastic env makes the model a :class:`~mcts_agent.model.StochasticModel`
(:mod:`~mcts_agent.adapters.gymnasium.stochastic`): FrozenLake and
CliffWalking with ``is_slippery=True`` and Taxi with ``is_rainy=True`` get
``outcomes`` from their transition table ``P``; any other env drawing from
its own generators (Taxi with ``fickle_passenger=True`` too) gets
``sample_step``, stepping a clone whose generators are reseeded from the
planner's generator before every step; both get ``key``. Its ``step``
raises and its ``rollout`` is None (the search's own rollout draws through
``outcomes``/``sample_step``). Blackjack is refused: its face-down card is
hidden information, not chance.

Chance found while planning (deterministic models): the start-up probe steps a few random sequences
of at most 30 actions, so an env that draws only later, or only in positions
the probe missed, would pass it. For the ``"user"``, ``"env_methods"`` and
``"deepcopy"`` clones (the known envs' snapshot steps never draw), one
``step`` or rollout in :data:`~mcts_agent.adapters.gymnasium.checks.CHECK_EVERY`
is stepped again from the same position on a clone whose generators, and
Python's and numpy's global ones, are reseeded (the global ones are put back
as they were: checking never advances them). A different outcome ends the
search with the start-up check's "not deterministic" ``ValueError``; the live
env is never stepped, so it stays as it was. The cost is a few per cent of
the search time (``benchmarks/bench_chance_check.py``).

Parameters: the model reads the env's parameters once (CartPole's
``force_mag`` and ``length``, a toy-text env's map and ``P``...). If they
change on the live env, :meth:`GymnasiumModel.state_of` refuses to plan with
the old ones (:meth:`GymnasiumModel.changed_parameters`;
:mod:`~mcts_agent.adapters.gymnasium.parameters` says what is watched) and
:class:`~mcts_agent.agent.MCTSAgent` rebuilds its model.

Wrappers: the model plans on ``env.unwrapped``. ``TimeLimit`` is read (below);
stateless action wrappers (``TransformAction`` and its subclasses
``DiscretizeAction``, ``RescaleAction``, ``ClipAction``) are applied to
every action; observation wrappers, ``OrderEnforcing``, ``PassiveEnvChecker``,
``RecordEpisodeStatistics`` and rendering wrappers do not change the dynamics.
Any other wrapper that overrides ``step`` (reward wrappers, ``StickyAction``,
frame skipping...) is rejected, since planning would ignore it.

Observations (:meth:`GymnasiumModel.env_view`, for
:class:`~mcts_agent.adapters.env_view.EnvViewEvaluator`): each state keeps the
observation the step into it returned (copied for the ``"user"`` and
``"env_methods"`` clones, whose scratch env is stepped again and may return
the same array changed); a state of :meth:`~GymnasiumModel.state_of` reads the
live position's from a clone, by the rule of the Gymnasium envs we know or the
env's ``_get_obs()`` (else it is None, and ``env_view`` of that state says
so). ``env_view`` passes it through the live env's stateless observation
wrappers (``TransformObservation`` and its subclasses), so a network sees
what the wrapped env would return. Keeping it costs under 1% of a step
and rollout in instructions (README, "Speed").

Truncation: a state carries the steps left before the live env's
``TimeLimit`` (the smallest one if there are several) truncates the episode.
The step that uses the last one, like a step where the inner env says
``terminated`` or ``truncated``, returns ``terminated=True``: the episode ends
there in the plan exactly as it does in the live env, with no value
bootstrapped beyond it. Without a ``TimeLimit`` the horizon is unbounded and
the planner's ``rollout_limit`` bounds rollouts.
"""

from __future__ import annotations

import copy
import functools
import itertools
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium.wrappers import TransformAction

from mcts_agent.adapters.env_probe import instance, random_generator_paths
from mcts_agent.adapters.env_view import EnvView
from mcts_agent.adapters.gymnasium.action_spaces import (
    MAX_ACTIONS,
    ListedActions,
    SampledActions,
    read_action_space,
)
from mcts_agent.adapters.gymnasium.checks import (
    CHECK_EVERY,
    check_clone_and_determinism,
    check_steps_again,
    copied_observation,
)
from mcts_agent.adapters.gymnasium.cloning import bind_cloning
from mcts_agent.adapters.gymnasium.known_envs import (
    KNOWN_MASKS,
    KNOWN_OBSERVATIONS,
    KNOWN_SNAPSHOTS,
    KNOWN_TERMINATIONS,
    known_chance,
)
from mcts_agent.adapters.gymnasium.native_rollouts import NativeRollouts
from mcts_agent.adapters.gymnasium.parameters import (
    Parameters,
    changed_parameters,
    read_parameters,
)
from mcts_agent.adapters.gymnasium.stochastic import (
    TableOutcomes,
    observation_key,
    sampled_step,
    snapshot_key,
)
from mcts_agent.adapters.gymnasium.wrappers import (
    check_reset,
    observation_transforms,
    read_wrappers,
    steps_before_truncation,
)
from mcts_agent.model import StepResult
from mcts_agent.rollout_policies import CautiousRolloutPolicy

__all__ = ["MAX_ACTIONS", "ROLLOUT_ACTIONS", "GymnasiumModel", "GymnasiumState"]

ROLLOUT_ACTIONS = ("uniform", "repeated")
"""The values of ``GymnasiumModel(rollout_actions=...)``: how the fused rollout draws actions."""

_EPISODE_OVER = "the episode is over ({}): call env.reset() before planning"


class GymnasiumState(NamedTuple):
    """A position of a Gymnasium env, as the model's state (treat it as immutable).

    Attributes:
        snapshot: the env's inner state, in the form of the model's cloning
            strategy (a tuple of attribute values, the user's or the env's
            ``get_state`` result, or a deep copy of ``env.unwrapped``).
        steps_left: int, steps before the live env's ``TimeLimit`` truncates
            the episode; None if it has none.
        actions: tuple, the legal actions here in the model's order; empty
            once the episode has ended. For a sampled action space (``Box``,
            ``Dict``, ``Tuple``): None while the episode runs (every action
            of the space is legal, drawn by
            :meth:`GymnasiumModel.sample_action`), ``()`` once it has ended.
        observation: the observation of the unwrapped env in this position:
            what its ``step`` returned on the way here (copied when the env
            that stepped is stepped again), or for a state of
            :meth:`GymnasiumModel.state_of` what its ``reset``/``step``
            returns there, when the model can tell (the Gymnasium envs it
            knows, envs with a ``_get_obs()`` method), else None.
            :meth:`GymnasiumModel.env_view` shows it as the live env would;
            the key of a stochastic env planned on deep copies is made from
            it (:func:`~mcts_agent.adapters.gymnasium.stochastic.observation_key`).

    Two states are equal (and hash alike) when their ``snapshot``,
    ``steps_left`` and ``actions`` are: the observation follows from the
    position, and is not compared (arrays compare element-wise). Snapshots
    holding arrays (CartPole's) do not compare to a bool either: the model's
    ``key`` (:meth:`GymnasiumModel.key`) is what the search compares.
    """

    snapshot: Any
    steps_left: int | None
    actions: tuple
    observation: Any

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GymnasiumState) and self[:3] == other[:3]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:3])


class GymnasiumModel:
    """A Gymnasium env as a one-player model (player 0), deterministic or stochastic.

    See the module docstring for the cloning strategies, the start-up checks,
    the wrappers it understands, chance and what it does with truncation.

    Attributes:
        clone_method: how a position is cloned (module docstring).
        chance: None for a deterministic env (``step``); ``"outcomes"`` or
            ``"sample_step"`` for a stochastic one, the method it has
            instead (:mod:`~mcts_agent.adapters.gymnasium.stochastic`).
        key: ``key(state) -> Hashable``, which states are the same position
            (tree reuse and chance nodes compare these): the snapshot frozen
            (arrays as bytes) and the steps left; for a stochastic env on deep
            copies, the observation frozen and the steps left (it must then be
            Markov). A deterministic env on deep copies is equal only to
            itself, so ``reuse_tree`` finds nothing there.

    Actions: every action of a ``Discrete(n, start)`` space (the ints
    ``start .. start + n - 1``), every combination of a ``MultiDiscrete``
    space (tuples of ints, C order; :meth:`to_env_action` turns one into the
    env's array), and of those only the legal ones where a mask is known. The
    mask (int8 or bool, 1 = legal, shape ``[n]``; for ``MultiDiscrete`` either
    shape ``[num_actions]`` over the combinations or Gymnasium's tuple of one
    mask per dimension) comes from, in this order: the ``action_mask``
    function; ``info["action_mask"]`` of the step that reached the position
    (Taxi, :mod:`~mcts_agent.envs.grid_maze`), with the mask of the live
    env's current position from a known method (Taxi's ``action_mask(s)``, an
    env's own ``action_mask()``); else every action is legal. ``MultiBinary``
    is listed as ``MultiDiscrete`` with two values per dimension.
    :meth:`sample_action` draws one of them uniformly (beside ``actions``).

    Sampled actions (:mod:`~mcts_agent.adapters.gymnasium.action_spaces`):
    a ``Box`` space (finite bounds, any shape, float or integer dtype) and a
    ``Dict`` or ``Tuple`` space of ``Box``, ``Discrete``, ``MultiDiscrete``,
    ``MultiBinary`` and nested ``Dict``/``Tuple`` parts cannot be listed:
    the model's ``actions`` is None (the search widens progressively,
    ``docs/guides/continuous-actions.md``) and :meth:`sample_action` draws
    an action uniformly within the bounds from the planner's generator, one
    ``rng.random()`` per number in C order, clipped and typed as the space
    says: a tuple of Python floats for a float ``Box`` (rounded through its
    dtype, so the tuple is what the env sees), of ints for an integer one; a
    tuple of the parts' actions for ``Dict`` (key order) and ``Tuple``.
    :meth:`step` checks an action's form and bounds (ValueError otherwise)
    and converts it (:meth:`to_env_action`, then the action wrappers) at
    every step. Neither the env's ``np_random`` nor its ``action_space``'s
    generator is ever drawn from. There is no mask (:meth:`env_view` gives
    None) nor index (:meth:`action_index` refuses). A stochastic env with
    sampled actions gets ``sample_step`` (chance nodes under progressive
    widening; ``state_widening`` caps the outcomes kept).

    ``step`` returns the reward of ``env.unwrapped`` (reward wrappers are
    rejected) and ``terminated=True`` when the env terminated or truncated or
    the time limit ran out. ``rollout`` is the fused rollout of
    :class:`~mcts_agent.model.RolloutModel`: one restore, then the env is
    stepped to the end.

    Rollout actions (``rollout_actions``): ``"uniform"`` draws a uniformly
    random legal action at every step, as the search's own rollout does.
    ``"repeated"`` plays temporally extended random actions, ez-greedy's
    exploration (Dabney, Ostrovski & Barreto, 2021, "Temporally-extended
    epsilon-greedy exploration", ICLR, §3, with epsilon = 1): a random legal
    action ``actions[int(rng.random() * len(actions))]`` is repeated for a
    duration ``n = int(1.0 / (1.0 - rng.random()))`` drawn right after it
    (``P(n >= k) = 1/k`` for k >= 1: the paper's zeta distribution with
    mu = 2 made continuous, mean unbounded, capped by the rollout's length);
    a new action and duration are drawn once it has been played ``n`` times
    or when it is not legal in the position reached. Uniform random actions
    dither in place on tasks that need momentum (MountainCar-v0, Acrobot-v1
    almost never reach their goal by them), repeated ones travel. It applies
    to deterministic envs, the only ones with a fused rollout.

    Args:
        env: the live env, already reset (``env.reset(seed=...)``); a
            ``gymnasium.Env``, wrapped or not. It is never stepped, reset or
            reseeded by the model.
        get_state: optional ``(env) -> snapshot`` given the unwrapped env;
            the snapshot must not change when the env steps on (copy mutable
            parts). Give it together with ``set_state``.
        set_state: optional ``(env, snapshot) -> None`` that puts the
            unwrapped env in the snapshot's position; it must not let later
            steps change the snapshot.
        action_mask: optional ``(env) -> mask`` given the unwrapped env
            positioned at a state; must not change the env.
        clone: None (the fastest method available), ``"snapshot"`` (require
            the attribute snapshot of a known env) or ``"deepcopy"`` (force
            deep copies, e.g. to measure the speed-up).
        rollout_actions: ``"uniform"`` (default) or ``"repeated"``, how
            :meth:`rollout` draws its actions (above, "Rollout actions").

    Attributes:
        env: the live env the model was built for.
        action_space: the env's (outer) action space, whose actions
            :meth:`to_env_action` returns.
        clone_method: ``"snapshot"``, ``"user"``, ``"env_methods"`` or
            ``"deepcopy"`` (module docstring).
        rollout_actions: ``"uniform"`` or ``"repeated"``, as given.

    Raises:
        TypeError: if ``env`` is not a ``gymnasium.Env``, its action space is
            none of ``Discrete``, ``MultiDiscrete``, ``MultiBinary``, ``Box``
            (float or integer dtype) or a ``Dict``/``Tuple`` of those (a
            ``Text``, ``Graph``, ``Sequence``... space or part), or a function
            argument is not callable.
        CloneCheckError: if the env cannot be cloned faithfully (a
            ``ValueError``): a copy shares a mutable object with the live
            env, the clone steps differently from a deep copy, or the deep
            copy fails.
        ValueError: if the env has not been reset, its episode is over
            (as far as can be told: :meth:`state_of`), it draws from outside
            itself (a global generator) or hides information (Blackjack), is
            wrapped in a wrapper planning would ignore, has no legal action
            in its current position, or an argument is invalid
            (``rollout_actions`` not one of :data:`ROLLOUT_ACTIONS`, or
            ``"repeated"`` for a stochastic env, whose rollouts the search
            plays itself); or its action space is a ``Box`` with an infinite
            bound (the message names the dimensions), an empty ``Dict`` or
            ``Tuple``, a ``MultiDiscrete``/``MultiBinary`` of more than
            :data:`MAX_ACTIONS` actions, or sampled while ``action_mask`` is
            given or the env is stochastic.
    """

    def __init__(
        self,
        env: gym.Env,
        *,
        get_state: Callable[[Any], Any] | None = None,
        set_state: Callable[[Any, Any], None] | None = None,
        action_mask: Callable[[Any], Any] | None = None,
        clone: str | None = None,
        rollout_actions: str = "uniform",
    ) -> None:
        if not isinstance(env, gym.Env):
            raise TypeError(f"env must be a gymnasium.Env, got {type(env).__name__}")
        if (get_state is None) != (set_state is None):
            raise ValueError("give get_state and set_state together, or neither")
        for name, function in (
            ("get_state", get_state),
            ("set_state", set_state),
            ("action_mask", action_mask),
        ):
            if function is not None and not callable(function):
                raise TypeError(f"{name} must be callable, got {function!r}")
        if clone not in (None, "snapshot", "deepcopy"):
            raise ValueError(f'clone must be None, "snapshot" or "deepcopy", got {clone!r}')
        if rollout_actions not in ROLLOUT_ACTIONS:
            raise ValueError(
                f'rollout_actions must be "uniform" or "repeated", got {rollout_actions!r}'
            )

        self.env = env
        self.rollout_actions = rollout_actions
        self._native_rollouts = NativeRollouts(self)
        # What pickling sends to a worker process (MCTS(workers=k)): the recipe, see __reduce__.
        self._arguments = {
            "get_state": get_state,
            "set_state": set_state,
            "action_mask": action_mask,
            "clone": clone,
            "rollout_actions": rollout_actions,
        }
        unwrapped = env.unwrapped
        self._unwrapped = unwrapped
        self._time_limits, self._translators = read_wrappers(env)
        self.action_space = env.action_space
        self._init_actions(env.action_space, self._translators)
        if self._sampled is not None and action_mask is not None:
            raise ValueError(
                f"action_mask is for listed actions; the action space {env.action_space} is "
                "sampled (within its bounds), so a mask means nothing: leave action_mask out"
            )
        check_reset(env)

        env_class = type(unwrapped)
        self._user_mask = action_mask
        self._position_mask = action_mask
        if action_mask is None and self._sampled is None:
            known = [KNOWN_MASKS[c] for c in env_class.__mro__ if c in KNOWN_MASKS]
            if known:
                self._position_mask = known[0]
            elif callable(getattr(env_class, "action_mask", None)):
                self._position_mask = env_class.action_mask

        self._terminal = KNOWN_TERMINATIONS.get(env_class)
        if self._terminal is None and callable(getattr(env_class, "is_terminal", None)):
            self._terminal = env_class.is_terminal
        chance = known_chance(unwrapped)
        if clone == "snapshot" and env_class not in KNOWN_SNAPSHOTS:
            raise ValueError(
                f'clone="snapshot" knows {sorted(c.__name__ for c in KNOWN_SNAPSHOTS)}, not '
                f"{env_class.__name__}; pass clone=None (the env's own get_state()/set_state() "
                "methods are used if it has them)"
            )
        if clone == "deepcopy":
            self.clone_method = "deepcopy"
        elif get_state is not None:
            self.clone_method = "user"
        elif env_class in KNOWN_SNAPSHOTS:
            self.clone_method = "snapshot"
        elif callable(getattr(env_class, "get_state", None)) and callable(
            getattr(env_class, "set_state", None)
        ):
            self.clone_method = "env_methods"
            get_state, set_state = env_class.get_state, env_class.set_state
        else:
            self.clone_method = "deepcopy"
        # Where the env's generators are (found once: a walk of Taxi's P takes 50 ms).
        self._generator_paths = random_generator_paths(unwrapped)
        self._checkout, self._commit, self._capture = bind_cloning(
            self.clone_method, unwrapped, get_state, set_state, fast=chance is None
        )
        # Observations (env_view): the live position's is read by a known function or the
        # env's _get_obs(); a scratch env stepped again may change the array it returned.
        self._observation_of = KNOWN_OBSERVATIONS.get(env_class)
        if self._observation_of is None and callable(getattr(env_class, "_get_obs", None)):
            self._observation_of = env_class._get_obs
        self._copies_observations = self.clone_method in ("user", "env_methods")
        try:
            self._observation_wrappers = observation_transforms(env)
            self._view_error: str | None = None
        except ValueError as error:  # raised by env_view only: planning is not affected
            self._observation_wrappers = []
            self._view_error = str(error)
        self._view_masks: dict[tuple, np.ndarray] = {}
        self._parameters: Parameters | None = None  # none watched during the checks
        # Chance found while planning: the known envs' steps do not draw.
        self._checks_chance = self.clone_method != "snapshot"
        self._chance_countdown = CHECK_EVERY
        self._chance_checks = 0
        self.chance: str | None = None
        # The position's key (tree reuse, chance): the snapshot frozen (arrays as bytes) and
        # the steps left. A deep-copy snapshot is an env, equal only to itself.
        self.key = snapshot_key
        if chance == "outcomes":  # a stochastic toy-text table: no clone is stepped
            if self.clone_method != "snapshot":
                raise ValueError(
                    f"{env_class.__name__} is stochastic and planned through its transition "
                    "table P with the snapshot clone; pass clone=None"
                )
            self._table = TableOutcomes(unwrapped, self)
            if not self.state_of(env).actions:
                raise ValueError(
                    "the env has no legal action in its current position (is its episode "
                    "over?): call env.reset() before planning"
                )
            probed = None
        else:
            probed, stochastic = check_clone_and_determinism(self, env)
            if stochastic:
                chance = "sample_step"
        if chance is not None:
            self._become_stochastic(chance)
            if rollout_actions != "uniform":
                raise ValueError(
                    f'rollout_actions="{rollout_actions}" needs a deterministic env: '
                    f"{env_class.__name__} is stochastic ({chance}), and the search plays its "
                    'rollouts with uniformly random actions; pass rollout_actions="uniform"'
                )
        if self.clone_method != "deepcopy" and probed is None:
            self._parameters = read_parameters(unwrapped, KNOWN_SNAPSHOTS.get(env_class, ()))
        elif self.clone_method != "deepcopy":
            stepped = changed_parameters(read_parameters(unwrapped, ()), probed)
            position = set(KNOWN_SNAPSHOTS.get(env_class, ())).union(stepped)
            self._parameters = read_parameters(unwrapped, position)
        self._native_rollouts.prepare()  # its start-up check, here rather than in a search

    def __reduce__(self) -> tuple:
        """Pickles the model as the recipe to make it again: its env (a copy) and arguments.

        How :class:`~mcts_agent.search.MCTS` with ``workers > 1`` sends it to
        its worker processes (:mod:`mcts_agent.parallel`): each worker
        unpickles a copy of the env as it was when the model was made, and
        builds the model on it once, start-up checks included. The env and
        the arguments (``get_state``, ``set_state``, ``action_mask``) must
        pickle: module-level functions, no lambdas.
        """
        return _rebuilt, (self.env, self._arguments)

    def _become_stochastic(self, chance: str) -> None:
        """Makes this model a StochasticModel (``docs/guides/chance.md``).

        Sets the instance's ``outcomes`` (``chance == "outcomes"``) or
        ``sample_step``, and ``key``; ``rollout`` becomes None (the search's
        own rollout then draws through ``outcomes``/``sample_step``), and
        ``step`` refuses (one frozen outcome per edge would be wrong).
        """
        self.chance = chance
        self._checks_chance = False
        if chance == "outcomes":
            self.outcomes = self._table.outcomes
        else:
            self.sample_step = functools.partial(sampled_step, self)
        self.key = observation_key if self.clone_method == "deepcopy" else snapshot_key
        self.rollout = None

    # ------------------------------------------------------------ the model

    def actions(self, state: GymnasiumState) -> tuple:
        """Returns the legal actions in ``state`` (empty once the episode is over).

        A model of a sampled action space (``Box``, ``Dict``, ``Tuple``) has
        none: its instance attribute ``actions`` is None, and the search
        draws actions with :meth:`sample_action`.
        """
        return state.actions

    def sample_action(self, state: GymnasiumState, rng: random.Random) -> Any:
        """Draws an action in ``state`` from the planner's generator (progressive widening).

        A sampled action space (``Box``, ``Dict``, ``Tuple``): drawn uniformly
        within the bounds, one ``rng.random()`` per number, in C order, typed
        as the space says (:mod:`~mcts_agent.adapters.gymnasium.action_spaces`:
        a tuple of Python floats for a float ``Box``). A listed space: a
        uniformly random legal action,
        ``state.actions[int(rng.random() * len(state.actions))]``, as the
        search's own rollout draws. Neither the env's generators nor its
        ``action_space``'s are read or advanced.

        Args:
            state: a state of this model whose episode is not over.
            rng: the planner's generator; the only source of randomness.

        Returns:
            An action :meth:`step` accepts (hashable, compares with ``==``).

        Raises:
            ValueError: if the episode is over in ``state`` (no action).
        """
        actions = state.actions
        if not actions and actions is not None:
            raise ValueError("the episode is over in this state: there is no action to sample")
        if actions is None:
            return self._sampled.draw(rng.random)
        return actions[int(rng.random() * len(actions))]

    def player(self, state: GymnasiumState) -> int:
        """Returns 0: a Gymnasium env has one player."""
        return 0

    def step(self, state: GymnasiumState, action: Any) -> StepResult:
        """Steps a clone of ``state``'s position; ``state`` itself is not changed.

        Args:
            state: a state of this model.
            action: one of ``state.actions``; for a sampled action space, an
                action of the space's form (:meth:`sample_action`'s, or any
                tuple of that structure whose numbers lie within the bounds).

        Returns:
            ``StepResult(next_state, reward, terminated)``: the env's reward as a
            float; ``terminated`` is True if the env terminated or truncated or
            the ``TimeLimit`` ran out on this step.

        Raises:
            ValueError: if ``action`` is not legal in ``state`` (for a sampled
                space: not of the space's form, out of its bounds, or the
                episode is over), or the chance check (module docstring) finds
                that this step draws at random.
        """
        snapshot, steps_left, actions, _ = state
        if actions is not None and action not in actions:  # sampled: checked by the conversion
            raise ValueError(
                f"action {action!r} is not legal here; legal actions: {list(actions)!r}"
            )
        if self.chance is not None:
            raise ValueError(
                f"this env is stochastic: its model has {self.chance}, not a deterministic "
                "step (one frozen outcome per edge would be silently wrong)"
            )
        inner = self._inner_actions[action]
        env = self._checkout(snapshot)
        outcome = env.step(inner)
        observation, reward, terminated, truncated, info = outcome
        if steps_left is not None:
            steps_left -= 1
        ended = terminated or truncated or steps_left == 0
        if ended:
            next_actions = ()
        elif actions is None:
            next_actions = None
        else:
            next_actions = self._next_actions(env, info)
        if self._checks_chance:
            self._chance_countdown -= 1
            if not self._chance_countdown:
                outcome = copied_observation(outcome)
                next_snapshot = self._commit(env)
                self._check_chance(snapshot, (action,), (outcome,))
                return StepResult(
                    GymnasiumState(next_snapshot, steps_left, next_actions, outcome[0]),
                    float(reward),
                    bool(ended),
                )
        if self._copies_observations:
            observation = _copied(observation)
        return StepResult(
            GymnasiumState(self._commit(env), steps_left, next_actions, observation),
            float(reward),
            bool(ended),
        )

    def _check_chance(self, snapshot: Any, actions: Sequence, outcomes: Sequence) -> None:
        """One chance check while planning (:func:`check_steps_again`), then the next countdown."""
        self._chance_countdown = CHECK_EVERY
        self._chance_checks += 1
        seed = 2**31 + self._chance_checks
        check_steps_again(self, snapshot, actions, outcomes, seed)

    def rollout(self, state: GymnasiumState, rng: random.Random, limit: int, gamma: float) -> float:
        """Plays random legal actions from ``state``; returns the discounted return.

        The fused rollout of :class:`~mcts_agent.model.RolloutModel`: the
        position is restored once into a scratch env (or deep-copied once),
        which is then stepped until the episode ends, the time limit runs out
        or ``limit`` actions have been played. With ``rollout_actions="uniform"``
        actions are drawn as the search's own rollout draws them
        (``actions[int(rng.random() * len(actions))]``), so the returns have
        the same distribution; with ``"repeated"`` each action so drawn is
        followed by its duration ``int(1.0 / (1.0 - rng.random()))`` and
        played that many steps while legal (class docstring, "Rollout
        actions"). A sampled action space draws each action as
        :meth:`sample_action` does (the same ``rng.random()`` calls, in the
        same order), and with ``"repeated"`` its duration right after it.
        With the compiled core on, when :meth:`native_rollout` gives a
        capsule and ``rng`` is a ``random.Random``, the capsule plays the
        rollout in C: the same return and the same generator state afterwards.

        Args:
            state: a state of this model with at least one legal action.
            rng: the planner's generator; the only source of randomness.
            limit: int >= 1, most actions played.
            gamma: discount rate in [0, 1].

        Returns:
            ``sum_t gamma**t * r_t`` over the actions played.

        Raises:
            ValueError: if the chance check (module docstring) finds that the
                rollout's steps draw at random.
        """
        if type(rng) is random.Random and (capsule := self._native_rollouts.for_rollout()):
            return self._native_rollouts.run(capsule, state, rng, limit, gamma)
        snapshot, steps_left, actions, _ = state
        checked = None  # (actions, outcomes) of a rollout the chance check steps again
        if self._checks_chance:
            self._chance_countdown -= 1
            if not self._chance_countdown:
                checked = ([], [])
        env = self._checkout(snapshot)
        moves_left = limit if steps_left is None else min(limit, steps_left)
        if actions is None:
            g = self._sampled_moves(env, rng.random, moves_left, gamma, checked)
        else:
            g = self._listed_moves(env, actions, rng.random, moves_left, gamma, checked)
        if checked is not None:
            self._check_chance(snapshot, *checked)
        return g

    def _listed_moves(
        self,
        env: Any,
        actions: tuple,
        random_: Callable[[], float],
        moves_left: int,
        gamma: float,
        checked: tuple[list, list] | None,
    ) -> float:
        """The moves of :meth:`rollout` with listed actions, from ``env``; the return."""
        env_step = env.step
        inner_actions = self._inner_actions
        next_actions = self._next_actions
        g = 0.0
        coef = 1.0
        repeated = self.rollout_actions == "repeated"
        action, repeats_left = None, 0  # "repeated": the action played, and for how much longer
        while True:
            if not repeated:
                action = actions[int(random_() * len(actions))]
            else:
                if repeats_left == 0 or action not in actions:
                    action = actions[int(random_() * len(actions))]
                    repeats_left = int(1.0 / (1.0 - random_()))
                repeats_left -= 1
            outcome = env_step(inner_actions[action])
            _, reward, terminated, truncated, info = outcome
            if checked is not None:
                checked[0].append(action)
                checked[1].append(copied_observation(outcome))
            g += coef * reward
            moves_left -= 1
            if (
                terminated
                or truncated
                or moves_left <= 0
                or not (actions := next_actions(env, info))
            ):
                return float(g)
            coef *= gamma

    def _sampled_moves(
        self,
        env: Any,
        random_: Callable[[], float],
        moves_left: int,
        gamma: float,
        checked: tuple[list, list] | None,
    ) -> float:
        """The moves of :meth:`rollout` with sampled actions (drawn as :meth:`sample_action`)."""
        assert self._sampled is not None
        env_step = env.step
        draw = self._sampled.draw
        inner = self._sampled.inner
        g = 0.0
        coef = 1.0
        repeated = self.rollout_actions == "repeated"
        action, repeats_left = None, 0
        while True:
            if not repeated:
                action = draw(random_)
            else:
                if repeats_left == 0:  # every sampled action stays legal
                    action = draw(random_)
                    repeats_left = int(1.0 / (1.0 - random_()))
                repeats_left -= 1
            outcome = env_step(inner(action))
            _, reward, terminated, truncated, _ = outcome
            if checked is not None:
                checked[0].append(action)
                checked[1].append(copied_observation(outcome))
            g += coef * reward
            moves_left -= 1
            if terminated or truncated or moves_left <= 0:
                return float(g)
            coef *= gamma

    def native_rollout(self) -> Any:
        """The compiled core's rollout of this deterministic env, in C, or None.

        For the envs the adapter knows (exact classes, ``"snapshot"`` clone,
        deterministic model): FrozenLake, CliffWalking and Taxi stepped by
        their table, CartPole, MountainCar and Acrobot without torque noise,
        Pendulum and MountainCarContinuous; and our point robot
        (:mod:`mcts_agent.envs.point_robot`, its ``"env_methods"`` clone)
        (:mod:`~mcts_agent.adapters.gymnasium.native_rollouts`). It returns
        exactly what :meth:`rollout` returns for the same state and generator,
        drawing the same random numbers (``docs/guides/compiled-core.md``,
        "Native rollouts"); the capsule is made with the parameters the model
        plans with, and a new one when they change. Made when the model is
        built (with the compiled loop on), it is checked against
        :meth:`rollout`'s Python moves from a few states and seeds. With a
        sampled action space: Pendulum, MountainCarContinuous and the point
        robot (their own ``Box``, no action wrapper). :meth:`rollout` runs it too (so the
        general loop, which calls ``rollout``, has it).

        Returns:
            A ``PyCapsule`` named ``"mcts_agent.native_rollout"``; None when
            there is none, and then :attr:`native_rollout_refusal` says why
            (no compiled core, another env or clone, a stochastic env, the
            user's ``action_mask``, or the start-up check found a difference):
            the Python :meth:`rollout` runs.
        """
        return self._native_rollouts.capsule()

    @property
    def native_rollout_refusal(self) -> str | None:
        """Why the last :meth:`native_rollout` call returned None; None if it gave a capsule."""
        return self._native_rollouts.refusal

    def native_chance(self) -> Any:
        """The compiled core's rollout and records of a toy-text table, or None.

        For a stochastic model whose ``outcomes`` read the env's table
        (``chance == "outcomes"``, ``docs/guides/compiled-core.md``): the
        search's generic rollout through ``outcomes``, ``actions`` and
        ``player``, and a new chance node's outcomes and keys, in C, with the
        same random numbers and the same results
        (:meth:`TableOutcomes.native_rollout`). None for any other model, or
        when ``outcomes``, ``key``, ``actions`` or ``player`` are not this
        class's and its table's own (a subclass or the instance replaced one).
        """
        table = getattr(self, "_table", None)
        outcomes = self.__dict__.get("outcomes")
        if (
            self.chance != "outcomes"
            or type(table) is not TableOutcomes
            or getattr(outcomes, "__self__", None) is not table
            or getattr(outcomes, "__func__", None) is not TableOutcomes.outcomes
            or self.__dict__.get("key") is not snapshot_key
            or getattr(self.actions, "__func__", None) is not GymnasiumModel.actions
            or getattr(self.player, "__func__", None) is not GymnasiumModel.player
        ):
            return None
        return table.native_rollout()

    def native_chance_for(self, rollout_policy: Any) -> Any:
        """The compiled core's rollout of a toy-text table played with ``rollout_policy``, or None.

        For a :class:`~mcts_agent.rollout_policies.CautiousRolloutPolicy`
        (exact class) built on this model, while :meth:`native_chance` has a
        capsule: the search's generic rollout with that policy, in C, drawing
        the same random numbers (:meth:`TableOutcomes.native_rollout`). None
        for any other policy (its Python ``__call__`` runs at every move).
        """
        if (
            type(rollout_policy) is not CautiousRolloutPolicy
            or rollout_policy.model is not self
            or "safe_actions" in vars(rollout_policy)
            or self.native_chance() is None
        ):
            return None
        return self._table.native_rollout(rollout_policy)

    # ------------------------------------------------------- the live env

    def changed_parameters(self) -> list[str]:
        """The live env's parameters that changed since the model was built.

        The model read the env's parameters (CartPole's ``force_mag``, a
        toy-text env's ``P``...) when it was built and plans with them;
        :meth:`state_of` refuses to plan once they changed. See
        :mod:`mcts_agent.adapters.gymnasium.parameters` for what is watched
        (the ``"deepcopy"`` clone watches nothing: it copies the whole env at
        every :meth:`state_of`).

        Returns:
            The sorted names of the changed, added or removed instance
            attributes of ``env.unwrapped``; empty if it is planned as it is.
        """
        return self._changed_parameters(self._capture(self._unwrapped))

    def _changed_parameters(self, snapshot: Any) -> list[str]:
        """:meth:`changed_parameters`, given a snapshot of the live position."""
        if self._parameters is None:
            return []
        reference = None
        if self.clone_method in ("user", "env_methods"):  # the scratch env, in the live position
            reference = vars(self._checkout(snapshot))
        return changed_parameters(self._parameters, self._unwrapped, reference)

    def state_of(self, env: gym.Env) -> GymnasiumState:
        """Returns the model state of the live env's current position, an independent copy.

        Reads the env (its inner state, the steps left of its ``TimeLimit``
        and the mask of its position) without changing it.

        Args:
            env: the env this model was built for, or another wrapper of the
                same ``env.unwrapped`` with the same action wrappers.

        Returns:
            A :class:`GymnasiumState` that later steps of ``env`` do not change.

        Raises:
            TypeError: if ``env`` is not a ``gymnasium.Env``.
            ValueError: if ``env`` wraps another env than the model's, or
                translates actions differently, or has not been reset, or its
                parameters changed since the model was built
                (:meth:`changed_parameters`); or
                if its episode is over: truncated by its ``TimeLimit``, or
                terminated in an env that can tell (FrozenLake,
                CliffWalking, Taxi, CartPole, MountainCar,
                MountainCarContinuous, Acrobot, and envs with an
                ``is_terminal()`` method). Other envs do not record that
                their episode has terminated, so the model cannot tell: do
                not plan from a terminal position of theirs (its values
                would be meaningless).
        """
        if env is self.env:
            time_limits = self._time_limits
        elif isinstance(env, gym.Env) and env.unwrapped is self._unwrapped:
            time_limits, translators = read_wrappers(env)
            if translators != self._translators:
                raise ValueError(
                    "state_of(env) got a wrapper of the model's env with other action wrappers "
                    f"({translators!r}, the model's: {self._translators!r}); build one model "
                    "per wrapped env"
                )
        elif isinstance(env, gym.Env):
            raise ValueError(
                "state_of(env) takes the env this GymnasiumModel was built for (or a wrapper of "
                f"its env.unwrapped); got a different env instance: {env!r} whose unwrapped "
                f"env is {instance(env.unwrapped)}, while the model was built for {self.env!r} "
                f"whose unwrapped env is {instance(self._unwrapped)}. Build one model per env"
            )
        else:
            raise TypeError(f"state_of(env) takes a gymnasium.Env, got {type(env).__name__}")
        check_reset(env)
        steps_left = steps_before_truncation(time_limits)
        if steps_left == 0:
            raise ValueError(_EPISODE_OVER.format("truncated"))
        if self._terminal is not None and self._terminal(self._unwrapped):
            raise ValueError(_EPISODE_OVER.format("terminated"))
        snapshot = self._capture(self._unwrapped)
        changed = self._changed_parameters(snapshot)
        if changed:
            raise ValueError(
                f"the env's parameters changed since this GymnasiumModel was built "
                f"({', '.join(changed)}): it would plan with the old dynamics. Build a new "
                "GymnasiumModel (MCTSAgent rebuilds its own)"
            )
        if self._position_mask is None:
            actions = self._all_actions
        else:
            actions = self._legal_actions(self._position_mask(self._unwrapped))
        return GymnasiumState(snapshot, steps_left, actions, self._observe(snapshot))

    def _observe(self, snapshot: Any) -> Any:
        """The observation of ``snapshot``'s position, read from a clone; None if unknown."""
        if self._observation_of is None:
            return None
        env = snapshot if self.clone_method == "deepcopy" else self._checkout(snapshot)
        observation = self._observation_of(env)
        return _copied(observation) if self._copies_observations else observation

    def env_view(self, state: GymnasiumState) -> EnvView:
        """Returns what the live env would show in ``state``: its observation and action mask.

        For evaluators written against observations
        (:class:`~mcts_agent.adapters.env_view.EnvViewEvaluator`, which
        :class:`~mcts_agent.agent.MCTSAgent` binds to this model). The
        observation is ``state.observation`` passed through the live env's
        observation wrappers, innermost first (``TransformObservation`` and
        its subclasses: ``FlattenObservation``, ``DtypeObservation``,
        ``RescaleObservation``...), so it is what ``env.step`` would have
        returned on the way to ``state``. It is the state's own object when
        there is no such wrapper: do not change it in place.

        Args:
            state: a state of this model.

        Returns:
            ``EnvView(observation, action_mask)``; the mask (int8, read-only,
            shape ``[num_actions]``: ``n`` for ``Discrete(n)``, one entry per
            combination in C order for ``MultiDiscrete``, indexed by
            :meth:`action_index`) is 1 for ``state.actions``: the env's mask
            where it has one (``info["action_mask"]``, an ``action_mask``
            function), all ones otherwise; all zeros once the episode is over.
            For a sampled action space (``Box``, ``Dict``, ``Tuple``) the mask
            is None: there is no list of actions to mask.

        Raises:
            ValueError: if the live env has an observation wrapper that is not
                a function of the observation alone (``NormalizeObservation``,
                ``TimeAwareObservation``...), or the observation of ``state`` is
                unknown: a state of :meth:`state_of` for an env the adapter
                does not know and that has no ``_get_obs()`` method (Gymnasium
                envs do not keep the observation they returned).
        """
        if self._view_error is not None:
            raise ValueError(self._view_error)
        observation = state.observation
        if observation is None:
            raise ValueError(
                f"the observation of this position of {type(self._unwrapped).__name__} is "
                "unknown: Gymnasium envs do not keep the observation they returned, and the "
                "adapter can read it only from the envs it knows and from an env's own "
                "_get_obs() method (as Gymnasium's envs and its custom-env tutorial have). Give "
                "the env a _get_obs() returning the observation of its current position"
            )
        for wrapper in self._observation_wrappers:
            observation = wrapper.observation(observation)
        if self._sampled is not None:
            return EnvView(observation, None)
        actions = state.actions
        mask = self._view_masks.get(actions)
        if mask is None:
            mask = np.zeros(len(self._all_actions), dtype=np.int8)
            mask[[self._action_indices[a] for a in actions]] = 1
            mask.flags.writeable = False
            self._view_masks[actions] = mask
        return EnvView(observation, mask)

    def action_index(self, action: Any) -> int:
        """Returns the index of a model action in :meth:`env_view`'s mask and in priors over it.

        ``action - start`` for a ``Discrete(n, start)`` space; the position of
        the combination in C order for ``MultiDiscrete`` and ``MultiBinary``.

        Raises:
            ValueError: if ``action`` is not an action of this model, or the
                action space is sampled (``Box``, ``Dict``, ``Tuple``: no
                finite list to index).
        """
        if self._sampled is not None:
            raise ValueError(
                f"the action space {self.action_space} is sampled, not listed: its actions "
                f"have no index (action {action!r})"
            )
        try:
            return self._action_indices[action]
        except (KeyError, TypeError):
            raise ValueError(
                f"{action!r} is not an action of this model; expected one of "
                f"{_abbreviate(self._all_actions)}"
            ) from None

    def to_env_action(self, action: Any) -> Any:
        """Returns the action of ``env.action_space`` for a model action.

        Args:
            action: one of the model's actions (an int for ``Discrete``, a
                tuple of ints for ``MultiDiscrete`` and ``MultiBinary``; for a
                sampled space, a tuple as :meth:`sample_action` returns).

        Returns:
            An int for ``Discrete``; a new ``np.ndarray`` of the space's shape
            and dtype for ``MultiDiscrete``, ``MultiBinary`` and ``Box``; a
            dict (``Dict``) or a tuple (``Tuple``) of its parts' actions.

        Raises:
            ValueError: if ``action`` is not an action of this model (for a
                sampled space: not of its form or out of its bounds).
        """
        if self._sampled is not None:
            return self._sampled.env_action(action)
        try:
            env_action = self._env_actions[action]
        except (KeyError, TypeError):
            raise ValueError(
                f"{action!r} is not an action of this model; expected one of "
                f"{_abbreviate(self._all_actions)}"
            ) from None
        return env_action.copy() if isinstance(env_action, np.ndarray) else env_action

    # ------------------------------------------------------------- set-up

    def _init_actions(self, space: gym.Space, translators: list[TransformAction]) -> None:
        """Lists the model's actions, or prepares their sampling (:mod:`.action_spaces`)."""
        read = read_action_space(space, translators)
        self._mask_cache: dict[Hashable, tuple] = {}
        if isinstance(read, SampledActions):
            self._sampled: SampledActions | None = read
            self.actions = None  # no list: the search samples (sample_action)
            self._all_actions: tuple | None = None
            self._inner_actions: Any = read  # sampled[action]: checked, then converted
            return
        assert isinstance(read, ListedActions)
        self._sampled = None
        self._all_actions = read.actions
        self._action_indices = {a: i for i, a in enumerate(read.actions)}
        self._env_actions = read.env_actions
        self._inner_actions = read.inner_actions
        self._mask_shape = read.mask_shape
        self._dimensions = read.dimensions

    # ---------------------------------------------------------- the masks

    def _next_actions(self, env: Any, info: dict) -> tuple:
        """The legal actions after a step, from the user's function, ``info`` or the env."""
        if self._user_mask is not None:
            return self._legal_actions(self._user_mask(env))
        mask = info.get("action_mask")
        if mask is not None:
            return self._legal_actions(mask)
        if self._position_mask is not None:
            return self._legal_actions(self._position_mask(env))
        return self._all_actions

    def _legal_actions(self, mask: Any) -> tuple:
        """The actions a mask allows (validated once per distinct mask, then cached)."""
        if isinstance(mask, np.ndarray):
            key: Hashable = (mask.dtype.str, mask.shape, mask.tobytes())
        elif isinstance(mask, tuple) and all(isinstance(m, np.ndarray) for m in mask):
            key = tuple((m.dtype.str, m.shape, m.tobytes()) for m in mask)
        else:
            key = None
        if key is not None:
            cached = self._mask_cache.get(key)
            if cached is not None:
                return cached
        legal = self._decode_mask(mask)
        if key is not None:
            self._mask_cache[key] = legal
        return legal

    def _decode_mask(self, mask: Any) -> tuple:
        if self._dimensions is not None and isinstance(mask, tuple):
            if len(mask) != len(self._dimensions):
                raise ValueError(
                    f"a MultiDiscrete action mask must have one mask per dimension "
                    f"({len(self._dimensions)}), got {len(mask)}"
                )
            per_dimension = [
                _binary_mask(m, (n,)).tolist() for m, n in zip(mask, self._dimensions, strict=True)
            ]
            flat = [all(bits) for bits in itertools.product(*per_dimension)]
        else:
            flat = _binary_mask(mask, self._mask_shape).tolist()
        return tuple(a for a, legal in zip(self._all_actions, flat, strict=True) if legal)


def _binary_mask(mask: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``mask`` as a flat bool array of ``shape``; raises ValueError if it is not 0/1."""
    array = np.asarray(mask)
    if array.shape != shape:
        raise ValueError(f"an action mask must have shape {shape}, got {array.shape}")
    if array.dtype != np.bool_ and not np.isin(array, (0, 1)).all():
        raise ValueError(f"an action mask must hold only 0 and 1 (1 = legal), got {array}")
    return array.astype(bool)


def _copied(observation: Any) -> Any:
    """A copy of an observation that later steps of the env cannot change."""
    if type(observation) is np.ndarray:
        return observation.copy()
    return copy.deepcopy(observation)


def _abbreviate(actions: tuple) -> str:
    return repr(list(actions)) if len(actions) <= 10 else f"{list(actions[:10])!r}..."


def _rebuilt(env: gym.Env, arguments: dict[str, Any]) -> GymnasiumModel:
    """``GymnasiumModel(env, **arguments)``: a pickled model made again (``__reduce__``)."""
    return GymnasiumModel(env, **arguments)
