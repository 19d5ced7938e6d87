"""A Gymnasium env as a one-player model the search can plan in.

:class:`GymnasiumModel` wraps a *deterministic*, cloneable Gymnasium env
(``gymnasium.Env``, Gymnasium >= 1.0 API: ``step`` returns ``(observation,
reward, terminated, truncated, info)``) as a :class:`~mcts_agent.model.Model`
with a single player, 0, so the backup of ``docs/search.md`` is plain discounted
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
(the mask of the current position, 1 = legal); and ``is_terminal()`` (True
once the episode has terminated; the name OpenSpiel's states use), so that
the model refuses to plan from a finished episode. The adapter checks the
clone and the determinism when it starts (below).

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

* the clone: from the live env's position, the clone steps to the same
  observations, rewards and flags as a deep copy of the env along a random
  sequence of actions (the scratch env is moved elsewhere before every
  restore), and stepping clones leaves the live env unchanged;
* ``copy.deepcopy(env.unwrapped)`` works (it recurses forever on classes whose
  ``__getattr__`` forwards every look-up);
* determinism: two clones of the same position whose ``np_random`` are
  reseeded differently give the same outcome for the same actions, and a
  toy-text transition table ``P`` has one outcome per ``(state, action)``
  (FrozenLake and CliffWalking with ``is_slippery=True``, Taxi with
  ``is_rainy=True`` or ``fickle_passenger=True`` are stochastic); and when
  the clone and the deep copy disagree, two deep copies are compared: if
  they disagree too, the env draws from outside itself (Python's ``random``,
  numpy's global ``np.random``...) and is refused as not deterministic, not
  as badly cloned. Chance is not modelled: planning with one dice roll per
  edge would be silently wrong.

Wrappers: the model plans on ``env.unwrapped``. ``TimeLimit`` is read (below);
stateless action wrappers (``TransformAction`` and its subclasses
``DiscretizeAction``, ``RescaleAction``, ``ClipAction``) are applied to
every action; observation wrappers, ``OrderEnforcing``, ``PassiveEnvChecker``,
``RecordEpisodeStatistics`` and rendering wrappers do not change the dynamics.
Any other wrapper that overrides ``step`` (reward wrappers, ``StickyAction``,
frame skipping...) is rejected, since planning would ignore it.

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
import itertools
import math
import operator
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    Continuous_MountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from gymnasium.envs.toy_text import CliffWalkingEnv, FrozenLakeEnv, TaxiEnv
from gymnasium.wrappers import (
    HumanRendering,
    OrderEnforcing,
    PassiveEnvChecker,
    RecordEpisodeStatistics,
    RecordVideo,
    RenderCollection,
    TimeLimit,
    TransformAction,
)

from mcts_agent.adapters.errors import CloneCheckError
from mcts_agent.model import StepResult

__all__ = ["GymnasiumModel", "GymnasiumState"]

MAX_ACTIONS = 100_000
"""Most actions a ``MultiDiscrete`` space may have (every combination is one action)."""

# The attributes that hold the whole position of the Gymnasium envs we know
# (read in their ``step`` and ``reset``, Gymnasium 1.4); exact classes only, as
# a subclass may keep more state. Every one of these
# envs *replaces* these attributes in ``step`` (never mutates them in place),
# so a snapshot may share the objects with the scratch env.
_KNOWN_SNAPSHOTS: dict[type, tuple[str, ...]] = {
    FrozenLakeEnv: ("s", "lastaction"),
    CliffWalkingEnv: ("s", "lastaction"),
    TaxiEnv: ("s", "lastaction", "fickle_step", "taxi_orientation"),
    CartPoleEnv: ("state", "steps_beyond_terminated"),
    AcrobotEnv: ("state",),
    MountainCarEnv: ("state",),
    Continuous_MountainCarEnv: ("state",),
    PendulumEnv: ("state", "last_u"),
}

# The mask of the current position, for envs (and their subclasses) that report
# masks only in ``info``.
_KNOWN_MASKS: dict[type, Callable[[Any], Any]] = {
    TaxiEnv: lambda env: env.action_mask(env.s),
}


def _frozen_lake_over(env: FrozenLakeEnv) -> bool:
    row, column = divmod(int(env.s), env.ncol)
    return env.desc[row, column] in (b"H", b"G")  # a hole or the goal


def _cliff_walking_over(env: CliffWalkingEnv) -> bool:
    rows, columns = env.shape
    return int(env.s) == rows * columns - 1  # the goal, bottom right (the cliff is not terminal)


def _taxi_over(env: TaxiEnv) -> bool:
    _, _, passenger, destination = env.decode(env.s)
    return passenger == destination  # delivered (never so at reset)


def _mountain_car_over(env: MountainCarEnv | Continuous_MountainCarEnv) -> bool:
    position, velocity = env.state
    return bool(position >= env.goal_position and velocity >= env.goal_velocity)


# Whether the position of a Gymnasium env we know is terminal, by the rule of
# its ``step`` (Gymnasium 1.4); exact classes only, as a subclass may change it.
# Gymnasium envs in general do not record that their episode has terminated.
_KNOWN_TERMINATIONS: dict[type, Callable[[Any], bool]] = {
    FrozenLakeEnv: _frozen_lake_over,
    CliffWalkingEnv: _cliff_walking_over,
    TaxiEnv: _taxi_over,
    CartPoleEnv: lambda env: env.steps_beyond_terminated is not None,
    AcrobotEnv: lambda env: env._terminal(),
    MountainCarEnv: _mountain_car_over,
    Continuous_MountainCarEnv: _mountain_car_over,
}

# What makes a toy-text transition table stochastic, for the error message.
_RANDOMNESS_CAUSES: dict[type, str] = {
    FrozenLakeEnv: "is_slippery=True",
    CliffWalkingEnv: "is_slippery=True",
    TaxiEnv: "is_rainy=True",
}

# Wrappers that neither change what a step does nor need translating.
_INERT_WRAPPERS = (
    gym.ObservationWrapper,
    OrderEnforcing,
    PassiveEnvChecker,
    RecordEpisodeStatistics,
    RenderCollection,
    RecordVideo,
    HumanRendering,
)

_EPISODE_OVER = "the episode is over ({}): call env.reset() before planning"

_PROBE_STEPS = 30  # most steps of one start-up probe
_PROBE_TRIALS = 8  # random action sequences tried by the determinism check


class GymnasiumState(NamedTuple):
    """A position of a Gymnasium env, as the model's state (treat it as immutable).

    Attributes:
        snapshot: the env's inner state, in the form of the model's cloning
            strategy (a tuple of attribute values, the user's or the env's
            ``get_state`` result, or a deep copy of ``env.unwrapped``).
        steps_left: int, steps before the live env's ``TimeLimit`` truncates
            the episode; None if it has none.
        actions: tuple, the legal actions here in the model's order; empty
            once the episode has ended.
    """

    snapshot: Any
    steps_left: int | None
    actions: tuple


class GymnasiumModel:
    """A deterministic Gymnasium env as a one-player model (player 0).

    See the module docstring for the cloning strategies, the start-up checks,
    the wrappers it understands and what it does with truncation.

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
    env's own ``action_mask()``); else every action is legal.

    ``step`` returns the reward of ``env.unwrapped`` (reward wrappers are
    rejected) and ``terminated=True`` when the env terminated or truncated or
    the time limit ran out. ``rollout`` is the fused rollout of
    :class:`~mcts_agent.model.RolloutModel`: one restore, then the env is
    stepped to the end.

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

    Attributes:
        env: the live env the model was built for.
        clone_method: ``"snapshot"``, ``"user"``, ``"env_methods"`` or
            ``"deepcopy"`` (module docstring).

    Raises:
        TypeError: if ``env`` is not a ``gymnasium.Env``, its action space is
            not ``Discrete`` or ``MultiDiscrete`` (a ``Box`` must be
            discretised), or a function argument is not callable.
        CloneCheckError: if the env cannot be cloned faithfully (a
            ``ValueError``).
        ValueError: if the env has not been reset, its episode is over
            (as far as can be told: :meth:`state_of`), it is stochastic, is
            wrapped in a wrapper planning would ignore, has no legal action
            in its current position, or an argument is invalid.
    """

    def __init__(
        self,
        env: gym.Env,
        *,
        get_state: Callable[[Any], Any] | None = None,
        set_state: Callable[[Any, Any], None] | None = None,
        action_mask: Callable[[Any], Any] | None = None,
        clone: str | None = None,
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

        self.env = env
        unwrapped = env.unwrapped
        self._unwrapped = unwrapped
        self._time_limits, self._translators = _read_wrappers(env)
        self._init_actions(env.action_space, self._translators)
        _check_reset(env)

        env_class = type(unwrapped)
        self._user_mask = action_mask
        self._position_mask = action_mask
        if action_mask is None:
            known = [_KNOWN_MASKS[c] for c in env_class.__mro__ if c in _KNOWN_MASKS]
            if known:
                self._position_mask = known[0]
            elif callable(getattr(env_class, "action_mask", None)):
                self._position_mask = env_class.action_mask

        self._terminal = _KNOWN_TERMINATIONS.get(env_class)
        if self._terminal is None and callable(getattr(env_class, "is_terminal", None)):
            self._terminal = env_class.is_terminal
        _check_known_randomness(unwrapped)
        if clone == "snapshot" and env_class not in _KNOWN_SNAPSHOTS:
            raise ValueError(
                f'clone="snapshot" knows {sorted(c.__name__ for c in _KNOWN_SNAPSHOTS)}, not '
                f"{env_class.__name__}; pass clone=None or get_state/set_state"
            )
        if clone == "deepcopy":
            self.clone_method = "deepcopy"
        elif get_state is not None:
            self.clone_method = "user"
        elif env_class in _KNOWN_SNAPSHOTS:
            self.clone_method = "snapshot"
        elif callable(getattr(env_class, "get_state", None)) and callable(
            getattr(env_class, "set_state", None)
        ):
            self.clone_method = "env_methods"
            get_state, set_state = env_class.get_state, env_class.set_state
        else:
            self.clone_method = "deepcopy"
        self._init_cloning(env_class, get_state, set_state)
        self._check_clone_and_determinism(env)

    # ------------------------------------------------------------ the model

    def actions(self, state: GymnasiumState) -> tuple:
        """Returns the legal actions in ``state`` (empty once the episode is over)."""
        return state.actions

    def player(self, state: GymnasiumState) -> int:
        """Returns 0: a Gymnasium env has one player."""
        return 0

    def step(self, state: GymnasiumState, action: Any) -> StepResult:
        """Steps a clone of ``state``'s position; ``state`` itself is not changed.

        Args:
            state: a state of this model.
            action: one of ``state.actions``.

        Returns:
            ``StepResult(next_state, reward, terminated)``: the env's reward as a
            float; ``terminated`` is True if the env terminated or truncated or
            the ``TimeLimit`` ran out on this step.

        Raises:
            ValueError: if ``action`` is not legal in ``state``.
        """
        snapshot, steps_left, actions = state
        if action not in actions:
            raise ValueError(
                f"action {action!r} is not legal here; legal actions: {list(actions)!r}"
            )
        env = self._checkout(snapshot)
        _, reward, terminated, truncated, info = env.step(self._inner_actions[action])
        if steps_left is not None:
            steps_left -= 1
        ended = terminated or truncated or steps_left == 0
        next_actions = () if ended else self._next_actions(env, info)
        return StepResult(
            GymnasiumState(self._commit(env), steps_left, next_actions), float(reward), bool(ended)
        )

    def rollout(self, state: GymnasiumState, rng: random.Random, limit: int, gamma: float) -> float:
        """Plays uniformly random legal actions from ``state``; returns the discounted return.

        The fused rollout of :class:`~mcts_agent.model.RolloutModel`: the
        position is restored once into a scratch env (or deep-copied once),
        which is then stepped until the episode ends, the time limit runs out
        or ``limit`` actions have been played. Actions are drawn as the
        search's own rollout draws them (``actions[int(rng.random() *
        len(actions))]``), so the returns have the same distribution.

        Args:
            state: a state of this model with at least one legal action.
            rng: the planner's generator; the only source of randomness.
            limit: int >= 1, most actions played.
            gamma: discount rate in [0, 1].

        Returns:
            ``sum_t gamma**t * r_t`` over the actions played.
        """
        snapshot, steps_left, actions = state
        env = self._checkout(snapshot)
        env_step = env.step
        inner_actions = self._inner_actions
        next_actions = self._next_actions
        random_ = rng.random
        moves_left = limit if steps_left is None else min(limit, steps_left)
        g = 0.0
        coef = 1.0
        while True:
            action = actions[int(random_() * len(actions))]
            _, reward, terminated, truncated, info = env_step(inner_actions[action])
            g += coef * reward
            moves_left -= 1
            if terminated or truncated or moves_left <= 0:
                return float(g)
            actions = next_actions(env, info)
            if not actions:
                return float(g)
            coef *= gamma

    # ------------------------------------------------------- the live env

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
                translates actions differently, or has not been reset; or
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
            time_limits, translators = _read_wrappers(env)
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
                f"env is {_instance(env.unwrapped)}, while the model was built for {self.env!r} "
                f"whose unwrapped env is {_instance(self._unwrapped)}. Build one model per env"
            )
        else:
            raise TypeError(f"state_of(env) takes a gymnasium.Env, got {type(env).__name__}")
        _check_reset(env)
        steps_left = _steps_left(time_limits)
        if steps_left == 0:
            raise ValueError(_EPISODE_OVER.format("truncated"))
        if self._terminal is not None and self._terminal(self._unwrapped):
            raise ValueError(_EPISODE_OVER.format("terminated"))
        snapshot = self._capture(self._unwrapped)
        if self._position_mask is None:
            actions = self._all_actions
        else:
            actions = self._legal_actions(self._position_mask(self._unwrapped))
        return GymnasiumState(snapshot, steps_left, actions)

    def to_env_action(self, action: Any) -> Any:
        """Returns the action of ``env.action_space`` for a model action.

        Args:
            action: one of the model's actions (an int for ``Discrete``, a
                tuple of ints for ``MultiDiscrete``).

        Returns:
            An int for ``Discrete``; a new ``np.ndarray`` of the space's shape
            and dtype for ``MultiDiscrete``.

        Raises:
            ValueError: if ``action`` is not an action of this model.
        """
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
        """Enumerates the model's actions and maps each to the env's and the inner env's."""
        if isinstance(space, spaces.Discrete):
            start = int(space.start)
            all_actions: tuple = tuple(range(start, start + int(space.n)))
            env_actions: dict[Any, Any] = {a: a for a in all_actions}
            self._mask_shape: tuple[int, ...] = (len(all_actions),)
            self._dimensions: tuple[int, ...] | None = None
        elif isinstance(space, spaces.MultiDiscrete):
            nvec = np.asarray(space.nvec)
            count = int(np.prod(nvec, dtype=np.int64))
            if count > MAX_ACTIONS:
                raise ValueError(
                    f"{space} has {count} combinations of actions, more than MAX_ACTIONS "
                    f"({MAX_ACTIONS}); plan with a smaller action space"
                )
            starts = np.asarray(space.start).ravel().tolist()
            ranges = [range(s, s + n) for s, n in zip(starts, nvec.ravel().tolist(), strict=True)]
            all_actions = tuple(itertools.product(*ranges))
            env_actions = {
                a: np.array(a, dtype=space.dtype).reshape(nvec.shape) for a in all_actions
            }
            self._mask_shape = (count,)
            self._dimensions = tuple(nvec.ravel().tolist())
        elif isinstance(space, spaces.Box):
            raise TypeError(
                f"the action space is continuous ({space}); the planner needs a finite set of "
                "actions: discretise it, e.g. gymnasium.wrappers.DiscretizeAction(env, bins=5)"
            )
        else:
            raise TypeError(f"the action space must be Discrete or MultiDiscrete, got {space}")
        inner_actions = {}
        for action, env_action in env_actions.items():
            inner = env_action
            for wrapper in translators:
                inner = wrapper.action(inner)
            inner_actions[action] = inner
        self._all_actions = all_actions
        self._env_actions = env_actions
        self._inner_actions = inner_actions
        self._mask_cache: dict[Hashable, tuple] = {}

    def _init_cloning(
        self,
        env_class: type,
        get_state: Callable[[Any], Any] | None,
        set_state: Callable[[Any, Any], None] | None,
    ) -> None:
        """Binds ``_checkout``, ``_commit`` and ``_capture`` for the chosen strategy.

        ``_checkout(snapshot)`` returns an env in that position, free to step;
        ``_commit(env)`` returns the snapshot of an env just stepped (it may
        take the env over); ``_capture(live)`` returns an independent snapshot
        of the live unwrapped env.
        """
        if self.clone_method == "deepcopy":
            self._checkout = copy.deepcopy
            self._commit = _identity
            self._capture = _detached_copy
            return
        stepper = _FAST_STEPPERS.get(env_class) if self.clone_method == "snapshot" else None
        scratch = _detached_copy(self._unwrapped) if stepper is None else stepper(self._unwrapped)
        if self.clone_method == "snapshot":
            names = _KNOWN_SNAPSHOTS[env_class]
            getter = operator.attrgetter(*names) if len(names) > 1 else _single_getter(names[0])
            update = scratch.__dict__.update

            def checkout(snapshot: tuple) -> Any:
                update(zip(names, snapshot, strict=True))
                return scratch

            self._checkout = checkout
            self._commit = getter
            self._capture = lambda live: copy.deepcopy(getter(live))
        else:
            assert get_state is not None and set_state is not None

            def checkout(snapshot: Any) -> Any:
                set_state(scratch, snapshot)
                return scratch

            self._checkout = checkout
            self._commit = get_state
            self._capture = lambda live: copy.deepcopy(get_state(live))

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

    # ---------------------------------------------------------- the checks

    def _check_clone_and_determinism(self, env: gym.Env) -> None:
        """Runs the start-up checks of the module docstring; raises ValueError on failure."""
        live = self._unwrapped
        name = type(live).__name__
        root = self.state_of(env)
        if not root.actions:
            raise ValueError(
                "the env has no legal action in its current position (is its episode over?): "
                "call env.reset() before planning"
            )
        live_rng = _rng_state(live)
        try:
            actions = self._probe_actions(root, random.Random(0))
            reference = _play(_detached_copy(live), self._inner_actions, actions)
            # The clone: every step restores a position into an env moved elsewhere first.
            snapshot = root.snapshot
            for i, action in enumerate(actions):
                elsewhere = self._checkout(root.snapshot)
                elsewhere.step(self._inner_actions[root.actions[(i + 1) % len(root.actions)]])
                clone = self._checkout(snapshot)
                outcome = clone.step(self._inner_actions[action])
                snapshot = self._commit(clone)
                if not _same_outcome(outcome, reference[i]):
                    if self.clone_method == "deepcopy":  # the clone is a deep copy too
                        raise _outside_randomness(name, actions[: i + 1], outcome, reference[i])
                    self._check_deep_copies_agree(actions)
                    raise CloneCheckError(
                        f"the {self.clone_method} clone of {name} does not behave like the env: "
                        f"after actions {list(actions[: i + 1])!r} from the live position the "
                        f"clone gives {_describe(outcome)} but a deep copy of the env gives "
                        f"{_describe(reference[i])}. The snapshot misses part of the env's "
                        "state or shares mutable objects with it: pass get_state/set_state "
                        'that capture all of it as copies, or clone="deepcopy"'
                    )
            self._check_determinism(root)
        except ValueError:
            raise
        except Exception as error:
            raise ValueError(
                f"stepping a clone of {name} failed at start-up ({type(error).__name__}: "
                f"{error}); was the env reset?"
            ) from error
        if self._position_mask is None and any("action_mask" in out[4] for out in reference):
            raise ValueError(
                f"{name} reports info['action_mask'] after a step, but the model cannot tell "
                "the mask of the live env's current position: pass action_mask=lambda env: "
                "..., or give the env an action_mask() method"
            )
        # The live env is untouched: the same generator state and the same behaviour.
        replay = _play(_detached_copy(live), self._inner_actions, actions)
        if _rng_state(live) != live_rng or not all(
            _same_outcome(a, b) for a, b in zip(replay, reference, strict=True)
        ):
            self._check_deep_copies_agree(actions)
            raise CloneCheckError(
                f"stepping a {self.clone_method} clone of {name} changed the live env: the "
                "snapshot shares mutable objects with it; make get_state return a copy"
            )

    def _probe_actions(self, root: GymnasiumState, rng: random.Random) -> list:
        """A random sequence of legal actions from ``root`` (at most ``_PROBE_STEPS``)."""
        env = self._checkout(root.snapshot)
        steps = _PROBE_STEPS if root.steps_left is None else min(_PROBE_STEPS, root.steps_left)
        sequence = []
        actions = root.actions
        while actions and len(sequence) < steps:
            action = actions[rng.randrange(len(actions))]
            sequence.append(action)
            _, _, terminated, truncated, info = env.step(self._inner_actions[action])
            actions = () if terminated or truncated else self._next_actions(env, info)
        return sequence

    def _check_deep_copies_agree(self, actions: Sequence) -> None:
        """Raises ValueError if two deep copies of the live env step ``actions`` differently."""
        first, second = (
            _play(_detached_copy(self._unwrapped), self._inner_actions, actions) for _ in range(2)
        )
        for i, (a, b) in enumerate(zip(first, second, strict=True)):
            if not _same_outcome(a, b):
                raise _outside_randomness(type(self._unwrapped).__name__, actions[: i + 1], a, b)

    def _reseeded_play(self, root: GymnasiumState, seed: int, actions: Sequence) -> list[tuple]:
        """Plays ``actions`` from a clone of ``root`` whose ``np_random`` is seeded ``seed``."""
        clone = self._checkout(root.snapshot)
        clone.np_random = np.random.default_rng(seed)
        return _play(clone, self._inner_actions, actions)

    def _check_determinism(self, root: GymnasiumState) -> None:
        for trial in range(_PROBE_TRIALS):
            actions = self._probe_actions(root, random.Random(trial + 1))
            seeds = (2 * trial + 1, 2 * trial + 2)
            outcomes = [self._reseeded_play(root, seed, actions) for seed in seeds]
            for i, (first, second) in enumerate(zip(*outcomes, strict=True)):
                if not _same_outcome(first, second):
                    again = self._reseeded_play(root, seeds[0], actions[: i + 1])[i]
                    if not _same_outcome(first, again):  # the same seed twice differs too
                        raise _outside_randomness(
                            type(self._unwrapped).__name__, actions[: i + 1], first, again
                        )
                    raise ValueError(
                        f"{type(self._unwrapped).__name__} is not deterministic: the same actions "
                        f"{list(actions[: i + 1])!r} from the same position gave "
                        f"{_describe(first)} and {_describe(second)} under two seeds of "
                        "np_random. The planner needs a deterministic env (chance is not "
                        "modelled yet)"
                    )


