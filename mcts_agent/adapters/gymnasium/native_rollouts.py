"""Native rollouts of the deterministic Gymnasium envs the adapter knows, in the compiled core.

:meth:`GymnasiumModel.native_rollout
<mcts_agent.adapters.gymnasium.model.GymnasiumModel.native_rollout>` hands
the compiled core (``docs/guides/compiled-core.md``, "Native rollouts") the
model's fused rollout in C (``mcts_agent/_gym_rollouts.c``) for these envs,
exact classes, with the ``"snapshot"`` clone (the point robot: ``"env_methods"``) and a
deterministic model:

* the toy-text tables, FrozenLake (``is_slippery=False``), CliffWalking and
  Taxi (defaults): the table stepper's next cell, reward and termination by
  cell and action, and the legal actions after each cell (Taxi's
  ``info["action_mask"]``, precomputed per cell);
* CartPole: the fast stepper's step (``CartPoleEnv.step`` on Python floats);
* MountainCar (``MountainCarEnv``, discrete actions);
* Acrobot without torque noise (``torque_noise_max == 0``): its
  ``_dsdt``, ``rk4``, ``wrap`` and ``bound``;
* with sampled actions (the env's own ``Box`` of one float32, no action
  wrapper): Pendulum (``PendulumEnv``) and MountainCarContinuous
  (``Continuous_MountainCarEnv``), each action drawn as
  :meth:`GymnasiumModel.sample_action
  <mcts_agent.adapters.gymnasium.model.GymnasiumModel.sample_action>` draws
  it, their steps with numpy's types (NEP 50: float32 where the env's numbers
  are float32);
* with sampled actions and the ``"env_methods"`` clone: our point robot
  (:class:`~mcts_agent.envs.point_robot.PointRobotEnv`, its own ``Box`` of two
  float32, no action wrapper), its step on Python floats with the module's
  constants (read when the capsule is made, and watched like the parameters).

:meth:`GymnasiumModel.rollout` itself runs the capsule when there is one
(through the core's ``call_native``, which continues the ``random.Random``
and writes its state back), so the general loop (progressive widening, which
calls ``rollout`` from Python) gets the native rollouts too;
:meth:`NativeRollouts.python_rollout` is the Python rollout, the reference.

The C rollout returns exactly what :meth:`GymnasiumModel.rollout` returns for
the same state and generator: the same random numbers (one
``rng.random()`` per move; with ``rollout_actions="repeated"``, two per
action drawn: the action and its duration), the same floating-point operations in the same
order and precision, the same end (termination, ``limit``, the ``TimeLimit``'s steps left,
no legal action). The env's parameters are read from the object the Python
rollout steps (the model's scratch env or fast stepper, which holds the
parameters the model was built with) when the capsule is made, and read again
at every :meth:`NativeRollouts.capsule` call: a changed parameter gives a new
capsule, never a stale one.

Start-up check, when the model is built (with the compiled loop on; else
when the capsule is first asked for): along two random walks from the live
env's position, every step of the capsule is compared with the model's
``step`` (the position's floats bit for bit, the reward, the termination: a
rollout's return alone shows little of the dynamics, the rewards of
CartPole, MountainCar and Acrobot being constant until the end); then its
rollouts with Python's (return bits and the generator's final state) from a
few of those states, with a few seeds, limits and discount rates
(:data:`CHECK_ROLLOUTS`).
If they differ (e.g. numpy's ``sin``/``cos`` rounding differently from the C
library's on some machine), there is no capsule: the Python rollout runs,
and :attr:`NativeRollouts.refusal` (the model's ``native_rollout_refusal``)
says why.
"""

from __future__ import annotations

import operator
import random
from typing import Any

import numpy as np
from gymnasium import spaces

