"""The Gymnasium envs the adapter knows by heart (Gymnasium 1.4).

For each: the attributes that hold its whole position (the ``"snapshot"``
clone), the observation and the mask of its current position, whether its
position is terminal,
what makes it stochastic, and, for the toy-text envs and CartPole, a faster
replica of its ``step`` (checked against the env's own at start-up).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.envs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    Continuous_MountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from gymnasium.envs.toy_text import BlackjackEnv, CliffWalkingEnv, FrozenLakeEnv, TaxiEnv

__all__ = [
    "FAST_STEPPERS",
    "KNOWN_MASKS",
    "KNOWN_OBSERVATIONS",
    "KNOWN_SNAPSHOTS",
    "KNOWN_TERMINATIONS",
    "TABLE_ENVS",
    "TaxiEnv",
    "known_chance",
]

# The attributes that hold the whole position of the Gymnasium envs we know
# (read in their ``step`` and ``reset``, Gymnasium 1.4); exact classes only, as
# a subclass may keep more state. Every one of these
# envs *replaces* these attributes in ``step`` (never mutates them in place),
# so a snapshot may share the objects with the scratch env.
KNOWN_SNAPSHOTS: dict[type, tuple[str, ...]] = {
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
KNOWN_MASKS: dict[type, Callable[[Any], Any]] = {
    TaxiEnv: lambda env: env.action_mask(env.s),
}


def _toy_text_observation(env: Any) -> int:
    return int(env.s)


def _state_observation(env: Any) -> np.ndarray:
    return np.array(env.state, dtype=np.float32)


# The observation of the current position, as the env's ``reset`` and ``step``
# return it (Gymnasium 1.4), given the env or its replica of ``FAST_STEPPERS``
# in that position (they keep the same position attributes); exact classes only.
# Gymnasium envs do not keep the observation they returned.
KNOWN_OBSERVATIONS: dict[type, Callable[[Any], Any]] = {
    FrozenLakeEnv: _toy_text_observation,
    CliffWalkingEnv: _toy_text_observation,
    TaxiEnv: _toy_text_observation,
    CartPoleEnv: _state_observation,
    AcrobotEnv: lambda env: env._get_ob(),
    MountainCarEnv: _state_observation,
    Continuous_MountainCarEnv: _state_observation,
    PendulumEnv: lambda env: env._get_obs(),
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
KNOWN_TERMINATIONS: dict[type, Callable[[Any], bool]] = {
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


TABLE_ENVS = (FrozenLakeEnv, CliffWalkingEnv, TaxiEnv)
"""The toy-text envs stepped through their transition table ``P`` (exact classes)."""


def known_chance(env: Any) -> str | None:
    """How the chance of a Gymnasium env we know is planned; refuses hidden information.

    Returns:
        ``"outcomes"`` for an exact toy-text class (:data:`TABLE_ENVS`) whose
        ``P`` has several outcomes for some ``(state, action)``
        (``is_slippery=True``, ``is_rainy=True``); ``"sample_step"`` for Taxi
        with ``fickle_passenger=True`` (the new destination is drawn from
        ``np_random`` outside ``P``); None otherwise (the start-up checks decide).

    Raises:
        ValueError: for Blackjack (hidden information, not chance), and for a
            subclass of a toy-text env whose table is stochastic.
    """
    if isinstance(env, BlackjackEnv):
        raise ValueError(
            f"{type(env).__name__} hides information, which is not chance: the dealer's "
            "face-down card is dealt at reset and is already in the env when the player "
            "moves, so a clone would know it and the plan would see the card. The planner "
            "plans games of perfect information (with or without chance)"
        )
    if type(env) is TaxiEnv and getattr(env, "fickle_passenger", False):
        return "sample_step"
    table = getattr(env, "P", None)
    if not isinstance(table, dict):
        return None
    for state, moves in table.items():
        if not isinstance(moves, dict):
            return None
        for action, outcomes in moves.items():
            if not isinstance(outcomes, list):
                return None
            if sum(1 for outcome in outcomes if outcome[0] > 0) > 1:
                if type(env) in TABLE_ENVS:
                    return "outcomes"
                cause = _RANDOMNESS_CAUSES.get(type(env), "random transitions")
                raise ValueError(
                    f"{type(env).__name__} is not deterministic ({cause}): its transition table "
                    f"P gives {len(outcomes)} outcomes for state {state}, action {action}; only "
                    f"the exact classes {[c.__name__ for c in TABLE_ENVS]} are planned through "
                    "their table"
                )
    return None


class _TableStepper:
    """Steps a deterministic toy-text env through its transition table ``P``.

    FrozenLake, CliffWalking and Taxi keep their model in ``P[s][a]``, a list
    of ``(probability, next_s, reward, terminated)``; their ``step`` draws one
    outcome with ``np_random`` and sets ``s`` and ``lastaction``. Once ``P``
    is checked to have one outcome per entry, this does the same without the
    draw, ~10x faster (the start-up clone check compares it with the env's
    own ``step``). The position attributes of ``KNOWN_SNAPSHOTS`` live in
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
        for name in KNOWN_SNAPSHOTS[type(env)]:
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
        for name in KNOWN_SNAPSHOTS[CartPoleEnv]:
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
FAST_STEPPERS: dict[type, Callable[[Any], Any]] = {
    FrozenLakeEnv: _TableStepper,
    CliffWalkingEnv: _TableStepper,
    TaxiEnv: _TableStepper,
    CartPoleEnv: _CartPoleStepper,
}