# ------------------------------------------------------------------ helpers


class _TableStepper:
    """Steps a deterministic toy-text env through its transition table ``P``.

    FrozenLake, CliffWalking and Taxi keep their model in ``P[s][a]``, a list
    of ``(probability, next_s, reward, terminated)``; their ``step`` draws one
    outcome with ``np_random`` and sets ``s`` and ``lastaction``. Once ``P``
    is checked to have one outcome per entry, this does the same without the
    draw, ~10x faster (the start-up clone check compares it with the env's
    own ``step``). The position attributes of ``_KNOWN_SNAPSHOTS`` live in
    the instance's ``__dict__``, as on the env.
    """

    def __init__(self, env: Any) -> None:
        self.transitions = {
            s: {a: next(o[1:] for o in outcomes if o[0] > 0) for a, outcomes in moves.items()}
            for s, moves in env.P.items()
        }
        self.masks = None
        if isinstance(env, TaxiEnv):  # Taxi's step reports info["action_mask"]
            self.masks = {s: env.action_mask(s) for s in self.transitions}
            for mask in self.masks.values():
                mask.flags.writeable = False
        self.np_random = None  # never drawn from; set by the determinism check
        for name in _KNOWN_SNAPSHOTS[type(env)]:
            setattr(self, name, copy.deepcopy(getattr(env, name)))

    def step(self, action: int) -> tuple[int, float, bool, bool, dict]:
        """The env's ``step`` for one action, as Gymnasium returns it."""
        next_s, reward, terminated = self.transitions[self.s][action]
        self.s = next_s
        self.lastaction = action
        info = {} if self.masks is None else {"action_mask": self.masks[next_s]}
        return next_s, reward, terminated, False, info