from mcts_agent.adapters.gymnasium.known_envs import (
    FAST_STEPPERS,
    TABLE_ENVS,
    AcrobotEnv,
    CartPoleEnv,
    Continuous_MountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from mcts_agent.envs import point_robot
from mcts_agent.envs.point_robot import PointRobotEnv

__all__ = ["CHECK_ROLLOUTS", "CHECK_WALK", "NativeRollouts", "native_parameters"]

CHECK_ROLLOUTS = ((0, 1, 1.0), (1, 10, 0.97), (2, 60, 1.0))
"""The start-up check's rollouts from each of its states: ``(seed, limit, gamma)``."""

CHECK_WALK = 30
"""Steps of each of the start-up check's two random walks from the live position."""

_KINDS = {CartPoleEnv: "cartpole", MountainCarEnv: "mountain_car", AcrobotEnv: "acrobot"}

_CARTPOLE_NAMES = (
    "gravity",
    "masspole",
    "total_mass",
    "length",
    "polemass_length",
    "tau",
    "euler",
    "theta_threshold",
    "x_threshold",
    "sutton_barto_reward",
)
_MOUNTAIN_CAR_NAMES = (
    "gravity",
    "max_speed",
    "min_position",
    "max_position",
    "goal_position",
    "goal_velocity",
)
_ACROBOT_NAMES = (
    "LINK_MASS_1",
    "LINK_MASS_2",
    "LINK_LENGTH_1",
    "LINK_COM_POS_1",
    "LINK_COM_POS_2",
    "LINK_MOI",
    "LINK_MOI",
    "MAX_VEL_1",
    "MAX_VEL_2",
    "dt",
)
_PENDULUM_NAMES = ("g", "m", "l", "dt", "max_speed", "max_torque")
_MOUNTAIN_CAR_CONTINUOUS_NAMES = (
    "min_action",
    "max_action",
    "power",
    "max_speed",
    "min_position",
    "max_position",
    "goal_position",
    "goal_velocity",
)
_SAMPLED_KINDS = {
    PendulumEnv: "pendulum",
    Continuous_MountainCarEnv: "mountain_car_continuous",
    PointRobotEnv: "point_robot",
}
_SAMPLED_SHAPES = {"pendulum": (1,), "mountain_car_continuous": (1,), "point_robot": (2,)}
_CLONES = {PointRobotEnv: "env_methods"}  # the clone a kind's snapshot is; else "snapshot"


def _point_robot_constants(env: Any) -> tuple:
    """point_robot.py's module constants, in ``_gym_rollouts.c``'s order (its step reads them)."""
    m = point_robot
    return (
        m.ARENA_SIZE,
        m.STEP_LENGTH,
        *m.OBSTACLE,
        m.OBSTACLE_RADIUS,
        *m.GOAL,
        m.GOAL_RADIUS,
        m.GOAL_REWARD,
        m.CRASH_REWARD,
    )


_WATCHED = {  # by the type of the object the Python rollout steps
    FAST_STEPPERS[CartPoleEnv]: operator.attrgetter("force_mag", *_CARTPOLE_NAMES),
    MountainCarEnv: operator.attrgetter("force", *_MOUNTAIN_CAR_NAMES),
    AcrobotEnv: operator.attrgetter(
        "AVAIL_TORQUE", "torque_noise_max", "book_or_nips", *_ACROBOT_NAMES
    ),
    PendulumEnv: operator.attrgetter(*_PENDULUM_NAMES),
    Continuous_MountainCarEnv: operator.attrgetter(*_MOUNTAIN_CAR_CONTINUOUS_NAMES),
    PointRobotEnv: _point_robot_constants,
}


def native_parameters(model: Any, scratch: Any) -> tuple | str:
    """What a native rollout of ``model`` is made of, read from the object its rollout steps.

    Args:
        model: a :class:`~mcts_agent.adapters.gymnasium.model.GymnasiumModel`.
        scratch: the env (or fast stepper) ``model``'s rollout steps.

    Returns:
        ``(kind, push, parameters, table)``, the arguments of the core's
        ``gym_rollout`` after the action numbers and before ``repeated``
        (``_gym_rollouts.c``), all
        plain floats, ints and bools; or a string saying why this model has
        no native rollout.
    """
    env_class = type(model._unwrapped)
    if model.chance is not None:
        return f"the env is stochastic ({model.chance}): the chance loop plans it"
    if type(model).rollout is not _model_class().rollout or "rollout" in vars(model):
        return "the model's rollout is not GymnasiumModel.rollout"
    clone = _CLONES.get(env_class, "snapshot")
    if model.clone_method != clone:
        return f'the env is cloned by "{model.clone_method}", not by the known "{clone}"'
    if model._user_mask is not None:
        return "the model has the user's action_mask function"
    if model._sampled is not None:
        return _sampled(model, scratch, env_class)
    if not isinstance(model.env.action_space, spaces.Discrete):
        return f"the action space is {model.env.action_space}, not Discrete"
    inner = [model._inner_actions[a] for a in model._all_actions]
    if not all(isinstance(a, int) for a in inner):
        return f"the env's actions are not ints: {inner!r}"
    if env_class in TABLE_ENVS:
        return _table(model, scratch, inner)
    kind = _KINDS.get(env_class)
    if kind is None:
        return f"the core has no native rollout of {env_class.__name__}"
    space = model._unwrapped.action_space
    if not all(space.contains(a) for a in inner):
        return f"the inner actions {inner!r} are not all in the env's {space}"
    if kind == "cartpole":
        push = tuple(scratch.force_mag if a == 1 else -scratch.force_mag for a in inner)
        values = operator.attrgetter(*_CARTPOLE_NAMES)(scratch)
    elif kind == "mountain_car":
        push = tuple((a - 1) * scratch.force for a in inner)
        values = operator.attrgetter(*_MOUNTAIN_CAR_NAMES)(scratch)
    else:
        if scratch.torque_noise_max != 0:
            return "Acrobot's torque_noise_max is not 0 (its step draws)"
        if scratch.book_or_nips not in ("book", "nips"):
            return f"Acrobot's book_or_nips is {scratch.book_or_nips!r}"
        push = tuple(scratch.AVAIL_TORQUE[a] for a in inner)
        values = (*operator.attrgetter(*_ACROBOT_NAMES)(scratch), scratch.book_or_nips == "nips")
    numbers = (*push, *values)
    if not all(type(x) in (int, float, bool) and abs(x) < 2**53 for x in numbers):
        return f"the env's parameters are not all floats: {numbers!r}"
    return kind, tuple(map(float, push)), tuple(map(float, values)), None


def _sampled(model: Any, env: Any, env_class: type) -> tuple | str:
    """``native_parameters`` of a model of sampled actions (Pendulum, MountainCarContinuous...)."""
    kind = _SAMPLED_KINDS.get(env_class)
    if kind is None:
        return f"the core has no native rollout of {env_class.__name__} with sampled actions"
    sampled = model._sampled
    space = sampled.space
    if sampled._translators:
        return "the env has action wrappers: the core steps the env's own actions only"
    shape = _SAMPLED_SHAPES[kind]
    if not (isinstance(space, spaces.Box) and space.shape == shape and space.dtype == np.float32):
        return f"the action space {space} is not a Box of float32 of shape {shape}"
    # (low, high - low, high) of each number, as _Numbers.draw reads them
    draw = [bound for bounds in sampled._root.bounds for bound in bounds]
    values = _WATCHED[env_class](env)
    if not all(type(x) in (int, float) and abs(x) < 2**53 for x in values):
        return f"the env's parameters are not all Python floats: {values!r}"
    if kind == "pendulum":
        g, m, l, dt, max_speed, max_torque = values  # noqa: E741 (the env's name)
        # PendulumEnv.step's 3 * g / (2 * l) and 3.0 / (m * l**2), in Python as there
        parameters = (3 * g / (2 * l), 3.0 / (m * l**2), dt, max_speed, max_torque)
    else:
        parameters = values
    return kind, (), tuple(map(float, (*draw, *parameters))), None


def _table(model: Any, stepper: Any, inner: list[int]) -> tuple | str:
    """``native_parameters`` of a toy-text env stepped by its table (``_TableStepper``)."""
    transitions = stepper.transitions
    cells = len(transitions)
    if list(transitions) != list(range(cells)):
        return "the table's cells are not numbered 0 to n - 1"
    next_cells, rewards, terminated, legal = [], [], [], []
    index = _action_numbers(model)
    for s in range(cells):
        for a in inner:
            next_s, reward, ended = transitions[s][a]
            next_cells.append(int(next_s))
            rewards.append(float(reward))
            terminated.append(bool(ended))
        if stepper.masks is None:
            legal.append(tuple(range(len(inner))))
        else:  # what the rollout's next_actions reads: the step's info["action_mask"]
            legal.append(tuple(index[a] for a in model._legal_actions(stepper.masks[s])))
    return "table", (), (), (next_cells, rewards, terminated, legal)


def _action_numbers(model: Any) -> dict | None:
    """The model's action -> its number k (0 to A - 1, the model's order), as the core takes it.

    None for sampled actions (the core takes the action itself).
    """
    if model._all_actions is None:
        return None
    return {a: k for k, a in enumerate(model._all_actions)}


def _model_class() -> type:
    from mcts_agent.adapters.gymnasium.model import GymnasiumModel

    return GymnasiumModel


class NativeRollouts:
    """A model's native rollout capsule: made, checked and kept up to date.

    Args:
        model: the :class:`~mcts_agent.adapters.gymnasium.model.GymnasiumModel`.

    Attributes:
        refusal: None, or why the last :meth:`capsule` call gave None (no
            compiled core, an env or model the core has no rollout for, or the
            start-up check's difference).
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.refusal: str | None = None
        self._scratch: Any = None  # what the model's rollout steps (one object per model)
        self._watched: tuple | None = None  # _watched(scratch) when _capsule was made
        self._capsule: Any = None
        self._python = False  # True while python_rollout runs: capsule() gives None

    def prepare(self) -> None:
        """Makes and checks the capsule now if the compiled loop is on (the model's ``__init__``).

        So that the start-up check's Python rollouts (a few ms; about 25 ms on
        Acrobot) are spent when the model is built, not inside a search's
        ``time_limit``. With the pure-Python loop on, :meth:`capsule` makes it
        when first asked.
        """
        from mcts_agent import compiled

        if compiled._core is not None:
            self.capsule()

    def capsule(self) -> Any:
        """The capsule for the model's current parameters (made and checked once), or None.

        Every call reads the parameters again (a few attributes, about a
        microsecond: the compiled loop asks once per chunk of iterations) and
        makes a new capsule if they changed.

        Returns:
            A ``PyCapsule`` named ``"mcts_agent.native_rollout"``, or None
            (then :attr:`refusal` says why; while :meth:`python_rollout`
            runs, None with :attr:`refusal` unchanged).
        """
        from mcts_agent import compiled

        if self._python:
            return None
        core = compiled._core_module
        if core is None:
            self.refusal = "the compiled core mcts_agent._core is not built"
            return None
        model = self.model
        if self._scratch is None:
            self._scratch = model._checkout(model._capture(model._unwrapped))
        watched = _watched(self._scratch)
        if watched == self._watched:
            return self._capsule
        self._watched, self._capsule = None, None
        made = native_parameters(model, self._scratch)
        if isinstance(made, str):
            self._watched, self.refusal = watched, made
            return None
        try:
            root = model.state_of(model.env)
        except ValueError as error:  # not kept: the next call checks again
            self.refusal = f"the start-up check needs the live env's position: {error}"
            return None
        index = _action_numbers(model)
        repeated = model.rollout_actions == "repeated"
        capsule = core.gym_rollout(made[0], index, *made[1:], repeated)
        self._watched, self.refusal = watched, _check(core, model, capsule, root)
        if self.refusal is None:
            self._capsule = capsule
        return self._capsule

    def for_rollout(self) -> Any:
        """The capsule ``GymnasiumModel.rollout`` runs: the model's ``native_rollout()``.

        None with the compiled core off (``MCTS_AGENT_PURE_PYTHON=1``,
        ``compiled.pure_python()``: the Python rollout is the reference) and
        while :meth:`python_rollout` runs.
        """
        from mcts_agent import compiled

        if compiled._core is None or self._python:
            return None
        return self.model.native_rollout()

    def run(self, capsule: Any, state: Any, rng: random.Random, limit: int, gamma: float) -> float:
        """One rollout of ``capsule`` (:meth:`capsule`'s) from ``state``, continuing ``rng``.

        The core's ``call_native``: it reads the state of ``rng`` (a
        ``random.Random``), draws in C and writes the state back. Arguments
        and return as :meth:`GymnasiumModel.rollout
        <mcts_agent.adapters.gymnasium.model.GymnasiumModel.rollout>`'s.
        """
        from mcts_agent import compiled

        return compiled._core_module.call_native(capsule, state, rng, limit, gamma)

    def python_rollout(self, state: Any, rng: random.Random, limit: int, gamma: float) -> float:
        """The model's ``rollout`` in Python, the capsule set aside: what the capsule must equal.

        :meth:`GymnasiumModel.rollout
        <mcts_agent.adapters.gymnasium.model.GymnasiumModel.rollout>` runs the
        capsule when :meth:`capsule` gives one; here :meth:`capsule` gives None
        until it returns, so the Python moves run. Arguments and return as
        ``rollout``'s.
        """
        self._python, was = True, self._python
        try:
            return self.model.rollout(state, rng, limit, gamma)
        finally:
            self._python = was


def _watched(scratch: Any) -> tuple:
    """What a capsule copies from ``scratch``, to compare: the parameters, a table's identity.

    A table stepper's ``transitions`` and ``masks`` are its own (built from
    ``P`` with the model, never changed), so their identity stands for them.
    """
    names = _WATCHED.get(type(scratch))
    if names is None:
        return (id(getattr(scratch, "transitions", None)), id(getattr(scratch, "masks", None)))
    return tuple(tuple(v) if isinstance(v, list) else v for v in names(scratch))


def _check(core: Any, model: Any, capsule: Any, root: Any) -> str | None:
    """The start-up check: None if the capsule's steps and rollouts are Python's, else why.

    Two random walks of :data:`CHECK_WALK` steps from ``root`` (the live
    position): every step of the capsule (``gym_step``) must give the
    position (the floats bit for bit), reward and termination of the model's
    ``step``; then the :data:`CHECK_ROLLOUTS` from three of the walks' states
    must return the Python rollout's return, bit for bit, and leave the
    generator in the same state.
    """
    index = _action_numbers(model)
    walk = random.Random(0)
    states = []
    for _ in range(2):
        state = root
        for _ in range(CHECK_WALK):
            states.append(state)
            action = model.sample_action(state, walk)
            number = action if index is None else index[action]
            result = model.step(state, action)
            position, reward, terminated = core.gym_step(capsule, state.snapshot, number)
            expected = _position(result.next_state.snapshot)
            if (
                _bits(position) != _bits(expected)
                or reward.hex() != result.reward.hex()
                or (terminated != result.terminated and result.next_state.steps_left != 0)
            ):
                return (
                    f"the native step differs from the Python one: {(position, reward, terminated)}"
                    f" against {(expected, result.reward, result.terminated)} by action {action!r}"
                    f" from {state!r}: the Python rollout runs"
                )
            if result.terminated:
                break
            state = result.next_state
    for state in (states[0], states[len(states) // 2], states[-1]):
        for seed, limit, gamma in CHECK_ROLLOUTS:
            python_rng, native_rng = random.Random(seed), random.Random(seed)
            expected = model._native_rollouts.python_rollout(state, python_rng, limit, gamma)
            got = core.call_native(capsule, state, native_rng, limit, gamma)
            if expected.hex() != got.hex() or python_rng.getstate() != native_rng.getstate():
                return (
                    f"the native rollout differs from the Python one (returns {got!r} and "
                    f"{expected!r}, or the generators' states) from {state!r} with seed "
                    f"{seed}, limit {limit}, gamma {gamma}: the Python rollout runs"
                )
    return None


def _position(snapshot: Any) -> Any:
    """The position in a snapshot: a table's cell, or the state's floats (the robot's x, y)."""
    first = snapshot[0]
    if isinstance(first, int | np.integer):
        return int(first)
    if isinstance(first, float):  # PointRobotEnv.get_state's (x, y, terminated)
        return snapshot[0], snapshot[1]
    return tuple(float(v) for v in first)


def _bits(position: Any) -> Any:
    """A position with its floats as their exact hex strings (to compare bit for bit)."""
    return position if isinstance(position, int) else tuple(v.hex() for v in position)