class _CartPoleStepper:
    """``CartPoleEnv.step`` (Gymnasium 1.4) on Python floats, bit for bit.

    The env computes with numpy float64 scalars and checks every action
    against its space (2.4 us of its 6.4 us); the same IEEE operations in the
    same order on Python floats give the same numbers (``np.cos`` and
    ``np.sin`` are kept, as ``math``'s may round differently) in about a
    quarter of the time. The physical constants are read from the env once.
    ``state`` is a tuple of 4 floats once stepped (an array when restored from
    the live env). The start-up clone check compares it with the env's step.
    """

    def __init__(self, env: CartPoleEnv) -> None:
        self.gravity = float(env.gravity)
        self.masspole = float(env.masspole)
        self.total_mass = float(env.total_mass)
        self.length = float(env.length)
        self.polemass_length = float(env.polemass_length)
        self.force_mag = float(env.force_mag)
        self.tau = float(env.tau)
        self.euler = env.kinematics_integrator == "euler"
        self.theta_threshold = float(env.theta_threshold_radians)
        self.x_threshold = float(env.x_threshold)
        self.sutton_barto_reward = bool(env._sutton_barto_reward)
        self.np_random = None  # never drawn from; set by the determinism check
        for name in _KNOWN_SNAPSHOTS[CartPoleEnv]:
            setattr(self, name, copy.deepcopy(getattr(env, name)))

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The env's ``step`` for one action, as Gymnasium returns it."""
        x, x_dot, theta, theta_dot = self.state
        x, x_dot, theta, theta_dot = float(x), float(x_dot), float(theta), float(theta_dot)
        force = self.force_mag if action == 1 else -self.force_mag
        costheta = float(np.cos(theta))
        sintheta = float(np.sin(theta))
        total_mass = self.total_mass
        polemass_length = self.polemass_length
        temp = (force + polemass_length * (theta_dot * theta_dot) * sintheta) / total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * (costheta * costheta) / total_mass)
        )
        xacc = temp - polemass_length * thetaacc * costheta / total_mass
        tau = self.tau
        if self.euler:
            x = x + tau * x_dot
            x_dot = x_dot + tau * xacc
            theta = theta + tau * theta_dot
            theta_dot = theta_dot + tau * thetaacc
        else:  # semi-implicit Euler
            x_dot = x_dot + tau * xacc
            x = x + tau * x_dot
            theta_dot = theta_dot + tau * thetaacc
            theta = theta + tau * theta_dot
        self.state = (x, x_dot, theta, theta_dot)
        terminated = (
            x < -self.x_threshold
            or x > self.x_threshold
            or theta < -self.theta_threshold
            or theta > self.theta_threshold
        )
        if not terminated:
            reward = 0.0 if self.sutton_barto_reward else 1.0
        elif self.steps_beyond_terminated is None:
            self.steps_beyond_terminated = 0
            reward = -1.0 if self.sutton_barto_reward else 1.0
        else:
            self.steps_beyond_terminated += 1
            reward = -1.0 if self.sutton_barto_reward else 0.0
        return np.array(self.state, dtype=np.float32), reward, terminated, False, {}


# Envs stepped by a faster replica of their own step (checked against it at start-up).
_FAST_STEPPERS: dict[type, Callable[[Any], Any]] = {
    FrozenLakeEnv: _TableStepper,
    CliffWalkingEnv: _TableStepper,
    TaxiEnv: _TableStepper,
    CartPoleEnv: _CartPoleStepper,
}


def _identity(value: Any) -> Any:
    return value


def _single_getter(name: str) -> Callable[[Any], tuple]:
    def getter(env: Any) -> tuple:
        return (getattr(env, name),)

    return getter


def _check_reset(env: gym.Env) -> None:
    """Raises ValueError if ``env`` has never been reset, as far as can be told.

    Told by Gymnasium's ``OrderEnforcing`` (``has_reset``) and ``TimeLimit``
    (no elapsed steps yet) wrappers, which ``gymnasium.make`` adds, and for a
    bare env we know by its position attribute (``_KNOWN_SNAPSHOTS``: toy-text
    ``s`` is set by the first ``reset``, classic-control ``state`` is None
    until then). Other bare envs are not checked here; their first step in
    the start-up check fails instead.
    """
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if (isinstance(layer, OrderEnforcing) and not layer.has_reset) or (
            isinstance(layer, TimeLimit) and layer._elapsed_steps is None
        ):
            break
        layer = layer.env
    else:
        names = _KNOWN_SNAPSHOTS.get(type(layer))
        if names is None or getattr(layer, names[0], None) is not None:
            return
    raise ValueError(
        f"the env ({type(env.unwrapped).__name__}) has not been reset: call "
        "env.reset(seed=...) first"
    )


def _steps_left(time_limits: list[TimeLimit]) -> int | None:
    """Steps before the tightest of ``time_limits`` truncates the episode, or None.

    The env must have been reset (:func:`_check_reset`).
    """
    steps_left = None
    for limit in time_limits:
        left = max(limit._max_episode_steps - limit._elapsed_steps, 0)
        steps_left = left if steps_left is None else min(steps_left, left)
    return steps_left


def _read_wrappers(env: gym.Env) -> tuple[list[TimeLimit], list[TransformAction]]:
    """Returns the env's ``TimeLimit`` wrappers and action translators, outermost first.

    Raises:
        ValueError: for a wrapper that changes steps in a way planning would ignore.
    """
    time_limits: list[TimeLimit] = []
    translators: list[TransformAction] = []
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, TimeLimit):
            time_limits.append(layer)
        elif isinstance(layer, TransformAction):
            translators.append(layer)
        elif not (isinstance(layer, _INERT_WRAPPERS) or type(layer).step is gym.Wrapper.step):
            raise ValueError(
                f"the env is wrapped in {type(layer).__name__}, which changes what a step does; "
                "the planner steps env.unwrapped and would ignore it. Remove the wrapper or "
                "fold its effect into the env"
            )
        layer = layer.env
    return time_limits, translators


def _check_known_randomness(env: Any) -> None:
    """Raises ValueError if a toy-text env's transition table or options make it random."""
    if isinstance(env, TaxiEnv) and getattr(env, "fickle_passenger", False):
        raise ValueError(
            "TaxiEnv with fickle_passenger=True is not deterministic (the passenger may change "
            "destination at random); the planner needs a deterministic env"
        )
    table = getattr(env, "P", None)
    if not isinstance(table, dict):
        return
    for state, moves in table.items():
        if not isinstance(moves, dict):
            return
        for action, outcomes in moves.items():
            if not isinstance(outcomes, list):
                return
            if sum(1 for outcome in outcomes if outcome[0] > 0) > 1:
                cause = _RANDOMNESS_CAUSES.get(type(env), "random transitions")
                raise ValueError(
                    f"{type(env).__name__} is not deterministic ({cause}): its transition table "
                    f"P gives {len(outcomes)} outcomes for state {state}, action {action}. The "
                    "planner needs a deterministic env (chance is not modelled yet)"
                )


def _detached_copy(env: Any) -> Any:
    """``copy.deepcopy(env)`` for stepping only: no renderer is copied and it never draws.

    The env's rendering objects (:func:`_is_render_object`: Gymnasium's
    toy-text ``window_surface``/``window``, ``clock`` and tile images,
    classic-control ``screen``, ``surf`` and ``clock``, any pygame object)
    are not deep-copied (pygame's ``Clock`` cannot be): the copy's attributes
    holding them are None. A ``"human"`` render mode is switched off, so that
    the copy's ``step`` does not draw. The env itself, renderer included, is
    not changed.

    Raises:
        CloneCheckError: if the deep copy fails, recursion included.
    """
    memo: dict[int, Any] = {
        id(value): None for value in vars(env).values() if _is_render_object(value)
    }
    try:
        clone = copy.deepcopy(env, memo)
    except RecursionError as error:
        raise CloneCheckError(
            f"copy.deepcopy({type(env).__name__}) recursed forever; the class probably "
            "forwards attribute look-ups (__getattr__) to an attribute that does not exist "
            "yet while copying. Make __getattr__ raise AttributeError for names starting "
            "with '__' and for its own attribute, or define __deepcopy__"
        ) from error
    except Exception as error:
        raise CloneCheckError(
            f"copy.deepcopy({type(env).__name__}) failed ({type(error).__name__}: {error}); "
            "the planner needs a deep-copyable env"
        ) from error
    if getattr(clone, "render_mode", None) == "human":
        clone.render_mode = None
    return clone


def _is_render_object(value: Any) -> bool:
    """True for a pygame object (window, surface, clock, font...) or a list or tuple of them."""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_is_render_object(item) for item in value)
    return type(value).__module__.partition(".")[0] == "pygame"


def _outside_randomness(name: str, actions: Sequence, first: tuple, second: tuple) -> ValueError:
    """The error for an env whose copies, stepped alike, differ: it draws from outside itself."""
    return ValueError(
        f"{name} is not deterministic: two copies of the same position (deep copies, same "
        f"np_random state) stepped with the same actions {list(actions)!r} gave "
        f"{_describe(first)} and {_describe(second)}. Its step draws from something outside "
        "the env: Python's random or numpy's global np.random rather than self.np_random, "
        "or the clock, a file, another process... Chance is not supported: the planner needs "
        "an env whose step depends only on its position and the action"
    )


def _instance(obj: Any) -> str:
    """``obj``'s class and ``id``, to tell two objects with the same repr apart."""
    return f"{type(obj).__name__} object at {id(obj):#x}"


def _play(env: Any, inner_actions: dict, actions: Sequence) -> list[tuple]:
    """Steps ``env`` along ``actions``; returns each step's 5-tuple."""
    return [env.step(inner_actions[action]) for action in actions]


def _same_outcome(a: tuple, b: tuple) -> bool:
    """Equal observation, reward, terminated and truncated (``info`` is not compared)."""
    return _same(a[0], b[0]) and _same(a[1:4], b[1:4])


def _same(a: Any, b: Any) -> bool:
    """Structural equality through tuples, lists, dicts and numpy arrays (NaN equals NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" and b.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _describe(outcome: tuple) -> str:
    observation, reward, terminated, truncated, _ = outcome
    return (
        f"(observation {observation!r}, reward {reward!r}, terminated {terminated!r}, "
        f"truncated {truncated!r})"
    )


def _rng_state(env: Any) -> Any:
    """The bit generator state of ``env``'s ``np_random``, without creating one."""
    generator = getattr(env, "_np_random", None)
    return None if generator is None else generator.bit_generator.state


def _binary_mask(mask: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``mask`` as a flat bool array of ``shape``; raises ValueError if it is not 0/1."""
    array = np.asarray(mask)
    if array.shape != shape:
        raise ValueError(f"an action mask must have shape {shape}, got {array.shape}")
    if array.dtype != np.bool_ and not np.isin(array, (0, 1)).all():
        raise ValueError(f"an action mask must hold only 0 and 1 (1 = legal), got {array}")
    return array.astype(bool)


def _abbreviate(actions: tuple) -> str:
    return repr(list(actions)) if len(actions) <= 10 else f"{list(actions[:10])!r}..."
